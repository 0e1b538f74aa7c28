/* From a model to a placement: model descriptions (tessel-model/1), hardware profiles
 * (tessel-hardware/1), the cost model, stage partitioning (Alpa's inter-operator DP), token
 * slicing (TeraPipe's DP) and placement derivation. models/README.md states every formula and
 * its source; the comments here say only where each one lives. */
#ifndef TS_MODEL_H
#define TS_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include "ts_error.h"
#include "ts_placement.h"

#define TS_MODEL_FORMAT "tessel-model/1"
#define TS_HARDWARE_FORMAT "tessel-hardware/1"
#define TS_MODEL_MAX_LAYERS 4096

/* One layer of the expanded chain. Figures are per sample (micro-batch size 1, no tensor
 * parallelism); the cost functions scale them. */
typedef struct {
    char name[48];
    /* embedding, transformer, encoder, decoder, vision, swin, merge, ... */
    char kind[16];
    /* "" on the main chain; a branch name for two-branch models */
    char branch[16];
    /* forward FLOPs per sample */
    double fwd_flops;
    /* parameters this layer stores (counted in device memory) */
    double params;
    /* its parameters are another layer's (tied): not in the unique count */
    bool shared;
    /* activation bytes stored for backward, per sample, no recomputation */
    double act_bytes;
    /* the part of act_bytes that tensor parallelism does not split */
    double act_whole_bytes;
    /* ... with full recomputation (the layer's input only) */
    double act_recompute_bytes;
    /* bytes sent to the next layer, per sample */
    double out_bytes;
    /* tensor-parallel all-reduces per forward (Megatron: 2 per block) */
    int allreduces;
    /* bytes of each all-reduce, per sample */
    double ar_bytes;
    /* Token-slice costs (transformer-like layers only): forward FLOPs of a slice of l tokens
     * after a prefix of p tokens = lin * l + attn * l * (p + l). */
    double slice_lin, slice_attn;
    /* GEMM shape of a transformer-like block (0 elsewhere): tokens per sample, hidden h, query
     * width h_q, feed-forward f and its matrix count; the efficiency curve reads them. */
    double gemm_tokens, gemm_h, gemm_hq, gemm_f, gemm_nm;
    /* attention heads (0 elsewhere): tensor parallelism splits them, so T must divide them */
    int heads;
    /* forward FLOPs per sample of the attention core (QK^T and AV), which selective
     * recomputation repeats */
    double attn_flops;
    /* the attention core's stored bytes per sample (softmax output, its dropout mask and
     * output: 5 a s^2), which selective recomputation and fused attention do not keep */
    double act_core_bytes;
    /* stored bytes per sample that are the inputs of the block's GEMMs (QKV, attention
     * output, the feed-forward's two): FP8 training stores them in FP8, half of them */
    double act_gemm_in_bytes;
    /* key/value heads (grouped-query attention; = heads without it): T must divide them too */
    int kv_heads;
    /* the attention input projection's output width (QKV: h_q + 2 kv_heads d; 3 h_q when 0)
     * and the feed-forward GEMMs' rows per token (MoE: top_k + shared experts; 1 when 0) */
    double gemm_qkv, gemm_ffn_rows;
    /* Multi-head latent attention's projections in place of the one QKV GEMM (0 without it):
     * the down-projection to the latents and the rotary keys (output width mla_down, input h;
     * Megatron-Core duplicates it on every tensor-parallel GPU), the queries' up-projection
     * (mla_q_n wide from mla_q_rank, or from h without a query latent) and the keys' and
     * values' (mla_kv_n wide from mla_kv_rank), both split by T */
    double mla_down, mla_q_rank, mla_q_n, mla_kv_rank, mla_kv_n;
    /* bytes of keys and values per sample (context parallelism's ring passes them on) */
    double kv_bytes;
    /* Mixture of experts (0 elsewhere): routed experts, experts per token, the parameters of
     * the routed experts (expert parallelism splits them), and the bytes one all-to-all
     * (dispatch or combine) sends per sample */
    int experts, top_k;
    double expert_params, a2a_bytes;
} ts_layer;

typedef struct {
    char *name;
    char *description;
    char *source;
    /* tokens per sample of the main sequence (0 when not a sequence model) */
    int seq;
    /* forward rounds per sample (AlphaFold2's recycling), >= 1 */
    int recycles;
    int nstrategies;
    /* the strategies that apply, from the file */
    char **strategies;
    int nlayers;
    ts_layer *layers;
} ts_model;

