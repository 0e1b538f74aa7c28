/* Reading a Python Tessel schedule as the reference itself would unroll it (see ts_pytessel.h).
 *
 * The reference's unroll to N micro-batches keeps the instances before its window, repeats the
 * window's instances N - nmids + 1 times, each time one micro-batch later and P steps later, and
 * shifts the instances after the window by the last repetition. Our repetend is one period long,
 * so the import rebuilds that unroll at the fewest micro-batches where a window [t, t + P) holds
 * one repetition of every block, with nothing of the warm-up or cool-down inside it: unrolling
 * that schedule further is then exactly the reference's unroll. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include "pytessel_internal.h"

/* The reference's window: the instance of every block in it, and what lies around it. */
typedef struct {
    int *mid; /* per block */
    long *step; /* per block */
    long P; /* the reference's shift per micro-batch */
    long warm_max; /* last start before the window, LONG_MIN if none */
    long cool_min; /* first start after it, LONG_MAX if none */
    long lo, hi; /* first and last start inside it */
} ts_pywin;

long ts_py_period(const ts_placement *p, const int *mid, const long *step, bool deps)
{
    long rspan = 0, rofst = 0;
    /* The largest extent, on one device, of the window's instances ... */
    for (int d = 0; d < p->ndevs; d++) {
        long lo = LONG_MAX, hi = LONG_MIN;
        for (int b = 0; b < p->nblocks; b++)
            if (ts_block_on(&p->blocks[b], d)) {
                lo = step[b] < lo ? step[b] : lo;
                hi = step[b] + p->blocks[b].span > hi ? step[b] + p->blocks[b].span : hi;
            }
        if (lo <= hi && hi - lo > rspan)
            rspan = hi - lo;
    }
    /* ... plus what an edge between a block and the next micro-batch's instance of its neighbour
     * asks of the next repetition, in the reference's own terms (same-micro-batch edges only). */
    for (int i = 0; deps && i < p->nedges; i++) {
        const ts_edge *x = &p->edges[i];
        long o = LONG_MIN;
        if (x->distance)
            continue;
        if (mid[x->dst] == mid[x->src] + 1)
            o = step[x->dst] - step[x->src] - rspan;
        if (mid[x->src] == mid[x->dst] + 1)
            o = step[x->src] + p->blocks[x->src].span - step[x->dst] - rspan;
        if (o > rofst)
            rofst = o;
    }
    return rspan + rofst;
}

/* Finds every block's instance in the window; each must be there exactly once. */
static int ts_pywin_find(const ts_pyplan *pl, const ts_placement *p, ts_pywin *w, ts_err *e)
{
    int *count = calloc((size_t)p->nblocks, sizeof(int));
    if (!count)
        return ts_fail(e, TS_ESYS, "out of memory");
    w->warm_max = w->hi = LONG_MIN;
    w->cool_min = w->lo = LONG_MAX;
    for (int i = 0; i < pl->ninst; i++) {
        const ts_pyinst *x = &pl->inst[i];
        int b = pl->gids[x->g].block;
        if (x->step < pl->rs) {
            w->warm_max = x->step > w->warm_max ? x->step : w->warm_max;
        } else if (x->step >= pl->re) {
            w->cool_min = x->step < w->cool_min ? x->step : w->cool_min;
        } else {
            count[b]++;
            w->mid[b] = x->mid;
            w->step[b] = x->step;
            w->lo = x->step < w->lo ? x->step : w->lo;
            w->hi = x->step > w->hi ? x->step : w->hi;
        }
    }
    for (int b = 0; b < p->nblocks; b++)
        if (count[b] != 1) {
            int c = count[b];
            free(count);
            return ts_fail(e, TS_EINPUT,
                           "%s: the repetend window [%ld, %ld) holds %d instances of block '%s'; "
                           "the reference's unroll needs exactly one of every block",
                           pl->path, pl->rs, pl->re, c, p->blocks[b].id);
        }
    free(count);
    w->P = ts_py_period(p, w->mid, w->step, true);
    return TS_OK;
}

