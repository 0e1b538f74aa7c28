/* Modulo repetend search (DESIGN §5 "modulo", issue 7).
 *
 * The repetend is a modulo schedule: one start t_b per block for micro-batch 0, micro-batch j at
 * t_b + j*P. Periods run from the resource bound max_d load(d) (raised by any recurrence through
 * distance edges) upward; the first feasible one is optimal when every smaller one was refused.
 *   1. Constructed timetables (modulo_greedy.c) for every period up to the serial bound: the
 *      smallest period where one verifies is feasible, found in milliseconds.
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
#include "ts_encode.h"
#include "ts_complete.h"
#include "ts_solver.h"

/* Without a time limit, no single solver call runs longer than this. */
#define TS_MODULO_CALL_CAP 600.0
/* The completion is tried only up to this many warm-up and cool-down instances. */
#define TS_MODULO_COMPLETE_MAX 64
/* Without a time limit, the latency minimisation stops after this long. */
#define TS_MODULO_LATENCY_CAP 30.0

typedef struct {
    const ts_placement *p;
    const ts_search_opts *o;
    ts_search_stats *st;
    double t0, deadline; /* deadline 0: none */
} ts_mctx;

static double ts_left(const ts_mctx *c)
{
    if (c->deadline <= 0)
        return TS_MODULO_CALL_CAP;
    double l = c->deadline - ts_modulo_now();
    return l < TS_MODULO_CALL_CAP ? l : TS_MODULO_CALL_CAP;
}

static void ts_progress(const ts_mctx *c, const char *phase, long tried, long total, long bubbles)
{
    if (!c->o->progress)
        return;
    ts_search_progress pr = {phase, tried, total, bubbles, ts_modulo_now() - c->t0};
    c->o->progress(c->o->progress_ud, &pr);
}

static void ts_phase(ts_search_stats *st, const char *name, double seconds)
{
    if (st->nphases >= TS_MAX_PHASES)
        return;
    snprintf(st->phases[st->nphases].name, sizeof st->phases[st->nphases].name, "%s", name);
    st->phases[st->nphases].seconds = seconds;
    st->nphases++;
}

/* Minimises the latency of one micro-batch at period P by bisection within budget seconds;
 * each probe gets at most a quarter of the budget, and a probe that times out counts as a
 * failure (so the bisection goes on above it, unproven). t holds a feasible timetable on entry
 * and the best found on return. Returns true when the latency is proven minimal. */
