/* A plan as the frameworks launch it: Megatron-LM's command-line arguments (megatron/training/
 * arguments.py) and torchtitan's TOML configuration (its [parallelism], [training] and
 * [activation_checkpoint] tables), from the plan's configuration and the model's shape. */
#include <stdio.h>
#include <string.h>
#include "model_internal.h"

typedef struct {
    int blocks, heads, kv_heads, experts;
} ts_shape;

static ts_shape ts_shape_of(const ts_model *m)
{
    ts_shape x = {0};
    for (int i = 0; i < m->nlayers; i++) {
        const ts_layer *l = &m->layers[i];
        if (l->gemm_tokens <= 0)
            continue;
        x.blocks++;
        x.heads = l->heads > x.heads ? l->heads : x.heads;
        x.kv_heads = l->kv_heads > x.kv_heads ? l->kv_heads : x.kv_heads;
        x.experts = l->experts > x.experts ? l->experts : x.experts;
    }
    return x;
}

/* Megatron-LM runs 1F1B and interleaved 1F1B (and no pipeline); 0 or why not. */
static const char *ts_megatron_refuses(const ts_plan_req *r, const ts_plan *pl)
{
    const char *s = pl->cfg.strategy;
    if (r->infer)
        return "an inference plan (Megatron-LM's arguments are for training)";
    if (r->h->attention_triton)
        return "Megatron-LM has no Triton attention backend (--attention triton is llm-foundry's "
               "Triton FlashAttention kernel; Megatron's --attention-backend runs flash, fused or "
               "unfused, at other efficiencies than the plan's)";
    if (strcmp(s, "1f1b") && strcmp(s, "interleaved") && strcmp(s, "no-pipeline"))
        return "Megatron-LM runs 1F1B and interleaved 1F1B schedules, not this strategy's";
    if (pl->cfg.zero == 2)
        return "Megatron-LM has no ZeRO-2";
    return NULL;
}

/* Appends one argument (and its value when v >= 0). */
static json_t *ts_arg(json_t *a, const char *flag, long v)
{
    json_array_append_new(a, json_string(flag));
    if (v >= 0) {
        char num[24];
        snprintf(num, sizeof num, "%ld", v);
        json_array_append_new(a, json_string(num));
    }
    return a;
}

static void ts_arg_s(json_t *a, const char *flag, const char *v)
{
    json_array_append_new(a, json_string(flag));
    json_array_append_new(a, json_string(v));
}

static void ts_megatron_recompute(json_t *a, const ts_plan *pl, const ts_shape *x)
{
    const ts_plan_cfg *c = &pl->cfg;
    const int *k = pl->cost.stages_rc;
    if (k[TS_RC_FULL] > 0) {
        int per = x->blocks / (c->P * c->v);
        int n = pl->cost.recompute_blocks > 0 ? pl->cost.recompute_blocks : per;
        ts_arg_s(a, "--recompute-granularity", "full");
        ts_arg_s(a, "--recompute-method", n >= per ? "uniform" : "block");
        ts_arg(a, "--recompute-num-layers", n >= per ? 1 : n);
    } else if (k[TS_RC_SELECTIVE] > 0) {
        ts_arg_s(a, "--recompute-granularity", "selective");
    }
}

