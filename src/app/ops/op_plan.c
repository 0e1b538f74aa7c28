/* The plan operation: its option table (every size of the plan space, fixed or auto, the
 * schedule searches and what only the command line prints), its request, and the run that the
 * command line and Python share: load, space search, schedule search of the best, ranking. */
#include <stdlib.h>
#include <string.h>
#include "ts_op_plan.h"
#include "ts_plan_eval.h"
#include "ts_time_limit.h"

#define TS_PLAN_FRONTS TS_FRONT_CLI | TS_FRONT_PY, "the explorer has no route for it"
#define TS_PLAN_CLI(why) TS_FRONT_CLI, why "; the explorer has no route for it"

static const ts_op_option ts_op_plan_opts[] = {
    {"model", NULL, "model", 0, TS_OPV_TEXT, 0, 0, "NAME",
     "a model of the models folder, or a file (tessel-model/1)", TS_PLAN_FRONTS},
    {"hardware", NULL, "hardware", 0, TS_OPV_TEXT, 0, 0, "H", "a GPU profile (models/hardware)",
     TS_PLAN_FRONTS},
    {"gpus", NULL, "gpus", 0, TS_OPV_INT, 1, 65536, "D", "GPUs of the cluster", TS_PLAN_FRONTS},
    {"global_batch", NULL, "global-batch", 0, TS_OPV_INT, 1, 100000000, "G",
     "samples per iteration", TS_PLAN_FRONTS},
    {"seq", NULL, "seq", 0, TS_OPV_INT, 1, 1048576, "S",
     "tokens per sample: replaces the model's sequence length; default: the model's",
     TS_PLAN_FRONTS},
    {"micro_batch_size", NULL, "micro-batch-size", 0, TS_OPV_INT, 1, 4096, "b",
     "samples per micro-batch; default: auto", TS_PLAN_FRONTS},
    {"tensor_parallel", NULL, "tensor-parallel", 0, TS_OPV_INT, 1, 4096, "T",
     "tensor parallelism; default: auto", TS_PLAN_FRONTS},
    {"pipeline", NULL, "pipeline", 0, TS_OPV_INT, 1, 1024, "P", "pipeline size; default: auto",
     TS_PLAN_FRONTS},
    {"virtual_stages", NULL, "virtual-stages", 0, TS_OPV_INT, 1, 64, "v",
     "virtual stages per GPU; default: auto", TS_PLAN_FRONTS},
    {"zero", NULL, "zero", 0, TS_OPV_INT, 0, 3, "Z", "ZeRO stage; default: auto", TS_PLAN_FRONTS},
    {"context_parallel", NULL, "context-parallel", 0, TS_OPV_INT, 1, 4096, "C",
     "context parallelism (ring attention); default: auto, 4096 tokens per GPU or more",
     TS_PLAN_FRONTS},
    {"cp_comm", NULL, "cp-comm", 0, TS_OPV_TEXT, 0, 0, "ring|allgather",
     "context parallelism's keys and values: ring (passed round behind the attention core, "
     "Megatron's p2p) or allgather (gathered before it and reduce-scattered after the backward, "
     "exposed: the Llama 3 paper's); default ring",
     TS_PLAN_FRONTS},
    {"expert_parallel", NULL, "expert-parallel", 0, TS_OPV_INT, 1, 4096, "E",
     "expert parallelism of MoE layers; default: auto", TS_PLAN_FRONTS},
    {"expert_tensor_parallel", NULL, "expert-tensor-parallel", 0, TS_OPV_INT, 1, 4096, "N",
     "tensor parallelism of the routed experts (Megatron-Core's expert tensor parallelism, its "
     "E x N expert groups folded over T x C x dp); default: T, never searched",
     TS_PLAN_FRONTS},
    {"first_stage_layers", NULL, "first-stage-layers", 0, TS_OPV_INT, 1, 100000, "n",
     "transformer blocks on the first pipeline stage; default: the even share", TS_PLAN_FRONTS},
    {"last_stage_layers", NULL, "last-stage-layers", 0, TS_OPV_INT, 1, 100000, "n",
     "transformer blocks on the last pipeline stage; default: the even share", TS_PLAN_FRONTS},
    {"framework", NULL, "framework", 0, TS_OPV_TEXT, 0, 0, "NAME",
     "megatron, fsdp or deepspeed: whose rules rank plans and count memory; default megatron",
     TS_PLAN_FRONTS},
    {"grad_dtype", NULL, "grad-dtype", 0, TS_OPV_TEXT, 0, 0, "fp32|bf16",
     "the gradients' reduction: fp32 (Megatron's main gradients, 18 or 6 + 12/d bytes per "
     "parameter; PyTorch FSDP's reduce_dtype as torchtitan sets it) or bf16 (NeMo's FP8 "
     "recipes: 16 or 4 + 12/d; FSDP reducing in its bf16 param_dtype); default fp32",
     TS_PLAN_FRONTS},
    {"grad_overlap", NULL, "grad-overlap", 0, TS_OPV_TEXT, 0, 0, "on|off",
     "the data-parallel gradient reduction behind the last micro-batch's backward (Megatron's "
     "--overlap-grad-reduce, PyTorch FSDP) or off: after the backward, as Megatron-LM ran before "
     "it (its local DDP, the SC21 runs); default on",
     TS_PLAN_FRONTS},
    {"headroom", NULL, "headroom", 0, TS_OPV_NUM, 0, 0.5, "f",
     "fraction of GPU memory kept free besides the profile's workspace; default 0.05",
     TS_PLAN_FRONTS},
    {"recompute", NULL, "recompute", 0, TS_OPV_TEXT, 0, 0, "MODE",
     "none, selective, full or adaptive; default: all tried; --recompute alone: full",
     TS_PLAN_FRONTS},
    {"sequence_parallel", NULL, "sequence-parallel", 0, TS_OPV_TEXT, 0, 0, "on|off",
     "sequence parallelism; default: both tried; Python: True or False", TS_PLAN_FRONTS},
    {"tp_comm_overlap", NULL, "tp-comm-overlap", 0, TS_OPV_TEXT, 0, 0, "on|off",
     "Megatron-LM's --tp-comm-overlap: Transformer Engine's userbuffers overlap the "
     "sequence-parallel all-gathers and reduce-scatters with the GEMMs beside them (T chunks, "
     "one exposed); megatron only, with sequence parallelism and T > 1; default off",
     TS_PLAN_FRONTS},
    {"tp_across_nodes", NULL, "tp-across-nodes", 0, TS_OPV_FLAG, 0, 0, NULL,
     "tensor parallelism may span nodes", TS_PLAN_FRONTS},
    {"strategies", NULL, "strategies", 0, TS_OPV_NAMES, 0, 0, "LIST",
     "the strategies tried; default: every one the model lists", TS_PLAN_FRONTS},
    {"fp8_scaling", NULL, "fp8-scaling", 0, TS_OPV_TEXT, 0, 0, "delayed|current",
     "under --precision fp8, Transformer Engine's scaling: delayed (from the amax history) or "
     "current (an amax pass over each GEMM input before its cast; Megatron's --fp8-recipe "
     "tensorwise, NeMo's FP8-CS); default delayed",
     TS_PLAN_FRONTS},
    {"precision", NULL, "precision", 0, TS_OPV_TEXT, 0, 0, "bf16|fp8",
     "fp8: the blocks' linear GEMMs at the profile's FP8 peak and FP8 efficiency (attention "
     "and memory as bf16); MFU against the FP8 peak",
     TS_PLAN_FRONTS},
    {"attention", NULL, "attention", 0, TS_OPV_TEXT, 0, 0, "fused|unfused|fa2|triton",
     "fused (FlashAttention: no score matrix stored or moved), unfused, fa2 (fused, at "
     "FlashAttention-2's efficiency where the profile gives it: PyTorch-native stacks on "
     "Hopper), or triton (fused, at the profile's triton_attention_efficiency: llm-foundry's "
     "Triton FlashAttention kernel, attn_impl triton); default: the profile's",
     TS_PLAN_FRONTS},
    {"infer", NULL, "infer", 0, TS_OPV_FLAG, 0, 0, NULL, "inference plans (no backward)",
     TS_PLAN_FRONTS},
    {"top", NULL, "top", 0, TS_OPV_INT, 1, 1000, "K", "plans shown and kept; default 10",
     TS_PLAN_FRONTS},
    {"search_top", NULL, "search-top", 0, TS_OPV_INT, 0, 100, "K",
     "plans whose schedule is searched; default 3; 0: none", TS_PLAN_FRONTS},
    {"time_limit", NULL, "time-limit", 0, TS_OPV_NUM, TS_TIME_LIMIT_MIN, TS_TIME_LIMIT_MAX, "S",
     "seconds per schedule search; default 3", TS_PLAN_FRONTS},
    {"effort", NULL, "effort", 0, TS_OPV_NUM, 1, 1e15, "E",
     "work of each schedule search in solver resource units, the same on any machine; default: "
     "the time limit's",
     TS_PLAN_FRONTS},
    {"gap", NULL, "gap", 0, TS_OPV_NUM, 0, 10, "F",
     "a schedule search returns within this fraction of its lower bound; default 0: only at "
     "the bound",
     TS_PLAN_FRONTS},
    {"seed", NULL, "seed", 0, TS_OPV_INT, 1, 2147483647, "S",
     "seed of each schedule search's improvement moves; default: a fixed one", TS_PLAN_FRONTS},
    {"efficiency", NULL, "efficiency", 0, TS_OPV_NUM, 0.01, 1, "f",
     "achievable fraction of peak FLOP/s; default: the profile's", TS_PLAN_FRONTS},
    {"models_dir", NULL, "models-dir", 0, TS_OPV_TEXT, 0, 0, "DIR",
     "the models folder; default $TESSEL_MODELS or the project's", TS_PLAN_FRONTS},
    {"explain", NULL, "explain", 0, TS_OPV_FLAG, 0, 0, NULL,
     "the best plan's iteration time broken down",
     TS_PLAN_CLI("every plan Python returns holds its breakdown")},
    {"output", NULL, "output", 'o', TS_OPV_TEXT, 0, 0, "DIR",
     "plans.json, breakdown.svg, and each searched plan's placement, schedule, SVG and Chrome "
     "trace",
     TS_PLAN_CLI("Python returns each searched plan's Placement and Schedule, whose save() "
                 "writes the files")},
    {"json", NULL, "json", 0, TS_OPV_FLAG, 0, 0, NULL, "the ranking as JSON",
     TS_PLAN_CLI("Python answers with that object")},
    {"csv", NULL, "csv", 0, TS_OPV_FLAG, 0, 0, NULL, "the ranking as CSV",
     TS_PLAN_CLI("Python answers with the ranking as objects")},
    {"progress", NULL, "progress", 0, TS_OPV_FLAG, 0, 0, NULL,
     "progress on stderr even when it is not a terminal",
     TS_PLAN_CLI("Python's plan reports no progress")},
    {"cancel", NULL, NULL, 0, TS_OPV_HOOK, 0, 0, NULL,
     "stops the schedule searches from another thread (Python: a CancelToken); the plan keeps "
     "what it had",
     TS_FRONT_PY, "the command line stops on Ctrl-C; the explorer has no plan route"},
};

