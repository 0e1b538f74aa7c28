/* One plan of `tessel plan`: the placement derived for the strategy on one pipeline, the `auto`
 * search at N micro-batches within the derived capacity, the simulated schedule, and its figures
 * converted back to seconds, GB and FLOP/s. */
#ifdef TS_HAVE_SOLVER
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "plan.h"
#include "ts_methods.h"
#include "ts_solver.h"

void ts_plan_clear(ts_plan *pl)
{
    ts_placement_free(pl->p);
    ts_schedule_free(pl->s);
    pl->p = NULL;
    pl->s = NULL;
}

/* Seconds of one micro-batch from its first start to its last end, the longest over all. */
static double ts_plan_latency(const ts_schedule *s, double unit)
{
    long *lo = malloc((size_t)s->nmicros * sizeof(long)),
         *hi = calloc((size_t)s->nmicros, sizeof(long));
    double best = 0;
    if (lo && hi) {
        for (int m = 0; m < s->nmicros; m++)
            lo[m] = -1;
        for (int i = 0; i < s->nentries; i++) {
            const ts_entry *x = &s->entries[i];
            long end = x->step + s->placement->blocks[x->block].span;
            if (lo[x->micro] < 0 || x->step < lo[x->micro])
                lo[x->micro] = x->step;
            hi[x->micro] = end > hi[x->micro] ? end : hi[x->micro];
        }
        for (int m = 0; m < s->nmicros; m++)
            best = fmax(best, (hi[m] - lo[m]) * unit);
    }
    free(lo);
    free(hi);
    return best;
}

/* Gradient all-reduce across the data-parallel replicas: each GPU's bf16 gradients (2 bytes per
 * parameter it holds), a ring over the replicas; NVLink when they all sit in one node. Counted
 * after the pipeline, not overlapped with it. */
static double ts_plan_dp_seconds(const ts_plan_req *r, const ts_plan *pl, double state_max)
{
    if (pl->replicas <= 1 || r->infer)
        return 0;
    double grad = state_max / TS_BYTES_PER_PARAM_TRAIN * 2;
    double bw = (r->gpus <= r->h->gpus_per_node ? r->h->nvlink_gbs : r->h->internode_gbs) * 1e9;
    return 2.0 * (pl->replicas - 1) / pl->replicas * grad / bw;
}

static void ts_plan_figures(const ts_plan_req *r, ts_plan *pl, const ts_metrics *m,
                            const ts_derive_info *in)
{
    const ts_placement *p = pl->p;
    double unit = in->time_unit_s, usable = (r->h->hbm_gb - r->h->workspace_gb) * 1e9;
    pl->time_unit_s = unit;
    pl->makespan = m->makespan;
    pl->lower_bound = m->lower_bound;
    pl->dp_s = ts_plan_dp_seconds(r, pl, in->static_bytes_max);
    pl->iter_s = m->makespan * unit + pl->dp_s;
    pl->samples_s = r->global / pl->iter_s;
    double F = ts_model_fwd_flops(r->m), rounds = r->m->recycles;
    double per_sample = r->infer ? F * rounds : F * (rounds + 2); /* backward = 2 forwards */
    pl->tflops_gpu = per_sample * r->global / pl->iter_s / r->gpus / 1e12;
    pl->mfu = pl->tflops_gpu / r->h->peak_tflops;
    pl->peak_gb = 0;
    for (int d = 0; d < p->ndevs; d++) {
        double u = in->memory_unit_dev[d], state = usable - u * (double)in->capacity;
        pl->peak_gb = fmax(pl->peak_gb, (state + m->peak[d] * u) / 1e9);
    }
    pl->bubble = m->bubble_rate;
    pl->gap = m->lower_bound > 0 ? (double)m->makespan / m->lower_bound - 1 : 0;
    pl->latency_s = ts_plan_latency(pl->s, unit);
}

static void ts_plan_source(ts_plan *pl, const ts_search_stats *st)
{
    snprintf(pl->source, sizeof pl->source, "%s%s", st->source ? st->source : "auto",
             st->improved ? "+improved" : "");
    pl->timed_out = st->timed_out;
    pl->search_s = st->seconds;
}

int ts_plan_eval(const ts_plan_req *r, ts_plan *pl)
{
    /* Chimera's placement micro-batch is one micro-batch per direction. */
    bool two = !strcmp(pl->strategy, "chimera");
    int n = two ? pl->N / 2 : pl->N;
    if (n < 1 || (two && pl->N % 2)) {
        snprintf(pl->reason, sizeof pl->reason, "chimera needs an even micro-batch count, got %d",
                 pl->N);
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
        rc = ts_cli_schedule_at(s, n, &pl->s, &m, &e);
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

json_t *ts_plan_json(const ts_plan *pl)
{
    json_t *j = json_pack("{ss si si si sb}", "strategy", pl->strategy, "pipeline_gpus", pl->pipe,
                          "replicas", pl->replicas, "micro_batches", pl->N, "fits", pl->ok);
    if (!pl->ok) {
        json_object_set_new(j, "reason", json_string(pl->reason));
        return j;
    }
    json_t *f = json_pack("{sf sf sf sf sf sf sf sf sf sf sI sI ss sb sf}", "iteration_s",
                          pl->iter_s, "dp_allreduce_s", pl->dp_s, "samples_per_s", pl->samples_s,
                          "tflops_per_gpu", pl->tflops_gpu, "mfu", pl->mfu, "peak_memory_gb",
                          pl->peak_gb, "bubble_rate", pl->bubble, "gap_to_lower_bound", pl->gap,
                          "latency_s", pl->latency_s, "time_unit_s", pl->time_unit_s, "makespan",
                          (json_int_t)pl->makespan, "lower_bound", (json_int_t)pl->lower_bound,
                          "kept", pl->source, "timed_out", pl->timed_out, "search_s", pl->search_s);
    json_object_update(j, f);
    json_decref(f);
    return j;
}
#endif
