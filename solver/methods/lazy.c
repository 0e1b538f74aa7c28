/* Lazy repetend search (the paper's main method).
 *
 * For k = 1, 2, ... the chain order is cut into k contiguous segments; segment s gives its
 * blocks the micro-batch offset k-1-s. Each such candidate is first screened without Z3:
 *  - the memory level its offsets leave (sum of memory * offset per device) must fit;
 *  - its period has a lower bound from dependency paths (a path of length len from a block to
 *    one delta periods later needs (delta + 1) * P >= len + 1), so candidates that cannot beat
 *    the incumbent are dropped;
 *  - its warm-up and cool-down must fit memory (greedy orders; Z3 only when they fail, and only
 *    for a candidate that would become the new best).
 * Survivors are first tried with the solver-free construction at their bound (construct.c; a
 * success is optimal for the candidate), then, cheapest bound first, with one incremental
 * repetend model (repetend.c) that asks for a period below the incumbent's. The search stops at
 * zero bubbles. The fast construction seeds the incumbent bound (and, for searches too large to
 * finish, the fast method with its memory repair). The best candidate is completed (warm-up and
 * cool-down with minimum steps). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_caps.h"
#include "ts_complete.h"
#include "ts_construct.h"
#include "ts_fallback.h"
#include "ts_iset.h"
#include "ts_memory.h"
#include "ts_rmodel.h"
#include "ts_search_ctx.h"

typedef struct {
    int *mids; /* nblocks */
    long lb; /* period lower bound */
    long maxlevel; /* highest starting level over devices */
    bool exact; /* the greedy completion check failed: ask Z3 before accepting */
    bool done; /* answered */
} ts_cand;

typedef struct {
    const ts_placement *p;
    ts_search_ctx *c; /* the search's clock, deadline, statistics and progress */
    ts_budget search; /* the seed's and the candidates' share of c's time limit (ts_finish_share) */
    const ts_search_opts *o; /* c->o */
    ts_search_stats *st; /* c->st */
    int n;
    int *chain; /* chain order */
    int *pos; /* position of each block in the chain */
    long maxload;
    long capmax; /* the largest capacity (c->cap) */
    long *level; /* scratch, ndevs */
    long *lp; /* nblocks^2: longest start-to-start dependency path, 0 when none;
                       NULL above TS_LAZY_MAX_PATHS (the screen's bound is then the load) */
    ts_rmodel *rm;
    /* incumbent */
    ts_rep best; /* period LONG_MAX: none yet */
    long *start; /* scratch */
    /* seed: the fast construction, a bound that only candidates at least as good pass, and the
     * answer when no candidate reaches it (e.g. when the time limit cuts a large search) */
    ts_rep seed; /* period LONG_MAX: none */
    ts_schedule *seed_sched; /* the fast method's whole schedule when the seed came from it */
    bool proven; /* no candidate was cut by a time limit */
    long tried, total;
    long constructed; /* candidates answered without Z3 */
} ts_lazy;

static int ts_cmp_cand(const void *a, const void *b)
{
    const ts_cand *x = a, *y = b;
    if (x->lb != y->lb)
        return x->lb < y->lb ? -1 : 1;
    if (x->exact != y->exact)
        return x->exact ? 1 : -1;
    if (x->maxlevel != y->maxlevel)
        return x->maxlevel < y->maxlevel ? -1 : 1;
    return 0;
}

/* Candidates must reach a period below this: better than the incumbent, no worse than the seed. */
static long ts_lazy_bound(const ts_lazy *L)
{
    long b = L->best.period;
    if (L->seed.period != LONG_MAX && L->seed.period + 1 < b)
        b = L->seed.period + 1;
    return b;
}

static void ts_lazy_progress(ts_lazy *L, bool force)
{
    ts_ctx_progress(L->c, TS_PHASE_REPETEND, L->tried, L->total,
                    L->best.period == LONG_MAX ? -1 : L->best.period - L->maxload, force);
}

/* C(n, r) saturated at LONG_MAX / 4. */
static long ts_binom(int n, int r)
{
    if (r < 0 || r > n)
        return 0;
    if (r > n - r)
        r = n - r;
    long double v = 1;
    for (int i = 1; i <= r; i++) {
        v = v * (n - r + i) / i;
        if (v > (long double)(LONG_MAX / 4))
            return LONG_MAX / 4;
    }
    return (long)(v + 0.5L);
}

