/* Parallel plans of a model on a cluster, in real units. A plan fixes tensor parallelism T
 * (sequence parallelism on or off), the pipeline size P, the strategy and its virtual stages v,
 * the data-parallel replicas dp = D / (T P) with a ZeRO stage, the recomputation (per stage when
 * adaptive) and the micro-batch size b (N = G / (b dp) micro-batches). ts_plan_cost_eval gives one
 * plan's iteration time from the cost model, broken down so that the parts add up to it;
 * ts_plan_space_search enumerates the space with bound pruning and keeps the best; the schedule
 * search of a plan's derived placement (derive, search, measure) is ts_plan_eval in the results
 * module, above the solver. Formulas and sources: models/README.md. */
#ifndef TS_PLAN_H
#define TS_PLAN_H

#include <stdbool.h>
#include "ts_model.h"
#include "ts_schedule.h"

/* Recomputation of a plan: none, selective (attention core), full, or adaptive (per stage, the
 * least of the three that fits: the stages with more micro-batches in flight recompute more,
 * after AdaPipe). */
typedef enum { TS_RC_NONE, TS_RC_SELECTIVE, TS_RC_FULL, TS_RC_ADAPTIVE } ts_recompute_mode;
const char *ts_recompute_name(int mode);

/* The training framework whose rules decide which plans rank and how memory is counted
 * (model_plan_rules.c; models/README.md, "Frameworks"). */
typedef enum { TS_FW_MEGATRON, TS_FW_FSDP, TS_FW_DEEPSPEED, TS_FW_COUNT } ts_framework;
const char *ts_framework_name(int fw);
/* Bytes per parameter for weights, gradients and optimizer state held on one GPU, as framework
 * fw counts them with ZeRO stage zero sharded over d GPUs (Megatron-Core: 18, or 6 + 12/d with
 * its distributed optimizer; DeepSpeed and FSDP: ZeRO's 16, 4 + 12/d, 2 + 14/d, 16/d). */
double ts_framework_bytes_per_param(int fw, int zero, int d);

typedef struct {
    char strategy[24];
    int T, P, v, dp, zero, b, N;
    bool seqpar;
    /* ts_recompute_mode */
    int recompute;
    /* context parallelism (1: none), expert parallelism (1: none; it folds into dp x C) */
    int C, E;
    /* expert tensor parallelism (0: T, Megatron-Core's default): the routed experts' weights
     * split etp ways instead of T, their E x etp GPUs folded over T x C x dp ("MoE parallel
     * folding", Liu et al. 2025) */
    int etp;
    /* transformer blocks on the first and last pipeline stages (0: the even share), as
     * Megatron's --decoder-first/last-pipeline-num-layers */
    int first, last;
    /* Megatron-LM's --tp-comm-overlap: Transformer Engine's userbuffers overlap each
     * sequence-parallel all-gather and reduce-scatter with the GEMM beside it */
    bool tpo;
} ts_plan_cfg;

/* Where the iteration time goes (seconds): the critical stage's N micro-batches of compute,
 * tensor-parallel collectives and pipeline sends, the bubble (the rest of the pipeline's time),
 * the data-parallel gradient reduction and ZeRO's gathers not hidden behind the backward, and the
 * optimizer step. They add up to iter_s. */
typedef struct {
    double compute_s, tp_s, p2p_s, bubble_s, dp_s, zero_s, optimizer_s;
    double iter_s;
    /* N x the critical stage's time, no bubble and nothing else: a lower bound on the pipeline */
    double lower_bound_s;
    /* the most any GPU holds: weights, gradients, optimizer state, activations, workspace */
    double peak_bytes;
    /* the strategy's schedule has a closed form (1f1b, gpipe, interleaved, zb, or one stage);
     * otherwise iter_s is the bound plus the rest and only a schedule search times it */
    bool closed_form;
    /* stages with each recomputation (none, selective, full) */
    int stages_rc[3];
    /* blocks of each chunk fully recomputed by the stage that recomputes most (Megatron's
     * --recompute-num-layers; a chunk's whole count under full recomputation) */
    int recompute_blocks;
    /* FLOPs per iteration: the model's (3 forwards: forward and backward), and with the
     * recomputed forward FLOPs of transformer blocks added, as Megatron-LM counts them; and the
     * model's with a causal attention core's score pairs counted at half (Megatron-Bridge's
     * flop_utils.py: core_attn_seq_factor / 2), as Megatron-Bridge's tables count them */
    double model_flops, counted_flops, causal_flops;
} ts_plan_cost;

/* Why a plan was refused. */
typedef enum {
    TS_REFUSE_BATCH,
    TS_REFUSE_MEMORY,
    TS_REFUSE_STAGES,
    TS_REFUSE_CHUNKS,
    TS_REFUSE_TWO_WAY,
    TS_REFUSE_HEADS,
    TS_REFUSE_FRAMEWORK,
    TS_REFUSE_SEARCH,
    TS_REFUSE_KINDS
} ts_refuse_kind;
const char *ts_refuse_name(int kind);

