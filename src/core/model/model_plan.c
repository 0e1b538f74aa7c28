/* Parallel plans in real units: a plan's figures from the cost model, then from its searched
 * schedule (iteration time, latency, MFU, peak memory) with the breakdown kept adding up, its
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

double ts_plan_peak_tflops(const ts_hardware *h)
{
    return h->fp8 && h->peak_fp8_tflops > 0 ? h->peak_fp8_tflops : h->peak_tflops;
}

void ts_plan_from_found(const ts_plan_req *r, const ts_plan_found *f, ts_plan *pl)
{
    memset(pl, 0, sizeof *pl);
    pl->cfg = f->cfg;
    pl->cost = f->cost;
    pl->ok = true;
    pl->iter_s = f->cost.iter_s;
    pl->samples_s = r->global / pl->iter_s;
    pl->tflops_gpu = f->cost.model_flops / pl->iter_s / r->gpus / 1e12;
    pl->counted_tflops_gpu = f->cost.counted_flops / pl->iter_s / r->gpus / 1e12;
    pl->causal_tflops_gpu = f->cost.causal_flops / pl->iter_s / r->gpus / 1e12;
    pl->mfu = pl->tflops_gpu / ts_plan_peak_tflops(r->h);
    pl->peak_gb = f->cost.peak_bytes / 1e9;
    snprintf(pl->source, sizeof pl->source, "%s", f->cost.closed_form ? "formula" : "bound");
}

void ts_plan_figures(const ts_plan_req *r, ts_plan *pl, const ts_metrics *m,
                     const ts_derive_info *in)
{
    const ts_placement *p = pl->p;
    double unit = in->time_unit_s, usable = (r->h->hbm_gb - r->h->workspace_gb) * 1e9;
    ts_plan_cost *c = &pl->cost;
    pl->searched = true;
    pl->time_unit_s = unit;
    pl->makespan = m->makespan;
    pl->lower_bound = m->lower_bound;
    double rest = c->dp_s + c->zero_s + c->optimizer_s;
    pl->searched_s = m->makespan * unit + rest;
    /* the derived placement's own bound holds for the searched schedule */
    c->lower_bound_s = fmin(c->lower_bound_s, m->lower_bound * unit);
    if (!c->closed_form || pl->searched_s < c->iter_s) {
        /* the searched schedule times the plan: its pipeline less the critical stage's work;
         * when the derived stages are lighter than the closed form's, that work shrinks to fit */
        double pipe = m->makespan * unit, work = c->compute_s + c->tp_s + c->p2p_s;
        if (work > pipe && work > 0) {
            c->compute_s *= pipe / work;
            c->tp_s *= pipe / work;
            c->p2p_s *= pipe / work;
        }
        c->bubble_s = pipe - (c->compute_s + c->tp_s + c->p2p_s);
        c->iter_s = c->compute_s + c->tp_s + c->p2p_s + c->bubble_s + rest;
        c->closed_form = false;
    } else {
        snprintf(pl->source, sizeof pl->source, "formula");
    }
    pl->iter_s = c->iter_s;
    pl->samples_s = r->global / pl->iter_s;
    pl->tflops_gpu = c->model_flops / pl->iter_s / r->gpus / 1e12;
    pl->counted_tflops_gpu = c->counted_flops / pl->iter_s / r->gpus / 1e12;
    pl->causal_tflops_gpu = c->causal_flops / pl->iter_s / r->gpus / 1e12;
    pl->mfu = pl->tflops_gpu / ts_plan_peak_tflops(r->h);
    double peak = 0;
    for (int d = 0; d < p->ndevs; d++) {
        double u = in->memory_unit_dev[d], state = usable - u * (double)in->capacity;
        peak = fmax(peak, (state + m->peak[d] * u) / 1e9 + r->h->workspace_gb);
    }
    pl->peak_gb = fmax(pl->peak_gb, peak);
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
    /* insertion sort: stable, and n is a few dozen */
    for (int i = 1; i < n; i++) {
        ts_plan x = pl[i];
        int j = i;
        while (j > 0 && ts_plan_cmp(&pl[j - 1], &x) > 0) {
            pl[j] = pl[j - 1];
            j--;
        }
        pl[j] = x;
    }
}

static json_t *ts_plan_breakdown_json(const ts_plan_cost *c)
{
    return json_pack("{sf sf sf sf sf sf sf}", "compute_s", c->compute_s, "tensor_parallel_s",
                     c->tp_s, "pipeline_p2p_s", c->p2p_s, "bubble_s", c->bubble_s,
                     "data_parallel_s", c->dp_s, "zero_gather_s", c->zero_s, "optimizer_s",
                     c->optimizer_s);
}

json_t *ts_plan_json(const ts_plan *pl)
{
    const ts_plan_cfg *c = &pl->cfg;
    char name[96];
    ts_plan_name(c, name, sizeof name);
    json_t *j =
        json_pack("{ss ss si si si si si si si sb ss si sb}", "name", name, "strategy", c->strategy,
                  "tensor_parallel", c->T, "pipeline", c->P, "virtual_stages", c->v, "replicas",
                  c->dp, "zero", c->zero, "micro_batch_size", c->b, "micro_batches", c->N,
                  "sequence_parallel", c->seqpar, "recompute", ts_recompute_name(c->recompute),
                  "pipeline_gpus", c->T * c->P, "fits", pl->ok);
    json_t *more = json_pack("{si si si si si sb}", "context_parallel", c->C > 1 ? c->C : 1,
                             "expert_parallel", c->E > 1 ? c->E : 1, "expert_tensor_parallel",
                             c->etp > 0 ? c->etp : c->T, "first_stage_layers", c->first,
                             "last_stage_layers", c->last, "tp_comm_overlap", c->tpo);
    json_object_update(j, more);
    json_decref(more);
    if (!pl->ok) {
        json_object_set_new(j, "reason", json_string(pl->reason));
        return j;
    }
    const ts_plan_cost *k = &pl->cost;
    json_t *f = json_pack("{sf sf sf sf sf sf sf sf ss sb s{si si si}}", "iteration_s",
                          pl->iter_s, "samples_per_s", pl->samples_s, "tflops_per_gpu",
                          pl->tflops_gpu, "counted_tflops_per_gpu", pl->counted_tflops_gpu,
                          "causal_tflops_per_gpu", pl->causal_tflops_gpu, "mfu", pl->mfu,
                          "peak_memory_gb", pl->peak_gb, "lower_bound_s", k->lower_bound_s, "kept",
                          pl->source, "searched", pl->searched, "stages_recompute", "none",
                          k->stages_rc[0], "selective", k->stages_rc[1], "full", k->stages_rc[2]);
    json_object_set_new(f, "breakdown", ts_plan_breakdown_json(k));
    if (pl->searched) {
        json_t *s = json_pack("{sf sf sf sf sf sI sI sb sf}", "searched_s", pl->searched_s,
                              "bubble_rate", pl->bubble, "gap_to_lower_bound", pl->gap, "latency_s",
                              pl->latency_s, "time_unit_s", pl->time_unit_s, "makespan",
                              (json_int_t)pl->makespan, "lower_bound", (json_int_t)pl->lower_bound,
                              "timed_out", pl->timed_out, "search_s", pl->search_s);
        json_object_update(f, s);
        json_decref(s);
    }
    json_object_update(j, f);
    json_decref(f);
    return j;
}