/* Offsets of the candidate given by the cuts, and its screening figures. Returns 0 when it
 * passes, 1 when its memory level is too high, 2 when screened out otherwise. */
static int ts_lazy_screen(ts_lazy *L, int k, const int *cuts, ts_cand *c)
{
    const ts_placement *p = L->p;
    int seg = 0;
    for (int i = 0; i < L->n; i++) {
        while (seg < k - 1 && cuts[seg] <= i)
            seg++;
        c->mids[L->chain[i]] = k - 1 - seg;
    }
    /* Dependencies may not point back in offset (only distance edges can). */
    for (int ei = 0; ei < p->nedges; ei++) {
        const ts_edge *ed = &p->edges[ei];
        if ((long)c->mids[ed->src] + ed->distance - c->mids[ed->dst] < 0)
            return 2;
    }
    c->maxlevel = 0;
    if (L->c->cap) {
        const long *cap = L->c->cap;
        ts_mids_levels(p, c->mids, L->level);
        for (int d = 0; d < p->ndevs; d++) {
            if (L->level[d] > cap[d])
                return 1;
            /* the level as a share of the largest capacity: a smaller device counts fuller */
            if (L->level[d] + L->capmax - cap[d] > c->maxlevel)
                c->maxlevel = L->level[d] + L->capmax - cap[d];
        }
    }
    /* Period bound from dependency paths: a path from a's start to z's start of length len,
     * with z delta = m_a - m_z periods later, needs s_z + delta * P >= s_a + len with both starts
     * in [0, P): (delta + 1) * P >= len + 1. */
    long lb = L->maxload;
    int n = L->lp ? L->n : 0;
    for (int a = 0; a < n; a++) {
        /* The bound is quadratic in the blocks (67M pairs at 8192): at the time limit, the
         * candidate is dropped and the caller's next clock check stops the enumeration. */
        if (n > 256 && (a & 255) == 255 && ts_budget_over(&L->search))
            return 2;
        for (int zb = 0; zb < n; zb++) {
            long len = L->lp[(size_t)a * (size_t)n + (size_t)zb];
            if (len <= 0)
                continue;
            long delta = (long)c->mids[a] - c->mids[zb];
            if (delta < 0)
                continue;
            long need = (len + 1 + delta) / (delta + 1);
            if (need > lb)
                lb = need;
        }
    }
    c->lb = lb;
    return lb < ts_lazy_bound(L) ? 0 : 2;
}

/* Solves one screened candidate against the incumbent. Returns TS_OK or an error; sets *stop
 * at zero bubbles. */
static int ts_lazy_try(ts_lazy *L, int k, ts_cand *c, bool construct_only, bool *stop, ts_err *e)
{
    const ts_placement *p = L->p;
    const ts_search_opts *o = L->o;
    if (c->lb >= ts_lazy_bound(L))
        return TS_OK;
    if (ts_budget_over(&L->search)) {
        L->proven = false;
        L->st->timed_out = true;
        *stop = true;
        return TS_OK;
    }
    ts_rres r = {0};
    double t0 = ts_clock_now();
    int rc = TS_OK;
    /* The candidate's own lower bound reached without a solver is its optimum. */
    if (construct_only) {
        if (!ts_repetend_construct(p, L->chain, c->mids, c->lb, L->c->cap, &L->search,
                                   L->start)) {
            ts_ctx_phase(L->c, TS_PHASE_REPETEND, ts_clock_now() - t0);
            return TS_OK;
        }
        r.found = r.proven = true;
        r.period = c->lb;
        L->constructed++;
        L->tried++;
        c->done = true;
    } else if (!ts_rmodel_affordable(p, o->time_limit)) {
        /* The model would take more memory and time than any limit allows: the candidate
         * stays undecided (the construction answered what it could). */
        L->proven = false;
        c->done = true;
        return TS_OK;
    } else {
        L->tried++;
        c->done = true;
        if (!L->rm && (rc = ts_rmodel_new(p, L->c->cap, &L->rm, e)))
            return rc;
        long hi = ts_lazy_bound(L) == LONG_MAX ? -1 : ts_lazy_bound(L) - 1;
        rc = ts_rmodel_solve(L->rm, c->mids, c->lb, hi, &L->search, TS_LAZY_CALL_CAP, L->start, &r,
                             e);
    }
    ts_ctx_phase(L->c, TS_PHASE_REPETEND, ts_clock_now() - t0);
    if (rc)
        return rc;
    if (r.timed_out) {
        L->proven = false;
        L->st->timed_out = true;
    }
    if (!r.found)
        return TS_OK;
    if (c->exact) {
        bool feasible, unknown;
        t0 = ts_clock_now();
        double lim = ts_budget_call(&L->search, 10.0) + 1e-3; /* never 0, which means none */
        rc = ts_complete_feasible(p, c->mids, L->c->cap, L->c->meter, lim, &feasible, &unknown,
                                  e);
        ts_ctx_phase(L->c, TS_PHASE_CHECK, ts_clock_now() - t0);
        if (rc)
            return rc;
        if (unknown) {
            L->proven = false;
            L->st->timed_out = L->st->timed_out || ts_budget_over(&L->search);
        }
        if (!feasible)
            return TS_OK;
    }
    if (!r.proven)
        L->proven = false;
    L->best.period = r.period;
    L->best.k = k;
    memcpy(L->best.mids, c->mids, (size_t)p->nblocks * sizeof *c->mids);
    memcpy(L->best.start, L->start, (size_t)p->nblocks * sizeof *L->start);
    ts_lazy_progress(L, true);
    if (r.period <= L->maxload)
        *stop = true;
    return TS_OK;
}

