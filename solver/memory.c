/* Small pieces every method needs: memory levels of offsets, the memory floor of one
 * micro-batch, the one-micro-batch-at-a-time fallback schedule. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_complete.h"
#include "ts_encode.h"

/* Per-device sum of memory * (mids[b] + extra) over the blocks on each device. */
static void ts_levels_at(const ts_placement *p, const int *mids, int extra, long *level)
{
    for (int d = 0; d < p->ndevs; d++)
        level[d] = 0;
    for (int b = 0; b < p->nblocks; b++) {
        const ts_block *bl = &p->blocks[b];
        for (int i = 0; i < bl->ndevices; i++)
            level[bl->devices[i]] += (long)bl->memory * (mids[b] + extra);
    }
}

void ts_mids_levels(const ts_placement *p, const int *mids, long *level)
{
    ts_levels_at(p, mids, 0, level);
}

void ts_cooldown_level(const ts_placement *p, const int *mids, long *level)
{
    ts_levels_at(p, mids, 1, level);
}

int ts_phase_instances(const ts_placement *p, const int *mids, int k, int phase, ts_inst *inst)
{
    int n = 0;
    for (int b = 0; b < p->nblocks; b++) {
        int lo = phase == 0 ? 0 : mids[b] + 1;
        int hi = phase == 0 ? mids[b] : k;
        for (int m = lo; m < hi; m++)
            inst[n++] = (ts_inst){b, m};
    }
    return n;
}

void ts_net_memory(const ts_placement *p, long *net)
{
    for (int d = 0; d < p->ndevs; d++)
        net[d] = 0;
    for (int b = 0; b < p->nblocks; b++) {
        const ts_block *bl = &p->blocks[b];
        for (int i = 0; i < bl->ndevices; i++)
            net[bl->devices[i]] += bl->memory;
    }
}

/* The memory floor over orders of one micro-batch; also leaves the order (starts) that reaches
 * it in start (nblocks entries). cap >= 0: stop at the greedy answer when it is <= cap. */
static int ts_floor_with_order(const ts_placement *p, long cap, const ts_budget *b, long *floor_cap,
                               bool *exact, long *start, ts_err *e)
{
    int n = p->nblocks;
    ts_inst *inst = malloc((size_t)n * sizeof *inst + 1);
    long *tmp = malloc((size_t)n * sizeof *tmp + 1);
    if (!inst || !tmp) {
        free(inst);
        free(tmp);
        return ts_fail(e, TS_ESYS, "solver: out of memory");
    }
    for (int i = 0; i < n; i++)
        inst[i] = (ts_inst){i, 0};
    ts_iset s;
    int rc = ts_iset_build(p, n, inst, false, &s, e);
    free(inst);
    if (rc) {
        free(tmp);
        return rc;
    }
    long hi = 0;
    for (int d = 0; d < p->ndevs; d++) {
        long pos = 0;
        for (int i = s.doff[d]; i < s.doff[d + 1]; i++) {
            long m = p->blocks[s.inst[s.dlist[i]].block].memory;
            if (m > 0)
                pos += m;
        }
        if (pos > hi)
            hi = pos;
    }
    /* Greedy bisection: the greedy order always fits hi (no prefix exceeds the positive sum). */
    long lo = 0, steps;
    ts_memspec ms = {true, hi, NULL};
    if (ts_iset_greedy(&s, &ms, 1, start, &steps) != 0) {
        ts_iset_free(&s);
        free(tmp);
        return ts_fail(e, TS_ESYS, "solver: greedy order failed at the positive-memory sum");
    }
    long g = hi;
    while (lo < g) {
        long mid = lo + (g - lo) / 2;
        ms.cap = mid;
        int r = ts_iset_greedy(&s, &ms, 1, tmp, &steps);
        if (r < 0) {
            rc = ts_fail(e, TS_ESYS, "solver: out of memory");
            goto out;
        }
        if (r == 0) {
            g = mid;
            memcpy(start, tmp, (size_t)n * sizeof *tmp);
        } else {
            lo = mid + 1;
        }
    }
    *floor_cap = g;
    *exact = false;
    if (cap >= 0 && g <= cap)
        goto out;
    if (g == 0) {
        *exact = true;
        goto out;
    }
    {
        ts_imodel m;
        ts_memspec mz = {true, 0, NULL};
        rc = ts_imodel_build(&m, &s, &mz, false, e);
        if (rc)
            goto out;
        ts_minres res;
        memcpy(tmp, start, (size_t)n * sizeof *tmp);
        rc = ts_imodel_minimise(&m, 1, 0, g, 0, b, 0, tmp, &res, e);
        ts_imodel_free(&m);
        if (rc)
            goto out;
        if (res.found && res.best < g) {
            *floor_cap = res.best;
            memcpy(start, tmp, (size_t)n * sizeof *tmp);
        }
        *exact = res.optimal;
    }
out:
    ts_iset_free(&s);
    free(tmp);
    return rc;
}

