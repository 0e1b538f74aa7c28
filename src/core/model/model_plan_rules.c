/* What a training framework runs (models/README.md, "Frameworks"): its rules over a plan's
 * combination of parallelisms, its count of bytes per parameter, and Megatron's layout of the
 * transformer blocks over pipeline stages and virtual stages. Each rule names its source. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "model_internal.h"

const char *ts_framework_name(int fw)
{
    static const char *const names[] = {"megatron", "fsdp", "deepspeed"};
    return fw >= 0 && fw < TS_FW_COUNT ? names[fw] : "?";
}

double ts_framework_bytes_per_param(int fw, int zero, int d)
{
    double k = d > 1 ? d : 1;
    if (fw == TS_FW_MEGATRON) {
        /* Megatron-Core's distributed optimizer documentation: bf16 parameters with fp32 main
         * gradients hold 18 bytes per parameter, 6 + 12/d with the distributed optimizer (the
         * fp32 master weights and Adam's two moments sharded over the d data-parallel GPUs);
         * its FSDP (ZeRO-3) shards all 18 */
        if (zero == 1)
            return 6 + 12 / k;
        if (zero == 3)
            return 18 / k;
        return 18;
    }
    return ts_zero_bytes_per_param(zero, d);
}

double ts_plan_bytes_per_param(const ts_plan_req *r, int zero, int d)
{
    double b = ts_framework_bytes_per_param(r->framework, zero, d);
    if (r->framework != TS_FW_MEGATRON || !r->grad_bf16)
        return b;
    /* the main gradient buffer is bf16: 2 bytes, sharded with the rest under FSDP */
    return zero == 3 ? b - 2.0 / (d > 1 ? d : 1) : b - 2;
}

/* Transformer blocks of the model (the layers Megatron's --num-layers counts). */
static int ts_blocks(const ts_model *m)
{
    int n = 0;
    for (int i = 0; i < m->nlayers; i++)
        n += m->layers[i].gemm_tokens > 0;
    return n;
}

static int ts_refuse(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return TS_REFUSE_FRAMEWORK + 1;
}

/* Megatron-LM (megatron/training/arguments.py and Megatron-Core's parallel_state): */
static int ts_rules_megatron(const ts_plan_req *r, const ts_plan_cfg *c, char *why, size_t len)
{
    int L = ts_blocks(r->m), P = c->P, v = c->v;
    /* its distributed optimizer is ZeRO-1 with the gradients reduce-scattered; no ZeRO-2 */
    if (c->zero == 2)
        return ts_refuse(why, len,
                         "megatron has no ZeRO-2 (its distributed optimizer is "
                         "stage 1; FSDP is stage 3)");
    /* Megatron-FSDP and torch FSDP2 (--use-torch-fsdp2) do not run with a pipeline */
    if (c->zero == 3 && P > 1)
        return ts_refuse(why, len,
                         "megatron runs ZeRO-3 (FSDP) without a pipeline, not with "
                         "%d stages",
                         P);
    bool uneven = c->first > 0 || c->last > 0;
    /* "number of layers should be divisible by the pipeline parallel size" and, with
     * --num-layers-per-virtual-pipeline-stage, by the pipeline size times v; or, with
     * --account-for-embedding-in-pipeline-split and --account-for-loss-in-pipeline-split, the
     * blocks plus the embedding and the loss each counted as one */
    if (P > 1 && !uneven && L % (P * v) && (L + 2) % (P * v))
        return ts_refuse(why, len,
                         "megatron needs the %d transformer blocks divisible by "
                         "pipeline x virtual stages (%d)",
                         L, P * v);
    if (uneven) {
        int mid = L - c->first - c->last;
        bool bad = P < 2 || mid < 0 || c->first % v || c->last % v ||
                   (P > 2 ? mid % ((P - 2) * v) || mid == 0 : mid != 0);
        if (bad)
            return ts_refuse(why, len,
                             "megatron: first and last stages' blocks leave %d for "
                             "%d middle stages, not an even whole number of chunks",
                             mid, P - 2);
    }
    /* context parallelism splits each sequence into 2 C chunks (causal load balancing) */
    if (c->C > 1 && r->m->seq % (2 * c->C))
        return ts_refuse(why, len,
                         "megatron needs the sequence %d divisible by 2 x context "
                         "parallelism %d",
                         r->m->seq, c->C);
    return 0;
}