/* Greedy completion screen: false when the greedy orders cannot fit the warm-up or cool-down. */
static int ts_lazy_greedy_ok(ts_lazy *L, int k, const int *mids, bool *ok, ts_err *e)
{
    const ts_placement *p = L->p;
    *ok = true;
    if (!L->c->cap || k == 1)
        return TS_OK;
    size_t room = (size_t)p->nblocks * (size_t)k + 1;
    ts_inst *inst = malloc(room * sizeof *inst);
    long *start = malloc(room * sizeof *start);
    /* the cool-down's level, then the level a phase starts from (ts_memspec_fill) */
    long *level = calloc(2 * (size_t)p->ndevs + 1, sizeof *level);
    int rc = TS_OK;
    if (!inst || !start || !level) {
        rc = ts_fail(e, TS_ESYS, "solver: out of memory");
        goto out;
    }
    ts_cooldown_level(p, mids, level);
    for (int phase = 0; phase < 2 && *ok; phase++) {
        int n = ts_phase_instances(p, mids, k, phase, inst);
        ts_iset s;
        if ((rc = ts_iset_build(p, n, inst, true, &s, e)))
            goto out;
        ts_memspec ms =
            ts_memspec_fill(L->c->cap, p->ndevs, phase ? level : NULL, level + p->ndevs);
        long steps;
        int g = ts_iset_greedy(&s, &ms, 0, start, &steps);
        if (g == 1)
            g = ts_iset_greedy(&s, &ms, 1, start, &steps);
        ts_iset_free(&s);
        if (g < 0) {
            rc = ts_fail(e, TS_ESYS, "solver: out of memory");
            goto out;
        }
        *ok = g == 0;
    }
out:
    free(inst);
    free(start);
    free(level);
    return rc;
}

/* Enumerates and solves the candidates of one k. *any: some candidate passed the memory
 * screen. */
