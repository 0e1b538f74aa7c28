/* A verified modulo timetable turned into schedules: the latency of one micro-batch, the plain
 * timetable for n micro-batches, and its repetend window (ts_modulo_repetend and the schedule
 * that carries it). They serve the search (modulo.c) only, below it. */
#include <stdlib.h>
#include "modulo_internal.h"

long ts_modulo_latency(const ts_placement *p, const long *t)
{
    if (!p->nblocks)
        return 0;
    long lo = t[0], hi = t[0] + p->blocks[0].span;
    for (int b = 1; b < p->nblocks; b++) {
        if (t[b] < lo)
            lo = t[b];
        if (t[b] + p->blocks[b].span > hi)
            hi = t[b] + p->blocks[b].span;
    }
    return hi - lo;
}

static long ts_min_start(const ts_placement *p, const long *t)
{
    long lo = p->nblocks ? t[0] : 0;
    for (int b = 1; b < p->nblocks; b++)
        if (t[b] < lo)
            lo = t[b];
    return lo;
}

ts_schedule *ts_modulo_timetable(const ts_placement *p, long P, const long *t, int n)
{
    ts_schedule *s = ts_schedule_new(p, n);
    if (!s)
        return NULL;
    long lo = ts_min_start(p, t);
    for (int j = 0; j < n; j++)
        for (int b = 0; b < p->nblocks; b++)
            if (ts_schedule_add(s, b, j, t[b] - lo + (long)j * P)) {
                ts_schedule_free(s);
                return NULL;
            }
    ts_schedule_sort(s);
    return s;
}

int ts_modulo_repetend(const ts_placement *p, long P, const long *t, long delta, ts_rep *r,
                       long *wstart)
{
    int *mids = r->mids;
    long *start = r->start;
    int nb = p->nblocks;
    long lo = ts_min_start(p, t), qmax = 0;
    if (delta < 0 || delta >= P)
        delta = 0;
    for (int b = 0; b < nb; b++) {
        long q = (t[b] - lo) / P;
        if (q > qmax)
            qmax = q;
    }
    long W = qmax * P + delta;
    int k = 0;
    for (int b = 0; b < nb; b++) {
        long r = (t[b] - lo) % P;
        mids[b] = (int)(qmax - (t[b] - lo) / P + (r < delta ? 1 : 0));
        if (start)
            start[b] = t[b] - lo + (long)mids[b] * P - W;
        if (mids[b] + 1 > k)
            k = mids[b] + 1;
    }
    if (wstart)
        *wstart = W;
    r->period = P;
    r->k = k;
    return k;
}

ts_schedule *ts_modulo_repetend_schedule(const ts_placement *p, long P, const long *t, long delta)
{
    int *mids = malloc((size_t)(p->nblocks ? p->nblocks : 1) * sizeof(int));
    if (!mids)
        return NULL;
    long W;
    ts_rep r = {.start = NULL, .mids = mids};
    int k = ts_modulo_repetend(p, P, t, delta, &r, &W);
    ts_schedule *s = ts_modulo_timetable(p, P, t, k);
    if (!s || ts_schedule_set_repetend(s, W, W + P, mids)) {
        ts_schedule_free(s);
        s = NULL;
    }
    free(mids);
    return s;
}
