/* Memory arithmetic every method needs: the levels that micro-batch offsets leave, the instances
 * of a warm-up or cool-down, one micro-batch's net memory, and the memory floor of one
 * micro-batch (the smallest capacity with which anything fits) with the refusal it proves. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_caps.h"
#include "ts_imodel.h"
#include "ts_iset.h"
#include "ts_memory.h"
#include "ts_search_ctx.h"

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

bool ts_window_memory_fits(const ts_placement *p, const int *mids, const long *start,
                           const long *cap, long *level, bool strict_level)
{
    ts_mids_levels(p, mids, level);
    for (int d = 0; d < p->ndevs; d++) {
        if (strict_level && level[d] > cap[d])
            return false;
        for (int i = 0; i < p->nblocks; i++) {
            const ts_block *a = &p->blocks[i];
            if (a->memory <= 0 || !ts_block_on(a, d))
                continue;
            long v = level[d];
            for (int j = 0; j < p->nblocks; j++)
                if (ts_block_on(&p->blocks[j], d) && start[j] <= start[i])
                    v += p->blocks[j].memory;
            if (v > cap[d])
                return false;
        }
    }
    return true;
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
 * it in start (nblocks entries). With capacities, each device starts at what it lacks of the
 * largest capacity (its reserve), so the floor is the largest capacity needed with the others
 * kept as far below it; and it stops at the greedy answer when that is within the capacities. */
int ts_memory_floor_order(const ts_placement *p, const long *cap, const ts_budget *b,
                          long *floor_cap, bool *exact, long *start, ts_err *e)
{
    int n = p->nblocks;
    ts_inst *inst = malloc((size_t)n * sizeof *inst + 1);
    long *tmp = malloc((size_t)n * sizeof *tmp + 1);
    long *reserve = calloc((size_t)p->ndevs + 1, sizeof *reserve);
    if (!inst || !tmp || !reserve) {
        free(inst);
        free(tmp);
        free(reserve);
        return ts_fail(e, TS_ESYS, "solver: out of memory");
    }
    /* without capacities: the exact floor (Z3), the greedy answer never stops it */
    long capmax = cap ? ts_caps_max(cap, p->ndevs) : -1;
    for (int d = 0; cap && d < p->ndevs; d++)
        reserve[d] = capmax - cap[d];
    for (int i = 0; i < n; i++)
        inst[i] = (ts_inst){i, 0};
    ts_iset s;
    int rc = ts_iset_build(p, n, inst, false, &s, e);
    free(inst);
    if (rc) {
        free(tmp);
        free(reserve);
        return rc;
    }
    long hi = 0;
    for (int d = 0; d < p->ndevs; d++) {
        long pos = reserve[d];
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
    ts_memspec ms = {true, hi, reserve};
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
    if (g <= capmax)
        goto out;
    if (g == 0) {
        *exact = true;
        goto out;
    }
    {
        ts_imodel m;
        ts_memspec mz = {true, 0, reserve};
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
    free(reserve);
    return rc;
}

int ts_memory_floor(const ts_placement *p, const long *cap, const ts_budget *b, long *floor_cap,
                    bool *exact, ts_err *e)
{
    long *start = malloc((size_t)p->nblocks * sizeof *start + 1);
    if (!start)
        return ts_fail(e, TS_ESYS, "solver: out of memory");
    int rc = ts_memory_floor_order(p, cap, b, floor_cap, exact, start, e);
    free(start);
    return rc;
}

int ts_floor_refusal(const ts_placement *p, const long *cap, long floor_cap, bool exact,
                     ts_search_stats *st, ts_err *e)
{
    long capmax = ts_caps_max(cap, p->ndevs);
    if (floor_cap <= capmax || !exact)
        return TS_OK;
    st->min_memory = floor_cap;
    bool uniform = true;
    for (int d = 1; d < p->ndevs; d++)
        uniform = uniform && cap[d] == cap[0];
    if (!uniform)
        return ts_fail(e, TS_ENOANSWER,
                       "no schedule of '%s' fits its per-device memory (largest %ld): one "
                       "micro-batch alone needs every capacity raised by %ld",
                       p->name, capmax, floor_cap - capmax);
    return ts_fail(e, TS_ENOANSWER,
                   "no schedule of '%s' fits memory %ld: one micro-batch alone needs %ld (the "
                   "smallest capacity that works)",
                   p->name, capmax, floor_cap);
}
