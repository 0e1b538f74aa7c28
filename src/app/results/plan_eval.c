/* One plan of a model on a cluster, evaluated: the placement derived for the strategy on one
 * pipeline, the `auto` search at N micro-batches within the derived capacity, the schedule
 * measured at N, and its figures in real units (ts_plan_figures, in the core's model). */
#ifdef TS_HAVE_SOLVER
#include <stdio.h>
#include <string.h>
#include "ts_plan_eval.h"
#include "ts_results.h"

static void ts_plan_source(ts_plan *pl, const ts_search_stats *st)
{
    snprintf(pl->source, sizeof pl->source, "%s%s", st->source ? st->source : "auto",
             st->improved ? "+improved" : "");
    pl->timed_out = st->timed_out;
    pl->search_s = st->seconds;
}

int ts_plan_eval(const ts_plan_req *r, ts_plan *pl)
{
    /* With two replicas (chimera) a placement micro-batch is one micro-batch per direction. */
    const ts_strategy_info *si = ts_strategy_find(pl->strategy);
    bool two = si && si->replicas == 2;
    int n = two ? pl->N / 2 : pl->N;
    if (n < 1 || (two && pl->N % 2)) {
        snprintf(pl->reason, sizeof pl->reason, "%s needs an even micro-batch count, got %d",
                 pl->strategy, pl->N);
        return 0;
    }
    ts_derive_opts o = {.strategy = pl->strategy,
                        .gpus = pl->pipe,
                        .b = r->b,
                        .T = r->T,
                        .nmicros = pl->N,
                        .recompute = r->recompute,
                        .infer = r->infer};
    ts_derive_info in;
    ts_err e = {0};
    if (ts_model_derive(r->m, r->h, &o, &pl->p, &in, &e)) {
        snprintf(pl->reason, sizeof pl->reason, "%s", e.msg);
        return e.code == TS_ESYS ? -1 : 0;
    }
    ts_search_opts so;
    ts_search_opts_init(&so);
    so.method = TS_METHOD_AUTO;
    so.has_memory = true;
    so.memory = in.capacity;
    so.micro_batches = n;
    so.time_limit = r->time_limit;
    ts_search_stats st;
    ts_schedule *s = NULL;
    ts_metrics m = {0};
    int rc = ts_search(pl->p, &so, &s, &st, &e);
    if (rc == TS_OK) {
        ts_plan_source(pl, &st);
        rc = ts_results_at(s, n, &pl->s, &m, &e);
    }
    if (rc == TS_OK) {
        ts_plan_figures(r, pl, &m, &in);
        pl->ok = true;
    } else {
        snprintf(pl->reason, sizeof pl->reason, "search: %s", e.msg[0] ? e.msg : "failed");
    }
    ts_metrics_free(&m);
    ts_schedule_free(s);
    ts_derive_info_clear(&in);
    return rc < 0 ? -1 : 0;
}
#endif