typedef struct {
    const ts_model *m;
    const ts_hardware *h;
    int gpus;
    /* G: samples per iteration. */
    long global;
    bool infer;
    /* Seconds per schedule search. */
    double time_limit;
    /* Each schedule search's effort, gap to the bound and seed (0: the search's defaults: the
     * effort the time limit sets, only at the bound, a fixed seed). */
    double effort, gap;
    int seed;
    /* ts_framework (TS_FW_MEGATRON by default) */
    int framework;
    /* fraction of HBM kept free beyond the profile's workspace (the op's default: 0.05) */
    double headroom;
    /* Megatron's main gradients in bf16 (NeMo's FP8 performance recipes: grad_reduce_in_fp32
     * False) instead of fp32: 2 bytes less per parameter, and bf16 on the wire */
    bool grad_bf16;
    /* the data-parallel gradient reduction starts after the backward (Megatron-LM's local DDP
     * before --overlap-grad-reduce: the SC21 runs) instead of behind the last backward */
    bool grad_after;
    /* context parallelism all-gathers the keys and values before the attention core (and
     * reduce-scatters their gradients), exposed, instead of passing them round a ring */
    bool cp_allgather;
    /* May be NULL: another thread sets *cancel to stop the schedule searches (each stops at its
     * next check and the plan keeps what it had: tessel.plan's CancelToken) */
    const volatile int *cancel;
} ts_plan_req;

/* One plan's iteration time and memory. 0 and out filled; or the refusal kind + 1 with why. */
int ts_plan_cost_eval(const ts_plan_req *r, const ts_plan_cfg *c, ts_plan_cost *out, char *why,
                      size_t len);

/* The space to search: 0 (or -1 where 0 is a value) is auto. */
typedef struct {
    int T, P, v, b;
    /* context and expert parallelism (0: auto), first and last stages' blocks (0: even) */
    int C, E, first, last;
    /* expert tensor parallelism (0: T; never searched, only as given) */
    int etp;
    /* -1 auto */
    int zero, recompute, seqpar;
    /* T may exceed one node */
    bool tp_across_nodes;
    /* every plan with Megatron-LM's --tp-comm-overlap (ts_plan_cfg's tpo) */
    bool tpo;
    /* strategies (NULL: every one the model lists) */
    const char *const *strategies;
    int nstrategies;
    /* plans kept, best first */
    int keep;
    /* called every 4096 plans */
    void (*progress)(void *ud, long done, long total, double best_s);
    void *ud;
} ts_plan_space;

typedef struct {
    long evaluated, pruned, refused, total;
    long refused_by[TS_REFUSE_KINDS];
    /* one example reason per kind */
    char example[TS_REFUSE_KINDS][240];
} ts_plan_stats;

typedef struct {
    ts_plan_cfg cfg;
    ts_plan_cost cost;
} ts_plan_found;

/* Enumerates the space and keeps the best sp->keep plans by iter_s (ties by the order of
 * enumeration, so the answer depends on nothing but the input). A plan whose lower bound is not
 * below the keep-th best found is pruned before its memory and communication are costed.
 * TS_EINPUT when a strategy does not apply or a fixed value is impossible. */
int ts_plan_space_search(const ts_plan_req *r, const ts_plan_space *sp, ts_plan_found **out,
                         int *count, ts_plan_stats *st, ts_err *e);

/* A plan as ranked and printed: its configuration, the cost model's figures, and, when its
 * placement was derived and searched, the schedule's. */
typedef struct {
    ts_plan_cfg cfg;
    ts_plan_cost cost;
    bool ok;
    /* Why it does not fit. */
    char reason[400];
    /* real units */
    double iter_s, samples_s, tflops_gpu, counted_tflops_gpu, causal_tflops_gpu, mfu, peak_gb;
    /* searched: the schedule's figures */
    bool searched;
    double searched_s, bubble, gap, latency_s, time_unit_s, search_s;
    long makespan, lower_bound;
    /* What auto kept, or "formula" when the closed form is the faster. */
    char source[48];
    bool timed_out;
    /* The derived placement (owned). */
    ts_placement *p;
    /* Its schedule at N (owned). */
    ts_schedule *s;
} ts_plan;

/* Bytes per parameter as the request's framework counts them (ts_framework_bytes_per_param,
 * less 2 under Megatron with bf16 main gradients, 2/d with its FSDP). */
double ts_plan_bytes_per_param(const ts_plan_req *r, int zero, int d);
/* The peak MFU is taken against: FP8's under --precision fp8, else BF16's. */
double ts_plan_peak_tflops(const ts_hardware *h);
/* A plan from a found one: figures from the cost model. */
void ts_plan_from_found(const ts_plan_req *r, const ts_plan_found *f, ts_plan *pl);
/* Adds the figures of pl's searched schedule (p and s set) at N: the iteration time is the faster
 * of the searched schedule (plus the data-parallel, ZeRO and optimizer parts) and the closed
 * form; the breakdown's bubble takes the difference so that the parts still add up. */
void ts_plan_figures(const ts_plan_req *r, ts_plan *pl, const ts_metrics *m,
                     const ts_derive_info *in);
/* Ranks plans: those that fit first, by iteration time (stable). */
void ts_plan_rank(ts_plan *pl, int n);
void ts_plan_clear(ts_plan *pl);
/* The plan's figures as JSON. */
json_t *ts_plan_json(const ts_plan *pl);
/* The launch of a plan (model_plan_launch.c): the Megatron-LM arguments that run it (NULL when
 * Megatron-LM runs no such plan: why says so) and torchtitan's configuration (its
 * [parallelism], [training] and [activation_checkpoint] keys; NULL likewise), as JSON:
 * {"megatron": [ARG, ...] or null, "megatron_why": ..., "torchtitan": {...} or null,
 * "torchtitan_why": ...}. */
json_t *ts_plan_launch_json(const ts_plan_req *r, const ts_plan *pl);
/* The Megatron-LM arguments as one command-line string into out (false when it runs no such
 * plan, out then saying why). */
bool ts_plan_megatron_line(const ts_plan_req *r, const ts_plan *pl, char *out, size_t len);
/* A plan's name in files and tables: STRATEGY-tT-pP[-vV]-zZ-RC-bB[-sp]. */
void ts_plan_name(const ts_plan_cfg *c, char *out, size_t len);

#endif