const ts_op ts_op_plan = {"plan",
                          "the parallel plans of a model on a cluster, costed, the best searched "
                          "for their schedule, ranked",
                          TS_OP_ON_NOTHING,
                          "plan",
                          "plan",
                          NULL,
                          NULL,
                          ts_op_plan_opts,
                          (int)(sizeof ts_op_plan_opts / sizeof ts_op_plan_opts[0])};

/* A field that takes one of words: its index into *out (untouched when absent). */
static int ts_op_plan_word(const char *key, json_t *req, ts_front f, const char *const *words,
                           int *out, ts_err *e)
{
    const char *s;
    bool given;
    if (ts_op_read_text(&ts_op_plan, key, req, f, &s, &given, e))
        return TS_EINPUT;
    for (int i = 0; given && words[i]; i++)
        if (!strcmp(s, words[i]))
            return *out = i, TS_OK;
    char name[96];
    return given
               ? ts_fail(e, TS_EINPUT, "%s: unknown value '%s'",
                         ts_op_field(ts_op_option_find(&ts_op_plan, key), f, name, sizeof name), s)
               : TS_OK;
}

/* The whole numbers, each by its row, and the flags. */
static int ts_op_plan_ints(json_t *req, ts_front f, ts_op_plan_req *r, ts_err *e)
{
    const ts_op *op = &ts_op_plan;
    const struct {
        const char *key;
        int *dst;
    } ints[] = {{"gpus", &r->r.gpus},
                {"micro_batch_size", &r->sp.b},
                {"tensor_parallel", &r->sp.T},
                {"pipeline", &r->sp.P},
                {"virtual_stages", &r->sp.v},
                {"zero", &r->sp.zero},
                {"top", &r->top},
                {"search_top", &r->search_top},
                {"seq", &r->seq},
                {"context_parallel", &r->sp.C},
                {"expert_parallel", &r->sp.E},
                {"expert_tensor_parallel", &r->sp.etp},
                {"first_stage_layers", &r->sp.first},
                {"last_stage_layers", &r->sp.last}};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (ts_op_read_int(op, ints[i].key, req, f, ints[i].dst, e))
            return TS_EINPUT;
    double global;
    bool given, unused;
    if (ts_op_read_num(op, "global_batch", req, f, &global, &given, e) ||
        ts_op_read_num(op, "time_limit", req, f, &r->r.time_limit, &unused, e) ||
        ts_op_read_num(op, "effort", req, f, &r->r.effort, &unused, e) ||
        ts_op_read_num(op, "gap", req, f, &r->r.gap, &unused, e) ||
        ts_op_read_int(op, "seed", req, f, &r->r.seed, e) ||
        ts_op_read_num(op, "efficiency", req, f, &r->efficiency, &unused, e) ||
        ts_op_read_num(op, "headroom", req, f, &r->r.headroom, &unused, e) ||
        ts_op_read_flag(op, "tp_across_nodes", req, f, &r->sp.tp_across_nodes, e) ||
        ts_op_read_flag(op, "infer", req, f, &r->r.infer, e))
        return TS_EINPUT;
    if (given)
        r->r.global = (long)global;
    return TS_OK;
}