int ts_plan_rules(const ts_plan_req *r, const ts_plan_cfg *c, char *why, size_t len)
{
    int experts = 0;
    for (int i = 0; i < r->m->nlayers; i++)
        if (r->m->layers[i].experts > experts)
            experts = r->m->layers[i].experts;
    if (c->E > 1 && (!experts || experts % c->E))
        return ts_refuse(why, len, "expert parallelism %d does not divide the %d experts", c->E,
                         experts);
    /* expert tensor parallelism applies to the routed experts only */
    int etp = c->etp > 0 ? c->etp : c->T;
    if (etp != c->T && !experts)
        return ts_refuse(why, len,
                         "expert tensor parallelism %d needs MoE layers; the model has no "
                         "experts",
                         etp);
    /* The expert groups fold over the tensor-, context- and data-parallel GPUs of a pipeline
     * stage ("MoE parallel folding"): Megatron-Core builds them as expert tensor x expert model
     * x expert data parallelism and refuses a world size that expert tensor x expert model x
     * pipeline parallelism does not divide (megatron/core/parallel_state.py,
     * initialize_model_parallel: "decoder world_size ... is not divisible by
     * expert_tensor_model_pipeline_parallel size"), expert tensor parallelism being T unless
     * given (megatron/training/arguments.py, validate_args). */
    long folded = (long)c->T * c->C * c->dp, expert_group = (long)c->E * etp;
    if ((c->E > 1 || etp != c->T) && folded % expert_group)
        return ts_refuse(why, len,
                         "expert parallelism %d x expert tensor parallelism %d does not divide "
                         "tensor x data x context parallelism %ld",
                         c->E, etp, folded);
    /* --tp-comm-overlap is Megatron-LM's (Transformer Engine's userbuffers under its
     * TransformerConfig.tp_comm_overlap); PyTorch FSDP and DeepSpeed run no userbuffers */
    if (c->tpo && r->framework != TS_FW_MEGATRON)
        return ts_refuse(why, len,
                         "%s runs no tensor-parallel communication overlap (--tp-comm-overlap "
                         "is Megatron-LM's, Transformer Engine's userbuffers)",
                         ts_framework_name(r->framework));
    /* megatron/training/arguments.py, validate_args: it turns sequence parallelism off at
     * T = 1, then asserts "Tensor parallel communication/GEMM overlap can happen only when
     * sequence parallelism is enabled" (Megatron-Bridge's CommOverlapConfig drops it likewise
     * at TP size < 2 or without sequence parallelism: training/comm_overlap.py) */
    if (c->tpo && (c->T < 2 || !c->seqpar))
        return ts_refuse(why, len,
                         "megatron's --tp-comm-overlap needs sequence parallelism and tensor "
                         "parallelism > 1 (T %d, sequence parallelism %s)",
                         c->T, c->seqpar ? "on" : "off");
    if (r->infer)
        return 0;
    switch (r->framework) {
    case TS_FW_FSDP:
        /* torchtitan's FSDP2 path as planned here: no pipeline; FSDP has no ZeRO-1 */
        if (c->P > 1)
            return ts_refuse(why, len, "fsdp runs no pipeline (%d stages)", c->P);
        if (c->zero == 1)
            return ts_refuse(why, len,
                             "fsdp shards parameters (ZeRO-2 or -3), not only the "
                             "optimizer state");
        return 0;
    case TS_FW_DEEPSPEED:
        /* DeepSpeed's pipeline engine asserts ZeRO stage < 2 and runs one 1F1B schedule */
        if (c->P > 1 && c->zero >= 2)
            return ts_refuse(why, len,
                             "deepspeed's pipeline engine runs ZeRO-1 at most, not "
                             "ZeRO-%d with %d stages",
                             c->zero, c->P);
        if (c->v > 1)
            return ts_refuse(why, len,
                             "deepspeed's pipeline engine has no virtual stages "
                             "(%d)",
                             c->v);
        if (c->C > 1)
            return ts_refuse(why, len,
                             "deepspeed's sequence parallelism is Ulysses, not ring "
                             "attention (context parallelism %d)",
                             c->C);
        return 0;
    default: return ts_rules_megatron(r, c, why, len);
    }
}

int ts_plan_layout(const ts_plan_req *r, const ts_plan_tables *t, const ts_plan_cfg *c, int *cut,
                   char *why, size_t len)
{
    int S = c->P * c->v, L = 0;
    if (r->framework != TS_FW_MEGATRON || c->P == 1) {
        ts_plan_cut(t, S, cut);
        return 0;
    }
    for (int i = 0; i < t->n; i++)
        L += r->m->layers[i].gemm_tokens > 0;
    /* blocks per chunk: chunk k runs on stage k mod P */
    int per_first = c->first > 0 ? c->first / c->v : -1;
    int per_last = c->last > 0 ? c->last / c->v : -1;
    /* the embedding and the loss each take a block's place in the first and last chunks */
    bool account = !c->first && !c->last && L % S && (L + 2) % S == 0;
    int rest = L - (c->first > 0 ? c->first : 0) - (c->last > 0 ? c->last : 0);
    int plain = (c->first > 0) + (c->last > 0);
    int per = c->P > plain ? rest / ((c->P - plain) * c->v) : 0;
    int k = 0, inchunk = 0, seen = 0;
    cut[0] = 0;
    for (int i = 0; i < t->n; i++) {
        if (r->m->layers[i].gemm_tokens <= 0)
            continue;
        int stage = k % c->P;
        int want = stage == 0 && per_first >= 0         ? per_first
                   : stage == c->P - 1 && per_last >= 0 ? per_last
                                                        : per;
        if (account)
            want = (L + 2) / S - (k == 0) - (k == S - 1);
        if (inchunk == want && k + 1 < S) {
            cut[++k] = i;
            inchunk = 0;
        }
        inchunk++;
        seen++;
    }
    cut[S] = t->n;
    if (k + 1 != S || seen != L) {
        snprintf(why, len, "%d blocks do not cut into %d chunks", L, S);
        return TS_REFUSE_STAGES + 1;
    }
    return 0;
}