/* The start t of our one-period window after R repetitions: every block's repetition sequence
 * crosses [t, t + P), the warm-up lies before it and the cool-down after it. The reference's own
 * start is kept where it qualifies (files this program wrote keep their window). -1: none. */
static long ts_pywin_start(const ts_pyplan *pl, const ts_pywin *w, long R)
{
    long tlo = w->hi - w->P + 1, thi = w->lo + R * w->P;
    if (w->warm_max != LONG_MIN && w->warm_max + 1 > tlo)
        tlo = w->warm_max + 1;
    if (w->cool_min != LONG_MAX && w->cool_min + (R - 1) * w->P < thi)
        thi = w->cool_min + (R - 1) * w->P;
    if (tlo > thi)
        return -1;
    return pl->rs >= tlo && pl->rs <= thi ? pl->rs : tlo;
}

/* Fewest repetitions R for which a one-period window exists (a closed form: thi grows by P). */
static long ts_pywin_reps(const ts_pyplan *pl, const ts_pywin *w)
{
    long R = 0;
    while (ts_pywin_start(pl, w, R) < 0) {
        long tlo = w->hi - w->P + 1, base = w->lo;
        if (w->warm_max != LONG_MIN && w->warm_max + 1 > tlo)
            tlo = w->warm_max + 1;
        if (w->cool_min != LONG_MAX && w->cool_min - w->P < base)
            base = w->cool_min - w->P;
        long need = (tlo - base + w->P - 1) / w->P;
        R = need > R ? need : R + 1;
    }
    return R;
}

/* The reference's unroll with R further repetitions, as entries of s. */
static int ts_py_unroll(const ts_pyplan *pl, const ts_pywin *w, long R, ts_schedule *s)
{
    for (int i = 0; i < pl->ninst; i++) {
        const ts_pyinst *x = &pl->inst[i];
        int b = pl->gids[x->g].block, bad = 0;
        if (x->step < pl->rs)
            bad = ts_schedule_add(s, b, x->mid, x->step);
        else if (x->step >= pl->re)
            bad = ts_schedule_add(s, b, x->mid + (int)R, x->step + R * w->P);
        else
            for (long r = 0; r <= R && !bad; r++)
                bad = ts_schedule_add(s, b, x->mid + (int)r, x->step + r * w->P);
        if (bad)
            return -1;
    }
    return 0;
}

/* Our repetend [t, t + P): block b's repetition that starts in it. */
static int ts_py_set_repetend(ts_schedule *s, const ts_pywin *w, long t)
{
    int n = s->placement->nblocks;
    int *mids = malloc((size_t)n * sizeof(int));
    if (!mids)
        return -1;
    for (int b = 0; b < n; b++) {
        long r = t > w->step[b] ? (t - w->step[b] + w->P - 1) / w->P : 0;
        mids[b] = w->mid[b] + (int)r;
    }
    int rc = ts_schedule_set_repetend(s, t, t + w->P, mids);
    free(mids);
    return rc;
}

/* The reference schedule at n micro-batches (R = n - nmids repetitions), with our repetend when a
 * one-period window exists there; without a repetend window in the file, the file as it is. */
static int ts_py_build(const ts_pyplan *pl, const ts_pywin *w, long n, ts_schedule **out, ts_err *e)
{
    long R = n - pl->nmids, t = pl->has_rep ? ts_pywin_start(pl, w, R) : -1;
    ts_schedule *s = ts_schedule_new((*out)->placement, (int)n);
    ts_pyplan flat = *pl;
    if (!pl->has_rep)
        flat.rs = flat.re = LONG_MAX; /* everything is warm-up */
    if (!s || ts_py_unroll(&flat, w, R, s) || (t >= 0 && ts_py_set_repetend(s, w, t))) {
        ts_schedule_free(s);
        return ts_fail(e, TS_ESYS, "out of memory");
    }
    ts_schedule_sort(s);
    json_t *info = json_pack("{ss ss}", "method", "python-tessel", "source", pl->path);
    if (pl->has_rep && info)
        json_object_set_new(info, "reference_repetend",
                            json_pack("{sI sI sI}", "start", (json_int_t)pl->rs, "end",
                                      (json_int_t)pl->re, "period", (json_int_t)w->P));
    ts_schedule_set_search_info(s, info);
    ts_schedule_free(*out);
    *out = s;
    return TS_OK;
}