/* --tp-comm-overlap on against the rest of the request: what no plan could satisfy is one error
 * here; with T or sequence parallelism left to the search, the framework rule
 * (model_plan_rules.c) refuses the plans without them. */
static int ts_op_plan_tpo(const ts_op_plan_req *r, ts_front f, ts_err *e)
{
    if (!r->sp.tpo)
        return TS_OK;
    char name[96];
    const char *opt = ts_op_field(ts_op_option_find(&ts_op_plan, "tp_comm_overlap"), f, name,
                                  sizeof name);
    /* Transformer Engine's userbuffers run under Megatron-LM (its --tp-comm-overlap); PyTorch
     * FSDP (torchtitan) and DeepSpeed have no such option */
    if (r->r.framework != TS_FW_MEGATRON)
        return ts_fail(e, TS_EINPUT,
                       "%s on: Megatron-LM's option (Transformer Engine's userbuffers); %s "
                       "has none",
                       opt, ts_framework_name(r->r.framework));
    if (r->sp.seqpar == 0 || r->sp.T == 1)
        return ts_fail(e, TS_EINPUT,
                       "%s on: Megatron-LM overlaps only sequence-parallel collectives, which "
                       "need sequence parallelism on and tensor parallelism > 1",
                       opt);
    return TS_OK;
}

