/* Modulo repetend search (DESIGN §5 "modulo", issue 7).
 *
 * The repetend is a modulo schedule: one start t_b per block for micro-batch 0, micro-batch j at
 * t_b + j*P. Periods run from the resource bound max_d load(d) (raised by any recurrence through
 * distance edges) upward; the first feasible one is optimal when every smaller one was refused.
 *   1. Constructed timetables (modulo_greedy.c) for every period up to the serial bound: the
 *      smallest period where one verifies is feasible, found in milliseconds. Below it, the
 *      clustered construction (the blocks on several devices in two clusters, allocations
 *      delayed) goes down while it verifies.
 *   2. Each smaller period is refused by the dependency-path memory bound (modulo_bound.c) when
 *      it can, else decided by Z3 (modulo_z3.c) seeded with the constructed residues, with a
 *      share of the time left.
 *   3. At the chosen period, the latency of one micro-batch is minimised (bisection on Z3,
 *      bounded), which shortens fill and drain.
 *   4. The schedule: every window position within a period, plain and with its fill and drain
 *      tightened (modulo_tighten.c), and the lazy-style completion for small ones; the shortest
 *      at N that validates for k .. k + max distance + 2 and N is kept.
 * The timetable unrolled is valid for every N; its repetend window lets ts_schedule_unroll
 * produce it for every N >= k, and its first n micro-batches are valid for n < k. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "modulo_internal.h"
#include "ts_bound.h"
#include "ts_caps.h"
#include "ts_complete.h"
#include "ts_search_ctx.h"
#include "ts_solver.h"

/* The modulo search's state: its context, and what the steps share. */
typedef struct {
    ts_search_ctx *c;
    const ts_placement *p;
    const ts_search_opts *o;
    ts_search_stats *st;
    /* Solver work stops at 95% of the time limit, so that building and checking the schedule
     * still fits inside it. */
    ts_budget solve;
    ts_mplan mp;
    bool have_plan;
    int *order; /* chain order; order[0] is the anchor */
    int anchor;
    long *t; /* the timetable */
    long *hint; /* residues the construction gave, as hints for Z3 */
    ts_mz *z; /* the model of the chosen period, kept for the latency */
    long load, lb, ub; /* max load; lower and upper bounds on the period */
} ts_mctx;

/* Seconds one solver call may take now. */
static double ts_left(const ts_mctx *c)
{
    double l = ts_budget_left(&c->solve);
    return l < TS_MODULO_CALL_CAP ? l : TS_MODULO_CALL_CAP;
}

static bool ts_solve_over(const ts_mctx *c)
{
    return ts_budget_over(&c->solve);
}

/* Minimises the latency of one micro-batch at period P by bisection within budget seconds;
 * each probe gets at most a quarter of the budget, and a probe that times out counts as a
 * failure (so the bisection goes on above it, unproven). t holds a feasible timetable on entry
 * and the best found on return. Returns true when the latency is proven minimal. */
