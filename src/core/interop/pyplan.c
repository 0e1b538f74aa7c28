/* Parsing a Python Tessel schedule into its instances and distinct gids (see ts_pytessel.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pytessel_internal.h"
#include "ts_json.h"
#include "ts_jsonutil.h"

/* The reference writes numbers from Python, where memory may be a float: whole reals pass. */
static int ts_py_number(json_t *v, const char *ctx, const char *key, long lo, long hi, long *out,
                        ts_err *e)
{
    json_t *x = json_object_get(v, key);
    if (!x)
        return ts_fail(e, TS_EINPUT, "%s: missing field '%s'", ctx, key);
    if (json_is_real(x)) {
        double d = json_real_value(x);
        if (d != floor(d) || d < (double)lo || d > (double)hi)
            return ts_fail(e, TS_EINPUT,
                           "%s: field '%s' must be a whole number in [%ld, %ld], got %g", ctx, key,
                           lo, hi, d);
        *out = (long)d;
        return TS_OK;
    }
    return ts_jint(v, key, ctx, lo, hi, out, e);
}

/* Steps stay far from overflow even after unrolling a million micro-batches. */
#define TS_PY_MAX_STEP 1000000000000L

static int ts_cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* One element of "blocks": its instance fields and its gid's signature (devs into g->devs). */
static int ts_py_read_block(json_t *jb, const char *ctx, int ndevs, ts_pygid *g, long *mid,
                            long *step, ts_err *e)
{
    const char *btype;
    json_t *dev;
    if (!json_is_object(jb))
        return ts_fail(e, TS_EINPUT, "%s: expected an object, got %s", ctx, ts_jtype(jb));
    if (ts_py_number(jb, ctx, "gid", 0, TS_MAX_BLOCKS, &g->gid, e) ||
        ts_py_number(jb, ctx, "mid", 0, 1000000, mid, e) ||
        ts_py_number(jb, ctx, "step", 0, TS_PY_MAX_STEP, step, e) ||
        ts_py_number(jb, ctx, "span", 1, TS_MAX_SPAN, &g->span, e) ||
        ts_py_number(jb, ctx, "memory", -TS_MAX_MEMORY, TS_MAX_MEMORY, &g->memory, e) ||
        ts_jstr(jb, "btype", ctx, &btype, e) || ts_jarray(jb, "device", ctx, false, &dev, e))
        return TS_EINPUT;
    if (ts_kind_parse(btype, &g->kind) || g->kind == TS_KIND_OTHER)
        return ts_fail(e, TS_EINPUT, "%s: btype must be 'forward' or 'backward', got '%s'", ctx,
                       btype);
    if (json_array_size(dev) > (size_t)ndevs)
        return ts_fail(e, TS_EINPUT, "%s: more devices than the %d of the schedule", ctx, ndevs);
    g->ndev = (int)json_array_size(dev);
    for (int k = 0; k < g->ndev; k++) {
        long d;
        if (ts_jint_value(json_array_get(dev, (size_t)k), ctx, "device", 0, ndevs - 1, &d, e))
            return TS_EINPUT;
        g->devs[k] = (int)d;
    }
    qsort(g->devs, (size_t)g->ndev, sizeof(int), ts_cmp_int);
    for (int k = 1; k < g->ndev; k++)
        if (g->devs[k] == g->devs[k - 1])
            return ts_fail(e, TS_EINPUT, "%s: device %d listed twice", ctx, g->devs[k]);
    return TS_OK;
}

/* Index of g's gid in pl->gids, adding it (and taking over g->devs) when new; a gid seen before
 * must carry the same signature. Returns -1 after setting e. */
static int ts_py_gid_index(ts_pyplan *pl, ts_pygid *g, const char *ctx, ts_err *e)
{
    for (int k = 0; k < pl->ngids; k++) {
        const ts_pygid *h = &pl->gids[k];
        if (h->gid != g->gid)
            continue;
        if (h->kind != g->kind || h->span != g->span || h->memory != g->memory ||
            h->ndev != g->ndev || memcmp(h->devs, g->devs, (size_t)g->ndev * sizeof(int))) {
            ts_fail(e, TS_EINPUT,
                    "%s: gid %ld appears with a different btype, span, memory or devices", ctx,
                    g->gid);
            return -1;
        }
        return k;
    }
    g->block = -1;
    pl->gids[pl->ngids] = *g;
    g->devs = NULL;
    return pl->ngids++;
}

static int ts_py_read_repetend(json_t *j, ts_pyplan *pl, ts_err *e)
{
    json_t *jr = json_object_get(j, "repetend");
    long st, en;
    if (!jr || json_is_null(jr))
        return TS_OK;
    if (!json_is_array(jr) || json_array_size(jr) != 2 ||
        ts_jint_value(json_array_get(jr, 0), pl->path, "repetend start", 0, TS_PY_MAX_STEP, &st,
                      e) ||
        ts_jint_value(json_array_get(jr, 1), pl->path, "repetend end", st + 1, TS_PY_MAX_STEP, &en,
                      e))
        return ts_fail(e, TS_EINPUT, "%s: 'repetend' must be [start, end] with start < end",
                       pl->path);
    pl->has_rep = true;
    pl->rs = st;
    pl->re = en;
    return TS_OK;
}