/* Sequence parallelism: on or off (the command line), true or false (Python). */
static int ts_op_plan_seqpar(json_t *req, ts_front f, ts_op_plan_req *r, ts_err *e)
{
    static const char *const onoff[] = {"off", "on", NULL};
    json_t *v = json_object_get(req, "sequence_parallel");
    if (json_is_boolean(v)) {
        r->sp.seqpar = json_is_true(v);
        return TS_OK;
    }
    return ts_op_plan_word("sequence_parallel", req, f, onoff, &r->sp.seqpar, e);
}

/* The strategies, as names into names_buf. */
static int ts_op_plan_strategies(json_t *req, ts_front f, ts_op_plan_req *r, ts_err *e)
{
    if (ts_op_read_names(&ts_op_plan, "strategies", req, f, &r->strategies, e))
        return TS_EINPUT;
    if (!r->strategies)
        return TS_OK;
    char name[96];
    if (strlen(r->strategies) >= sizeof r->names_buf)
        return ts_fail(
            e, TS_EINPUT, "%s lists more than %zu characters",
            ts_op_field(ts_op_option_find(&ts_op_plan, "strategies"), f, name, sizeof name),
            sizeof r->names_buf - 1);
    snprintf(r->names_buf, sizeof r->names_buf, "%s", r->strategies);
    for (char *t = strtok(r->names_buf, ","); t && r->sp.nstrategies < TS_OP_PLAN_MAX_STRATEGIES;
         t = strtok(NULL, ","))
        r->names[r->sp.nstrategies++] = t;
    r->sp.strategies = r->names;
    return TS_OK;
}

