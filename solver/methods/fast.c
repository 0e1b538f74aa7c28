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
#include "ts_construct.h"
#include "ts_fallback.h"
#include "ts_memory.h"
#include "ts_rmodel.h"
#include "ts_search_ctx.h"

/* The intervals placed on one device, sorted by start. They never overlap (every block is placed
 * where its devices are free), so they are sorted by end too. [0, full) is busy without a gap
 * (the first nfull intervals): a first fit starts there, so that packing a device one block after
 * another costs O(n log n), not O(n^2) (20,000 blocks on 8 devices: seconds). */
typedef struct {
    long *s, *e;
    int n, cap;
    long full;
    int nfull;
} ts_busy;

/* The end of the last interval that starts before t + span, when it ends after t: the furthest
 * end among the intervals that meet [t, t + span). -1 when none meets it. */
static long ts_busy_conflict(const ts_busy *d, long t, long span)
{
    int lo = 0, hi = d->n; /* the intervals starting before t + span are [0, lo) */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (d->s[mid] < t + span)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && d->e[lo - 1] > t ? d->e[lo - 1] : -1;
}

/* Inserts [s, e) in order. -1 on allocation failure. */
static int ts_busy_add(ts_busy *d, long s, long e)
{
    if (d->n == d->cap) {
        int cap = d->cap ? 2 * d->cap : 16;
        long *ns = realloc(d->s, (size_t)cap * sizeof *ns);
        if (ns)
            d->s = ns;
        long *ne = realloc(d->e, (size_t)cap * sizeof *ne);
        if (ne)
            d->e = ne;
        if (!ns || !ne)
            return -1;
        d->cap = cap;
    }
    int i = d->n;
    while (i > 0 && d->s[i - 1] > s)
        i--;
    memmove(d->s + i + 1, d->s + i, (size_t)(d->n - i) * sizeof *d->s);
    memmove(d->e + i + 1, d->e + i, (size_t)(d->n - i) * sizeof *d->e);
    d->s[i] = s;
    d->e[i] = e;
    d->n++;
    while (d->nfull < d->n && d->s[d->nfull] == d->full) /* s >= full: i >= nfull */
        d->full = d->e[d->nfull++];
    return 0;
}

/* Earliest t >= 0 where [t, t + span) is free on every device of the block: from the end of the
 * busiest device's gapless prefix (nothing earlier fits), jump to the furthest end of what meets
 * [t, t + span) until nothing does. */
static long ts_first_fit(const ts_placement *p, int b, const ts_busy *busy)
{
    const ts_block *bl = &p->blocks[b];
    long t = 0;
    for (int i = 0; i < bl->ndevices; i++)
        if (busy[bl->devices[i]].full > t)
            t = busy[bl->devices[i]].full;
    for (;;) {
        long moved = t;
        for (int i = 0; i < bl->ndevices; i++) {
            long end = ts_busy_conflict(&busy[bl->devices[i]], t, bl->span);
            if (end > moved)
                moved = end;
        }
        if (moved == t)
            return t;
        t = moved;
    }
}

/* The packing's state: the devices' intervals, the starts so far, and the clock. */
typedef struct {
    const ts_placement *p;
    ts_busy *busy;
    long *start;
    char *placed;
    const ts_budget *b; /* NULL: none */
    int count;
    bool bad; /* out of memory */
    bool cut; /* the time limit ended it */
} ts_packer;

/* Places block b at its first fit, unless the packing has already stopped. The clock is read
 * every 256 blocks: a packing is fast, but its seed callers must not outlive their limit. */