static bool ts_minimise_latency(ts_mctx *c, long P, long *t, double budget, ts_err *e)
{
    ts_mz **zp = &c->z;
    const ts_mplan *mp = &c->mp;
    int anchor = c->anchor;
    const ts_placement *p = c->p;
    int nb = p->nblocks;
    long *est = malloc((size_t)nb * sizeof(long)), *cand = malloc((size_t)nb * sizeof(long));
    long *hint = malloc((size_t)nb * sizeof(long));
    if (!est || !cand || !hint) {
        free(est);
        free(cand);
        free(hint);
        return false;
    }
    ts_placement_earliest(p, est);
    long lo = 0;
    for (int b = 0; b < nb; b++)
        if (est[b] + p->blocks[b].span > lo)
            lo = est[b] + p->blocks[b].span;
    long hi = ts_modulo_latency(p, t);
    double stop = ts_meter_now(c->solve.m) + budget;
    bool proven = true;
    long probes = 0;
    while (lo < hi) {
        double left = stop - ts_meter_now(c->solve.m);
        if (left > ts_left(c))
            left = ts_left(c);
        if (left <= 0.005) {
            proven = false;
            if (ts_solve_over(c))
                c->st->timed_out = true;
            break;
        }
        double cap = budget / 4 > 0.02 ? budget / 4 : 0.02;
        if (left > cap)
            left = cap;
        if (!*zp) {
            *zp = ts_mz_new(p, mp, P, c->c->cap, anchor, e);
            if (!*zp) {
                proven = false;
                break;
            }
        }
        long mid = lo + (hi - lo) / 2;
        /* The current residues, shifted so the anchor sits at 0, as hints. */
        long shift = t[anchor];
        for (int b = 0; b < nb; b++)
            hint[b] = ((t[b] - shift) % P + P) % P;
        char why[128];
        ts_mz_result r = ts_mz_solve(*zp, c->solve.m, left, hint, mid, cand, why, sizeof why);
        ts_ctx_progress(c->c, TS_PHASE_LATENCY, ++probes, 0, P - c->load, true);
        if (r == TS_MZ_SAT) {
            ts_err ve = {0};
            if (ts_modulo_verify(p, mp, P, cand, c->c->cap, &ve) != TS_OK) {
                proven = false; /* never expected: keep the verified timetable */
                break;
            }
            memcpy(t, cand, (size_t)nb * sizeof(long));
            hi = ts_modulo_latency(p, t);
        } else {
            if (r == TS_MZ_UNKNOWN)
                proven = false;
            lo = mid + 1;
        }
    }
    free(est);
    free(cand);
    free(hint);
    return proven;
}

/* Makespan of s unrolled to n micro-batches after checking it for every count from k to k +
 * max distance + 2 and for n (after which unrolling adds nothing new); -1 when a check fails. */
static long ts_checked_makespan(const ts_schedule *s, int n)
{
    const ts_placement *p = s->placement;
    int maxd = 0;
    for (int i = 0; i < p->nedges; i++)
        if (p->edges[i].distance > maxd)
            maxd = p->edges[i].distance;
    if (n < s->nmicros)
        n = s->nmicros;
    long mk = -1;
    for (int m = s->nmicros; m <= s->nmicros + maxd + 2 || m == n;
         m = m < s->nmicros + maxd + 2 ? m + 1 : n) {
        ts_schedule *u = NULL;
        ts_err e = {0};
        ts_validate_opts vo = {0};
        if (ts_schedule_unroll(s, m, &u, &e) != TS_OK)
            return -1;
        int bad = ts_schedule_validate(u, &vo, &e) != TS_OK;
        long first, last;
        ts_schedule_span(u, &first, &last);
        ts_schedule_free(u);
        if (bad)
            return -1;
        mk = last - first;
        if (m == n)
            break;
    }
    return mk;
}

/* The k-micro-batch schedule of timetable t with its repetend: the plain one or the one with
 * tightened fill and drain, whichever is shorter at opts->micro_batches (N) among
 * those that validate. *mk receives that makespan (-1 when neither validates, which the
 * verified timetable rules out). NULL on allocation failure. */
static ts_schedule *ts_modulo_build(ts_mctx *c, long P, const long *t, long *mk)
{
    int n = c->o->micro_batches > 0 ? c->o->micro_batches : TS_DEFAULT_MICRO_BATCHES;
    ts_schedule *best = NULL;
    *mk = -1;
    /* Every window position within a period: each splits fill and drain differently, and the
     * tightening then gives different lengths. Large periods: a few evenly spread positions. */
    long step = P <= 64 ? 1 : P / 64;
    for (long delta = 0; delta < P; delta += step) {
        ts_schedule *s = ts_modulo_repetend_schedule(c->p, P, t, delta);
        if (!s)
            break;
        if (c->c->cap)
            ts_schedule_set_memory(s, c->c->cap);
        for (int pass = 0; pass < 2 && s; pass++) {
            ts_err e = {0};
            if (pass == 1 && ts_modulo_tighten(s, P, &e) != TS_OK)
                break;
            long m = ts_checked_makespan(s, n);
            if (m >= 0 && (*mk < 0 || m < *mk)) {
                ts_schedule_free(best);
                best = ts_schedule_clone(s);
                *mk = m;
            }
        }
        ts_schedule_free(s);
        if (ts_solve_over(c) && best)
            break;
    }
    if (!best) { /* nothing validated (never expected): the plain timetable */
        best = ts_modulo_repetend_schedule(c->p, P, t, 0);
        if (best && c->c->cap)
            ts_schedule_set_memory(best, c->c->cap);
    }
    return best;
}