static json_t *ts_megatron_args(const ts_plan_req *r, const ts_plan *pl)
{
    const ts_plan_cfg *c = &pl->cfg;
    ts_shape x = ts_shape_of(r->m);
    json_t *a = json_array();
    ts_arg(a, "--num-layers", x.blocks);
    ts_arg(a, "--seq-length", r->m->seq);
    ts_arg(a, "--tensor-model-parallel-size", c->T);
    ts_arg(a, "--pipeline-model-parallel-size", c->P);
    /* layers per virtual stage where they divide evenly, else the stage count (the split
     * that accounts for the embedding and the loss) */
    if (c->v > 1 && x.blocks % (c->P * c->v) == 0)
        ts_arg(a, "--num-layers-per-virtual-pipeline-stage", x.blocks / (c->P * c->v));
    else if (c->v > 1)
        ts_arg(a, "--num-virtual-stages-per-pipeline-rank", c->v);
    /* Megatron-LM's split that counts the embedding and the loss as a block each */
    if (c->P > 1 && !c->first && !c->last && x.blocks % (c->P * c->v) &&
        (x.blocks + 2) % (c->P * c->v) == 0) {
        ts_arg(a, "--account-for-embedding-in-pipeline-split", -1);
        ts_arg(a, "--account-for-loss-in-pipeline-split", -1);
    }
    if (c->first > 0)
        ts_arg(a, "--decoder-first-pipeline-num-layers", c->first);
    if (c->last > 0)
        ts_arg(a, "--decoder-last-pipeline-num-layers", c->last);
    ts_arg(a, "--context-parallel-size", c->C > 1 ? c->C : 1);
    /* Megatron-Core's --cp-comm-type: p2p (the ring) or all_gather */
    if (c->C > 1)
        ts_arg_s(a, "--cp-comm-type", r->cp_allgather ? "all_gather" : "p2p");
    if (x.experts > 0) {
        ts_arg(a, "--num-experts", x.experts);
        ts_arg(a, "--expert-model-parallel-size", c->E > 1 ? c->E : 1);
        /* explicit, though T is Megatron-LM's default (megatron/training/arguments.py) */
        ts_arg(a, "--expert-tensor-parallel-size", c->etp > 0 ? c->etp : c->T);
    }
    if (x.kv_heads > 0 && x.kv_heads < x.heads) {
        ts_arg(a, "--group-query-attention", -1);
        ts_arg(a, "--num-query-groups", x.kv_heads);
    }
    if (c->seqpar)
        ts_arg(a, "--sequence-parallel", -1);
    /* Transformer Engine's userbuffers overlap of the tensor-parallel collectives, as costed */
    if (c->tpo)
        ts_arg(a, "--tp-comm-overlap", -1);
    if (c->zero == 1) {
        ts_arg(a, "--use-distributed-optimizer", -1);
        ts_arg(a, "--overlap-param-gather", -1);
    }
    /* the gradient reduction behind the last micro-batch's backward, as costed */
    if (c->dp * c->C > 1 && !r->grad_after)
        ts_arg(a, "--overlap-grad-reduce", -1);
    if (c->zero == 3)
        ts_arg(a, "--use-torch-fsdp2", -1);
    if (r->grad_bf16)
        ts_arg(a, "--grad-reduce-in-bf16", -1);
    ts_arg(a, "--micro-batch-size", c->b);
    ts_arg(a, "--global-batch-size", r->global);
    ts_megatron_recompute(a, pl, &x);
    /* Megatron-Core's AttnBackend: flash (FlashAttention), fused (cuDNN), unfused */
    ts_arg_s(a, "--attention-backend",
             r->h->attention_fa2     ? "flash"
             : r->h->fused_attention ? "fused"
                                     : "unfused");
    if (r->h->fp8)
        ts_arg_s(a, "--fp8-format", "hybrid");
    /* Megatron-LM's --fp8-recipe: tensorwise is Transformer Engine's current scaling */
    if (r->h->fp8 && r->h->fp8_current)
        ts_arg_s(a, "--fp8-recipe", "tensorwise");
    ts_arg(a, "--bf16", -1);
    return a;
}

/* torchtitan's pipeline schedules by the plan's strategy (torchtitan's
 * pipeline_parallel_schedule names, PyTorch's torch.distributed.pipelining schedules). */
static const char *ts_titan_schedule(const ts_plan_cfg *c)
{
    if (!strcmp(c->strategy, "1f1b"))
        return "1F1B";
    if (!strcmp(c->strategy, "interleaved"))
        return "Interleaved1F1B";
    if (!strcmp(c->strategy, "gpipe"))
        return "GPipe";
    if (!strcmp(c->strategy, "zb"))
        return "InterleavedZeroBubble";
    return NULL;
}