static void ts_fast_place(ts_packer *k, int b)
{
    if (k->bad || k->cut)
        return;
    if ((++k->count & 255) == 0 && k->b && ts_budget_over(k->b)) {
        k->cut = true;
        return;
    }
    const ts_block *bl = &k->p->blocks[b];
    k->start[b] = ts_first_fit(k->p, b, k->busy);
    k->placed[b] = 1;
    for (int i = 0; i < bl->ndevices; i++)
        if (ts_busy_add(&k->busy[bl->devices[i]], k->start[b], k->start[b] + bl->span))
            k->bad = true;
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

/* The compact window: start of every block, and its length. TS_ENOANSWER when the budget b
 * (NULL: none) ends first. */
static int ts_fast_pack(const ts_placement *p, const int *chain, const ts_budget *b, long *start,
                        long *period, ts_err *e)
{
    int n = p->nblocks;
    long *est = calloc((size_t)n + 1, sizeof *est);
    ts_fast_item *it = malloc((size_t)n * sizeof *it + 1);
    ts_packer k = {p,     calloc((size_t)p->ndevs + 1, sizeof(ts_busy)),
                   start, calloc((size_t)n + 1, 1),
                   b,     0,
                   false, false};
    if (!est || !k.placed || !it || !k.busy) {
        k.bad = true;
        goto out;
    }
    ts_placement_earliest(p, est);
    /* 1. blocks on several devices, except backward ones, in chain order */
    for (int i = 0; i < n; i++) {
        int bk = chain[i];
        if (p->blocks[bk].ndevices > 1 && p->blocks[bk].kind != TS_KIND_BACKWARD)
            ts_fast_place(&k, bk);
    }
    /* 2. single-device blocks by earliest start, reversed on odd devices */
    for (int d = 0; d < p->ndevs && !k.bad && !k.cut; d++) {
        int m = 0;
        for (int i = 0; i < n; i++) {
            int bk = chain[i];
            if (p->blocks[bk].ndevices == 1 && p->blocks[bk].devices[0] == d)
                it[m++] = (ts_fast_item){bk, (d % 2 ? -1 : 1) * est[bk] * (long)n + i};
        }
        qsort(it, (size_t)m, sizeof *it, ts_cmp_fast_item);
        for (int i = 0; i < m; i++)
            ts_fast_place(&k, it[i].block);
    }
    /* 3. backward blocks on several devices last */
    for (int i = 0; i < n; i++)
        if (!k.placed[chain[i]])
            ts_fast_place(&k, chain[i]);
    long P = 0;
    for (int bk = 0; bk < n; bk++)
        if (start[bk] + p->blocks[bk].span > P)
            P = start[bk] + p->blocks[bk].span;
    *period = P;
out:
    for (int d = 0; k.busy && d < p->ndevs; d++) {
        free(k.busy[d].s);
        free(k.busy[d].e);
    }
    free(k.busy);
    free(est);
    free(k.placed);
    free(it);
    if (k.bad)
        return ts_fail(e, TS_ESYS, "solver: out of memory");
    if (k.cut)
        return ts_fail(e, TS_ENOANSWER,
                       "fast: the time limit ended the construction of '%s' after %d of %d blocks",
                       p->name, k.count - 1, n);
    return TS_OK;
}

/* Offsets by the backward walk; -1 when an edge between micro-batches cannot be met, -2 when an
 * offset would exceed TS_MAX_DISTANCE (more micro-batches in flight than a schedule holds), -3
 * on allocation failure. Each block's outgoing edges are indexed: O(blocks + edges). */
static int ts_fast_offsets(const ts_placement *p, const int *chain, const long *start, long P,
                           int *mids)
{
    int n = p->nblocks, *off, *list;
    if (ts_placement_out_edges(p, &off, &list))
        return -3;
    for (int i = n - 1; i >= 0; i--) {
        int b = chain[i];
        long m = 0;
        for (int j = off[b]; j < off[b + 1]; j++) {
            const ts_edge *ed = &p->edges[list[j]];
            if (ed->distance != 0)
                continue;
            long need = start[b] + p->blocks[b].span + ed->delay - start[ed->dst];
            long delta = need <= 0 ? 0 : (need + P - 1) / P;
            if (mids[ed->dst] + delta > m)
                m = mids[ed->dst] + delta;
        }
        if (m > TS_MAX_DISTANCE) {
            free(off);
            free(list);
            return -2;
        }
        mids[b] = (int)m;
    }
    free(off);
    free(list);
    for (int ei = 0; ei < p->nedges; ei++) {
        const ts_edge *ed = &p->edges[ei];
        if (ed->distance == 0)
            continue;
        long delta = (long)mids[ed->src] + ed->distance - mids[ed->dst];
        if (delta < 0 ||
            start[ed->dst] + delta * P < start[ed->src] + p->blocks[ed->src].span + ed->delay)
            return -1;
    }
    return 0;
}

int ts_fast_construct(const ts_placement *p, const int *chain, const long *cap,
                      const ts_budget *b, int *mids, long *start, long *period, bool *fits,
                      ts_err *e)
{
    *fits = false;
    int rc = ts_fast_pack(p, chain, b, start, period, e);
    if (rc)
        return rc;
    for (int i = 0; i < p->nblocks; i++)
        mids[i] = 0;
    rc = ts_fast_offsets(p, chain, start, *period, mids);
    if (rc == -3)
        return ts_fail(e, TS_ESYS, "solver: out of memory");
    if (rc)
        return TS_OK;
    if (!cap) {
        *fits = true;
        return TS_OK;
    }
    long *level = calloc((size_t)p->ndevs + 1, sizeof *level);
    if (!level)
        return ts_fail(e, TS_ESYS, "solver: out of memory");
    *fits = ts_window_memory_fits(p, mids, start, cap, level, true);
    free(level);
    return TS_OK;
}

/* The fast method's state: its context and the repetend it builds. */
typedef struct {
    ts_search_ctx *c;
    const ts_placement *p;
    const ts_search_opts *o;
    int n;
    long maxload;
    int *chain, *mids;
    long *start, *level;
    long P;
    int k;
    ts_rmodel *rm; /* the repetend model of the repair, built on first use */
} ts_fast;

/* Step 1: the compact window and the offsets of the backward walk. */
static int ts_fast_build(ts_fast *F, ts_err *e)
{
    const ts_placement *p = F->p;
    if (ts_placement_chain_order(p, F->chain))
        return ts_fail(e, TS_EINPUT, "fast: the placement '%s' has a dependency cycle", p->name);
    double t0 = ts_clock_now();
    int rc = ts_fast_pack(p, F->chain, &F->c->budget, F->start, &F->P, e);
    if (rc == TS_ENOANSWER)
        F->c->st->timed_out = true;
    if (rc)
        return rc;
    rc = ts_fast_offsets(p, F->chain, F->start, F->P, F->mids);
    if (rc == -3)
        return ts_fail(e, TS_ESYS, "solver: out of memory");
    if (rc == -2)
        return ts_fail(e, TS_EINPUT,
                       "fast: the construction of '%s' would keep more than %d micro-batches in "
                       "flight; use --method modulo",
                       p->name, TS_MAX_DISTANCE);
    if (rc)
        return ts_fail(e, TS_EINPUT,
                       "fast: the construction cannot meet the edges between micro-batches of "
                       "'%s'; use --method modulo",
                       p->name);
    ts_ctx_lap(F->c, TS_PHASE_CONSTRUCT, t0);
    F->k = 0;
    for (int i = 0; i < F->n; i++)
        if (F->mids[i] + 1 > F->k)
            F->k = F->mids[i] + 1;
    F->c->st->candidates = 1;
    return TS_OK;
}

/* One repair candidate: offsets cur, re-timed under memory with a period below *bestP. On a
 * better period, mids, start, *bestP and *bestk take it. */
static int ts_fast_repair_try(ts_fast *F, const int *cur, long *cstart, long *bestP, int *bestk,
                              ts_err *e)
{
    const ts_placement *p = F->p;
    const long *cap = F->c->cap;
    ts_search_stats *st = F->c->st;
    ts_mids_levels(p, cur, F->level);
    for (int d = 0; d < p->ndevs; d++)
        if (F->level[d] > cap[d])
            return TS_OK;
    bool feasible, unknown;
    int rc = ts_complete_feasible(p, cur, cap, F->c->meter,
                                  ts_budget_call(&F->c->budget, TS_FAST_CALL_CAP) + 1e-3, &feasible,
                                  &unknown, e);
    if (rc || !feasible)
        return rc;
    if (!F->rm && (rc = ts_rmodel_new(p, cap, &F->rm, e)))
        return rc;
    ts_rres r;
    long hi = *bestP == LONG_MAX ? -1 : *bestP - 1;
    if ((rc = ts_rmodel_solve(F->rm, cur, F->maxload, hi, &F->c->budget, TS_FAST_CALL_CAP, cstart,
                              &r, e)))
        return rc;
    if (r.timed_out)
        st->timed_out = true;
    if (r.found) {
        *bestP = r.period;
        *bestk = 0;
        for (int i = 0; i < F->n; i++)
            if (cur[i] + 1 > *bestk)
                *bestk = cur[i] + 1;
        memcpy(F->mids, cur, (size_t)F->n * sizeof *cur);
        memcpy(F->start, cstart, (size_t)F->n * sizeof *cstart);
    }
    return TS_OK;
}

/* Step 2, under memory: re-time the same offsets, then clamp them (fewer micro-batches in
 * flight); keep the smallest period, stop at zero bubbles. Two ways to lower the offsets to at
 * most c, both monotone (so offsets still never grow along an edge): clamp them (the early blocks
 * lose their lead), or scale them all. *ok: a repetend within memory stands. */
static int ts_fast_repair(ts_fast *F, bool *ok, ts_err *e)
{
    int n = F->n, k = F->k;
    long bestP = LONG_MAX;
    int bestk = 0, rc = TS_OK;
    int *cur = calloc((size_t)n + 1, sizeof *cur), *orig = calloc((size_t)n + 1, sizeof *orig);
    long *cstart = calloc((size_t)n + 1, sizeof *cstart);
    if (!cur || !cstart || !orig) {
        rc = ts_fail(e, TS_ESYS, "solver: out of memory");
        goto out;
    }
    memcpy(orig, F->mids, (size_t)n * sizeof *F->mids);
    /* Each step asks the repetend model: none when it is too large to build in time. */
    bool affordable = ts_rmodel_affordable(F->p, F->o->time_limit);
    for (int step = 0; affordable && !*ok && step < 2 * k && bestP > F->maxload; step++) {
        int clamp = k - 1 - step / 2, variant = step % 2;
        if (variant == 1 && clamp == k - 1)
            continue;
        if (ts_ctx_cut(F->c))
            break;
        for (int i = 0; i < n; i++)
            cur[i] = variant == 0 ? (orig[i] > clamp ? clamp : orig[i])
                                  : (int)(((long)orig[i] * clamp + (k - 1) / 2) / (k - 1));
        F->c->st->candidates++;
        if ((rc = ts_fast_repair_try(F, cur, cstart, &bestP, &bestk, e)))
            break;
    }
    if (rc == TS_OK && bestP != LONG_MAX) {
        *ok = true;
        F->P = bestP;
        F->k = bestk;
    }
out:
    free(cur);
    free(cstart);
    free(orig);
    return rc;
}

/* Step 2: does the constructed repetend fit the memory (window, warm-up and cool-down)? If not,
 * the repair. *ok: a repetend within memory stands. */
static int ts_fast_memory(ts_fast *F, bool *ok, ts_err *e)
{
    const long *cap = F->c->cap;
    double t0 = ts_clock_now();
    bool feasible = true, unknown = false;
    *ok = ts_window_memory_fits(F->p, F->mids, F->start, cap, F->level, true);
    int rc = TS_OK;
    if (*ok && (rc = ts_complete_feasible(F->p, F->mids, cap, F->c->meter,
                                          ts_budget_call(&F->c->budget, TS_FAST_CALL_CAP) + 1e-3,
                                          &feasible, &unknown, e)))
        return rc;
    *ok = *ok && feasible;
    rc = ts_fast_repair(F, ok, e);
    ts_ctx_lap(F->c, TS_PHASE_REPAIR, t0);
    return rc;
}

/* Nothing with these offsets: one micro-batch at a time, if anything fits. */
static int ts_fast_fallback(ts_fast *F, ts_schedule **out, ts_err *e)
{
    const long *cap = F->c->cap;
    ts_search_stats *st = F->c->st;
    long floor_cap;
    bool exact;
    int rc = ts_memory_floor(F->p, cap, &F->c->budget, &floor_cap, &exact, e);
    if (rc || (rc = ts_floor_refusal(F->p, cap, floor_cap, exact, st, e)))
        return rc;
    if ((rc = ts_sequential_fallback(F->p, cap, F->maxload, out, st, e)))
        return rc;
    st->optimal = st->bubbles == 0;
    return TS_OK;
}

/* Step 3: warm-up and cool-down, minimised down to the accept bound. */
static int ts_fast_complete(ts_fast *F, ts_schedule **out, ts_err *e)
{
    const ts_search_opts *o = F->o;
    ts_search_stats *st = F->c->st;
    ts_rep rep = {.start = F->start, .period = F->P, .k = F->k, .mids = F->mids};
    ts_complete_opts co;
    ts_complete_opts_init(&co);
    co.cap = F->c->cap;
    co.accept = o->accept;
    co.micro_batches = o->micro_batches;
    co.time_limit = o->time_limit > 0 ? ts_budget_left(&F->c->budget) + 0.001 : 0;
    co.meter = F->c->meter;
    ts_complete_stats cst;
    int rc = ts_complete(F->p, &rep, &co, out, &cst, e);
    ts_ctx_phase(F->c, TS_PHASE_WARMUP, cst.warmup_seconds);
    ts_ctx_phase(F->c, TS_PHASE_COOLDOWN, cst.cooldown_seconds);
    if (rc)
        return rc;
    st->k = F->k;
    st->period = F->P;
    st->bubbles = F->P - F->maxload;
    st->optimal = F->P <= F->maxload;
    st->timed_out = st->timed_out || cst.timed_out;
    st->completion_optimal = cst.warmup_optimal && cst.cooldown_optimal;
    return TS_OK;
}

int ts_search_fast(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                   ts_search_stats *st, ts_err *e)
{
    ts_search_ctx ctx;
    int rc = ts_ctx_begin(&ctx, p, o, st, e);
    *out = NULL;
    int n = p->nblocks;
    ts_fast F = {&ctx, p, o, n, ts_placement_max_load(p), NULL, NULL, NULL, NULL, 0, 0, NULL};
    F.chain = malloc((size_t)n * sizeof *F.chain + 1);
    F.mids = calloc((size_t)n + 1, sizeof *F.mids);
    F.start = calloc((size_t)n + 1, sizeof *F.start);
    F.level = calloc((size_t)p->ndevs + 1, sizeof *F.level);
    bool ok = true;
    if (rc == TS_OK && (!F.chain || !F.mids || !F.start || !F.level))
        rc = ts_fail(e, TS_ESYS, "solver: out of memory");
    if (rc == TS_OK)
        rc = ts_fast_build(&F, e);
    if (rc == TS_OK && o->has_memory)
        rc = ts_fast_memory(&F, &ok, e);
    if (rc == TS_OK)
        rc = ok ? ts_fast_complete(&F, out, e) : ts_fast_fallback(&F, out, e);
    ts_rmodel_free(F.rm);
    free(F.chain);
    free(F.mids);
    free(F.start);
    free(F.level);
    return ts_ctx_end(&ctx, rc, *out);
}
