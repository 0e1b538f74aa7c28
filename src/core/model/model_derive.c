/* Placement derivation: checks that a model fits, runs the stage DP for a strategy's chains, and
 * hands the strategy's real-unit blocks to quantisation. The strategies' registry lives in
 * model_strategies.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model_internal.h"

static int ts_derive_check(const ts_model *m, const ts_hardware *h, const ts_derive_opts *o,
                           ts_err *e)
{
    const ts_strategy_info *st = ts_strategy_find(o->strategy);
    if (!st) {
        char names[256] = "";
        for (int i = 0; i < ts_strategy_count(); i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                     ts_strategy_at(i)->name);
        return ts_fail(e, TS_EINPUT, "unknown strategy '%s' (%s)", o->strategy, names);
    }
    if (!ts_model_has_strategy(m, o->strategy)) {
        char list[256] = "";
        for (int i = 0; i < m->nstrategies; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     m->strategies[i]);
        return ts_fail(e, TS_EINPUT, "strategy '%s' does not apply to model '%s' (it has: %s)",
                       o->strategy, m->name, list);
    }
    if (o->gpus < 1 || o->T < 1 || o->b < 1)
        return ts_fail(e, TS_EINPUT,
                       "--gpus, --tensor-parallel and --micro-batch-size must be >= 1");
    if (o->gpus % o->T)
        return ts_fail(e, TS_EINPUT, "%d GPUs are not a multiple of tensor parallelism %d", o->gpus,
                       o->T);
    if (o->gpus > TS_MAX_DEVS)
        return ts_fail(e, TS_EINPUT, "%d GPUs: at most %d", o->gpus, TS_MAX_DEVS);
    /* Weights and optimizer state of every layer (tied copies too: each stage holding one keeps
     * it), against all the GPUs' memory. */
    double need = 0,
           per = o->infer ? TS_BYTES_PER_PARAM_INFER : ts_zero_bytes_per_param(o->zero, o->dp);
    /* the paper's setups: a fixed count of bytes per parameter (--param-bytes) */
    if (!o->infer && o->param_bytes > 0)
        per = o->param_bytes;
    for (int i = 0; i < m->nlayers; i++)
        need += m->layers[i].params * per;
    need *= st->replicas;
    double have = o->gpus * (h->hbm_gb - h->workspace_gb) * 1e9;
    if (need > have)
        return ts_fail(
            e, TS_ENOANSWER,
            "model '%s' does not fit: its weights%s need %.0f GB (%.1fB parameters held, "
            "tied copies included, x %.0f bytes%s), but %d x %s give %.0f GB (%d x "
            "%.0f GB, less %.0f GB workspace each)",
            m->name, o->infer ? "" : " and optimizer state", need / 1e9,
            need / per / 1e9 / st->replicas, per, st->replicas > 1 ? ", two replicas" : "", o->gpus,
            h->name, have / 1e9, o->gpus, h->hbm_gb, h->workspace_gb);
    return TS_OK;
}

/* Every device must hold its weights and at least one micro-batch's activations. */
static int ts_derive_fits(const ts_dctx *c, const ts_derive_info *info, ts_err *e)
{
    const ts_hardware *h = c->h;
    double usable = (h->hbm_gb - h->workspace_gb) * 1e9;
    for (int d = 0; d < c->D; d++) {
        if (c->stat[d] > usable)
            return ts_fail(
                e, TS_ENOANSWER,
                "%s on %d GPUs (%s): GPU %d needs %.1f GB for weights%s, more than "
                "its %.0f GB less %.0f GB workspace; use more GPUs or tensor parallelism",
                c->m->name, c->D, c->o->strategy, d, c->stat[d] / 1e9,
                c->o->infer ? "" : " and optimizer state", h->hbm_gb, h->workspace_gb);
        double act = 0;
        for (int i = 0; i < c->nb; i++)
            if (c->b[i].mem > 0 && d >= c->b[i].first && d < c->b[i].first + c->b[i].ndev)
                act += c->b[i].mem;
        if (act > usable - c->stat[d])
            return ts_fail(e, TS_ENOANSWER,
                           "micro-batch size %d is too large: one micro-batch stores %.1f GB of "
                           "activations on GPU %d, but only %.1f GB remain after %.1f GB of "
                           "weights%s; use a smaller micro-batch%s",
                           c->o->b, act / 1e9, d, (usable - c->stat[d]) / 1e9, c->stat[d] / 1e9,
                           c->o->infer ? "" : " and optimizer state",
                           c->o->recompute ? "" : " or --recompute");
    }
    (void)info;
    return TS_OK;
}

