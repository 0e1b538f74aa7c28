/* Reader for schedules written by the Python Tessel: {ndevs, blocks: [{mid, span, memory, btype,
 * gid, step, device}], repetend: [start, end]}. Its blocks carry no edges and name their sub-graph
 * only by a number (gid), so a placement supplies the edges and the identities: each gid is matched
 * to the placement's block with the same devices, kind, span and memory; gids sharing one
 * signature map to such blocks in ascending order. The validator then checks the result. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_json.h"
#include "ts_jsonutil.h"

typedef struct {
    long gid;
    int ndev;
    int devs[64];
    ts_kind kind;
    long span, memory;
    int block; /* mapped block, -1 until matched */
} ts_pygroup;

static int ts_py_number(json_t *v, const char *ctx, const char *key, long *out, ts_err *e)
{
    json_t *x = json_object_get(v, key);
    if (!x)
        return ts_fail(e, TS_EINPUT, "%s: missing field '%s'", ctx, key);
    if (json_is_real(x)) {
        double d = json_real_value(x);
        if (d != floor(d) || fabs(d) > 1e12)
            return ts_fail(e, TS_EINPUT, "%s: field '%s' must be a whole number, got %g", ctx, key, d);
        *out = (long)d;
        return TS_OK;
    }
    return ts_jint(v, key, ctx, -1000000000000L, 1000000000000L, out, e);
}

static int ts_py_sig_eq(const ts_pygroup *g, const ts_block *b)
{
    if (g->ndev != b->ndevices || g->kind != b->kind || g->span != b->span || g->memory != b->memory)
        return 0;
    for (int i = 0; i < g->ndev; i++)
        if (g->devs[i] != b->devices[i])
            return 0;
    return 1;
}