static int ts_cmp_gid(const void *a, const void *b)
{
    const ts_pygid *x = a, *y = b;
    return (x->gid > y->gid) - (x->gid < y->gid);
}

/* Sorts the gids, renumbers the instances, and checks one instance per (gid, mid) over a dense
 * range of micro-batches, as the reference's unroll assumes. */
static int ts_py_finish(ts_pyplan *pl, ts_err *e)
{
    long *val = malloc((size_t)pl->ngids * sizeof(long));
    int *seen = NULL;
    int rc = TS_OK;
    /* Every (gid, mid) once: anything else is caught here before a large table is made. */
    if ((long)pl->ngids * pl->nmids != pl->ninst) {
        rc = ts_fail(e, TS_EINPUT,
                     "%s: %d blocks for %d gids and %d micro-batches: every gid needs exactly one "
                     "block per micro-batch",
                     pl->path, pl->ninst, pl->ngids, pl->nmids);
        goto out;
    }
    seen = calloc((size_t)pl->ninst, sizeof(int));
    if (!val || !seen) {
        rc = ts_fail(e, TS_ESYS, "out of memory");
        goto out;
    }
    for (int k = 0; k < pl->ngids; k++)
        val[k] = pl->gids[k].gid;
    qsort(pl->gids, (size_t)pl->ngids, sizeof *pl->gids, ts_cmp_gid);
    for (int i = 0; i < pl->ninst && !rc; i++) {
        ts_pyinst *x = &pl->inst[i];
        int g = 0;
        while (pl->gids[g].gid != val[x->g])
            g++;
        x->g = g;
        if (seen[g * pl->nmids + x->mid]++)
            rc = ts_fail(e, TS_EINPUT, "%s: gid %ld of micro-batch %d appears twice", pl->path,
                         pl->gids[g].gid, x->mid);
    }
    for (int g = 0; g < pl->ngids && !rc; g++)
        for (int m = 0; m < pl->nmids && !rc; m++)
            if (!seen[g * pl->nmids + m])
                rc = ts_fail(e, TS_EINPUT, "%s: gid %ld has no instance for micro-batch %d",
                             pl->path, pl->gids[g].gid, m);
out:
    free(val);
    free(seen);
    return rc;
}

static int ts_py_read_blocks(json_t *blocks, ts_pyplan *pl, ts_err *e)
{
    size_t nb = json_array_size(blocks);
    pl->gids = calloc(nb, sizeof *pl->gids);
    pl->inst = calloc(nb, sizeof *pl->inst);
    ts_pygid g = {0};
    g.devs = malloc((size_t)pl->ndevs * sizeof(int));
    if (!pl->gids || !pl->inst || !g.devs) {
        free(g.devs);
        return ts_fail(e, TS_ESYS, "out of memory");
    }
    for (size_t i = 0; i < nb; i++) {
        char ctx[512];
        long mid, step;
        snprintf(ctx, sizeof ctx, "%s: blocks[%zu]", pl->path, i);
        int k = -1;
        if (!ts_py_read_block(json_array_get(blocks, i), ctx, pl->ndevs, &g, &mid, &step, e))
            k = ts_py_gid_index(pl, &g, ctx, e);
        if (k < 0 || (!g.devs && !(g.devs = malloc((size_t)pl->ndevs * sizeof(int))))) {
            free(g.devs);
            return k < 0 ? TS_EINPUT : ts_fail(e, TS_ESYS, "out of memory");
        }
        pl->inst[pl->ninst++] = (ts_pyinst){k, (int)mid, step};
        if (mid + 1 > pl->nmids)
            pl->nmids = (int)mid + 1;
    }
    free(g.devs);
    return ts_py_finish(pl, e);
}

int ts_pyplan_read(const char *path, const ts_placement *p, ts_pyplan *pl, ts_err *e)
{
    json_t *j, *blocks;
    long ndevs;
    memset(pl, 0, sizeof *pl);
    pl->path = path;
    if (ts_json_read_file(path, &j, e))
        return TS_EINPUT;
    int rc = TS_EINPUT;
    if (!json_is_object(j))
        ts_fail(e, TS_EINPUT, "%s: expected a JSON object, got %s", path, ts_jtype(j));
    else if (!ts_jint(j, "ndevs", path, 1, TS_MAX_DEVS, &ndevs, e) &&
             !ts_jarray(j, "blocks", path, false, &blocks, e)) {
        pl->ndevs = (int)ndevs;
        if (ndevs != p->ndevs)
            ts_fail(e, TS_EINPUT, "%s: 'ndevs' is %ld but placement '%s' has %d devices", path,
                    ndevs, p->name, p->ndevs);
        else if (!ts_py_read_repetend(j, pl, e))
            rc = ts_py_read_blocks(blocks, pl, e);
    }
    json_decref(j);
    if (rc)
        ts_pyplan_free(pl);
    return rc;
}

void ts_pyplan_free(ts_pyplan *pl)
{
    for (int k = 0; k < pl->ngids; k++)
        free(pl->gids[k].devs);
    free(pl->gids);
    free(pl->inst);
    pl->gids = NULL;
    pl->inst = NULL;
    pl->ngids = pl->ninst = 0;
}