typedef struct {
    char *name;
    char *source;
    /* dense BF16 */
    double peak_tflops;
    /* achievable fraction of peak */
    double efficiency;
    /* 1 GB = 1e9 bytes */
    double hbm_gb;
    /* GB/s per direction per GPU, inside a node */
    double nvlink_gbs;
    /* GB/s per direction per GPU, across nodes */
    double internode_gbs;
    int gpus_per_node;
    /* margin kept free (allocator, buffers, kernels' workspace) */
    double workspace_gb;
    /* the fraction of peak large GEMMs reach, for the GEMM-shape model (0: efficiency) */
    double gemm_efficiency;
    /* HBM bandwidth, GB/s (the optimizer step and the GEMM roofline read it; default 2000) */
    double hbm_gbs;
    /* streaming multiprocessors (GEMM wave quantisation; default 108) */
    int sms;
    /* dense FP8 peak, 0 when the GPU has none (`tessel plan --precision fp8`) */
    double peak_fp8_tflops;
    /* the fraction of the FP8 peak large FP8 GEMMs reach (0: gemm_efficiency) */
    double fp8_gemm_efficiency;
    /* attention runs as one fused kernel (FlashAttention, cuDNN's fused attention): the score
     * matrix is neither stored nor moved through HBM, causal masking skips half the pairs, and
     * the backward recomputes the scores; the profile's default, `--attention` overrides */
    bool fused_attention;
    /* the fraction of the BF16 peak the fused attention kernel reaches, forward and backward
     * together (0: gemm_efficiency) */
    double attention_efficiency;
    /* the same for FlashAttention-2's kernel where the profile gives it (0: attention_efficiency):
     * `--attention fa2` runs it, as PyTorch-native stacks without Hopper's own kernel do */
    double fa2_attention_efficiency;
    /* set by `--attention fa2`: the fused kernel is FlashAttention-2 (Megatron's
     * --attention-backend flash) */
    bool attention_fa2;
    /* the same for llm-foundry's Triton FlashAttention kernel (flash_attn_triton.py on the
     * pre-MLIR Triton fork, attn_impl triton), measured from llm-foundry's own sequence-length
     * sweeps (tests/bench/triton_attention_slope.py); 0: not measured on this GPU, and
     * `--attention triton` refuses the profile */
    double triton_attention_efficiency;
    /* set by `--attention triton`: the fused kernel is llm-foundry's Triton kernel, which
     * Megatron-LM has no backend for */
    bool attention_triton;
    /* set by `--precision fp8` (not read from a profile): the transformer blocks' linear GEMMs
     * run in FP8 at peak_fp8_tflops x fp8_gemm_efficiency; attention and the element-wise work
     * stay in BF16 (Transformer Engine's recipe) */
    bool fp8;
    /* set by `--fp8-scaling current` (Transformer Engine's Float8CurrentScaling, Megatron's
     * --fp8-recipe tensorwise): each GEMM input's amax is computed by a kernel of its own before
     * the cast, one more read of the BF16 input; delayed scaling takes it from the history */
    bool fp8_current;
    /* the GPU's FP8 GEMMs take only the TN layout (Hopper; Blackwell's take any): Transformer
     * Engine's cast of a GEMM input for the backward's GEMMs also writes its FP8 transpose */
    bool fp8_tn_only;
} ts_hardware;

/* Finding files: NAME.json under dir (dir/hardware/NAME.json for hardware), or NAME itself when
 * it names a file (contains '/' or ends with ".json"). out receives the path. */
int ts_model_path(const char *dir, const char *name, bool hardware, char *out, size_t len,
                  ts_err *e);
/* seq > 0 replaces the file's sequence length in every section that does not set its own. */
int ts_model_load(const char *path, int seq, ts_model **out, ts_err *e);
/* free with ts_hardware_clear */
int ts_hardware_load(const char *path, ts_hardware *out, ts_err *e);
/* The same from text in memory (where names it in messages): for programs that read no files. */
int ts_model_parse(const char *text, size_t len, const char *where, int seq, ts_model **out,
                   ts_err *e);
int ts_hardware_parse(const char *text, size_t len, const char *where, ts_hardware *h, ts_err *e);
void ts_model_free(ts_model *m);
void ts_hardware_clear(ts_hardware *h);
bool ts_model_has_strategy(const ts_model *m, const char *strategy);

/* Model totals. */
/* unique parameters */
double ts_model_params(const ts_model *m);
/* forward FLOPs per sample (one round) */
double ts_model_fwd_flops(const ts_model *m);
/* Forward FLOPs per sample of the causal (decoder-only) attention cores, every query-key pair
 * counted: the half a causal count leaves out is half of this. */
double ts_model_causal_attn_flops(const ts_model *m);

