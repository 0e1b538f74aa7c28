/* Parallel plans in real units: the list of plans to try, one evaluated plan's figures converted
 * back to seconds, GB and FLOP/s (iteration time, data-parallel all-reduce, latency, MFU), its
 * JSON, and the ranking by iteration time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_plan.h"

void ts_plan_clear(ts_plan *pl)
{
    ts_placement_free(pl->p);
    ts_schedule_free(pl->s);
    pl->p = NULL;
    pl->s = NULL;
}

int ts_plan_list(const ts_plan_req *r, const char *const *names, int nnames, ts_plan **out,
                 int *count, ts_err *e)
{
    const ts_model *m = r->m;
    const char *use[64];
    int ns = 0;
    for (int i = 0; i < nnames && ns < 64; i++) {
        if (!ts_model_has_strategy(m, names[i]))
            return ts_fail(e, TS_EINPUT,
                           "strategy '%s' does not apply to model '%s' (see `tessel model %s`)",
                           names[i], m->name, m->name);
        use[ns++] = names[i];
    }
    for (int i = 0; !names && i < m->nstrategies && ns < 64; i++)
        use[ns++] = m->strategies[i];
    int D = r->gpus, T = r->T, n = 0;
    ts_plan *pl = calloc((size_t)(ns * 32 + 1), sizeof *pl);
    if (!pl)
        return ts_fail(e, TS_ESYS, "plan: out of memory");
    for (int i = 0; i < ns; i++)
        for (int pipe = D; pipe >= T && n < ns * 32; pipe--) {
            if (D % pipe || pipe % T || (pipe / T < 2 && D / T >= 2))
                continue;
            ts_plan *x = &pl[n++];
            snprintf(x->strategy, sizeof x->strategy, "%s", use[i]);
            x->pipe = pipe;
            x->replicas = D / pipe;
            long per = (long)r->b * x->replicas;
            x->N = r->global % per ? 0 : (int)(r->global / per);
            if (!x->N)
                snprintf(x->reason, sizeof x->reason,
                         "the global batch %ld does not split into "
                         "micro-batches of %d over %d replicas",
                         r->global, r->b, x->replicas);
        }
    *out = pl;
    *count = n;
    return TS_OK;
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

void ts_plan_figures(const ts_plan_req *r, ts_plan *pl, const ts_metrics *m,
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
    /* Backward = 2 forwards. */
    double per_sample = r->infer ? F * rounds : F * (rounds + 2);
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

static int ts_plan_cmp(const void *x, const void *y)
{
    const ts_plan *a = x, *b = y;
    if (a->ok != b->ok)
        return a->ok ? -1 : 1;
    if (!a->ok)
        return 0;
    return (a->iter_s > b->iter_s) - (a->iter_s < b->iter_s);
}

void ts_plan_rank(ts_plan *pl, int n)
{
    qsort(pl, (size_t)n, sizeof *pl, ts_plan_cmp);
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