static json_t *ts_titan(const ts_plan_req *r, const ts_plan *pl, const char **why)
{
    const ts_plan_cfg *c = &pl->cfg;
    *why = NULL;
    const char *sched = c->P > 1 ? ts_titan_schedule(c) : "1F1B";
    if (!sched || (!strcmp(c->strategy, "zb") && c->v < 2 && c->P > 1)) {
        *why = "torchtitan runs 1F1B, interleaved 1F1B, GPipe and interleaved zero-bubble "
               "pipelines, not this strategy's";
        return NULL;
    }
    if (c->zero == 1) {
        *why = "torchtitan shards parameters with FSDP (ZeRO-2/3) or replicates them; it has no "
               "optimizer-only sharding (ZeRO-1)";
        return NULL;
    }
    int experts = ts_shape_of(r->m).experts, etp = c->etp > 0 ? c->etp : c->T;
    /* torchtitan/distributed/parallel_dims.py (0.2.2), ParallelDims.__post_init__: with ep > 1,
     * "Currently we only support ETP=TP or ETP=1" */
    if (experts > 0 && c->E > 1 && etp != 1 && etp != c->T) {
        *why = "torchtitan runs expert tensor parallelism 1 or T only";
        return NULL;
    }
    /* FSDP (dp_shard) for ZeRO 2 and 3, plain replication (dp_replicate) for ZeRO 0 */
    int shard = c->zero >= 2 ? c->dp : 1, rep = c->zero >= 2 ? 1 : c->dp;
    json_t *par =
        json_pack("{si si si si si si ss si}", "data_parallel_replicate_degree", rep,
                  "data_parallel_shard_degree", shard, "tensor_parallel_degree", c->T,
                  "pipeline_parallel_degree", c->P, "context_parallel_degree", c->C > 1 ? c->C : 1,
                  "expert_parallel_degree", c->E > 1 ? c->E : 1, "pipeline_parallel_schedule",
                  sched, "pipeline_parallel_microbatch_size", c->b);
    if (c->zero == 2)
        json_object_set_new(par, "fsdp_reshard_after_forward", json_string("never"));
    /* explicit: torchtitan's own default is 1 (job_config.py, Parallelism), the plan's T */
    if (experts > 0)
        json_object_set_new(par, "expert_tensor_parallel_degree", json_integer(etp));
    /* torchtitan's context_parallel_rotate_method: allgather, or alltoall (keys and values
     * passed on between ranks, as in a ring) */
    if (c->C > 1)
        json_object_set_new(par, "context_parallel_rotate_method",
                            json_string(r->cp_allgather ? "allgather" : "alltoall"));
    const int *k = pl->cost.stages_rc;
    const char *ac = k[TS_RC_FULL] ? "full" : k[TS_RC_SELECTIVE] ? "selective" : "none";
    json_t *acj = json_pack("{ss}", "mode", ac);
    /* selective as costed: the per-op policy (ts_layer_op_sac) */
    if (!k[TS_RC_FULL] && k[TS_RC_SELECTIVE])
        json_object_set_new(acj, "selective_ac_option", json_string("op"));
    return json_pack("{so s{sI si si} so}", "parallelism", par, "training", "global_batch_size",
                     (json_int_t)r->global, "local_batch_size", (int)(r->global / c->dp), "seq_len",
                     r->m->seq, "activation_checkpoint", acj);
}

json_t *ts_plan_launch_json(const ts_plan_req *r, const ts_plan *pl)
{
    const char *mwhy = ts_megatron_refuses(r, pl), *twhy = NULL;
    json_t *t = r->infer ? NULL : ts_titan(r, pl, &twhy);
    if (r->infer)
        twhy = "an inference plan";
    return json_pack("{so so so so}", "megatron", mwhy ? json_null() : ts_megatron_args(r, pl),
                     "megatron_why", mwhy ? json_string(mwhy) : json_null(), "torchtitan",
                     t ? t : json_null(), "torchtitan_why", twhy ? json_string(twhy) : json_null());
}

bool ts_plan_megatron_line(const ts_plan_req *r, const ts_plan *pl, char *out, size_t len)
{
    const char *why = ts_megatron_refuses(r, pl);
    if (why) {
        snprintf(out, len, "%s", why);
        return false;
    }
    json_t *a = ts_megatron_args(r, pl);
    size_t used = 0;
    out[0] = 0;
    for (size_t i = 0; i < json_array_size(a) && used < len; i++) {
        int w = snprintf(out + used, len - used, "%s%s", i ? " " : "",
                         json_string_value(json_array_get(a, i)));
        used += w > 0 ? (size_t)w : 0;
    }
    json_decref(a);
    return true;
}
