/* Private to the model code: one section of a tessel-model/1 file, read before expansion. */
#ifndef TS_MODEL_INTERNAL_H
#define TS_MODEL_INTERNAL_H

#include "ts_model.h"
#include "ts_plan.h"

typedef struct {
    const char *kind, *name, *branch;
    long count;
    /* Hyper-parameters; 0 when absent (each kind checks the ones it needs). */
    double hidden, heads, head_dim, ffn, ffn_matrices, seq, cross_seq, vocab, positions, window;
    double channels, patch, msa_seq, residues, msa_dim, pair_dim;
    /* grouped-query attention, multi-head latent attention (DeepSeek-V2/V3) and mixture of
     * experts (models/README.md, "The model format") */
    double kv_heads, q_lora_rank, kv_lora_rank, rope_head_dim, v_head_dim;
    double experts, top_k, expert_ffn, shared_experts, moe_every;
    bool tied;
    /* false: the model trains without dropout (no masks stored; "dropout": false) */
    bool dropout;
    /* Explicit layers. */
    double fwd_flops, params, act_bytes, out_bytes, allreduces;
} ts_section;

/* Appends the section's layers to m (m->layers has room for TS_MODEL_MAX_LAYERS). */
int ts_section_expand(const ts_section *s, const char *where, ts_model *m, ts_err *e);

#endif

/* Placement derivation works in real units first (seconds, bytes), then quantises. */
typedef struct {
    char id[48];
    ts_kind kind;
    /* seconds; bytes applied at start (positive: stored activations) */
    double t, mem;
    /* devices [first, first + ndev) */
    int first, ndev;
    /* for a releasing block: the block whose memory it frees, else -1 */
    int owner;
    /* the share of the owner's memory it frees */
    double frac;
    /* seconds of t that are a collective over its devices (sharded blocks), for ts_d_comm */
    double comm;
} ts_rblock;

typedef struct {
    int src, dst;
    /* seconds */
    double delay;
} ts_redge;

struct ts_dctx {
    const ts_model *m;
    const ts_hardware *h;
    const ts_derive_opts *o;
    /* the strategy's row (o->strategy) */
    const ts_strategy_info *st;
    /* per-stage cost options: micro-batch b, tensor parallelism T */
    ts_cost_opts co;
    /* tensor parallelism, devices, stages (device groups of T) */
    int T, D, S;
    /* forward rounds folded into each forward block (recycling) */
    int R;
    /* per layer, on a T-device stage */
    ts_layer_cost *lc;
    /* per layer, sharded over all D devices */
    ts_layer_cost *lsh;
    /* weights and optimizer state per device (D entries) */
    double *stat;
    int nb, capb, ne, cape;
    ts_rblock *b;
    ts_redge *ed;
    /* set when a builder refuses (message in the error) */
    int nostage;
};

/* A stage's aggregate over layers [j, i) of an index list. */
typedef struct {
    double fwd, bgrad, wgrad, act, stat, out;
} ts_stage_sum;

/* The builders' primitives in real units (model_rblock.c). */
int ts_d_block(ts_dctx *c, const char *id, ts_kind kind, double t, double mem, int first, int ndev,
               int owner, double frac);
int ts_d_edge(ts_dctx *c, int src, int dst, double bytes);
void ts_d_sum(const ts_dctx *c, const ts_layer_cost *lc, const int *items, int j, int i,
              ts_stage_sum *s);
/* Adds stat bytes to every device in [first, first + ndev). */
void ts_d_static(ts_dctx *c, int first, int ndev, double bytes);
/* A block of layers [j, i) sharded over every device (its weights counted on each); a backward
 * one frees owner's memory. */
int ts_d_sharded(ts_dctx *c, const char *id, bool fwd, int j, int i, int owner);
double ts_d_sharded_static(const ts_dctx *c, int j, int i);
/* Seconds of collectives in a sharded block of layers [j, i) (forward or backward). */
double ts_d_collective_s(const ts_dctx *c, bool fwd, int j, int i);
/* The micro-batches in flight on each stage, by the schedule a strategy is made for: 1F1B's S - s,
 * Megatron's interleaved warm-up, or two opposite pipelines' (S + 1) / 2. */
