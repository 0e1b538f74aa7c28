/* Completion: the warm-up and the cool-down around a repetend, each with minimum steps (or
 * within an accept bound), then the whole k-micro-batch schedule with its window declared. */
#include <stdlib.h>
#include <string.h>
#include "ts_caps.h"
#include "ts_complete.h"
#include "ts_imodel.h"
#include "ts_iset.h"
#include "ts_memory.h"
#include "ts_search_ctx.h"

void ts_complete_opts_init(ts_complete_opts *o)
{
    memset(o, 0, sizeof *o);
    o->micro_batches = TS_DEFAULT_MICRO_BATCHES;
}

typedef struct {
    long steps;
    bool optimal, timed_out, feasible;
    long *start; /* per instance */
} ts_phase_res;

/* Schedules one phase from the given memory level. With minimise false only feasibility is
 * asked (Z3 only when the greedy orders fail). Above max_terms (ts_imodel_size) Z3 is not asked:
 * the greedy schedule stands, or the phase is unknown. */
static int ts_phase_solve(const ts_iset *s, const ts_memspec *ms, bool minimise, long slack,
                          long max_terms, const ts_budget *b, ts_phase_res *r, ts_err *e)
{
    r->steps = 0;
    r->optimal = true;
    r->timed_out = false;
    r->feasible = true;
    if (s->n == 0)
        return TS_OK;
    long steps = -1;
    int g = minimise ? ts_iset_greedy_best(s, ms, r->start, &steps)
                     : ts_iset_greedy(s, ms, 0, r->start, &steps);
    if (g == 1 && !minimise)
        g = ts_iset_greedy(s, ms, 1, r->start, &steps);
    if (g < 0)
        return ts_fail(e, TS_ESYS, "solver: out of memory");
    long lb = ts_iset_lower_bound(s);
    if (g == 0 && (!minimise || steps <= lb + slack || ts_budget_left(b) < 0.05)) {
        r->steps = steps;
        r->optimal = steps <= lb;
        return TS_OK;
    }
    long size = ts_imodel_size(s);
    if (g == 0 && size > max_terms) {
        r->steps = steps; /* too large a model to pay off: keep the greedy schedule */
        r->optimal = steps <= lb;
        return TS_OK;
    }
    if (g != 0 && (ts_budget_left(b) < 0.05 || size > max_terms)) {
        r->feasible = false; /* unknown: no time left, or too large a model, to ask the solver */
        r->optimal = false;
        r->timed_out = true;
        return TS_OK;
    }
    ts_imodel m;
    int rc = ts_imodel_build(&m, s, ms, true, e);
    if (rc)
        return rc;
    ts_minres res;
    if (!minimise) {
        /* Feasibility only: any schedule will do. */
        rc =
            ts_imodel_minimise(&m, 0, lb, -1, 1L << 40, b, TS_COMPLETE_CALL_CAP, r->start, &res, e);
    } else {
        rc = ts_imodel_minimise(&m, 0, lb, g == 0 ? steps : -1, slack, b, TS_COMPLETE_CALL_CAP,
                                r->start, &res, e);
    }
    ts_imodel_free(&m);
    if (rc)
        return rc;
    r->timed_out = res.timed_out;
    if (g != 0 && !res.found) {
        r->feasible = false;
        r->optimal = res.optimal; /* proven infeasible when optimal */
        return TS_OK;
    }
    r->steps = res.best;
    r->optimal = res.optimal;
    return TS_OK;
}

/* Checks the requirements of ts_complete.h on a repetend. */
int ts_rep_alloc(ts_rep *r, int nblocks)
{
    r->period = 0;
    r->k = 1;
    r->mids = calloc((size_t)nblocks + 1, sizeof *r->mids);
    r->start = calloc((size_t)nblocks + 1, sizeof *r->start);
    if (r->mids && r->start)
        return 0;
    ts_rep_free(r);
    return -1;
}

void ts_rep_free(ts_rep *r)
{
    free(r->mids);
    free(r->start);
    r->mids = NULL;
    r->start = NULL;
}

void ts_rep_copy(ts_rep *dst, const ts_rep *src, int nblocks)
{
    dst->period = src->period;
    dst->k = src->k;
    memcpy(dst->mids, src->mids, (size_t)nblocks * sizeof *src->mids);
    memcpy(dst->start, src->start, (size_t)nblocks * sizeof *src->start);
}

