/* Fast search (Tessel-fast): construct the repetend instead of enumerating offsets.
 *
 * Each device's blocks are packed first-fit into one compact window, ignoring dependencies
 * (blocks on several devices that compute forward first, backward ones last, the rest by their
 * earliest start, in reverse on odd devices). Walking the chain backwards, each block takes the
 * offset of its successors, plus however many periods a successor needs to start after it ends.
 * That is a valid repetend without any solver call. The completion minimises its steps only down
 * to an accept bound.
 *
 * Memory: the construction ignores it. When the window or its warm-up/cool-down overshoot the
 * capacity, the same offsets are re-timed by the repetend model under memory; if that fails too,
 * the offsets are clamped (fewer micro-batches in flight) until it fits; one micro-batch at a time
 * always fits when anything does. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "ts_complete.h"
#include "ts_encode.h"

#define TS_FAST_CALL_CAP 30.0

/* Earliest t >= 0 where [t, t + span) is free on every device of the block. */
static long ts_first_fit(const ts_placement *p, int b, const long *start, const char *placed)
{
    const ts_block *bl = &p->blocks[b];
    long t = 0;
    for (;;) {
        long moved = t;
        for (int j = 0; j < p->nblocks; j++) {
            if (!placed[j])
                continue;
            const ts_block *o = &p->blocks[j];
            bool share = false;
            for (int i = 0; i < bl->ndevices && !share; i++)
                share = ts_block_on(o, bl->devices[i]);
            if (!share)
                continue;
            if (start[j] < t + bl->span && t < start[j] + o->span && start[j] + o->span > moved)
                moved = start[j] + o->span;
        }
        if (moved == t)
            return t;
        t = moved;
    }
}

typedef struct {
    int block;
    long key;
} ts_fast_item;

static int ts_cmp_fast_item(const void *a, const void *b)
{
    const ts_fast_item *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->block - y->block;
}

/* The compact window: start of every block, and its length. */
static int ts_fast_pack(const ts_placement *p, const int *chain, long *start, long *period,
                        ts_err *e)
{
    int n = p->nblocks;
    long *est = calloc((size_t)n + 1, sizeof *est);
    char *placed = calloc((size_t)n + 1, 1);
    ts_fast_item *it = malloc((size_t)n * sizeof *it + 1);
    if (!est || !placed || !it) {
        free(est);
        free(placed);
        free(it);
        return ts_fail(e, TS_ESYS, "solver: out of memory");
    }
    ts_placement_earliest(p, est);
    /* 1. blocks on several devices, except backward ones, in chain order */
    for (int i = 0; i < n; i++) {
        int b = chain[i];
        if (p->blocks[b].ndevices > 1 && p->blocks[b].kind != TS_KIND_BACKWARD) {
            start[b] = ts_first_fit(p, b, start, placed);
            placed[b] = 1;
        }
    }
    /* 2. single-device blocks by earliest start, reversed on odd devices */
    for (int d = 0; d < p->ndevs; d++) {
        int m = 0;
        for (int i = 0; i < n; i++) {
            int b = chain[i];
            if (p->blocks[b].ndevices == 1 && p->blocks[b].devices[0] == d)
                it[m++] = (ts_fast_item){b, (d % 2 ? -1 : 1) * est[b] * (long)n + i};
        }
        qsort(it, (size_t)m, sizeof *it, ts_cmp_fast_item);
        for (int i = 0; i < m; i++) {
            start[it[i].block] = ts_first_fit(p, it[i].block, start, placed);
            placed[it[i].block] = 1;
        }
    }
    /* 3. backward blocks on several devices last */
    for (int i = 0; i < n; i++) {
        int b = chain[i];
        if (!placed[b]) {
            start[b] = ts_first_fit(p, b, start, placed);
            placed[b] = 1;
        }
    }
    long P = 0;
    for (int b = 0; b < n; b++)
        if (start[b] + p->blocks[b].span > P)
            P = start[b] + p->blocks[b].span;
    *period = P;
    free(est);
    free(placed);
    free(it);
    return TS_OK;
}