/* The cost of one layer on hardware: micro-batch b, tensor parallelism T (T devices in one
 * node when T <= gpus_per_node). All times in seconds, bytes per device. */
typedef struct {
    int b, T;
    /* full activation recomputation: store inputs only, redo the forward */
    bool recompute;
    /* forward only, no gradients or optimizer state */
    bool infer;
    /* Fields below are zero by default (the behaviour before them). */
    /* selective recomputation (Korthikanti et al.): the attention core is not stored but redone
     * in the backward; ignored when recompute is set */
    bool selective;
    /* sequence parallelism: the all-reduces become reduce-scatter + all-gather (the same bytes
     * on a ring) and the activations that tensor parallelism kept whole are split by T */
    bool seqpar;
    /* ZeRO stage 0..3 over dp data-parallel replicas (dp 0 or 1: nothing to shard over):
     * 1 shards the optimizer state, 2 also the gradients, 3 also the weights */
    int zero, dp;
    /* the GEMM-shape model (what `tessel plan` uses): FLOPs at peak x gemm_efficiency x
     * ts_layer_gemm_factor instead of the flat efficiency, plus the element-wise work (each
     * stored activation byte written and read once at HBM bandwidth in the forward, twice that
     * in the backward) */
    bool gemm_shape;
    /* training bytes per parameter (weights, gradients, optimizer state); 0: ZeRO's count */
    double param_bytes;
    /* context parallelism over cp GPUs at stride T (0 or 1: none): each holds s / cp tokens
     * of every sequence, and keys and values pass round a ring (ring attention), hidden behind
     * the attention core where it is longer */
    int cp;
    /* context parallelism all-gathers the keys and values instead (cp_allgather) */
    bool cp_allgather;
    /* expert parallelism over ep GPUs at stride etp (0 or 1: none): an MoE layer's routed
     * experts split ep ways, its tokens sent to their experts and back by all-to-all */
    int ep;
    /* expert tensor parallelism (0: T): the routed experts' weights and GEMMs split etp ways */
    int etp;
    /* the fused attention of the profile, or as --attention sets it (read with gemm_shape) */
    bool fused;
    /* FP8 training (Transformer Engine): the GEMMs' inputs kept for the backward in FP8 */
    bool fp8;
    /* with selective: torchtitan's per-op selective checkpointing (selective_ac_option "op"),
     * which saves the attention kernel's output and every other linear GEMM's, and recomputes
     * the rest of the block's forward in the backward */
    bool op_sac;
} ts_cost_opts;

typedef struct {
    /* forward compute + its all-reduces */
    double fwd_s;
    /* backward input-gradient half (+ recomputation) + its all-reduces */
    double bgrad_s;
    /* backward weight-gradient half */
    double wgrad_s;
    /* weights (+ gradients and optimizer state when training) */
    double static_bytes;
    /* stored per micro-batch (0 in inference) */
    double act_bytes;
    /* sent to the next layer per micro-batch */
    double out_bytes;
    /* of fwd_s + bgrad_s: context parallelism's ring transfers not hidden, and expert
     * parallelism's all-to-alls (seconds per micro-batch) */
    double cp_s, a2a_s;
    /* of one forward's compute: the linear GEMMs' seconds, without the attention core (what
     * Transformer Engine's userbuffers overlap the tensor-parallel collectives with) */
    double gemm_s;
} ts_layer_cost;

/* bf16 weight and gradient, fp32 master, Adam m and v */
#define TS_BYTES_PER_PARAM_TRAIN 16.0
/* bf16 weight */
#define TS_BYTES_PER_PARAM_INFER 2.0

/* achievable FLOP/s */
double ts_hw_flops(const ts_hardware *h);
/* The fraction of the large-GEMM rate (gemm_efficiency) an (m x k) by (k x n) GEMM reaches: wave quantisation of
 * 128 x 128 output tiles over the GPU's SMs, tiles / (ceil(tiles / SMs) x SMs), times the
 * roofline factor min(1, intensity / (peak / HBM bandwidth)), intensity = 2mnk / (2 (mk + kn +
 * mn)) bytes in bf16 (the curve and its source: models/README.md). In (0, 1]. */
double ts_gemm_efficiency(const ts_hardware *h, double m, double n, double k);
/* The FLOP-weighted efficiency factor of a transformer-like layer's four GEMMs (QKV, attention
 * output, the feed-forward's two) at micro-batch b and tensor parallelism T; 1 for a layer
 * without a GEMM shape. */