/* The lazy-style completion of the same repetend (warm-up and cool-down with minimum steps),
 * within budget seconds; replaces *sp when it validates and is shorter at N. */
static void ts_modulo_complete(ts_mctx *c, long P, const long *t, double budget, ts_schedule **sp,
                               long *mk)
{
    const ts_placement *p = c->p;
    int nb = p->nblocks;
    int n = c->o->micro_batches > 0 ? c->o->micro_batches : TS_DEFAULT_MICRO_BATCHES;
    if (budget <= 0.01)
        return;
    ts_rep rep;
    if (ts_rep_alloc(&rep, nb))
        return;
    long qmax = ts_modulo_repetend(p, P, t, 0, &rep, NULL) - 1;
    /* Measured on the paper cases (2 cores): with more than ~64 warm-up and cool-down
     * instances the completion takes seconds whatever its time limit, and it never shortened
     * those schedules (xshape, 32 instances, is where it helps: 1033 -> 1031). */
    if ((long)nb * qmax > TS_MODULO_COMPLETE_MAX) {
        ts_rep_free(&rep);
        return;
    }
    ts_complete_opts co;
    ts_complete_opts_init(&co);
    co.cap = c->c->cap;
    co.time_limit = budget;
    co.meter = c->solve.m;
    co.micro_batches = n;
    /* Only a completion shorter than what we have is of use: let each phase stop minimising
     * once within half of our distance to the lower bound. */
    if (*mk > 0) {
        long gap = (*mk - ts_lower_bound(p, n)) / 2 - 1;
        co.accept = gap > 0 ? (double)gap / (double)*mk : 0;
    }
    ts_schedule *cs = NULL;
    ts_err e = {0};
    if (ts_complete(p, &rep, &co, &cs, NULL, &e) == TS_OK && cs) {
        long mc = ts_checked_makespan(cs, n);
        if (mc >= 0 && (*mk < 0 || mc < *mk)) {
            ts_schedule_free(*sp);
            *sp = cs;
            *mk = mc;
            cs = NULL;
        }
    }
    ts_schedule_free(cs);
    ts_rep_free(&rep);
}

/* Step 1: the memory plan, the chain order and the period bounds. */
static int ts_modulo_setup(ts_mctx *c, ts_err *e)
{
    const ts_placement *p = c->p;
    int nb = p->nblocks;
    int rc = ts_mplan_build(p, c->o->has_memory, &c->mp, e);
    if (rc != TS_OK)
        return rc;
    c->have_plan = true;
    c->st->memory_bound = c->mp.exact ? "exact" : "safe";
    c->order = malloc((size_t)nb * sizeof(int));
    c->t = malloc((size_t)nb * sizeof(long));
    c->hint = malloc((size_t)nb * sizeof(long));
    if (!c->order || !c->t || !c->hint)
        return ts_fail(e, TS_ESYS, "out of memory");
    if (ts_placement_chain_order(p, c->order))
        return ts_fail(e, TS_EINPUT, "placement '%s': dependencies form a cycle", p->name);
    c->anchor = c->order[0];
    c->load = ts_placement_max_load(p);
    long rec = ts_modulo_recurrence_bound(p);
    c->lb = c->load > rec ? c->load : rec;
    c->ub = 1;
    for (int b = 0; b < nb; b++)
        c->ub += p->blocks[b].span;
    for (int i = 0; i < p->nedges; i++)
        c->ub += p->edges[i].delay;
    if (c->ub < c->lb)
        c->ub = c->lb;
    return TS_OK;
}

/* Step 2a: the smallest period up to the bound where a constructed timetable (th) verifies;
 * -1 when none does (or the time ran out first). The packed and plain constructions go up from
 * the lower bound; the clustered one, dearer, then goes down from below their answer while it
 * verifies. */