int ts_rep_k(const int *mids, int nblocks)
{
    int k = 0;
    for (int b = 0; b < nblocks; b++)
        if (mids[b] + 1 > k)
            k = mids[b] + 1;
    return k;
}

void ts_rep_from_schedule(const ts_schedule *s, ts_rep *r)
{
    int nb = s->placement->nblocks;
    r->period = s->rep.period;
    r->k = s->rep.k;
    memcpy(r->mids, s->rep.mids, (size_t)nb * sizeof *r->mids);
    for (int i = 0; i < s->nentries; i++) {
        const ts_entry *x = &s->entries[i];
        if (x->step >= s->rep.start && x->step < s->rep.end && x->micro == s->rep.mids[x->block])
            r->start[x->block] = x->step - s->rep.start;
    }
}

static int ts_check_repetend(const ts_placement *p, const int *mids, const long *start, long period,
                             int *k, ts_err *e)
{
    int lo = 0, hi = 0;
    for (int b = 0; b < p->nblocks; b++) {
        if (b == 0 || mids[b] < lo)
            lo = mids[b];
        if (b == 0 || mids[b] > hi)
            hi = mids[b];
        if (start && (start[b] < 0 || start[b] >= period))
            return ts_fail(e, TS_EINPUT,
                           "completion: block '%s' starts at %ld, outside the window [0, %ld)",
                           p->blocks[b].id, start[b], period);
    }
    if (p->nblocks && lo != 0)
        return ts_fail(e, TS_EINPUT, "completion: the smallest micro-batch offset is %d, not 0",
                       lo);
    for (int ei = 0; ei < p->nedges; ei++) {
        const ts_edge *ed = &p->edges[ei];
        if ((long)mids[ed->src] + ed->distance - mids[ed->dst] < 0)
            return ts_fail(e, TS_EINPUT,
                           "completion: edge %s -> %s goes back in micro-batch offset (%d -> %d)",
                           p->blocks[ed->src].id, p->blocks[ed->dst].id, mids[ed->src],
                           mids[ed->dst]);
    }
    *k = hi + 1;
    return TS_OK;
}

int ts_complete_feasible(const ts_placement *p, const int *mids, const long *cap,
                         ts_meter *meter, double time_limit, bool *feasible, bool *unknown,
                         ts_err *e)
{
    *feasible = true;
    *unknown = false;
    int k;
    int rc = ts_check_repetend(p, mids, NULL, 1, &k, e);
    if (rc)
        return rc;
    if (!cap)
        return TS_OK;
    ts_meter own;
    ts_meter_init(&own, 0);
    ts_budget b;
    ts_budget_init(&b, meter ? meter : &own, time_limit > 0 ? time_limit : TS_COMPLETE_CALL_CAP);
    size_t room = (size_t)p->nblocks * (size_t)k + 1;
    ts_inst *inst = malloc(room * sizeof *inst);
    long *start = malloc(room * sizeof *start);
    /* the cool-down's level, then the level a phase starts from (ts_memspec_fill) */
    long *level = calloc(2 * (size_t)p->ndevs + 1, sizeof *level);
    if (!inst || !start || !level) {
        rc = ts_fail(e, TS_ESYS, "solver: out of memory");
        goto out;
    }
    ts_cooldown_level(p, mids, level);
    for (int phase = 0; phase < 2 && *feasible && !*unknown; phase++) {
        int n = ts_phase_instances(p, mids, k, phase, inst);
        ts_iset s;
        rc = ts_iset_build(p, n, inst, true, &s, e);
        if (rc)
            goto out;
        ts_memspec ms = ts_memspec_fill(cap, p->ndevs, phase == 0 ? NULL : level, level + p->ndevs);
        ts_phase_res r = {.start = start};
        rc = ts_phase_solve(&s, &ms, false, 0, TS_IMODEL_MAX_TERMS, &b, &r, e);
        ts_iset_free(&s);
        if (rc)
            goto out;
        if (!r.feasible) {
            *feasible = false;
            *unknown = !r.optimal;
        }
    }
out:
    free(inst);
    free(start);
    free(level);
    return rc;
}

/* The warm-up, the window and the cool-down solved apart, as one k-micro-batch schedule. */
typedef struct {
    int nw, nc;
    const ts_inst *winst, *cinst;
    const long *wstart, *cstart;
    long wsteps;
} ts_complete_parts;