void ts_derive_info_clear(ts_derive_info *info)
{
    free(info->slice_tokens);
    free(info->cuts);
    free(info->memory_unit_dev);
    memset(info, 0, sizeof *info);
}

int ts_model_derive(const ts_model *m, const ts_hardware *h, const ts_derive_opts *o,
                    ts_placement **out, ts_derive_info *info, ts_err *e)
{
    *out = NULL;
    memset(info, 0, sizeof *info);
    if (ts_derive_check(m, h, o, e))
        return e ? e->code : TS_EINPUT;
    ts_dctx c = {0};
    c.m = m;
    c.h = h;
    c.o = o;
    c.st = ts_strategy_find(o->strategy);
    c.T = o->T;
    c.D = o->gpus;
    c.S = o->gpus / o->T;
    c.R = 1;
    /* the GEMM-shape model (plans) takes the profile's attention kernel */
    c.co = (ts_cost_opts){.b = o->b,
                          .T = o->T,
                          .recompute = o->recompute,
                          .infer = o->infer,
                          .selective = o->selective,
                          .seqpar = o->seqpar,
                          .zero = o->zero,
                          .dp = o->dp,
                          .gemm_shape = o->gemm_shape,
                          .param_bytes = o->param_bytes,
                          .fused = o->gemm_shape && h->fused_attention,
                          .fp8 = o->gemm_shape && h->fp8};
    c.lc = calloc((size_t)m->nlayers, sizeof(ts_layer_cost));
    c.lsh = calloc((size_t)m->nlayers, sizeof(ts_layer_cost));
    c.stat = calloc((size_t)c.D, sizeof(double));
    int rc;
    if (!c.lc || !c.lsh || !c.stat) {
        rc = ts_fail(e, TS_ESYS, "out of memory");
        goto done;
    }
    ts_cost_opts all = c.co;
    all.T = c.D;
    for (int i = 0; i < m->nlayers; i++) {
        ts_layer_cost_of(&m->layers[i], h, &c.co, 0, &c.lc[i]);
        ts_layer_cost_of(&m->layers[i], h, &all, 0, &c.lsh[i]);
    }
    rc = c.st->build(&c, info, e);
    if (!rc)
        rc = ts_derive_fits(&c, info, e);
    if (!rc)
        ts_d_comm(&c);
    if (!rc) {
        char name[200];
        snprintf(name, sizeof name, "%s-%s-%dgpu%s", m->name, o->strategy, c.D,
                 o->infer ? "-infer" : "");
        rc = ts_d_quantise(&c, name, out, info, e);
    }
    if (!rc) { /* stated in the file: `tessel search` takes the capacity from it */
        ts_placement *p = *out;
        p->has_capacity = true;
        p->capacity = info->capacity;
        p->time_unit_s = info->time_unit_s;
        p->memory_unit_bytes = malloc((size_t)c.D * sizeof(double));
        if (!p->memory_unit_bytes) {
            ts_placement_free(p);
            *out = NULL;
            rc = ts_fail(e, TS_ESYS, "out of memory");
        } else {
            memcpy(p->memory_unit_bytes, info->memory_unit_dev, (size_t)c.D * sizeof(double));
        }
    }
done:
    free(c.lc);
    free(c.lsh);
    free(c.stat);
    free(c.b);
    free(c.ed);
    if (rc)
        ts_derive_info_clear(info);
    return rc;
}