typedef enum { TS_INFLIGHT_1F1B, TS_INFLIGHT_INTERLEAVED, TS_INFLIGHT_TWO_WAY } ts_inflight;
/* The stage DP over a chain of n layers items[] into S stages (or chunks), each with its device's
 * memory divided by share less cap_less (sharded blocks' weights); cut[] receives the first item
 * of each stage (model_partition.c). */
int ts_d_partition(ts_dctx *c, const int *items, int n, int S, double cap_less, int share,
                   ts_inflight mode, int *cut, ts_err *e);
/* Builders of the strategy registry (model_strategies.c) that live in their own files. */
/* model_two_chains.c */
int ts_build_nnshape(ts_dctx *c, ts_derive_info *info, ts_err *e);
int ts_build_kshape(ts_dctx *c, ts_derive_info *info, ts_err *e);
/* model_terapipe.c */
int ts_build_terapipe(ts_dctx *c, ts_derive_info *info, ts_err *e);
/* model_paper.c: the Tessel authors' setups: full tensor parallelism (tp), and one chain of
 * stages behind sharded embeddings, the decoder's right after the first stage (nnshape-eager;
 * mshape of a model without an output layer) */
int ts_build_tp(ts_dctx *c, ts_derive_info *info, ts_err *e);
int ts_build_eager(ts_dctx *c, ts_derive_info *info, ts_err *e);
/* Applies the derive options' communication mode (ts_comm_mode) to the real-unit blocks
 * (model_paper.c). */
void ts_d_comm(ts_dctx *c);
/* Quantises the real-unit blocks into a placement and fills info's units and capacity
 * (model_quant.c). */
int ts_d_quantise(ts_dctx *c, const char *name, ts_placement **out, ts_derive_info *info,
                  ts_err *e);

/* The cost model's per-layer tables for plans at one (T, b, sequence parallelism): each layer's
 * cost under each recomputation (none, selective, full; weights at 16 bytes per parameter), its
 * forward's tensor-parallel collective seconds, its parameters per GPU and the forward FLOPs a
 * recomputation redoes per micro-batch (transformer blocks only, as Megatron-LM counts them). */
typedef struct {
    int n, T, b, C, E;
    /* expert tensor parallelism (0: T) */
    int etp;
    bool seqpar;
    /* the tensor-parallel collectives overlapped with the GEMMs (ts_plan_cfg's tpo) */
    bool tpo;
    ts_layer_cost *lc[3];
    double *tp, *params, *redo[3];
    /* the sum over layers of their time without recomputation, per micro-batch */
    double work;
} ts_plan_tables;
int ts_plan_tables_make(const ts_plan_req *r, int T, int b, bool seqpar, int C, int E, int etp,
                        bool tpo, ts_plan_tables *t, ts_err *e);
/* Communication c running beside compute w: what is not hidden plus the slowdown the compute
 * suffers while they overlap (model_comm.c). */
double ts_plan_overlap(double c, double w);
/* The framework's rules for one plan (model_plan_rules.c): 0, or the refusal kind + 1 with why. */
int ts_plan_rules(const ts_plan_req *r, const ts_plan_cfg *c, char *why, size_t len);
/* Chunk boundaries of P x v chunks: cut[k] the first layer of chunk k, cut[P v] = n. Megatron
 * cuts the transformer blocks evenly (first and last stages as c->first and c->last say), the
 * layers before the first block joining chunk 0 and those after the last the last chunk; the
 * others balance each chunk's time. 0, or the refusal kind + 1 with why. */
int ts_plan_layout(const ts_plan_req *r, const ts_plan_tables *t, const ts_plan_cfg *c, int *cut,
                   char *why, size_t len);
/* The balanced cut (model_plan_cut.c): the largest chunk as small as it can be. */
void ts_plan_cut(const ts_plan_tables *t, int S, int *cut);
void ts_plan_tables_free(ts_plan_tables *t);
/* One plan from the tables: 0, the refusal kind + 1 (why filled), or -1 when its lower bound is
 * not below prune_above (model_plan_cost.c). */
int ts_plan_cost_with(const ts_plan_req *r, const ts_plan_tables *t, const ts_plan_cfg *c,
                      double prune_above, ts_plan_cost *out, char *why, size_t len);