/* The sizes that must divide: the global batch by b, the GPUs by T and by P x T. */
static int ts_op_plan_divides(const ts_op_plan_req *r, ts_err *e)
{
    const ts_plan_space *sp = &r->sp;
    if (sp->b && r->r.global % sp->b)
        return ts_fail(e, TS_EINPUT,
                       "the global batch %ld is not a multiple of the micro-batch size %d",
                       r->r.global, sp->b);
    if (sp->T && r->r.gpus % sp->T)
        return ts_fail(e, TS_EINPUT, "%d GPUs are not a multiple of tensor parallelism %d",
                       r->r.gpus, sp->T);
    if (sp->P && r->r.gpus % (sp->P * (sp->T ? sp->T : 1)))
        return ts_fail(e, TS_EINPUT,
                       "%d GPUs are not a multiple of pipeline %d x tensor parallelism %d",
                       r->r.gpus, sp->P, sp->T ? sp->T : 1);
    long tpc = (long)(sp->T ? sp->T : 1) * (sp->P ? sp->P : 1) * (sp->C ? sp->C : 1);
    if (sp->C && r->r.gpus % tpc)
        return ts_fail(e, TS_EINPUT,
                       "%d GPUs are not a multiple of tensor x pipeline x context parallelism "
                       "%ld",
                       r->r.gpus, tpc);
    return TS_OK;
}

/* Virtual stages (more than one) with a list of strategies none of which runs them is a request
 * no plan can answer: a bad request, not "no plan fits" (only interleaved cuts a stage into
 * model chunks: model_plan_cost.c). */
static int ts_op_plan_chunks(const ts_op_plan_req *r, ts_front f, ts_err *e)
{
    if (r->sp.v <= 1 || r->sp.nstrategies == 0)
        return TS_OK;
    for (int i = 0; i < r->sp.nstrategies; i++)
        if (!strcmp(r->sp.strategies[i], "interleaved"))
            return TS_OK;
    char a[96], b[96];
    return ts_fail(e, TS_EINPUT, "%s %d: none of %s runs virtual stages (only interleaved does)",
                   ts_op_field(ts_op_option_find(&ts_op_plan, "virtual_stages"), f, a, sizeof a),
                   r->sp.v,
                   ts_op_field(ts_op_option_find(&ts_op_plan, "strategies"), f, b, sizeof b));
}

