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

int ts_plan_eval(const ts_plan_req *req, ts_plan *pl)
{
    /* the derived placement's capacity keeps the request's headroom free */
    ts_hardware hh = *req->h;
    hh.hbm_gb *= 1 - req->headroom;
    ts_plan_req rr = *req;
    rr.h = &hh;
    const ts_plan_req *r = &rr;
    const ts_plan_cfg *c = &pl->cfg;
    /* With two replicas (chimera) a placement micro-batch is one micro-batch per direction. */
    const ts_strategy_info *si = ts_strategy_find(c->strategy);
    bool two = si && si->replicas == 2;
    int n = two ? c->N / 2 : c->N;
    if (n < 1 || (two && c->N % 2)) {
        snprintf(pl->reason, sizeof pl->reason, "%s needs an even micro-batch count, got %d",
                 c->strategy, c->N);
        pl->ok = false;
        return 0;
    }
    /* The derivation takes one recomputation for all stages: the most any stage uses. */
    const int *k = pl->cost.stages_rc;
    ts_derive_opts o = {.strategy = c->strategy,
                        .gpus = c->T * c->P,
                        .b = c->b,
                        .T = c->T,
                        .chunks = c->v > 1 ? c->v : 0,
                        .nmicros = c->N,
                        .recompute = k[TS_RC_FULL] > 0,
                        .infer = r->infer,
                        .selective = k[TS_RC_SELECTIVE] > 0,
                        .seqpar = c->seqpar,
                        .gemm_shape = true,
                        .zero = c->zero,
                        .dp = c->dp,
                        /* weights and optimizer state as the framework counts them */
                        .param_bytes = r->infer ? 0 : ts_plan_bytes_per_param(r, c->zero, c->dp)};
    ts_derive_info in;
    ts_err e = {0};
    if (ts_model_derive(r->m, r->h, &o, &pl->p, &in, &e)) {
        snprintf(pl->reason, sizeof pl->reason, "derivation: %s", e.msg);
        return e.code == TS_ESYS ? -1 : 0;
    }
    ts_search_opts so;
    ts_search_opts_init(&so);
    so.method = TS_METHOD_AUTO;
    so.has_memory = true;
    so.memory = in.capacity;
    so.micro_batches = n;
    so.time_limit = r->time_limit;
    so.effort = r->effort;
    so.gap = r->gap;
    so.seed = r->seed;
    so.cancel = r->cancel;
    ts_search_stats st;
    ts_schedule *s = NULL;
    ts_metrics m = {0};
    int rc = ts_search(pl->p, &so, &s, &st, &e);
    if (rc == TS_OK) {
        ts_plan_source(pl, &st);
        rc = ts_results_at(s, n, &pl->s, &m, &e);
    }
    if (rc == TS_OK)
        ts_plan_figures(r, pl, &m, &in);
    else
        snprintf(pl->reason, sizeof pl->reason, "search: %s", e.msg[0] ? e.msg : "failed");
    ts_metrics_free(&m);
    ts_schedule_free(s);
    ts_derive_info_clear(&in);
    return rc < 0 ? -1 : 0;
}

/* Most micro-batches at which a plan's schedule is searched */
#define TS_PLAN_SEARCH_MAX_MICROS 4096

int ts_plan_search_best(const ts_plan_req *r, ts_plan *pl, int n, int top, bool show, int *searched,
                        int *pruned)
{
    double best = 0;
    for (int i = 0; i < n; i++)
        if (pl[i].cost.closed_form && (best == 0 || pl[i].iter_s < best))
            best = pl[i].iter_s;
    for (int i = 0; i < n && *searched < top && !(r->cancel && *r->cancel); i++) {
        ts_plan *x = &pl[i];
        /* the derivation knows no context or expert parallelism (nor expert tensor
         * parallelism) nor a fixed first or last stage: those plans keep their closed form */
        if (x->cfg.P < 2 || x->cfg.C > 1 || x->cfg.E > 1 ||
            (x->cfg.etp > 0 && x->cfg.etp != x->cfg.T) || x->cfg.first || x->cfg.last)
            continue;
        /* a schedule search at tens of thousands of micro-batches takes minutes and gigabytes
         * whatever its time limit (78,125: 136 s and 4 GB at --time-limit 1): the closed form
         * stands there, and a plan without one says why it was not searched */
        if (x->cfg.N > TS_PLAN_SEARCH_MAX_MICROS) {
            if (!x->cost.closed_form)
                snprintf(x->reason, sizeof x->reason,
                         "not searched: %d micro-batches, more than the %d a schedule search "
                         "takes",
                         x->cfg.N, TS_PLAN_SEARCH_MAX_MICROS);
            continue;
        }
        if (best > 0 &&
            x->cost.lower_bound_s + x->cost.dp_s + x->cost.zero_s + x->cost.optimizer_s >= best) {
            (*pruned)++;
            continue;
        }
        (*searched)++;
        if (show)
            fprintf(stderr, "[plan] schedule search %d/%d: %s\n", *searched, top, x->cfg.strategy);
        if (ts_plan_eval(r, x) < 0)
            return -1;
        if (x->searched && (best == 0 || x->iter_s < best))
            best = x->iter_s;
    }
    for (int i = 0; i < n; i++)
        if (!pl[i].searched && !pl[i].cost.closed_form) {
            pl[i].ok = false;
            if (!pl[i].reason[0])
                snprintf(pl[i].reason, sizeof pl[i].reason,
                         "no closed form and not searched (bound %.3f s)",
                         pl[i].cost.lower_bound_s);
        }
    return 0;
}
#endif