int ts_memory_floor(const ts_placement *p, long cap, const ts_budget *b, long *floor_cap,
                    bool *exact, ts_err *e)
{
    long *start = malloc((size_t)p->nblocks * sizeof *start + 1);
    if (!start)
        return ts_fail(e, TS_ESYS, "solver: out of memory");
    int rc = ts_floor_with_order(p, cap, b, floor_cap, exact, start, e);
    free(start);
    return rc;
}

int ts_floor_refusal(const ts_placement *p, long cap, long floor_cap, bool exact,
                     ts_search_stats *st, ts_err *e)
{
    if (floor_cap <= cap || !exact)
        return TS_OK;
    st->min_memory = floor_cap;
    return ts_fail(e, TS_ENOANSWER,
                   "no schedule of '%s' fits memory %ld: one micro-batch alone needs %ld (the "
                   "smallest capacity that works)",
                   p->name, cap, floor_cap);
}

typedef struct {
    long start;
    int block;
} ts_order_item;

static int ts_cmp_order_item(const void *a, const void *b)
{
    const ts_order_item *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->block - y->block;
}

int ts_sequential_schedule(const ts_placement *p, bool has_memory, long cap, ts_schedule **out,
                           ts_err *e)
{
    *out = NULL;
    int n = p->nblocks;
    long *start = malloc((size_t)n * sizeof *start + 1);
    long *compact = calloc((size_t)n + 1, sizeof *compact);
    long *devfree = calloc((size_t)p->ndevs + 1, sizeof *devfree);
    int *mids = calloc((size_t)n + 1, sizeof *mids);
    ts_order_item *it = malloc((size_t)n * sizeof *it + 1);
    int rc = TS_OK;
    if (!start || !compact || !devfree || !mids || !it) {
        rc = ts_fail(e, TS_ESYS, "solver: out of memory");
        goto out;
    }
    long floor_cap = 0;
    bool exact = false;
    ts_budget b;
    ts_budget_init(&b, 10);
    rc = ts_floor_with_order(p, has_memory ? cap : LONG_MAX, &b, &floor_cap, &exact, start, e);
    if (rc)
        goto out;
    if (has_memory && floor_cap > cap) {
        rc = ts_fail(e, TS_ENOANSWER,
                     "no schedule fits memory %ld: one micro-batch alone needs %ld", cap,
                     floor_cap);
        goto out;
    }
    /* Replay the order as early as dependencies and devices allow (same per-device order, so
     * the same memory profile). */
    for (int i = 0; i < n; i++)
        it[i] = (ts_order_item){start[i], i};
    qsort(it, (size_t)n, sizeof *it, ts_cmp_order_item);
    long P = 0;
    for (int i = 0; i < n; i++) {
        int bk = it[i].block;
        const ts_block *bl = &p->blocks[bk];
        long t = 0;
        for (int j = 0; j < bl->ndevices; j++)
            if (devfree[bl->devices[j]] > t)
                t = devfree[bl->devices[j]];
        for (int ei = 0; ei < p->nedges; ei++) {
            const ts_edge *ed = &p->edges[ei];
            if (ed->dst != bk || ed->distance != 0)
                continue;
            long r = compact[ed->src] + p->blocks[ed->src].span + ed->delay;
            if (r > t)
                t = r;
        }
        compact[bk] = t;
        for (int j = 0; j < bl->ndevices; j++)
            devfree[bl->devices[j]] = t + bl->span;
        if (t + bl->span > P)
            P = t + bl->span;
    }
    /* Edges to the next micro-batch (distance >= 1) and delays: stretch the period. */
    for (int ei = 0; ei < p->nedges; ei++) {
        const ts_edge *ed = &p->edges[ei];
        if (ed->distance == 0)
            continue;
        long need = compact[ed->src] + p->blocks[ed->src].span + ed->delay - compact[ed->dst];
        long per = (need + ed->distance - 1) / ed->distance;
        if (per > P)
            P = per;
    }
    ts_complete_repetend rep = {P, mids, compact};
    ts_complete_opts co;
    ts_complete_opts_init(&co);
    co.has_memory = has_memory;
    co.memory = cap;
    rc = ts_complete(p, &rep, &co, out, NULL, e);
out:
    free(start);
    free(compact);
    free(devfree);
    free(mids);
    free(it);
    return rc;
}

int ts_sequential_fallback(const ts_placement *p, bool has_memory, long cap, long maxload,
                           ts_schedule **out, ts_search_stats *st, ts_err *e)
{
    int rc = ts_sequential_schedule(p, has_memory, cap, out, e);
    if (rc == TS_OK) {
        st->k = 1;
        st->period = (*out)->rep.period;
        st->bubbles = st->period - maxload;
        st->optimal = false;
    }
    return rc;
}