int ts_op_plan_read(json_t *req, ts_front f, ts_op_plan_req *r, ts_err *e)
{
    static const char *const required[] = {"model", "hardware", "gpus", "global_batch", NULL};
    static const char *const rc[] = {"none", "selective", "full", "adaptive", NULL};
    static const char *const prec[] = {"bf16", "fp8", NULL};
    static const char *const attn[] = {"unfused", "fused", "fa2", "triton", NULL};
    static const char *const fws[] = {"megatron", "fsdp", "deepspeed", NULL};
    static const char *const grads[] = {"fp32", "bf16", NULL};
    static const char *const cpc[] = {"ring", "allgather", NULL};
    static const char *const scal[] = {"delayed", "current", NULL};
    static const char *const onoff[] = {"on", "off", NULL};
    int grad = 0, cp_ag = 0, gov = 0, tpo = 1;
    const ts_op *op = &ts_op_plan;
    int fp8 = 0;
    memset(r, 0, sizeof *r);
    r->front = f;
    r->r.time_limit = 3;
    r->sp.zero = r->sp.recompute = r->sp.seqpar = -1;
    r->top = 10;
    r->search_top = 3;
    r->efficiency = -1;
    r->attention = -1;
    r->r.headroom = 0.05;
    if (!json_is_object(req))
        return ts_fail(e, TS_EINPUT, "plan: the request is not an object");
    if (ts_op_read_name(op, "model", req, f, &r->model, e) ||
        ts_op_read_name(op, "hardware", req, f, &r->hardware, e) ||
        ts_op_read_name(op, "models_dir", req, f, &r->dir, e) || ts_op_plan_ints(req, f, r, e) ||
        ts_op_plan_word("recompute", req, f, rc, &r->sp.recompute, e) ||
        ts_op_plan_seqpar(req, f, r, e) || ts_op_plan_word("precision", req, f, prec, &fp8, e) ||
        ts_op_plan_word("attention", req, f, attn, &r->attention, e) ||
        ts_op_plan_word("framework", req, f, fws, &r->r.framework, e) ||
        ts_op_plan_word("grad_dtype", req, f, grads, &grad, e) ||
        ts_op_plan_word("grad_overlap", req, f, onoff, &gov, e) ||
        ts_op_plan_word("tp_comm_overlap", req, f, onoff, &tpo, e) ||
        ts_op_plan_word("cp_comm", req, f, cpc, &cp_ag, e) ||
        ts_op_plan_word("fp8_scaling", req, f, scal, &r->fp8_current, e) ||
        ts_op_plan_strategies(req, f, r, e))
        return e->code;
    r->fp8 = fp8 == 1;
    r->r.grad_bf16 = grad == 1;
    r->r.grad_after = gov == 1;
    r->sp.tpo = tpo == 0;
    r->r.cp_allgather = cp_ag == 1;
    if (ts_op_require(op, req, f, required, NULL, e) || ts_op_plan_chunks(r, f, e) ||
        ts_op_plan_tpo(r, f, e))
        return TS_EINPUT;
    return ts_op_plan_divides(r, e);
}

void ts_op_plan_req_free(ts_op_plan_req *r)
{
    free(r->model);
    free(r->hardware);
    free(r->dir);
    free(r->strategies);
    memset(r, 0, sizeof *r);
}

/* An option's value that needs a figure the GPU profile does not give: one error naming both. */
static int ts_op_plan_lacks(const ts_op_plan_req *r, const char *option, const char *value,
                            const ts_hardware *h, const char *field, ts_err *e)
{
    char name[96];
    return ts_fail(e, TS_EINPUT, "%s %s: %s gives no %s",
                   ts_op_field(ts_op_option_find(&ts_op_plan, option), r->front, name, sizeof name),
                   value, h->name, field);
}

/* The model and the profile as the request amends it: FP8's peak, the efficiency. */
static int ts_op_plan_load(const ts_op_plan_req *r, ts_op_plan_res *res, ts_err *e)
{
    int rc =
        ts_op_models_load(r->dir, NULL, NULL, r->model, r->seq, r->hardware, &res->m, &res->h, e);
    if (rc)
        return rc;
    if (r->fp8) {
        if (res->h.peak_fp8_tflops <= 0)
            return ts_op_plan_lacks(r, "precision", "fp8", &res->h, "peak_fp8_tflops", e);
        res->h.fp8 = true;
        res->h.fp8_current = r->fp8_current == 1;
    }
    if (r->attention >= 0)
        res->h.fused_attention = r->attention >= 1;
    if (r->attention == 2) {
        res->h.attention_fa2 = true;
        if (res->h.fa2_attention_efficiency > 0)
            res->h.attention_efficiency = res->h.fa2_attention_efficiency;
    }
    if (r->attention == 3) {
        /* no default: a profile without the kernel's measurement cannot cost it */
        if (res->h.triton_attention_efficiency <= 0)
            return ts_op_plan_lacks(r, "attention", "triton", &res->h,
                                    "triton_attention_efficiency", e);
        res->h.attention_triton = true;
        res->h.attention_efficiency = res->h.triton_attention_efficiency;
    }
    if (r->efficiency > 0)
        res->h.efficiency = r->efficiency;
    res->r = r->r;
    res->r.m = res->m;
    res->r.h = &res->h;
    return TS_OK;
}