static long ts_modulo_constructed(ts_mctx *c, long *th)
{
    long found = -1;
    for (long q = c->lb; q <= c->ub; q++) {
        if (ts_modulo_greedy_packed(c->p, &c->mp, q, c->order, c->c->cap, th, NULL,
                                    &c->solve) ||
            ts_modulo_greedy(c->p, &c->mp, q, c->order, c->c->cap, th, NULL,
                             &c->solve)) {
            found = q;
            break;
        }
        if (ts_solve_over(c)) {
            /* Cut by the time limit: the sequential timetable at the bound is still an answer,
             * and it says so. */
            c->st->timed_out = true;
            if (ts_modulo_sequential(c->p, &c->mp, c->ub, c->order, c->c->cap, th))
                return c->ub;
            return -1;
        }
    }
    if (found < 0)
        return -1;
    long *tq = malloc((size_t)c->p->nblocks * sizeof(long));
    for (long q = found - 1; tq && q >= c->lb && !ts_solve_over(c); q--) {
        if (!ts_modulo_greedy_clustered(c->p, &c->mp, q, c->order, c->c->cap, tq, NULL,
                                        &c->solve))
            break;
        memcpy(th, tq, (size_t)c->p->nblocks * sizeof(long));
        found = q;
    }
    free(tq);
    return found;
}

/* Step 2b: decides period P with Z3 within budget seconds, seeded with the constructed residues.
 * On SAT c->t holds the verified timetable and c->z the model. */
static int ts_modulo_decide(ts_mctx *c, long P, double budget, ts_mz_result *res, ts_err *e)
{
    const ts_placement *p = c->p;
    char why[128] = "";
    if (!ts_modulo_greedy_packed(p, &c->mp, P, c->order, c->c->cap, c->t, c->hint,
                                 &c->solve))
        ts_modulo_greedy(p, &c->mp, P, c->order, c->c->cap, c->t, NULL, &c->solve);
    c->z = ts_mz_new(p, &c->mp, P, c->c->cap, c->anchor, e);
    if (!c->z)
        return (e && e->code) ? e->code : TS_ESYS;
    *res = ts_mz_solve(c->z, c->solve.m, budget, c->hint, -1, c->t, why, sizeof why);
    if (*res == TS_MZ_SAT) {
        ts_err ve = {0};
        if (ts_modulo_verify(p, &c->mp, P, c->t, c->c->cap, &ve) != TS_OK)
            return ts_fail(e, TS_ESYS, "internal: the solver's timetable fails its check (%s)",
                           ve.msg);
        return TS_OK;
    }
    ts_mz_free(c->z);
    c->z = NULL;
    return TS_OK;
}

/* Why no period was found. */
static int ts_modulo_none(const ts_mctx *c, long P, bool proven, ts_err *e)
{
    const ts_placement *p = c->p;
    const ts_search_opts *o = c->o;
    if (c->st->timed_out)
        return ts_fail(e, TS_ENOANSWER,
                       "placement '%s': no modulo schedule found within the time limit of "
                       "%.3g s (periods %ld..%ld tried)",
                       p->name, o->time_limit, c->lb, P > c->ub ? c->ub : P);
    char mem[64];
    if (o->has_memory)
        return ts_fail(e, TS_ENOANSWER,
                       "placement '%s': no modulo schedule fits memory %s per device at any "
                       "period from %ld to %ld%s%s",
                       p->name, ts_caps_text(c->c->cap, p->ndevs, mem, sizeof mem), c->lb, c->ub,
                       proven ? "" : " (some not decided: ", proven ? "" : "solver gave up)");
    return ts_fail(e, TS_ENOANSWER, "placement '%s': no modulo schedule up to period %ld", p->name,
                   c->ub);
}

/* Step 2: the smallest feasible period. First the constructed timetables, cheap, for every
 * period up to the bound: the smallest period where one works is feasible. Then Z3 decides the
 * smaller periods, each with a share of the time left. Fills c->t and the period statistics. */