static int ts_lazy_k(ts_lazy *L, int k, bool *stop, bool *any, ts_err *e)
{
    const ts_placement *p = L->p;
    int nb = p->nblocks, ncut = k - 1;
    int rc = TS_OK;
    ts_cand *batch = calloc(TS_LAZY_BATCH, sizeof *batch);
    int *pool = malloc((size_t)TS_LAZY_BATCH * (size_t)nb * sizeof *pool + 1);
    int *cuts = malloc((size_t)(ncut + 1) * sizeof *cuts);
    if (!batch || !pool || !cuts) {
        rc = ts_fail(e, TS_ESYS, "solver: out of memory");
        goto out;
    }
    for (int i = 0; i < ncut; i++)
        cuts[i] = i + 1;
    bool more = true;
    while (more && !*stop) {
        int nbatch = 0;
        while (more && nbatch < TS_LAZY_BATCH) {
            /* The clock every 1024 candidates, or every one when a screen costs more than the
             * clock (its path bound is quadratic in the blocks). */
            if ((L->st->candidates & (L->n > 256 ? 0 : 1023)) == 0 && ts_budget_over(&L->search)) {
                L->proven = false;
                L->st->timed_out = true;
                *stop = true;
                break;
            }
            ts_cand *c = &batch[nbatch];
            c->mids = pool + (size_t)nbatch * (size_t)nb;
            c->done = false;
            L->st->candidates++;
            if ((L->st->candidates & 4095) == 0)
                ts_lazy_progress(L, false);
            int sc = ts_lazy_screen(L, k, cuts, c);
            if (sc != 1)
                *any = true; /* memory let it through (the period bound may still drop it) */
            if (sc == 0)
                nbatch++;
            /* next combination of cut positions in [1, n-1] */
            int i = ncut - 1;
            while (i >= 0 && cuts[i] == L->n - ncut + i)
                i--;
            if (i < 0) {
                more = false;
            } else {
                cuts[i]++;
                for (int j = i + 1; j < ncut; j++)
                    cuts[j] = cuts[j - 1] + 1;
            }
        }
        /* Greedy completion screen, then cheapest bound first. */
        double t0 = ts_clock_now();
        for (int i = 0; i < nbatch; i++) {
            bool ok;
            if (ts_budget_over(&L->search)) {
                L->proven = false;
                L->st->timed_out = true;
                *stop = true;
                nbatch = i;
                break;
            }
            if ((rc = ts_lazy_greedy_ok(L, k, batch[i].mids, &ok, e)))
                goto out;
            batch[i].exact = !ok;
        }
        ts_ctx_phase(L->c, TS_PHASE_SCREEN, ts_clock_now() - t0);
        qsort(batch, (size_t)nbatch, sizeof *batch, ts_cmp_cand);
        /* Two passes: the solver-free construction for every candidate first (a success at a
         * candidate's bound is optimal for it), then the repetend model for the rest. */
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < nbatch && !*stop; i++) {
                if (batch[i].done)
                    continue;
                if ((rc = ts_lazy_try(L, k, &batch[i], pass == 0, stop, e)))
                    goto out;
                ts_lazy_progress(L, false);
            }
    }
out:
    free(batch);
    free(pool);
    free(cuts);
    return rc;
}

/* The search's arrays, the chain order and the position of each block in it. */
static int ts_lazy_init(ts_lazy *L, ts_search_ctx *c, ts_err *e)
{
    const ts_placement *p = c->p;
    int nb = p->nblocks;
    memset(L, 0, sizeof *L);
    L->p = p;
    L->c = c;
    L->search = ts_ctx_share(c, ts_finish_share(c->p, c->o));
    L->o = c->o;
    L->st = c->st;
    L->n = nb;
    L->maxload = ts_placement_max_load(p);
    L->capmax = c->cap ? ts_caps_max(c->cap, p->ndevs) : 0;
    L->proven = true;
    L->chain = malloc((size_t)nb * sizeof *L->chain + 1);
    L->pos = malloc((size_t)nb * sizeof *L->pos + 1);
    L->level = calloc((size_t)p->ndevs + 1, sizeof *L->level);
    /* The path table is quadratic (20,000 blocks: 3.2 GB): beyond the cap the screen does
     * without it, which only weakens its period bound. */
    bool paths = (long)nb * nb <= TS_LAZY_MAX_PATHS;
    L->lp = paths ? calloc((size_t)nb * (size_t)nb + 1, sizeof *L->lp) : NULL;
    L->start = calloc((size_t)nb + 1, sizeof *L->start);
    int bad = ts_rep_alloc(&L->best, nb) | ts_rep_alloc(&L->seed, nb);
    L->best.period = L->seed.period = LONG_MAX;
    if (bad || !L->chain || !L->pos || !L->level || (paths && !L->lp) || !L->start)
        return ts_fail(e, TS_ESYS, "solver: out of memory");
    if (ts_placement_chain_order(p, L->chain))
        return ts_fail(e, TS_EINPUT, "lazy: the placement '%s' has a dependency cycle", p->name);
    for (int i = 0; i < nb; i++)
        L->pos[L->chain[i]] = i;
    return TS_OK;
}

static void ts_lazy_free(ts_lazy *L)
{
    ts_rmodel_free(L->rm);
    free(L->chain);
    free(L->pos);
    free(L->level);
    free(L->lp);
    ts_rep_free(&L->best);
    free(L->start);
    ts_rep_free(&L->seed);
    ts_schedule_free(L->seed_sched);
}