int ts_op_plan_run(const ts_op_plan_req *r, ts_op_plan_res *res, ts_err *e)
{
    memset(res, 0, sizeof *res);
    int rc = ts_op_plan_load(r, res, e);
    if (rc)
        return rc;
    ts_plan_space sp = r->sp;
    sp.keep = r->top;
    ts_plan_found *f = NULL;
    int nf = 0;
    if ((rc = ts_plan_space_search(&res->r, &sp, &f, &nf, &res->st, e))) {
        /* a request the space refuses, or the machine's failure */
        e->code = rc == TS_EINPUT ? TS_EINPUT : TS_ESYS;
        return e->code;
    }
    if (!(res->pl = calloc((size_t)nf + 1, sizeof *res->pl))) {
        free(f);
        return ts_fail(e, TS_ESYS, "out of memory");
    }
    for (int i = 0; i < nf; i++)
        ts_plan_from_found(&res->r, &f[i], &res->pl[i]);
    free(f);
    res->n = nf;
    if (ts_plan_search_best(&res->r, res->pl, nf, r->search_top, r->show, &res->searched,
                            &res->search_pruned) < 0)
        return ts_fail(e, TS_ESYS, "out of memory");
    ts_plan_rank(res->pl, nf);
    res->fits = nf > 0 && res->pl[0].ok;
    return TS_OK;
}

void ts_op_plan_res_free(ts_op_plan_res *res)
{
    for (int i = 0; i < res->n; i++)
        ts_plan_clear(&res->pl[i]);
    free(res->pl);
    ts_model_free(res->m);
    ts_hardware_clear(&res->h);
    memset(res, 0, sizeof *res);
}

json_t *ts_op_plan_json(const ts_op_plan_res *res)
{
    const ts_plan_req *r = &res->r;
    const ts_plan_stats *st = &res->st;
    json_t *arr = json_array(), *ref = json_object();
    for (int i = 0; i < res->n; i++) {
        json_t *x = ts_plan_json(&res->pl[i]);
        /* how Megatron-LM and torchtitan launch it */
        if (res->pl[i].ok)
            json_object_set_new(x, "launch", ts_plan_launch_json(r, &res->pl[i]));
        json_array_append_new(arr, x);
    }
    for (int k = 0; k < TS_REFUSE_KINDS; k++)
        if (st->refused_by[k])
            json_object_set_new(ref, ts_refuse_name(k),
                                json_pack("{sI ss}", "count", (json_int_t)st->refused_by[k],
                                          "example", st->example[k]));
    json_t *counts =
        json_pack("{sI sI sI sI si si so}", "space", (json_int_t)st->total, "evaluated",
                  (json_int_t)st->evaluated, "pruned", (json_int_t)st->pruned, "refused",
                  (json_int_t)st->refused, "searched", res->searched, "search_pruned",
                  res->search_pruned, "refused_by", ref);
    return json_pack("{ss ss ss si sI si sb sf sf so so}", "model", r->m->name, "framework",
                     ts_framework_name(r->framework), "hardware", r->h->name, "gpus", r->gpus,
                     "global_batch", (json_int_t)r->global, "seq", r->m->seq, "infer", r->infer,
                     "peak_tflops", ts_plan_peak_tflops(r->h), "time_limit_s", r->time_limit,
                     "counts", counts, "plans", arr);
}