static int ts_modulo_period(ts_mctx *c, ts_err *e)
{
    const ts_search_opts *o = c->o;
    ts_search_stats *st = c->st;
    long *th = malloc((size_t)c->p->nblocks * sizeof(long));
    if (!th)
        return ts_fail(e, TS_ESYS, "out of memory");
    long ph = ts_modulo_constructed(c, th), P = c->lb, top = ph >= 0 ? ph - 1 : c->ub;
    bool found = false, proven = true;
    int rc = TS_OK;
    for (; P <= top && !found; P++) {
        st->candidates++;
        ts_ctx_progress(c->c, TS_PHASE_PERIOD, P - c->lb + 1, top - c->lb + 1, -1, true);
        double left = ts_left(c);
        if (c->solve.deadline > 0 && left <= 0) {
            st->timed_out = true;
            proven = false;
            break;
        }
        /* With a constructed answer at ph, half the time goes to the smaller periods, evenly;
         * without one, each period may use half of what is left. */
        double budget = ph >= 0 ? 0.5 * left / (double)(ph - P) : 0.5 * left;
        if (c->solve.deadline <= 0)
            budget = TS_MODULO_CALL_CAP;
        if (o->has_memory && ts_modulo_memory_infeasible(c->p, &c->mp, P, c->c->cap, &c->solve))
            continue; /* proven: every dependency path holds too many copies */
        ts_mz_result r;
        if ((rc = ts_modulo_decide(c, P, budget, &r, e)))
            break;
        found = r == TS_MZ_SAT;
        if (r == TS_MZ_UNKNOWN) {
            proven = false;
            if (ts_solve_over(c)) {
                st->timed_out = true;
                break;
            }
        }
    }
    if (found)
        P--; /* the loop stepped past it */
    if (rc == TS_OK && !found && ph >= 0) {
        P = ph;
        st->candidates++;
        memcpy(c->t, th, (size_t)c->p->nblocks * sizeof(long));
        found = true;
    }
    free(th);
    if (rc == TS_OK && !found)
        rc = ts_modulo_none(c, P, proven, e);
    if (rc != TS_OK)
        return rc;
    st->period = P;
    st->bubbles = P - c->load;
    /* A period at a lower bound is optimal by itself; above it, the smaller periods must have
     * been refused, and refused by an exact memory model (a safe but inexact plan may refuse
     * periods that some schedule could use). */
    st->optimal = P == c->lb || (proven && c->mp.exact);
    ts_ctx_progress(c->c, TS_PHASE_PERIOD, P - c->lb + 1, P - c->lb + 1, st->bubbles, true);
    return TS_OK;
}

/* Step 4: a shorter micro-batch latency (shorter fill and drain) within a bounded share of
 * time; replaces *sp when its schedule is shorter at N. */
static void ts_modulo_latency_step(ts_mctx *c, ts_schedule **sp, long *mk)
{
    long P = c->st->period;
    int nb = c->p->nblocks;
    /* Latency work gets as much effort as the search spent so far (at least 0.15 s of it),
     * within the time limit; without one, at most TS_MODULO_LATENCY_CAP. */
    double spent = ts_ctx_spent(c->c);
    double budget = spent > 0.15 ? spent : 0.15;
    if (c->solve.deadline <= 0 && budget > TS_MODULO_LATENCY_CAP)
        budget = TS_MODULO_LATENCY_CAP;
    long *t2 = malloc((size_t)nb * sizeof(long));
    if (!t2)
        return;
    memcpy(t2, c->t, (size_t)nb * sizeof(long));
    ts_err e = {0};
    c->st->latency_optimal = ts_minimise_latency(c, P, t2, budget, &e);
    long mk2 = -1;
    ts_schedule *s2 = ts_modulo_build(c, P, t2, &mk2);
    if (s2 && mk2 >= 0 && (*mk < 0 || mk2 < *mk)) {
        ts_schedule_free(*sp);
        *sp = s2;
        *mk = mk2;
        c->st->latency = ts_modulo_latency(c->p, t2);
        memcpy(c->t, t2, (size_t)nb * sizeof(long));
    } else {
        ts_schedule_free(s2);
    }
    free(t2);
}

/* Steps 3 to 5: the schedule of the timetable; then, unless it already meets the lower bound at
 * N, the latency step and the completion, each within a share of the time. */
/* TS_EINPUT when the schedule of timetable t (k micro-batches of every block) would exceed
 * TS_MODULO_MAX_INSTANCES: building and checking it would take far longer than any time limit
 * and GBs of memory, so the search refuses before it starts. */