/* Composes warm-up, a gap for communication delays, the window, the gap, the cool-down; the
 * schedule starts at step 0 unless the window would then begin before 0 (its first instance may
 * start late when one that runs past the window end covers its first steps). */
static int ts_complete_compose(const ts_placement *p, const ts_rep *rep, int k,
                               const ts_complete_opts *o, const ts_complete_parts *pt,
                               ts_schedule **out, ts_err *e)
{
    int nb = p->nblocks;
    long gap = 0;
    for (int ei = 0; ei < p->nedges; ei++)
        if (p->edges[ei].delay > gap)
            gap = p->edges[ei].delay;
    long base = pt->wsteps + (pt->wsteps > 0 ? gap : 0);
    long maxend = 0;
    for (int i = 0; i < nb; i++)
        if (rep->start[i] + p->blocks[i].span > maxend)
            maxend = rep->start[i] + p->blocks[i].span;
    long cbase = base + (maxend > rep->period ? maxend : rep->period) + gap;
    ts_schedule *s = ts_schedule_new(p, k);
    if (!s)
        return ts_fail(e, TS_ESYS, "solver: out of memory");
    if (o->cap)
        ts_schedule_set_memory(s, o->cap);
    int bad = 0;
    for (int x = 0; x < pt->nw && !bad; x++)
        bad = ts_schedule_add(s, pt->winst[x].block, pt->winst[x].micro, pt->wstart[x]);
    for (int i = 0; i < nb && !bad; i++)
        bad = ts_schedule_add(s, i, rep->mids[i], base + rep->start[i]);
    for (int x = 0; x < pt->nc && !bad; x++)
        bad = ts_schedule_add(s, pt->cinst[x].block, pt->cinst[x].micro, cbase + pt->cstart[x]);
    if (bad || ts_schedule_set_repetend(s, base, base + rep->period, rep->mids)) {
        ts_schedule_free(s);
        return ts_fail(e, TS_ESYS, "solver: out of memory");
    }
    ts_schedule_sort(s);
    long first, last;
    ts_schedule_span(s, &first, &last);
    long shift = first < base ? first : base;
    for (int i = 0; i < s->nentries; i++)
        s->entries[i].step -= shift;
    s->rep.start -= shift;
    s->rep.end -= shift;
    *out = s;
    return TS_OK;
}

/* The parts were solved apart: check the whole, once as it is and once unrolled, so that a bug
 * here can never hand out an invalid timetable. */
static int ts_complete_check(const ts_schedule *s, int k, ts_err *e)
{
    ts_validate_opts vo = {0};
    ts_err ve = {0};
    if (ts_schedule_validate(s, &vo, &ve) != TS_OK)
        return ts_fail(e, TS_EINPUT,
                       "completion: the composed schedule is invalid (the repetend breaks a "
                       "requirement of ts_complete.h, e.g. its memory): %s",
                       ve.msg);
    ts_schedule *u = NULL;
    if (ts_schedule_unroll(s, k + 2, &u, &ve) == TS_OK) {
        int v = ts_schedule_validate(u, &vo, &ve);
        ts_schedule_free(u);
        if (v != TS_OK)
            return ts_fail(e, TS_EINPUT,
                           "completion: the unrolled schedule is invalid (the repetend breaks a "
                           "requirement of ts_complete.h): %s",
                           ve.msg);
    }
    return TS_OK;
}

/* TS_ENOANSWER: the warm-up or cool-down of a repetend does not fit the capacities. */
static int ts_phase_refusal(ts_err *e, const char *phase, int k, const long *cap, int ndevs,
                            bool proven)
{
    char mem[64];
    return ts_fail(e, TS_ENOANSWER, "the %s of this repetend (k = %d) does not fit memory %s%s",
                   phase, k, ts_caps_text(cap, ndevs, mem, sizeof mem),
                   proven ? "" : " within the time limit");
}