static bool ts_minimise_latency(ts_mctx *c, ts_mz **zp, const ts_mplan *mp, long P, long *t,
                                int anchor, double budget, ts_err *e)
{
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
    double stop = ts_modulo_now() + budget;
    bool proven = true;
    long probes = 0;
    while (lo < hi) {
        double left = stop - ts_modulo_now();
        if (left > ts_left(c))
            left = ts_left(c);
        if (left <= 0.005) {
            proven = false;
            if (c->deadline > 0 && ts_modulo_now() >= c->deadline)
                c->st->timed_out = true;
            break;
        }
        double cap = budget / 4 > 0.02 ? budget / 4 : 0.02;
        if (left > cap)
            left = cap;
        if (!*zp) {
            *zp = ts_mz_new(p, mp, P, c->o->has_memory, c->o->memory, anchor, e);
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
        ts_mz_result r = ts_mz_solve(*zp, left, hint, mid, cand, why, sizeof why);
        ts_progress(c, "latency", ++probes, 0, P - ts_placement_max_load(p));
        if (r == TS_MZ_SAT) {
            ts_err ve = {0};
            if (ts_modulo_verify(p, mp, P, cand, c->o->has_memory, c->o->memory, &ve) != TS_OK) {
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
    for (int m = s->nmicros; m <= s->nmicros + maxd + 2 || m == n; m = m < s->nmicros + maxd + 2 ? m + 1 : n) {
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
 * tightened fill and drain, whichever is shorter at opts->micro_batches (default 128) among
 * those that validate. *mk receives that makespan (-1 when neither validates, which the
 * verified timetable rules out). NULL on allocation failure. */
static ts_schedule *ts_modulo_build(ts_mctx *c, long P, const long *t, long *mk)
{
    int n = c->o->micro_batches > 0 ? c->o->micro_batches : 128;
    ts_schedule *best = NULL;
    *mk = -1;
    /* Every window position within a period: each splits fill and drain differently, and the
     * tightening then gives different lengths. Large periods: a few evenly spread positions. */
    long step = P <= 64 ? 1 : P / 64;
    for (long delta = 0; delta < P; delta += step) {
        ts_schedule *s = ts_modulo_repetend_schedule(c->p, P, t, delta);
        if (!s)
            break;
        if (c->o->has_memory)
            ts_schedule_set_uniform_memory(s, c->o->memory);
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
        if (c->deadline > 0 && ts_modulo_now() >= c->deadline && best)
            break;
    }
    if (!best) { /* nothing validated (never expected): the plain timetable */
        best = ts_modulo_repetend_schedule(c->p, P, t, 0);
        if (best && c->o->has_memory)
            ts_schedule_set_uniform_memory(best, c->o->memory);
    }
    return best;
}

/* The lazy-style completion of the same repetend (warm-up and cool-down with minimum steps),
 * within budget seconds; replaces *sp when it validates and is shorter at N. */
static void ts_modulo_complete(ts_mctx *c, long P, const long *t, double budget, ts_schedule **sp,
                               long *mk)
{
    const ts_placement *p = c->p;
    int nb = p->nblocks, n = c->o->micro_batches > 0 ? c->o->micro_batches : 128;
    if (budget <= 0.01)
        return;
    int *mids = malloc((size_t)nb * sizeof(int));
    long *start = malloc((size_t)nb * sizeof(long));
    if (!mids || !start) {
        free(mids);
        free(start);
        return;
    }
    long lo = t[0], qmax = 0;
    for (int b = 1; b < nb; b++)
        if (t[b] < lo)
            lo = t[b];
    for (int b = 0; b < nb; b++)
        if ((t[b] - lo) / P > qmax)
            qmax = (t[b] - lo) / P;
    for (int b = 0; b < nb; b++) {
        mids[b] = (int)(qmax - (t[b] - lo) / P);
        start[b] = (t[b] - lo) % P;
    }
    /* Measured on the paper cases (2 cores): with more than ~64 warm-up and cool-down
     * instances the completion takes seconds whatever its time limit, and it never shortened
     * those schedules (xshape, 32 instances, is where it helps: 1033 -> 1031). */
    if ((long)nb * qmax > TS_MODULO_COMPLETE_MAX) {
        free(mids);
        free(start);
        return;
    }
    ts_complete_repetend rep = {P, mids, start};
    ts_complete_opts co;
    ts_complete_opts_init(&co);
    co.has_memory = c->o->has_memory;
    co.memory = c->o->memory;
    co.time_limit = budget;
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
    free(mids);
    free(start);
}

static json_t *ts_modulo_info(const ts_mctx *c, long P, long latency, bool lat_proven,
                              const ts_mplan *mp)
{
    const ts_search_stats *st = c->st;
    json_t *j = json_object();
    if (!j)
        return NULL;
    json_object_set_new(j, "method", json_string("modulo"));
    json_object_set_new(j, "period", json_integer(P));
    json_object_set_new(j, "k", json_integer(st->k));
    json_object_set_new(j, "bubbles", json_integer(st->bubbles));
    json_object_set_new(j, "optimal", json_boolean(st->optimal));
    json_object_set_new(j, "timed_out", json_boolean(st->timed_out));
    json_object_set_new(j, "latency", json_integer(latency));
    json_object_set_new(j, "latency_optimal", json_boolean(lat_proven));
    json_object_set_new(j, "periods_tried", json_integer(st->candidates));
    json_object_set_new(j, "memory_bound", json_string(mp->exact ? "exact" : "safe"));
    if (c->o->has_memory)
        json_object_set_new(j, "memory", json_integer(c->o->memory));
    else
        json_object_set_new(j, "memory", json_null());
    json_object_set_new(j, "time_limit", json_real(c->o->time_limit));
    json_object_set_new(j, "seconds", json_real(st->seconds));
    return j;
}

int ts_search_modulo(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                     ts_search_stats *st, ts_err *e)
{
    ts_search_stats local;
    st = ts_stats_begin(st, &local);
    *out = NULL;
    ts_mctx c = {p, o, st, ts_modulo_now(), 0};
    /* Solver work stops a little before the limit, so that building and checking the
     * schedule still fits inside it. */
    if (o->time_limit > 0)
        c.deadline = c.t0 + o->time_limit * 0.95;
    int rc = ts_placement_check(p, p->name ? p->name : "placement", e);
    if (rc != TS_OK)
        return rc;
    if (p->nblocks == 0)
        return ts_fail(e, TS_EINPUT, "placement '%s' has no blocks", p->name);
    if (o->has_memory && o->memory < 0)
        return ts_fail(e, TS_EINPUT, "memory capacity %ld is negative", o->memory);
    if (o->nmicros > 0)
        return ts_fail(e, TS_EINPUT,
                       "modulo search finds k itself (k = max offset + 1); do not fix it "
                       "(asked k = %d)", o->nmicros);

    int nb = p->nblocks;
    ts_mplan mp;
    rc = ts_mplan_build(p, o->has_memory, &mp, e);
    if (rc != TS_OK)
        return rc;
    int *order = malloc((size_t)nb * sizeof(int));
    long *t = malloc((size_t)nb * sizeof(long)), *hint = malloc((size_t)nb * sizeof(long));
    ts_mz *z = NULL;
    if (!order || !t || !hint) {
        rc = ts_fail(e, TS_ESYS, "out of memory");
        goto done;
    }
    if (ts_placement_chain_order(p, order)) {
        rc = ts_fail(e, TS_EINPUT, "placement '%s': dependencies form a cycle", p->name);
        goto done;
    }
    int anchor = order[0];
    long load = ts_placement_max_load(p), rec = ts_modulo_recurrence_bound(p);
    long lb = load > rec ? load : rec, ub = 1;
    for (int b = 0; b < nb; b++)
        ub += p->blocks[b].span;
    for (int i = 0; i < p->nedges; i++)
        ub += p->edges[i].delay;
    if (ub < lb)
        ub = lb;
    double tb = ts_modulo_now();
    ts_phase(st, "bounds", tb - c.t0);

    /* Period search. First the constructed timetables, cheap, for every period up to the
     * bound: the smallest period where one works is feasible. Then Z3 decides the smaller
     * periods, each with a share of the time left. */
    bool found = false, proven = true;
    long P = lb, ph = -1;
    char why[128] = "";
    long *th = malloc((size_t)nb * sizeof(long));
    if (!th) {
        rc = ts_fail(e, TS_ESYS, "out of memory");
        goto done;
    }
    for (long q = lb; q <= ub; q++) {
        if (ts_modulo_greedy_packed(p, &mp, q, order, o->has_memory, o->memory, th, NULL) ||
            ts_modulo_greedy(p, &mp, q, order, o->has_memory, o->memory, th, NULL)) {
            ph = q;
            break;
        }
        if (c.deadline > 0 && ts_modulo_now() >= c.deadline)
            break;
    }
    long top = ph >= 0 ? ph - 1 : ub;
    for (; P <= top; P++) {
        st->candidates++;
        ts_progress(&c, "period", P - lb + 1, top - lb + 1, -1);
        double left = ts_left(&c);
        if (c.deadline > 0 && left <= 0) {
            st->timed_out = true;
            proven = false;
            break;
        }
        /* With a constructed answer at ph, half the time goes to the smaller periods, evenly;
         * without one, each period may use half of what is left. */
        double budget = ph >= 0 ? 0.5 * left / (double)(ph - P) : 0.5 * left;
        if (c.deadline <= 0)
            budget = TS_MODULO_CALL_CAP;
        if (o->has_memory && ts_modulo_memory_infeasible(p, &mp, P, o->memory))
            continue; /* proven: every dependency path holds too many copies */
        if (!ts_modulo_greedy_packed(p, &mp, P, order, o->has_memory, o->memory, t, hint))
            ts_modulo_greedy(p, &mp, P, order, o->has_memory, o->memory, t, NULL);
        z = ts_mz_new(p, &mp, P, o->has_memory, o->memory, anchor, e);
        if (!z) {
            rc = (e && e->code) ? e->code : TS_ESYS;
            free(th);
            goto done;
        }
        ts_mz_result r = ts_mz_solve(z, budget, hint, -1, t, why, sizeof why);
        if (r == TS_MZ_SAT) {
            ts_err ve = {0};
            if (ts_modulo_verify(p, &mp, P, t, o->has_memory, o->memory, &ve) != TS_OK) {
                rc = ts_fail(e, TS_ESYS, "internal: the solver's timetable fails its check (%s)",
                             ve.msg);
                free(th);
                goto done;
            }
            found = true;
            break;
        }
        ts_mz_free(z);
        z = NULL;
        if (r == TS_MZ_UNKNOWN) {
            proven = false;
            if (c.deadline > 0 && ts_modulo_now() >= c.deadline) {
                st->timed_out = true;
                break;
            }
        }
    }
    if (!found && ph >= 0) {
        P = ph;
        st->candidates++;
        memcpy(t, th, (size_t)nb * sizeof(long));
        found = true;
    }
    free(th);
    double tp = ts_modulo_now();
    ts_phase(st, "period", tp - tb);
    if (!found) {
        if (st->timed_out)
            rc = ts_fail(e, TS_ENOANSWER,
                         "placement '%s': no modulo schedule found within the time limit of "
                         "%.3g s (periods %ld..%ld tried)",
                         p->name, o->time_limit, lb, P > ub ? ub : P);
        else if (o->has_memory)
            rc = ts_fail(e, TS_ENOANSWER,
                         "placement '%s': no modulo schedule fits memory %ld per device at any "
                         "period from %ld to %ld%s%s",
                         p->name, o->memory, lb, ub, proven ? "" : " (some not decided: ",
                         proven ? "" : "solver gave up)");
        else
            rc = ts_fail(e, TS_ENOANSWER, "placement '%s': no modulo schedule up to period %ld",
                         p->name, ub);
        goto done;
    }
    st->period = P;
    st->bubbles = P - load;
    /* A period at a lower bound is optimal by itself; above it, the smaller periods must have
     * been refused, and refused by an exact memory model (a safe but inexact plan may refuse
     * periods that some schedule could use). */
    st->optimal = P == lb || (proven && mp.exact);
    ts_progress(&c, "period", P - lb + 1, P - lb + 1, st->bubbles);

    /* The schedule of this timetable; then, unless it already meets the lower bound at N,
     * a shorter micro-batch latency (shorter fill and drain) within a bounded share of time. */
    int nmb = o->micro_batches > 0 ? o->micro_batches : 128;
    long mk = -1;
    ts_schedule *s = ts_modulo_build(&c, P, t, &mk);
    if (!s) {
        rc = ts_fail(e, TS_ESYS, "out of memory");
        goto done;
    }
    /* mk is measured at max(N, k) micro-batches (the schedule cannot be shorter than k). */
    long lbn = ts_lower_bound(p, nmb > s->nmicros ? nmb : s->nmicros);
    bool lat_proven = false;
    long latency = ts_modulo_latency(p, t);
    double tl = ts_modulo_now();
    ts_phase(st, "schedule", tl - tp);
    if (mk != lbn) {
        /* Latency work gets as long as the search took so far (at least 0.25 s), within the
         * time limit; without one, at most TS_MODULO_LATENCY_CAP. */
        double budget = tl - c.t0 > 0.15 ? tl - c.t0 : 0.15;
        if (c.deadline <= 0 && budget > TS_MODULO_LATENCY_CAP)
            budget = TS_MODULO_LATENCY_CAP;
        long *t2 = malloc((size_t)nb * sizeof(long));
        if (t2) {
            memcpy(t2, t, (size_t)nb * sizeof(long));
            lat_proven = ts_minimise_latency(&c, &z, &mp, P, t2, anchor, budget, e);
            long mk2 = -1;
            ts_schedule *s2 = ts_modulo_build(&c, P, t2, &mk2);
            if (s2 && mk2 >= 0 && (mk < 0 || mk2 < mk)) {
                ts_schedule_free(s);
                s = s2;
                mk = mk2;
                latency = ts_modulo_latency(p, t2);
                memcpy(t, t2, (size_t)nb * sizeof(long));
            } else {
                ts_schedule_free(s2);
            }
            free(t2);
        }
        ts_phase(st, "latency", ts_modulo_now() - tl);
    }
    if (mk != lbn) {
        /* Completion gets the same kind of share. */
        double tc = ts_modulo_now();
        double budget = tc - c.t0 > 0.15 ? tc - c.t0 : 0.15;
        if (c.deadline > 0 && budget > c.deadline - tc)
            budget = c.deadline - tc;
        if (c.deadline <= 0 && budget > TS_MODULO_LATENCY_CAP)
            budget = TS_MODULO_LATENCY_CAP;
        ts_modulo_complete(&c, P, t, budget, &s, &mk);
        ts_phase(st, "completion", ts_modulo_now() - tc);
    }
    st->k = s->rep.k;
    st->seconds = ts_modulo_now() - c.t0;
    ts_schedule_set_search_info(s, ts_modulo_info(&c, P, latency, lat_proven, &mp));
    *out = s;
    rc = TS_OK;
done:
    ts_mz_free(z);
    ts_mplan_free(&mp);
    free(order);
    free(t);
    free(hint);
    if (rc == TS_OK)
        ts_err_clear(e);
    st->seconds = ts_modulo_now() - c.t0;
    return rc;
}