/* All-pairs longest start-to-start paths over same-micro-batch edges, in chain order (which is
 * topological): the screen's period bound. Each block's outgoing edges are indexed first, so a
 * row costs O(blocks + edges). A row the time limit leaves out stays 0 (no path known), which
 * only weakens the bound. -1 on allocation failure. */
static int ts_lazy_paths(ts_lazy *L)
{
    const ts_placement *p = L->p;
    int nb = L->n;
    if (!L->lp)
        return 0;
    int *oo = calloc((size_t)nb + 2, sizeof *oo), *oe = malloc((size_t)p->nedges * sizeof *oe + 1);
    if (!oo || !oe) {
        free(oo);
        free(oe);
        return -1;
    }
    for (int ei = 0; ei < p->nedges; ei++)
        if (p->edges[ei].distance == 0)
            oo[p->edges[ei].src + 2]++;
    for (int b = 0; b < nb; b++)
        oo[b + 2] += oo[b + 1];
    for (int ei = 0; ei < p->nedges; ei++) /* oo[b + 1] runs ahead while filling */
        if (p->edges[ei].distance == 0)
            oe[oo[p->edges[ei].src + 1]++] = ei;
    for (int a = 0; a < nb && !((a & 63) == 63 && ts_budget_over(&L->search)); a++) {
        long *row = L->lp + (size_t)a * (size_t)nb;
        for (int i = L->pos[a]; i < nb; i++) {
            int x = L->chain[i];
            if (x != a && row[x] <= 0)
                continue;
            for (int j = oo[x]; j < oo[x + 1]; j++) {
                const ts_edge *ed = &p->edges[oe[j]];
                long v = row[x] + p->blocks[x].span + ed->delay;
                if (v > row[ed->dst])
                    row[ed->dst] = v;
            }
        }
        row[a] = 0;
    }
    free(oo);
    free(oe);
    return 0;
}

/* Memory floor: below it nothing fits (refused here); at or above it k = 1 always does. */
static int ts_lazy_floor(ts_lazy *L, ts_err *e)
{
    const ts_search_opts *o = L->o;
    if (!o->has_memory)
        return TS_OK;
    double t0 = ts_clock_now();
    long floor_cap;
    bool exact;
    int rc = ts_memory_floor(L->p, L->c->cap, &L->search, &floor_cap, &exact, e);
    ts_ctx_lap(L->c, TS_PHASE_FLOOR, t0);
    return rc ? rc : ts_floor_refusal(L->p, L->c->cap, floor_cap, exact, L->st, e);
}

/* Seed from the fast construction when it fits (its window, warm-up and cool-down). */
static int ts_lazy_seed(ts_lazy *L, ts_err *e)
{
    const ts_search_opts *o = L->o;
    double t0 = ts_clock_now();
    bool fits = false;
    int rc = ts_fast_construct(L->p, L->chain, L->c->cap, &L->search, L->seed.mids, L->seed.start,
                               &L->seed.period, &fits, e);
    if (rc == TS_ENOANSWER) { /* the time limit ended it: no seed, and nothing is proven */
        ts_err_clear(e);
        L->proven = false;
        L->st->timed_out = true;
        L->seed.period = LONG_MAX;
        ts_ctx_lap(L->c, TS_PHASE_SEED, t0);
        return TS_OK;
    }
    if (rc)
        return rc;
    int sk = ts_rep_k(L->seed.mids, L->n);
    bool ok = fits && (o->k == 0 || sk == o->k);
    if (ok && (rc = ts_lazy_greedy_ok(L, sk, L->seed.mids, &ok, e)))
        return rc;
    L->seed.k = sk;
    if (!ok)
        L->seed.period = LONG_MAX;
    ts_ctx_lap(L->c, TS_PHASE_SEED, t0);
    return TS_OK;
}

/* A search too large to finish gets a better seed: the fast method with its memory repair (a
 * quarter of the time limit at most). */
static void ts_lazy_seed_fast(ts_lazy *L)
{
    const ts_search_opts *o = L->o;
    double t0 = ts_clock_now();
    ts_search_opts fo = *o;
    fo.method = TS_METHOD_FAST;
    fo.progress = NULL;
    fo.time_limit = o->time_limit > 0 ? ts_budget_left(&L->search) / 4 + 1e-3 : 30;
    fo.meter = L->c->meter;
    ts_schedule *fs = NULL;
    ts_search_stats fst;
    ts_err fe = {0};
    if (ts_search_fast(L->p, &fo, &fs, &fst, &fe) == TS_OK && fs->has_repetend &&
        fs->rep.period < L->seed.period) {
        ts_rep_from_schedule(fs, &L->seed);
        L->seed_sched = fs;
        fs = NULL;
    }
    ts_schedule_free(fs);
    ts_ctx_lap(L->c, TS_PHASE_SEED, t0);
}