/* The result must be valid, and so must a few further repetitions of its repetend. */
static int ts_py_check(const ts_schedule *s, const char *path, ts_err *e)
{
    ts_err v = {0};
    ts_schedule *u = NULL;
    int rc = ts_schedule_validate(s, NULL, &v);
    if (!rc && s->has_repetend) {
        rc = ts_schedule_unroll(s, s->nmicros + 2 * s->rep.k + 2, &u, &v);
        if (!rc)
            rc = ts_schedule_validate(u, NULL, &v);
        ts_schedule_free(u);
    }
    if (rc == TS_ESYS)
        return ts_fail(e, TS_ESYS, "%s", v.msg);
    if (rc)
        return ts_fail(e, TS_ENOANSWER, "%s: the reference's schedule is not valid here: %s", path,
                       v.msg);
    return TS_OK;
}

static long ts_py_nmicros(const ts_pyplan *pl, const ts_pywin *w, const ts_pyimport_opts *o,
                          ts_err *e)
{
    long n = o && o->nmicros > 0 ? o->nmicros : pl->nmids;
    if (n < pl->nmids)
        return ts_fail(e, TS_EINPUT,
                       "%s: holds %d micro-batches; the reference unrolls only to "
                       "more, not to %ld",
                       pl->path, pl->nmids, n),
               -1;
    if (pl->has_rep && !(o && o->nmicros > 0))
        n = pl->nmids + ts_pywin_reps(pl, w);
    if (n > pl->nmids && !pl->has_rep)
        return ts_fail(e, TS_EINPUT, "%s: has no repetend, so it cannot be unrolled to %ld",
                       pl->path, n),
               -1;
    if (n > 1000000 || n * (long)pl->ngids > 100000000L)
        return ts_fail(e, TS_EINPUT, "%s: unrolling to %ld micro-batches is too large", pl->path,
                       n),
               -1;
    return n;
}

int ts_pyplan_schedule(const ts_pyplan *pl, const ts_placement *p, const ts_pyimport_opts *o,
                       ts_schedule **out, ts_err *e)
{
    ts_pywin w = {0};
    w.mid = calloc((size_t)p->nblocks, sizeof(int));
    w.step = calloc((size_t)p->nblocks, sizeof(long));
    ts_schedule *s = ts_schedule_new(p, 1); /* carries the placement to ts_py_build */
    long n = -1;
    int rc = TS_OK;
    *out = NULL;
    if (!w.mid || !w.step || !s)
        rc = ts_fail(e, TS_ESYS, "out of memory");
    if (!rc && pl->has_rep)
        rc = ts_pywin_find(pl, p, &w, e);
    if (!rc && (n = ts_py_nmicros(pl, &w, o, e)) < 0)
        rc = e ? e->code : TS_EINPUT;
    if (!rc)
        rc = ts_py_build(pl, &w, n, &s, e);
    if (!rc && o && o->has_memory)
        ts_schedule_set_uniform_memory(s, o->memory);
    if (!rc) {
        *out = s;
        s = NULL;
    }
    ts_schedule_free(s);
    free(w.mid);
    free(w.step);
    return rc;
}

int ts_pyimport_read(const char *path, const ts_placement *p, const ts_pyimport_opts *o,
                     ts_schedule **out, ts_err *e)
{
    ts_pyplan pl;
    *out = NULL;
    int rc = ts_pyplan_read(path, p, &pl, e);
    if (rc)
        return rc;
    rc = ts_py_match(&pl, p, e);
    if (!rc)
        rc = ts_pyplan_schedule(&pl, p, o, out, e);
    if (!rc && (rc = ts_py_check(*out, path, e)) != TS_OK) {
        ts_schedule_free(*out);
        *out = NULL;
    }
    ts_pyplan_free(&pl);
    return rc;
}

int ts_pyimport_load(const char *path, const ts_placement *p, ts_schedule **out, ts_err *e)
{
    return ts_pyimport_read(path, p, NULL, out, e);
}