static int ts_cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int ts_pyimport_load(const char *path, const ts_placement *p, ts_schedule **out, ts_err *e)
{
    json_t *j, *blocks;
    long ndevs;
    *out = NULL;
    if (ts_json_read_file(path, &j, e))
        return TS_EINPUT;
    ts_pygroup *groups = NULL;
    int ngroups = 0, maxmid = -1, rc = TS_EINPUT;
    ts_schedule *s = NULL;
    if (!json_is_object(j)) {
        ts_fail(e, TS_EINPUT, "%s: expected a JSON object, got %s", path, ts_jtype(j));
        goto out;
    }
    if (ts_jint(j, "ndevs", path, 1, TS_MAX_DEVS, &ndevs, e) ||
        ts_jarray(j, "blocks", path, false, &blocks, e))
        goto out;
    if (ndevs != p->ndevs) {
        ts_fail(e, TS_EINPUT, "%s: 'ndevs' is %ld but placement '%s' has %d devices", path, ndevs,
                p->name, p->ndevs);
        goto out;
    }
    size_t nb = json_array_size(blocks);
    groups = calloc(nb, sizeof *groups);
    long *gid_of = malloc(nb * sizeof(long)), *mid_of = malloc(nb * sizeof(long));
    long *step_of = malloc(nb * sizeof(long));
    if (!groups || !gid_of || !mid_of || !step_of) {
        free(gid_of);
        free(mid_of);
        free(step_of);
        ts_fail(e, TS_ESYS, "out of memory");
        goto out;
    }
    /* Pass 1: read every block and collect the distinct gids with their signatures. */
    for (size_t i = 0; i < nb; i++) {
        json_t *jb = json_array_get(blocks, i);
        char ctx[512];
        snprintf(ctx, sizeof ctx, "%s: blocks[%zu]", path, i);
        ts_pygroup g = {0};
        const char *btype;
        json_t *dev;
        if (!json_is_object(jb)) {
            ts_fail(e, TS_EINPUT, "%s: expected an object, got %s", ctx, ts_jtype(jb));
            goto bad;
        }
        if (ts_py_number(jb, ctx, "gid", &g.gid, e) || ts_py_number(jb, ctx, "mid", &mid_of[i], e) ||
            ts_py_number(jb, ctx, "step", &step_of[i], e) ||
            ts_py_number(jb, ctx, "span", &g.span, e) ||
            ts_py_number(jb, ctx, "memory", &g.memory, e) || ts_jstr(jb, "btype", ctx, &btype, e) ||
            ts_jarray(jb, "device", ctx, false, &dev, e))
            goto bad;
        if (mid_of[i] < 0 || mid_of[i] > 1000000 || step_of[i] < 0) {
            ts_fail(e, TS_EINPUT, "%s: 'mid' and 'step' must be non-negative", ctx);
            goto bad;
        }
        if (ts_kind_parse(btype, &g.kind)) {
            ts_fail(e, TS_EINPUT, "%s: unknown btype '%s'", ctx, btype);
            goto bad;
        }
        if (json_array_size(dev) > 64) {
            ts_fail(e, TS_EINPUT, "%s: too many devices", ctx);
            goto bad;
        }
        g.ndev = (int)json_array_size(dev);
        for (int k = 0; k < g.ndev; k++) {
            long d;
            if (ts_jint_value(json_array_get(dev, (size_t)k), ctx, "device", 0, ndevs - 1, &d, e))
                goto bad;
            g.devs[k] = (int)d;
        }
        qsort(g.devs, (size_t)g.ndev, sizeof(int), ts_cmp_int);
        gid_of[i] = g.gid;
        if (mid_of[i] > maxmid)
            maxmid = (int)mid_of[i];
        int found = -1;
        for (int k = 0; k < ngroups && found < 0; k++)
            if (groups[k].gid == g.gid)
                found = k;
        if (found < 0) {
            g.block = -1;
            groups[ngroups++] = g;
        } else if (groups[found].ndev != g.ndev || groups[found].span != g.span ||
                   groups[found].memory != g.memory || groups[found].kind != g.kind) {
            ts_fail(e, TS_EINPUT, "%s: gid %ld appears with different span, memory or devices", ctx,
                    g.gid);
            goto bad;
        }
    }
    /* Pass 2: map gids to placement blocks, signature by signature, in ascending order. */
    if (ngroups != p->nblocks) {
        ts_fail(e, TS_EINPUT, "%s: %d distinct blocks (gids) but placement '%s' has %d blocks", path,
                ngroups, p->name, p->nblocks);
        goto bad;
    }
    for (int b = 0; b < p->nblocks; b++) {
        int best = -1;
        for (int k = 0; k < ngroups; k++)
            if (groups[k].block < 0 && ts_py_sig_eq(&groups[k], &p->blocks[b]) &&
                (best < 0 || groups[k].gid < groups[best].gid))
                best = k;
        if (best < 0) {
            ts_fail(e, TS_EINPUT,
                    "%s: no block matches placement block '%s' (devices, kind, span %d, memory %d)",
                    path, p->blocks[b].id, p->blocks[b].span, p->blocks[b].memory);
            goto bad;
        }
        groups[best].block = b;
    }
    s = ts_schedule_new(p, maxmid + 1);
    if (!s) {
        ts_fail(e, TS_ESYS, "out of memory");
        goto bad;
    }
    for (size_t i = 0; i < nb; i++) {
        int b = -1;
        for (int k = 0; k < ngroups && b < 0; k++)
            if (groups[k].gid == gid_of[i])
                b = groups[k].block;
        if (ts_schedule_add(s, b, (int)mid_of[i], step_of[i])) {
            ts_fail(e, TS_ESYS, "out of memory");
            goto bad;
        }
    }
    json_t *jr = json_object_get(j, "repetend");
    if (jr && !json_is_null(jr)) {
        long st, en;
        if (!json_is_array(jr) || json_array_size(jr) != 2 ||
            ts_jint_value(json_array_get(jr, 0), path, "repetend start", 0, 1000000000000L, &st, e) ||
            ts_jint_value(json_array_get(jr, 1), path, "repetend end", st + 1, 1000000000000L, &en, e)) {
            ts_fail(e, TS_EINPUT, "%s: 'repetend' must be [start, end]", path);
            goto bad;
        }
        /* Keep the window only when it holds every block once: that is what unrolling needs. */
        int *mids = malloc((size_t)p->nblocks * sizeof(int));
        int ok = mids != NULL;
        for (int b = 0; ok && b < p->nblocks; b++)
            mids[b] = -1;
        for (int i = 0; ok && i < s->nentries; i++) {
            const ts_entry *x = &s->entries[i];
            if (x->step >= st && x->step < en) {
                if (mids[x->block] >= 0)
                    ok = 0;
                else
                    mids[x->block] = x->micro;
            }
        }
        for (int b = 0; ok && b < p->nblocks; b++)
            ok = mids[b] >= 0;
        if (ok && ts_schedule_set_repetend(s, st, en, mids)) {
            free(mids);
            ts_fail(e, TS_ESYS, "out of memory");
            goto bad;
        }
        free(mids);
    }
    ts_schedule_sort(s);
    ts_schedule_set_search_info(s, json_pack("{ss ss}", "method", "python-tessel", "source", path));
    *out = s;
    s = NULL;
    rc = TS_OK;
bad:
    free(gid_of);
    free(mid_of);
    free(step_of);
out:
    ts_schedule_free(s);
    free(groups);
    json_decref(j);
    return rc;
}