/* Offsets by the backward walk; -1 when an edge between micro-batches cannot be met. */
static int ts_fast_offsets(const ts_placement *p, const int *chain, const long *start, long P,
                           int *mids)
{
    int n = p->nblocks;
    for (int i = n - 1; i >= 0; i--) {
        int b = chain[i];
        long m = 0;
        for (int ei = 0; ei < p->nedges; ei++) {
            const ts_edge *ed = &p->edges[ei];
            if (ed->src != b || ed->distance != 0)
                continue;
            long need = start[b] + p->blocks[b].span + ed->delay - start[ed->dst];
            long delta = need <= 0 ? 0 : (need + P - 1) / P;
            if (mids[ed->dst] + delta > m)
                m = mids[ed->dst] + delta;
        }
        if (m > TS_MAX_DISTANCE)
            return -1;
        mids[b] = (int)m;
    }
    for (int ei = 0; ei < p->nedges; ei++) {
        const ts_edge *ed = &p->edges[ei];
        if (ed->distance == 0)
            continue;
        long delta = (long)mids[ed->src] + ed->distance - mids[ed->dst];
        if (delta < 0 || start[ed->dst] + delta * P < start[ed->src] + p->blocks[ed->src].span +
                                                          ed->delay)
            return -1;
    }
    return 0;
}

/* Does the window, started at the level its offsets leave, stay within the capacity? */
static bool ts_fast_window_fits(const ts_placement *p, const int *mids, const long *start,
                                long cap, long *level)
{
    ts_mids_levels(p, mids, level);
    for (int d = 0; d < p->ndevs; d++) {
        if (level[d] > cap)
            return false;
        for (int i = 0; i < p->nblocks; i++) {
            const ts_block *a = &p->blocks[i];
            if (a->memory <= 0 || !ts_block_on(a, d))
                continue;
            long v = level[d];
            for (int j = 0; j < p->nblocks; j++)
                if (ts_block_on(&p->blocks[j], d) && start[j] <= start[i])
                    v += p->blocks[j].memory;
            if (v > cap)
                return false;
        }
    }
    return true;
}

int ts_fast_construct(const ts_placement *p, const int *chain, bool has_memory, long cap,
                      int *mids, long *start, long *period, bool *fits, ts_err *e)
{
    *fits = false;
    int rc = ts_fast_pack(p, chain, start, period, e);
    if (rc)
        return rc;
    for (int i = 0; i < p->nblocks; i++)
        mids[i] = 0;
    if (ts_fast_offsets(p, chain, start, *period, mids))
        return TS_OK;
    if (!has_memory) {
        *fits = true;
        return TS_OK;
    }
    long *level = calloc((size_t)p->ndevs + 1, sizeof *level);
    if (!level)
        return ts_fail(e, TS_ESYS, "solver: out of memory");
    *fits = ts_fast_window_fits(p, mids, start, cap, level);
    free(level);
    return TS_OK;
}