/* Every k from kmin to kmax, candidates of each; stops at zero bubbles, at the time limit, or
 * where memory runs out. */
static int ts_lazy_enumerate(ts_lazy *L, int kmin, int kmax, ts_err *e)
{
    for (int k = kmin; k <= kmax; k++) {
        L->total += ts_binom(L->n - 1, k - 1);
        if (L->total > LONG_MAX / 4)
            L->total = LONG_MAX / 4; /* saturate: the count only has to be "huge" */
    }
    if (L->total > TS_LAZY_LARGE && L->seed.period > L->maxload && L->o->k == 0)
        ts_lazy_seed_fast(L);
    /* A zero-bubble seed ends a search too large to finish: enumerating would only look for
     * the same period at a smaller k. */
    bool stop = L->total > TS_LAZY_LARGE && L->seed.period <= L->maxload;
    for (int k = kmin; k <= kmax && !stop; k++) {
        bool any = false;
        int rc = ts_lazy_k(L, k, &stop, &any, e);
        if (rc)
            return rc;
        /* More micro-batches in flight only raise the levels: stop where memory runs out. */
        if (!any && L->o->has_memory && k > kmin)
            break;
    }
    ts_lazy_progress(L, true);
    return TS_OK;
}

/* No candidate and no seed: one micro-batch at a time when the time limit cut the search,
 * otherwise the reason there is none. */
static int ts_lazy_none(ts_lazy *L, ts_schedule **out, ts_err *e)
{
    const ts_placement *p = L->p;
    const ts_search_opts *o = L->o;
    if (L->st->timed_out) {
        double t0 = ts_clock_now();
        int rc = ts_sequential_fallback(p, L->c->cap, L->maxload, out, L->st, e);
        ts_ctx_lap(L->c, TS_PHASE_FALLBACK, t0);
        return rc;
    }
    char mem[64];
    ts_caps_text(L->c->cap, p->ndevs, mem, sizeof mem);
    if (ts_placement_has_distance_edges(p)) /* lazy's cuts meet them only in part */
        return ts_fail(e, TS_EINPUT,
                       "lazy found no repetend of '%s' within memory %s, but its edges between "
                       "micro-batches (distance > 0) are more than lazy can take: use --method "
                       "modulo",
                       p->name, mem);
    if (o->k > 0)
        return ts_fail(e, TS_ENOANSWER,
                       "no repetend of '%s' with k = %d fits memory %s (warm-up, repetend and "
                       "cool-down together)",
                       p->name, o->k, mem);
    return ts_fail(e, TS_ENOANSWER, "no repetend of '%s' fits memory %s", p->name, mem);
}

/* Completes the best candidate (warm-up and cool-down with minimum steps); one micro-batch at a
 * time when no time is left for it. Returns TS_OK with *fell_back when the fallback stands. */
static int ts_lazy_complete(ts_lazy *L, ts_schedule **out, bool *fell_back, ts_err *e)
{
    const ts_search_opts *o = L->o;
    ts_search_stats *st = L->st;
    ts_complete_opts co;
    ts_complete_opts_init(&co);
    co.cap = L->c->cap;
    co.time_limit = o->time_limit > 0 ? ts_budget_left(&L->c->budget) + 0.001 : 0;
    co.meter = L->c->meter;
    co.micro_batches = o->micro_batches;
    ts_complete_stats cst;
    ts_ctx_progress(L->c, TS_PHASE_COMPLETION, L->tried, L->total, L->best.period - L->maxload,
                    true);
    int rc = ts_complete(L->p, &L->best, &co, out, &cst, e);
    ts_ctx_phase(L->c, TS_PHASE_WARMUP, cst.warmup_seconds);
    ts_ctx_phase(L->c, TS_PHASE_COOLDOWN, cst.cooldown_seconds);
    if (rc == TS_ENOANSWER && ts_budget_over(&L->c->budget)) {
        ts_err_clear(e);
        st->timed_out = true;
        *fell_back = true;
        return ts_sequential_fallback(L->p, L->c->cap, L->maxload, out, st, e);
    }
    if (rc)
        return rc;
    if (cst.timed_out)
        st->timed_out = true;
    st->completion_optimal = cst.warmup_optimal && cst.cooldown_optimal;
    return TS_OK;
}

