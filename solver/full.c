/* Full-problem search (the baseline of the paper's search-time comparison): every instance of N
 * micro-batches in one model, minimum makespan by bounded search. Instances of one block run in
 * micro-batch order (a symmetry cut that every repetend schedule also satisfies), so the result
 * is optimal among monotone schedules. It grows with N on purpose: that is the comparison. */
#include <stdlib.h>
#include <string.h>
#include "ts_encode.h"

#define TS_FULL_CALL_CAP 120.0

int ts_search_full(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                   ts_search_stats *st, ts_err *e)
{
    ts_search_ctx ctx;
    ts_ctx_begin(&ctx, p, o, st);
    st = ctx.st;
    *out = NULL;
    int N = o->micro_batches > 0 ? o->micro_batches : TS_DEFAULT_MICRO_BATCHES;
    int nb = p->nblocks;
    if ((long)N * nb > 200000)
        return ts_fail(e, TS_EINPUT, "full: %d micro-batches x %d blocks is too large a problem", N,
                       nb);
    const ts_budget b = ctx.budget;
    size_t n = (size_t)N * (size_t)nb;
    ts_inst *inst = malloc(n * sizeof *inst + 1);
    long *start = malloc(n * sizeof *start + 1);
    ts_iset s = {0};
    ts_imodel m;
    bool have_model = false;
    int rc = TS_OK;
    if (!inst || !start) {
        rc = ts_fail(e, TS_ESYS, "solver: out of memory");
        goto out;
    }
    size_t x = 0;
    for (int mb = 0; mb < N; mb++)
        for (int bk = 0; bk < nb; bk++)
            inst[x++] = (ts_inst){bk, mb};
    if ((rc = ts_iset_build(p, (int)n, inst, true, &s, e)))
        goto out;
    ts_memspec ms = {o->has_memory, o->memory, NULL};
    double t0 = ts_now();
    long steps = -1;
    int g = ts_iset_greedy_best(&s, &ms, start, &steps);
    if (g < 0) {
        rc = ts_fail(e, TS_ESYS, "solver: out of memory");
        goto out;
    }
    long lb = ts_iset_lower_bound(&s);
    long plb = ts_lower_bound(p, N);
    if (plb > lb)
        lb = plb;
    ts_ctx_phase(&ctx, TS_PHASE_GREEDY, ts_now() - t0);
    ts_minres res = {0};
    if (g == 0 && steps <= lb) {
        res.best = steps;
        res.found = true;
        res.optimal = true;
    } else if (g == 0 && ts_imodel_size(&s) > TS_IMODEL_MAX_TERMS) {
        /* The model would take longer to build than any limit worth setting: the greedy
         * schedule stands, not proven (this is where the full problem explodes). */
        res.best = steps;
        res.found = true;
        ts_ctx_phase(&ctx, TS_PHASE_TOO_LARGE, 0);
    } else {
        t0 = ts_now();
        if ((rc = ts_imodel_build(&m, &s, &ms, true, e)))
            goto out;
        have_model = true;
        ts_ctx_phase(&ctx, TS_PHASE_ENCODE, ts_now() - t0);
        ts_ctx_progress(&ctx, TS_PHASE_MAKESPAN, 0, 0, -1, true);
        t0 = ts_now();
        /* Several calls must fit in the limit: each gets a sixth of it. */
        double cap = o->time_limit > 0 ? o->time_limit / 6 : TS_FULL_CALL_CAP;
        if (cap < 0.2)
            cap = 0.2;
        rc = ts_imodel_minimise(&m, 0, lb, g == 0 ? steps : -1, 0, &b, cap, start, &res, e);
        ts_ctx_phase(&ctx, TS_PHASE_MAKESPAN, ts_now() - t0);
        if (rc)
            goto out;
        if (g == 0)
            res.found = true; /* the greedy schedule at least */
        if (!res.found) {
            rc = res.optimal
                     ? ts_fail(e, TS_ENOANSWER,
                               "no schedule of %d micro-batches of '%s' fits memory %ld", N,
                               p->name, o->memory)
                     : ts_fail(e, TS_ENOANSWER,
                               "full: no schedule of %d micro-batches of '%s' found within "
                               "the time limit",
                               N, p->name);
            goto out;
        }
    }
    ts_schedule *sc = ts_schedule_new(p, N);
    if (!sc) {
        rc = ts_fail(e, TS_ESYS, "solver: out of memory");
        goto out;
    }
    if (o->has_memory)
        ts_schedule_set_uniform_memory(sc, o->memory);
    for (size_t i = 0; i < n; i++)
        if (ts_schedule_add(sc, inst[i].block, inst[i].micro, start[i])) {
            ts_schedule_free(sc);
            rc = ts_fail(e, TS_ESYS, "solver: out of memory");
            goto out;
        }
    ts_schedule_sort(sc);
    ts_schedule_normalize(sc);
    *out = sc;
    st->k = 0;
    st->period = 0;
    st->bubbles = 0;
    st->optimal = res.optimal;
    st->timed_out = res.timed_out;
    st->candidates = 1;
out:
    if (have_model)
        ts_imodel_free(&m);
    ts_iset_free(&s);
    free(inst);
    free(start);
    return ts_ctx_end(&ctx, rc, *out);
}
