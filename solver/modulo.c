/* Modulo repetend search (DESIGN §5 "modulo", issue 7).
 *
 * The repetend is a modulo schedule: one start t_b per block for micro-batch 0, micro-batch j at
 * t_b + j*P. Periods are tried from the resource bound max_d load(d) (raised by any recurrence
 * through distance edges) upward; the first feasible one is the optimal steady state when every
 * smaller one was proven infeasible. For each period a constructed timetable is tried first
 * (cheap, and usually right for pipeline placements); otherwise Z3 decides, seeded with the
 * constructed residues. At the chosen period the latency of one micro-batch is then minimised
 * within the time limit, which shortens fill and drain. The timetable unrolled is valid for
 * every N, and its repetend window lets ts_schedule_unroll produce it for every N >= k. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "modulo_internal.h"
#include "ts_solver.h"

/* Without a time limit, no single solver call runs longer than this. */
#define TS_MODULO_CALL_CAP 600.0
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

/* Minimises the latency of one micro-batch at period P by bisection, each probe bounded by the
 * time left. t holds a feasible timetable on entry and the best found on return. Returns true
 * when the latency is proven minimal. */
static bool ts_minimise_latency(ts_mctx *c, ts_mz **zp, const ts_mplan *mp, long P, long *t,
                                int anchor, ts_err *e)
{
    const ts_placement *p = c->p;
    int nb = p->nblocks;
    long *est = malloc((size_t)nb * sizeof(long)), *cand = malloc((size_t)nb * sizeof(long));
    if (!est || !cand) {
        free(est);
        free(cand);
        return false;
    }
    ts_placement_earliest(p, est);
    long lo = 0;
    for (int b = 0; b < nb; b++)
        if (est[b] + p->blocks[b].span > lo)
            lo = est[b] + p->blocks[b].span;
    long hi = ts_modulo_latency(p, t);
    double stop = ts_modulo_now() + TS_MODULO_LATENCY_CAP;
    bool proven = true;
    long probes = 0;
    while (lo < hi) {
        double left = ts_left(c);
        if (c->deadline <= 0 && stop - ts_modulo_now() < left)
            left = stop - ts_modulo_now();
        if (left <= 0.01) {
            proven = false;
            break;
        }
        if (!*zp) {
            *zp = ts_mz_new(p, mp, P, c->o->has_memory, c->o->memory, anchor, e);
            if (!*zp) {
                proven = false;
                break;
            }
        }
        long mid = lo + (hi - lo) / 2;
        char why[128];
        ts_mz_result r = ts_mz_solve(*zp, left, NULL, mid, cand, why, sizeof why);
        ts_progress(c, "latency", ++probes, 0, P - ts_placement_max_load(p));
        if (r == TS_MZ_SAT) {
            ts_err ve = {0};
            if (ts_modulo_verify(p, mp, P, cand, c->o->has_memory, c->o->memory, &ve) != TS_OK) {
                proven = false; /* never expected: keep the verified timetable */
                break;
            }
            memcpy(t, cand, (size_t)nb * sizeof(long));
            hi = ts_modulo_latency(p, t);
        } else if (r == TS_MZ_UNSAT) {
            lo = mid + 1;
        } else {
            proven = false;
            if (c->deadline > 0 && ts_modulo_now() >= c->deadline)
                c->st->timed_out = true;
            break;
        }
    }
    free(est);
    free(cand);
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

/* Keeps whichever of the plain timetable and its tightened fill and drain is shorter at
 * opts->micro_batches (default 128), among those that validate. */
static void ts_modulo_improve(ts_mctx *c, ts_schedule **sp, long P)
{
    int n = c->o->micro_batches > 0 ? c->o->micro_batches : 128;
    ts_schedule *best = *sp, *tight = ts_schedule_clone(best);
    long mk = ts_checked_makespan(best, n);
    ts_err e = {0};
    if (tight && ts_modulo_tighten(tight, P, &e) == TS_OK) {
        long mt = ts_checked_makespan(tight, n);
        if (mt >= 0 && (mk < 0 || mt < mk)) {
            ts_schedule_free(best);
            *sp = tight;
            return;
        }
    }
    ts_schedule_free(tight);
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
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    st->min_memory = -1;
    *out = NULL;
    ts_mctx c = {p, o, st, ts_modulo_now(), 0};
    if (o->time_limit > 0)
        c.deadline = c.t0 + o->time_limit;
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

    /* Period search. */
    bool found = false, proven = true;
    long P = lb;
    char why[128] = "";
    for (; P <= ub; P++) {
        st->candidates++;
        ts_progress(&c, "period", P - lb + 1, ub - lb + 1, -1);
        if (ts_modulo_greedy(p, &mp, P, order, o->has_memory, o->memory, t, hint)) {
            found = true;
            break;
        }
        if (c.deadline > 0 && ts_modulo_now() >= c.deadline) {
            st->timed_out = true;
            break;
        }
        z = ts_mz_new(p, &mp, P, o->has_memory, o->memory, anchor, e);
        if (!z) {
            rc = e->code ? e->code : TS_ESYS;
            goto done;
        }
        ts_mz_result r = ts_mz_solve(z, ts_left(&c), hint, -1, t, why, sizeof why);
        if (r == TS_MZ_SAT) {
            ts_err ve = {0};
            if (ts_modulo_verify(p, &mp, P, t, o->has_memory, o->memory, &ve) != TS_OK) {
                rc = ts_fail(e, TS_ESYS, "internal: the solver's timetable fails its check (%s)",
                             ve.msg);
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
    st->optimal = proven;
    ts_progress(&c, "period", P - lb + 1, P - lb + 1, st->bubbles);

    /* Latency of one micro-batch at this period. */
    bool lat_proven = ts_minimise_latency(&c, &z, &mp, P, t, anchor, e);
    double tl = ts_modulo_now();
    ts_phase(st, "latency", tl - tp);

    ts_schedule *s = ts_modulo_repetend_schedule(p, P, t);
    if (!s) {
        rc = ts_fail(e, TS_ESYS, "out of memory");
        goto done;
    }
    if (o->has_memory)
        ts_schedule_set_uniform_memory(s, o->memory);
    ts_modulo_improve(&c, &s, P);
    st->k = s->rep.k;
    ts_phase(st, "schedule", ts_modulo_now() - tl);
    st->seconds = ts_modulo_now() - c.t0;
    ts_schedule_set_search_info(s, ts_modulo_info(&c, P, ts_modulo_latency(p, t), lat_proven, &mp));
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