/* Whether a proof over lazy's class is a proof over every repetend. A repetend gives each block
 * a micro-batch offset that never grows along a dependency; lazy's class is the offsets that
 * are contiguous segments of one fixed chain order. The two coincide when that order is the
 * placement's only topological order (each block feeds the next one directly) and every offset
 * pattern of a period may be written with consecutive offsets (no delays, so a dependency never
 * needs more than one period between its two ends), and when every k was searched. The R-fold
 * placement of --per-period R > 1 has R independent copies of every block, so its chain order
 * is never the only one: there a smaller period may hide in offsets that interleave the copies
 * (a schedule of one micro-batch per period 8, unrolled three times, is a repetend of period 24
 * per 3 that the class of the 3-fold chain does not hold). */
static bool ts_lazy_class_complete(const ts_lazy *L)
{
    const ts_placement *p = L->p;
    if (L->o->k > 0)
        return false;
    for (int i = 0; i < p->nedges; i++)
        if (p->edges[i].delay > 0 || p->edges[i].distance > 0)
            return false;
    for (int i = 0; i + 1 < p->nblocks; i++) {
        bool linked = false;
        for (int j = 0; j < p->nedges && !linked; j++)
            linked = p->edges[j].src == L->chain[i] && p->edges[j].dst == L->chain[i + 1];
        if (!linked)
            return false;
    }
    return true;
}

/* The schedule of the best candidate, or of the seed when no candidate reached its period. */
static int ts_lazy_result(ts_lazy *L, ts_schedule **out, ts_err *e)
{
    ts_search_stats *st = L->st;
    int nb = L->n;
    bool from_seed = false, fell_back = false;
    if (L->best.period == LONG_MAX && L->seed.period != LONG_MAX) {
        ts_rep_copy(&L->best, &L->seed, nb);
        from_seed = true;
    }
    if (L->best.period == LONG_MAX)
        return ts_lazy_none(L, out, e);
    if (from_seed && L->seed_sched) { /* the fast method completed it already */
        *out = L->seed_sched;
        L->seed_sched = NULL;
        st->completion_optimal = false;
    } else {
        int rc = ts_lazy_complete(L, out, &fell_back, e);
        if (rc || fell_back)
            return rc;
    }
    st->k = L->best.k;
    st->period = L->best.period;
    st->bubbles = L->best.period - L->maxload;
    /* optimal becomes period_optimal (ts_search_label): the period is the smallest of every
     * repetend, which the class proof shows only when the class holds them all */
    st->optimal =
        L->best.period <= L->maxload || (L->proven && !from_seed && ts_lazy_class_complete(L));
    return TS_OK;
}

int ts_search_lazy(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                   ts_search_stats *st, ts_err *e)
{
    ts_search_ctx ctx;
    int rc = ts_ctx_begin(&ctx, p, o, st, e);
    *out = NULL;
    ts_lazy L;
    if (rc == TS_OK)
        rc = ts_lazy_init(&L, &ctx, e);
    else
        memset(&L, 0, sizeof L);
    int kmin = o->k > 0 ? o->k : 1, kmax = o->k > 0 ? o->k : p->nblocks;
    if (rc == TS_OK && ts_lazy_paths(&L))
        rc = ts_fail(e, TS_ESYS, "solver: out of memory");
    if (rc == TS_OK)
        rc = ts_lazy_floor(&L, e);
    if (rc == TS_OK && kmin > p->nblocks)
        rc = ts_fail(e, TS_ENOANSWER,
                     "lazy: k = %d needs at least %d blocks in the chain; '%s' has %d, so there is "
                     "no candidate",
                     kmin, kmin, p->name, p->nblocks);
    if (rc == TS_OK)
        rc = ts_lazy_seed(&L, e);
    if (rc == TS_OK)
        rc = ts_lazy_enumerate(&L, kmin, kmax, e);
    if (rc == TS_OK)
        rc = ts_lazy_result(&L, out, e);
    ts_lazy_free(&L);
    return ts_ctx_end(&ctx, rc, *out);
}