double ts_layer_gemm_factor(const ts_layer *l, const ts_hardware *h, int b, int T);
/* The same with the routed experts' GEMMs under expert tensor parallelism etp (0: T): their
 * grouped GEMM runs etp / T times the routed copies of the GPU's tokens at 1 / etp of the
 * expert's width, the same FLOPs per GPU in other shapes; shared experts stay split by T. */
double ts_layer_gemm_factor_etp(const ts_layer *l, const ts_hardware *h, int b, int T, int etp);
/* Parameters a GPU holds of layer l: the dense ones split by T, the routed experts ep x etp
 * ways (ep 0 or 1: none; etp 0: T). */
double ts_layer_held(const ts_layer *l, int T, int ep, int etp);
/* bytes/s between devices a and b */
double ts_hw_link_bw(const ts_hardware *h, int a, int b);
/* Ring all-reduce of n bytes over devices [first, first + T): 2 (T-1)/T n / bandwidth. */
double ts_hw_allreduce_s(const ts_hardware *h, int first, int T, double n);
/* Collectives over k GPUs at a stride (GPU g, g + stride, ...; Megatron's order puts tensor
 * parallelism innermost, data parallelism at stride T, pipeline stages at stride T x dp). The
 * ring runs on NVLink when the group's span, stride x k, fits in one node (groups are
 * node-aligned), on the network otherwise. n: bytes each GPU contributes (all-reduce,
 * reduce-scatter input) or ends with (all-gather output). */
typedef enum { TS_COLL_ALLREDUCE, TS_COLL_REDUCE_SCATTER, TS_COLL_ALLGATHER } ts_collective;
double ts_hw_group_bw(const ts_hardware *h, int stride, int k);
/* Seconds of an all-to-all in which each of k GPUs (stride apart) holds n bytes for the k. */
double ts_hw_alltoall_s(const ts_hardware *h, int stride, int k, double n);
double ts_hw_collective_s(const ts_hardware *h, ts_collective kind, int stride, int k, double n);
/* The fixed part of one such collective, whatever its size: NCCL's latency model (a base and a
 * latency per ring step, NVLink or network; values and source in model_comm.c). */
double ts_hw_collective_lat_s(const ts_hardware *h, ts_collective kind, int stride, int k);
/* Point-to-point send of n bytes between GPUs a and b. */
double ts_hw_p2p_s(const ts_hardware *h, int a, int b, double n);
/* Bytes per parameter held on one GPU for weights, gradients and Adam state under ZeRO stage z
 * over dp replicas (16 bytes at z = 0; z = 1: 4 + 12/dp; z = 2: 2 + 14/dp; z = 3: 16/dp). */
double ts_zero_bytes_per_param(int zero, int dp);
void ts_layer_cost_of(const ts_layer *l, const ts_hardware *h, const ts_cost_opts *o, int first_dev,
                      ts_layer_cost *c);
/* The fraction of a block's linear GEMM FLOPs that torchtitan's per-op selective checkpointing
 * runs again in the backward (every second linear of the forward); 0 for other layers. */
double ts_layer_op_sac(const ts_layer *l);
/* Forward seconds of a token slice of len tokens after prefix tokens, for one layer of a model
 * whose sequence has seq tokens (all-reduces shrink with the slice). */
double ts_layer_slice_fwd_s(const ts_layer *l, const ts_hardware *h, const ts_cost_opts *o,
                            int first_dev, int seq, int prefix, int len);

/* Stage partitioning (Alpa's inter-operator pass): cut n items (cost[i] seconds, stat[i] static
 * bytes, act[i] stored bytes per micro-batch, send[i] seconds to pass item i's output to the next
 * stage) into S contiguous non-empty stages. Stage s holds inflight[s] micro-batches of
 * activations and may use cap[s] bytes. Objective: sum_s t_s + (N - 1) max_s t_s, where t_s is
 * the stage's cost plus the send of its last item (none for the last stage). cut[s] receives the
 * first item of stage s (cut[0] = 0). Returns 0, TS_ENOANSWER when nothing fits (e says why). */
typedef struct {
    int n, S, N;
    const double *cost, *stat, *act, *send;
    /* S entries */
    const double *cap;
    /* S entries */
    const double *inflight;
    /* S entries or NULL: a cap on each stage's static bytes alone (a parameter limit) */
    const double *stat_cap;
} ts_stage_problem;
int ts_stage_partition(const ts_stage_problem *p, int *cut, double *objective, ts_err *e);
/* The objective of one partition (or -1 when it breaks memory): shared with the tests' brute
 * force. */
double ts_stage_objective(const ts_stage_problem *p, const int *cut);