int ts_complete(const ts_placement *p, const ts_rep *rep, const ts_complete_opts *o,
                ts_schedule **out, ts_complete_stats *st, ts_err *e)
{
    *out = NULL;
    ts_complete_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    if (rep->period <= 0)
        return ts_fail(e, TS_EINPUT, "completion: the period must be positive, not %ld",
                       rep->period);
    int k;
    int rc = ts_check_repetend(p, rep->mids, rep->start, rep->period, &k, e);
    if (rc)
        return rc;
    int nb = p->nblocks, D = p->ndevs;
    ts_meter own;
    ts_meter_init(&own, 0);
    ts_meter *meter = o->meter ? o->meter : &own;
    ts_budget b;
    ts_budget_init(&b, meter, o->time_limit);
    size_t cap = (size_t)nb * (size_t)k + 1;
    ts_inst *winst = malloc(cap * sizeof *winst), *cinst = malloc(cap * sizeof *cinst);
    long *wstart = malloc(cap * sizeof *wstart), *cstart = malloc(cap * sizeof *cstart);
    /* the cool-down's level, then the levels each phase starts from (ts_memspec_fill) */
    long *level = calloc(3 * (size_t)D + 1, sizeof *level);
    ts_iset ws = {0}, cs = {0};
    ts_schedule *s = NULL;
    if (!winst || !cinst || !wstart || !cstart || !level) {
        rc = ts_fail(e, TS_ESYS, "solver: out of memory");
        goto out;
    }
    ts_cooldown_level(p, rep->mids, level);
    int nw = ts_phase_instances(p, rep->mids, k, 0, winst);
    int nc = ts_phase_instances(p, rep->mids, k, 1, cinst);
    if ((rc = ts_iset_build(p, nw, winst, true, &ws, e)) ||
        (rc = ts_iset_build(p, nc, cinst, true, &cs, e)))
        goto out;

    /* The accept slack: a fraction of the whole run of N micro-batches, estimated with each
     * phase's lower bound. */
    long slack = 0;
    if (o->accept > 0) {
        int N = o->micro_batches > 0 ? o->micro_batches : TS_DEFAULT_MICRO_BATCHES;
        long reps = N >= k ? N - k + 1 : 1;
        double whole = (double)ts_iset_lower_bound(&ws) + (double)reps * (double)rep->period +
                       (double)ts_iset_lower_bound(&cs);
        slack = (long)(o->accept * whole);
    }

    /* Under a time limit a smaller model cap: Z3 overruns its timeout while it takes one in. */
    long max_terms = o->time_limit > 0 ? TS_IMODEL_MAX_TERMS_TIMED : TS_IMODEL_MAX_TERMS;
    double t0 = ts_clock_now();
    ts_memspec wm = ts_memspec_fill(o->cap, D, NULL, level + D);
    ts_phase_res wr = {.start = wstart};
    ts_budget pb;
    ts_budget_init(&pb, meter, ts_budget_call(&b, TS_COMPLETE_PHASE_CAP) + 1e-3); /* never 0 */
    if ((rc = ts_phase_solve(&ws, &wm, true, slack, max_terms, &pb, &wr, e)))
        goto out;
    st->warmup_seconds = ts_clock_now() - t0;
    if (!wr.feasible) {
        rc = ts_phase_refusal(e, "warm-up", k, o->cap, D, wr.optimal);
        goto out;
    }
    t0 = ts_clock_now();
    ts_memspec cm = ts_memspec_fill(o->cap, D, level, level + 2 * D);
    ts_phase_res cr = {.start = cstart};
    ts_budget_init(&pb, meter, ts_budget_call(&b, TS_COMPLETE_PHASE_CAP) + 1e-3); /* never 0 */
    if ((rc = ts_phase_solve(&cs, &cm, true, slack, max_terms, &pb, &cr, e)))
        goto out;
    st->cooldown_seconds = ts_clock_now() - t0;
    if (!cr.feasible) {
        rc = ts_phase_refusal(e, "cool-down", k, o->cap, D, cr.optimal);
        goto out;
    }
    st->warmup_steps = wr.steps;
    st->cooldown_steps = cr.steps;
    st->warmup_optimal = wr.optimal;
    st->cooldown_optimal = cr.optimal;
    st->timed_out = ts_budget_over(&b);

    ts_complete_parts pt = {nw, nc, winst, cinst, wstart, cstart, wr.steps};
    if ((rc = ts_complete_compose(p, rep, k, o, &pt, &s, e)) || (rc = ts_complete_check(s, k, e)))
        goto out;
    *out = s;
    s = NULL;
out:
    ts_schedule_free(s);
    ts_iset_free(&ws);
    ts_iset_free(&cs);
    free(winst);
    free(cinst);
    free(wstart);
    free(cstart);
    free(level);
    return rc;
}