int ts_search_fast(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                   ts_search_stats *st, ts_err *e)
{
    ts_search_ctx ctx;
    ts_ctx_begin(&ctx, p, o, st);
    st = ctx.st;
    *out = NULL;
    int n = p->nblocks;
    const ts_budget b = ctx.budget;
    long maxload = ts_placement_max_load(p);
    int *chain = malloc((size_t)n * sizeof *chain + 1);
    int *mids = calloc((size_t)n + 1, sizeof *mids);
    long *start = calloc((size_t)n + 1, sizeof *start);
    long *level = calloc((size_t)p->ndevs + 1, sizeof *level);
    ts_rmodel *rm = NULL;
    int rc = TS_OK;
    if (!chain || !mids || !start || !level) {
        rc = ts_fail(e, TS_ESYS, "solver: out of memory");
        goto out;
    }
    if (ts_placement_chain_order(p, chain)) {
        rc = ts_fail(e, TS_EINPUT, "fast: the placement '%s' has a dependency cycle", p->name);
        goto out;
    }
    double t0 = ts_now();
    long P = 0;
    if ((rc = ts_fast_pack(p, chain, start, &P, e)))
        goto out;
    if (ts_fast_offsets(p, chain, start, P, mids)) {
        rc = ts_fail(e, TS_EINPUT,
                     "fast: the construction cannot meet the edges between micro-batches of '%s'; "
                     "use --method modulo",
                     p->name);
        goto out;
    }
    ts_ctx_phase(&ctx, TS_PHASE_CONSTRUCT, ts_now() - t0);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (mids[i] + 1 > k)
            k = mids[i] + 1;
    st->candidates = 1;

    bool ok = true;
    if (o->has_memory) {
        t0 = ts_now();
        bool feasible = true, unknown = false;
        ok = ts_fast_window_fits(p, mids, start, o->memory, level);
        if (ok && (rc = ts_complete_feasible(p, mids, true, o->memory,
                                             ts_budget_call(&b, TS_FAST_CALL_CAP) + 1e-3, &feasible,
                                             &unknown, e)))
            goto out;
        ok = ok && feasible;
        /* Repair: re-time the same offsets under memory, then clamp them (fewer micro-batches
         * in flight); keep the smallest period, stop at zero bubbles. */
        long bestP = LONG_MAX;
        int bestk = 0;
        int *cur = calloc((size_t)n + 1, sizeof *cur);
        long *cstart = calloc((size_t)n + 1, sizeof *cstart);
        if (!cur || !cstart) {
            free(cur);
            free(cstart);
            rc = ts_fail(e, TS_ESYS, "solver: out of memory");
            goto out;
        }
        int *orig = calloc((size_t)n + 1, sizeof *orig);
        if (!orig) {
            free(cur);
            free(cstart);
            rc = ts_fail(e, TS_ESYS, "solver: out of memory");
            goto out;
        }
        memcpy(orig, mids, (size_t)n * sizeof *mids);
        /* Two ways to lower the offsets to at most c, both monotone (so offsets still never grow
         * along an edge): clamp them (the early blocks lose their lead), or scale them all. */
        for (int step = 0; !ok && step < 2 * k && bestP > maxload; step++) {
            int clamp = k - 1 - step / 2, variant = step % 2;
            if (variant == 1 && clamp == k - 1)
                continue;
            if (ts_budget_over(&b)) {
                st->timed_out = true;
                break;
            }
            for (int i = 0; i < n; i++)
                cur[i] = variant == 0 ? (orig[i] > clamp ? clamp : orig[i])
                                      : (int)(((long)orig[i] * clamp + (k - 1) / 2) / (k - 1));
            st->candidates++;
            ts_mids_levels(p, cur, level);
            bool lvl_ok = true;
            for (int d = 0; d < p->ndevs; d++)
                if (level[d] > o->memory)
                    lvl_ok = false;
            if (!lvl_ok)
                continue;
            if ((rc = ts_complete_feasible(p, cur, true, o->memory,
                                           ts_budget_call(&b, TS_FAST_CALL_CAP) + 1e-3, &feasible,
                                           &unknown, e)))
                break;
            if (!feasible)
                continue;
            if (!rm && (rc = ts_rmodel_new(p, true, o->memory, &rm, e)))
                break;
            ts_rres r;
            long hi = bestP == LONG_MAX ? -1 : bestP - 1;
            if ((rc = ts_rmodel_solve(rm, cur, maxload, hi, &b, TS_FAST_CALL_CAP, cstart, &r, e)))
                break;
            if (r.timed_out)
                st->timed_out = true;
            if (r.found) {
                bestP = r.period;
                bestk = 0;
                for (int i = 0; i < n; i++)
                    if (cur[i] + 1 > bestk)
                        bestk = cur[i] + 1;
                memcpy(mids, cur, (size_t)n * sizeof *cur);
                memcpy(start, cstart, (size_t)n * sizeof *cstart);
            }
        }
        free(cur);
        free(cstart);
        free(orig);
        if (rc)
            goto out;
        if (bestP != LONG_MAX) {
            ok = true;
            P = bestP;
            k = bestk;
        }
        ts_ctx_phase(&ctx, TS_PHASE_REPAIR, ts_now() - t0);
        if (!ok) {
            /* Nothing with these offsets: one micro-batch at a time, if anything fits. */
            long floor_cap;
            bool exact;
            if ((rc = ts_memory_floor(p, o->memory, &b, &floor_cap, &exact, e)))
                goto out;
            if ((rc = ts_floor_refusal(p, o->memory, floor_cap, exact, st, e)))
                goto out;
            if ((rc = ts_sequential_fallback(p, true, o->memory, maxload, out, st, e)))
                goto out;
            st->optimal = st->bubbles == 0;
            goto out;
        }
    }

    t0 = ts_now();
    ts_complete_repetend rep = {P, mids, start};
    ts_complete_opts co;
    ts_complete_opts_init(&co);
    co.has_memory = o->has_memory;
    co.memory = o->memory;
    co.accept = o->accept;
    co.micro_batches = o->micro_batches;
    co.time_limit = o->time_limit > 0 ? ts_budget_left(&b) + 0.001 : 0;
    ts_complete_stats cst;
    rc = ts_complete(p, &rep, &co, out, &cst, e);
    ts_ctx_phase(&ctx, TS_PHASE_WARMUP, cst.warmup_seconds);
    ts_ctx_phase(&ctx, TS_PHASE_COOLDOWN, cst.cooldown_seconds);
    if (rc)
        goto out;
    st->k = k;
    st->period = P;
    st->bubbles = P - maxload;
    st->optimal = P <= maxload;
    st->timed_out = st->timed_out || cst.timed_out;
    st->completion_optimal = cst.warmup_optimal && cst.cooldown_optimal;
out:
    ts_rmodel_free(rm);
    free(chain);
    free(mids);
    free(start);
    free(level);
    return ts_ctx_end(&ctx, rc, *out);
}