/* Token slicing (TeraPipe's DP): cut L granules of g tokens into at most maxk slices; slice
 * [p, p + l) costs cost(ud, p*g, l*g). Objective: sum_i t_i + (K - 1) max_i t_i for K pipeline
 * stages. len[] receives slice lengths in granules; returns the slice count (0 on allocation
 * failure) and sets *objective. */
typedef double (*ts_slice_cost_fn)(void *ud, int prefix_tokens, int len_tokens);
int ts_slice_tokens(int L, int g, int maxk, int K, ts_slice_cost_fn cost, void *ud, int *len,
                    double *objective);
double ts_slice_objective(int nslices, const int *len, int g, int K, ts_slice_cost_fn cost,
                          void *ud);

/* Placement derivation. */
typedef struct {
    /* 1f1b, interleaved, zb, chimera, gpipe, mshape, nnshape, kshape, mllm, alphafold, terapipe */
    const char *strategy;
    /* D = T * stages */
    int gpus, b, T;
    /* interleaved: model chunks per device (0 = 2) */
    int chunks;
    /* micro-batches the stage DP plans for (0 = 2 * stages) */
    int nmicros;
    /* terapipe: at most this many token slices (0 = 8) */
    int max_slices;
    /* quantisation: largest span allowed (0 = 64) */
    int max_span;
    bool recompute, infer;
    /* zero by default: selective recomputation, sequence parallelism, ZeRO stage over dp
     * replicas and the GEMM-shape efficiency, as in ts_cost_opts */
    bool selective, seqpar, gemm_shape;
    int zero, dp;
    /* training bytes per parameter (0: 16, mixed-precision Adam; 8: fp16 weights, gradients and
     * Adam state, as the Tessel authors' scripts ran) */
    double param_bytes;
    /* bytes of weights and optimizer state the first stage may hold per GPU (0: no cap) */
    double first_stage_param_cap;
    /* communication: TS_COMM_DEFAULT, TS_COMM_OVERLAP or TS_COMM_SYNC (ts_comm_mode) */
    int comm;
} ts_derive_opts;

/* How a placement's communication meets its compute (model_paper.c). DEFAULT: a collective
 * inside a block's span, a send between stages as an edge delay. OVERLAP: a sharded block's
 * collective and every send are edge delays, run while the devices compute other blocks.
 * SYNC: both on the critical path: the collective inside the span, the send added to the
 * sending block's span. */
typedef enum { TS_COMM_DEFAULT = 0, TS_COMM_OVERLAP = 1, TS_COMM_SYNC = 2 } ts_comm_mode;

typedef struct {
    /* one span step */
    double time_unit_s;
    /* sum |span*unit - t| / sum t over blocks */
    double time_error;
    /* Memory units differ per GPU so that one capacity (in units) serves every GPU: GPU d's unit
     * is its free memory (HBM - workspace - weights and optimizer state on d) / capacity. The
     * solver takes one capacity for all devices; this states the per-GPU capacities exactly. */
    /* bytes per unit on each GPU (owned, D entries) */
    double *memory_unit_dev;
    /* the smallest of them (the fullest GPU's) */
    double memory_unit_bytes;
    /* rounding up of activation bytes, over all blocks and GPUs */
    double memory_error;
    /* weights + optimizer state on the fullest GPU */
    double static_bytes_max;
    /* HBM - static - workspace on the fullest GPU */
    double capacity_bytes;
    /* in memory units, the same on every GPU */
    long capacity;
    int stages;
    /* terapipe */
    int nslices;
    /* terapipe: nslices entries (owned) */
    int *slice_tokens;
    /* first layer of each stage (stages entries, owned) */
    int *cuts;
} ts_derive_info;

/* The derivation state (private to the model subsystem). */
typedef struct ts_dctx ts_dctx;

/* One row of the strategy registry (model_strategies.c). */
typedef struct {
    /* "1f1b", "chimera", ... (ts_derive_opts.strategy) */
    const char *name;
    /* adds the strategy's real-unit blocks and edges to c, fills info's cuts */
    int (*build)(ts_dctx *c, ts_derive_info *info, ts_err *e);
    /* model replicas: 2 runs two opposite pipelines over the same devices (chimera), each
     * placement micro-batch then being one micro-batch per direction */
    int replicas;
} ts_strategy_info;

int ts_strategy_count(void);
const ts_strategy_info *ts_strategy_at(int i);
const ts_strategy_info *ts_strategy_find(const char *name);

int ts_model_derive(const ts_model *m, const ts_hardware *h, const ts_derive_opts *o,
                    ts_placement **out, ts_derive_info *info, ts_err *e);
void ts_derive_info_clear(ts_derive_info *info);

#endif