static int ts_modulo_size_check(const ts_mctx *c, long P, ts_err *e)
{
    int nb = c->p->nblocks;
    int *mids = malloc((size_t)(nb ? nb : 1) * sizeof(int));
    if (!mids)
        return ts_fail(e, TS_ESYS, "out of memory");
    long W;
    ts_rep r = {.start = NULL, .mids = mids};
    long k = ts_modulo_repetend(c->p, P, c->t, 0, &r, &W);
    free(mids);
    if (k * nb > TS_MODULO_MAX_INSTANCES)
        return ts_fail(e, TS_EINPUT,
                       "placement too large for modulo: its schedule would hold k = %ld "
                       "micro-batches x %d blocks = %ld instances (cap %ld); try lazy or fast",
                       k, nb, k * nb, TS_MODULO_MAX_INSTANCES);
    return TS_OK;
}

static int ts_modulo_schedule(ts_mctx *c, double tp, ts_schedule **out, ts_err *e)
{
    long P = c->st->period, mk = -1;
    int rc = ts_modulo_size_check(c, P, e);
    if (rc != TS_OK)
        return rc;
    ts_schedule *s = ts_modulo_build(c, P, c->t, &mk);
    if (!s)
        return ts_fail(e, TS_ESYS, "out of memory");
    int N = c->o->micro_batches > 0 ? c->o->micro_batches : TS_DEFAULT_MICRO_BATCHES;
    /* mk is measured at max(N, k) micro-batches (the schedule cannot be shorter than k). */
    long lbn = ts_lower_bound(c->p, N > s->nmicros ? N : s->nmicros);
    c->st->latency = ts_modulo_latency(c->p, c->t);
    double tl = ts_ctx_lap(c->c, TS_PHASE_SCHEDULE, tp);
    if (mk != lbn) {
        ts_modulo_latency_step(c, &s, &mk);
        ts_ctx_lap(c->c, TS_PHASE_LATENCY, tl);
    }
    if (mk != lbn) {
        double tc = ts_clock_now();
        double spent = ts_ctx_spent(c->c);
        double budget = spent > 0.15 ? spent : 0.15;
        if (c->solve.deadline > 0 && budget > ts_budget_left(&c->solve))
            budget = ts_budget_left(&c->solve);
        if (c->solve.deadline <= 0 && budget > TS_MODULO_LATENCY_CAP)
            budget = TS_MODULO_LATENCY_CAP;
        ts_modulo_complete(c, P, c->t, budget, &s, &mk);
        ts_ctx_lap(c->c, TS_PHASE_COMPLETION, tc);
    }
    c->st->k = s->rep.k;
    *out = s;
    return TS_OK;
}

int ts_search_modulo(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                     ts_search_stats *st, ts_err *e)
{
    ts_search_ctx ctx;
    int rc = ts_ctx_begin(&ctx, p, o, st, e);
    *out = NULL;
    if (rc)
        return ts_ctx_end(&ctx, rc, NULL);
    if (o->k > 0)
        return ts_ctx_end(&ctx,
                          ts_fail(e, TS_EINPUT,
                                  "modulo search finds k itself (k = max offset + 1); do not fix "
                                  "it (asked k = %d)",
                                  o->k),
                          NULL);
    ts_mctx c;
    memset(&c, 0, sizeof c);
    c.c = &ctx;
    c.p = p;
    c.o = o;
    c.st = ctx.st;
    c.solve = ts_ctx_share(&ctx, 0.95);
    double t0 = ctx.wall0;
    rc = ts_modulo_setup(&c, e);
    if (rc == TS_OK) {
        t0 = ts_ctx_lap(&ctx, TS_PHASE_BOUNDS, t0);
        rc = ts_modulo_period(&c, e);
        t0 = ts_ctx_lap(&ctx, TS_PHASE_PERIOD, t0);
    }
    if (rc == TS_OK)
        rc = ts_modulo_schedule(&c, t0, out, e);
    ts_mz_free(c.z);
    if (c.have_plan)
        ts_mplan_free(&c.mp);
    free(c.order);
    free(c.t);
    free(c.hint);
    if (rc == TS_OK)
        ts_err_clear(e);
    return ts_ctx_end(&ctx, rc, *out);
}
