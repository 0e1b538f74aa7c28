/* One plan's iteration time and memory from the cost model (models/README.md, "Plans"): the
 * layers cut into P x v chunks, each stage's time per micro-batch (compute, tensor-parallel
 * collectives, pipeline sends), its memory (weights, gradients and optimizer state by ZeRO stage,
 * activations by recomputation and micro-batches in flight, workspace), the strategy's schedule
 * in closed form, and the data-parallel reduction, ZeRO's gathers and the optimizer step. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "model_internal.h"

/* bf16 gradients and weights on the wire */
#define TS_WIRE_BYTES 2.0
/* Adam's step reads and writes 16 bytes of state per parameter */
#define TS_OPT_BYTES 32.0
#define TS_PLAN_MAX_CHUNKS 1024

typedef struct {
    /* seconds per micro-batch: forward, backward halves, tensor-parallel part, sends */
    double f, bg, wg, tp, p2p;
    /* bytes: parameters held, activations per micro-batch, recomputation working set */
    double params, act, work, inflight;
    /* the largest layer's parameters (ZeRO-3 gathers one while prefetching the next) */
    double maxp;
    /* layers holding parameters (ZeRO-3 gathers and reduce-scatters each on its own) */
    int nl;
    int rc;
    /* under full recomputation, the fraction of each chunk's blocks recomputed (Megatron's
     * --recompute-method block --recompute-num-layers k of a chunk's n: k / n) */
    double q;
} ts_pstage;

static double ts_plan_inflight(const ts_plan_cfg *c, int s)
{
    double P = c->P, v = c->v, N = c->N;
    if (!strcmp(c->strategy, "gpipe"))
        return N;
    if (!strcmp(c->strategy, "interleaved") && v > 1)
        /* Megatron's interleaved warm-up, (P - s - 1) 2 + (v - 1) P + 1 chunks of 1/v each */
        return fmin(N * v, (P - s - 1) * 2 + (v - 1) * P + 1) / v;
    if (!strcmp(c->strategy, "chimera"))
        return fmin(N, (P + 1) / 2.0);
    return fmin(N, P - s);
}

/* Stage s's sums under recomputation rc. */
static void ts_plan_stage(const ts_plan_req *r, const ts_plan_tables *t, const ts_plan_cfg *c,
                          const int *cut, int s, int rc, ts_pstage *x)
{
    memset(x, 0, sizeof *x);
    x->rc = rc;
    x->q = 1;
    /* Megatron's order: T innermost, then C, then dp; stages at stride T C dp */
    double link = ts_hw_p2p_s(r->h, 0, c->T * c->C * c->dp, 1);
    for (int ch = s; ch < c->P * c->v; ch += c->P) {
        for (int i = cut[ch]; i < cut[ch + 1]; i++) {
            const ts_layer_cost *lc = &t->lc[rc][i];
            x->f += lc->fwd_s;
            x->bg += lc->bgrad_s;
            x->wg += lc->wgrad_s;
            x->tp += t->tp[i] * (r->infer ? 1 : rc == TS_RC_FULL ? 3 : 2);
            x->params += t->params[i];
            x->maxp = fmax(x->maxp, t->params[i]);
            x->nl += t->params[i] > 0;
            x->act += lc->act_bytes;
            if (rc == TS_RC_FULL)
                x->work = fmax(x->work, t->lc[TS_RC_NONE][i].act_bytes);
        }
        /* a chunk sends its output forward (but the model's last) and the gradient of its
         * input backward (but the first), split by T with sequence parallelism */
        double split = c->seqpar ? c->T : 1;
        if (c->P > 1 && ch + 1 < c->P * c->v)
            x->p2p += t->lc[rc][cut[ch + 1] - 1].out_bytes / split * link;
        if (c->P > 1 && ch > 0 && !r->infer)
            x->p2p += t->lc[rc][cut[ch] - 1].out_bytes / split * link;
    }
    x->inflight = ts_plan_inflight(c, s);
}

static double ts_plan_stage_bytes(const ts_plan_req *r, const ts_plan_cfg *c, const ts_pstage *x)
{
    const ts_strategy_info *si = ts_strategy_find(c->strategy);
    double per =
        r->infer ? TS_BYTES_PER_PARAM_INFER : ts_plan_bytes_per_param(r, c->zero, c->dp * c->C);
    double stat = x->params * per * (si ? si->replicas : 1);
    if (c->zero == 3 && c->dp > 1 && !r->infer)
        stat += 2 * x->maxp * TS_WIRE_BYTES;
    return stat + x->inflight * x->act + x->work + r->h->workspace_gb * 1e9;
}

/* Each stage's recomputation: the plan's, or under adaptive the least that fits. */
/* Full recomputation of k of each chunk's n blocks, k = 1 .. n - 1, the least that fits: the
 * stage's times, activations and recomputed FLOPs in proportion k / n between none and full.
 * 0 when some k fits (x set), -1 when none does. */
static int ts_plan_partial(const ts_plan_req *r, const ts_plan_tables *t, const ts_plan_cfg *c,
                           const int *cut, int s, double hbm, ts_pstage *x, double *need)
{
    ts_pstage a, b;
    ts_plan_stage(r, t, c, cut, s, TS_RC_NONE, &a);
    ts_plan_stage(r, t, c, cut, s, TS_RC_FULL, &b);
    int n = 0;
    for (int i = cut[s]; i < cut[s + 1]; i++)
        n += r->m->layers[i].gemm_tokens > 0;
    for (int k = 1; k < n; k++) {
        double q = (double)k / n;
        *x = b;
        x->q = q;
        x->f = a.f + q * (b.f - a.f);
        x->bg = a.bg + q * (b.bg - a.bg);
        x->wg = a.wg + q * (b.wg - a.wg);
        x->tp = a.tp + q * (b.tp - a.tp);
        x->act = a.act + q * (b.act - a.act);
        *need = ts_plan_stage_bytes(r, c, x);
        if (*need <= hbm)
            return 0;
    }
    return -1;
}

static int ts_plan_stages(const ts_plan_req *r, const ts_plan_tables *t, const ts_plan_cfg *c,
                          const int *cut, ts_pstage *st, ts_plan_cost *out, char *why, size_t len)
{
    /* the headroom stays free besides the profile's workspace */
    double hbm = r->h->hbm_gb * 1e9 * (1 - r->headroom);
    out->peak_bytes = 0;
    for (int s = 0; s < c->P; s++) {
        int lo = c->recompute == TS_RC_ADAPTIVE ? TS_RC_NONE : c->recompute;
        int hi = c->recompute == TS_RC_ADAPTIVE ? TS_RC_FULL : c->recompute;
        if (r->infer)
            lo = hi = TS_RC_NONE;
        double need = 0;
        int rc = lo;
        for (; rc <= hi; rc++) {
            /* adaptive: before all of a stage's blocks, only as many as it must */
            if (rc == TS_RC_FULL && lo != hi &&
                !ts_plan_partial(r, t, c, cut, s, hbm, &st[s], &need))
                break;
            ts_plan_stage(r, t, c, cut, s, rc, &st[s]);
            need = ts_plan_stage_bytes(r, c, &st[s]);
            if (need <= hbm)
                break;
        }
        if (rc > hi) {
            snprintf(why, len,
                     "stage %d needs %.1f GB per GPU (%.1f GB weights and optimizer state, "
                     "%.1f micro-batches of %.2f GB activations), more than %.1f GB",
                     s, need / 1e9,
                     st[s].params * ts_plan_bytes_per_param(r, c->zero, c->dp * c->C) / 1e9,
                     st[s].inflight, st[s].act / 1e9, hbm / 1e9);
            return TS_REFUSE_MEMORY + 1;
        }
        out->stages_rc[rc]++;
        if (rc == TS_RC_FULL) {
            int n = 0;
            for (int i = cut[s]; i < cut[s + 1]; i++)
                n += r->m->layers[i].gemm_tokens > 0;
            int k = (int)(st[s].q * n + 0.5);
            out->recompute_blocks = k > out->recompute_blocks ? k : out->recompute_blocks;
        }
        out->peak_bytes = fmax(out->peak_bytes, need);
    }
    return 0;
}

static double ts_st_time(const ts_pstage *x)
{
    return x->f + x->bg + x->wg + x->p2p;
}

/* The pipeline's time in closed form from each stage's time per micro-batch t_s: one stage
 * N t; 1F1B and GPipe N t_max + (sum t_s - t_max) (Alpa's form); interleaving divides the fill
 * and drain by v (Narayanan et al.); zero-bubble (ZB-H1) scales them by (F + B - W) / (F + B + W)
 * (Qi et al.). Other strategies: N t_max, a bound that only a schedule search makes a time. */
static double ts_plan_pipe(const ts_plan_cfg *c, const ts_pstage *st, int crit, bool *closed)
{
    double tmax = ts_st_time(&st[crit]), sum = 0, N = c->N;
    for (int s = 0; s < c->P; s++)
        sum += ts_st_time(&st[s]);
    double fill = sum - tmax;
    *closed = true;
    if (c->P == 1 || !strcmp(c->strategy, "1f1b") || !strcmp(c->strategy, "gpipe"))
        return N * tmax + fill;
    if (!strcmp(c->strategy, "interleaved"))
        return N * tmax + fill / c->v;
    if (!strcmp(c->strategy, "zb")) {
        const ts_pstage *x = &st[crit];
        double all = x->f + x->bg + x->wg;
        return N * tmax + fill * (all > 0 ? fmax(0, x->f + x->bg - x->wg) / all : 1);
    }
    *closed = false;
    return N * tmax;
}

/* Megatron-Core's data-parallel buckets: max(40M, 1M x dp) parameters each
 * (DistributedDataParallelConfig.bucket_size's default); each is one collective, and pays
 * NCCL's fixed latency once. */
static double ts_plan_buckets(double params, int d)
{
    double size = fmax(40e6, 1e6 * d);
    return params > 0 ? ceil(params / size) : 0;
}

/* After the pipeline, stage s's exposed tail: the gradient reduction over its dp replicas (an
 * all-reduce, or with ZeRO a reduce-scatter, per micro-batch from stage 2), ZeRO's gathers of
 * the updated weights (1, 2) or of the weights before every forward and backward (3), and the
 * optimizer step. The reduction hides behind the backward where the schedule leaves room: the
 * stage's last micro-batch's backward (bucketed overlap) and, in closed-form schedules, the idle
 * tail while earlier stages finish (s backward times in 1F1B); what hides slows the compute
 * beside it (ts_plan_overlap). Each bucket, or under ZeRO-3 each layer, is one collective with
 * NCCL's fixed latency. */
static void ts_plan_tail(const ts_plan_req *r, const ts_plan_cfg *c, const ts_pstage *x, int s,
                         bool closed, double *dp_s, double *zero_s, double *opt_s)
{
    *dp_s = *zero_s = *opt_s = 0;
    if (r->infer)
        return;
    /* gradients reduce over the data- and context-parallel GPUs (C dp at stride T) */
    double g = x->params * TS_WIRE_BYTES, N = c->N, bw = x->bg + x->wg;
    /* Megatron reduces its fp32 main gradients in fp32 (4 bytes) unless they are bf16; PyTorch
     * FSDP in its MixedPrecision reduce_dtype, fp32 as torchtitan sets it (its
     * training.mixed_precision_reduce default, "float32") unless --grad-dtype bf16 */
    double gr = r->framework != TS_FW_DEEPSPEED && !r->grad_bf16 && !r->infer ? 2 * g : g;
    /* DeepSpeed's pipeline engine reduces the gradients only after the last micro-batch (its
     * TrainSchedule ends with ReduceTiedGrads, ReduceGrads, OptimizerStep: deepspeed/runtime/
     * pipe/schedule.py), not behind the last backward: only a stage's idle tail hides it. So
     * did Megatron-LM before --overlap-grad-reduce (--grad-overlap off): its train_step
     * all-reduced the gradients (--DDP-impl local's allreduce_gradients) after
     * forward_backward_func returned, the SC21 runs' code */
    bool after = (r->framework == TS_FW_DEEPSPEED && c->P > 1) || r->grad_after;
    double hide = (after ? 0 : bw) + (closed ? s * bw : 0);
    int d = c->dp * c->C;
    double nb = c->zero == 3 ? x->nl : ts_plan_buckets(x->params, d);
    double rs = ts_hw_collective_s(r->h, TS_COLL_REDUCE_SCATTER, c->T, d, gr) +
                nb * ts_hw_collective_lat_s(r->h, TS_COLL_REDUCE_SCATTER, c->T, d);
    double ag = ts_hw_collective_s(r->h, TS_COLL_ALLGATHER, c->T, d, g) +
                nb * ts_hw_collective_lat_s(r->h, TS_COLL_ALLGATHER, c->T, d);
    if (d <= 1)
        rs = ag = 0;
    if (c->zero <= 1) {
        ts_collective k = c->zero ? TS_COLL_REDUCE_SCATTER : TS_COLL_ALLREDUCE;
        double red = d > 1 ? ts_hw_collective_s(r->h, k, c->T, d, gr) +
                                 nb * ts_hw_collective_lat_s(r->h, k, c->T, d)
                           : 0;
        *dp_s = ts_plan_overlap(red, hide);
    } else if (c->zero == 2) {
        *dp_s = N * ts_plan_overlap(rs, bw);
    } else {
        /* ZeRO-3's backward gathers the weights and reduce-scatters the gradients on the same
         * link: both hide behind one backward, or what does not fit is exposed; the first
         * layer's gather of the backward cannot hide, nor the last layer's reduce-scatter */
        double one = x->nl > 0 ? (ag + rs) / x->nl : 0;
        *dp_s = N * (ts_plan_overlap(ag + rs, bw) + one);
    }
    /* Megatron's distributed optimizer gathers the updated weights bucket by bucket behind
     * the next iteration's first forward (--overlap-param-gather); others after the step */
    if (c->zero == 1 && r->framework == TS_FW_MEGATRON)
        *zero_s = ts_plan_overlap(ag, x->f);
    else if (c->zero == 1 || c->zero == 2)
        *zero_s = ag;
    else if (c->zero == 3)
        /* and the forward's first layer waits for its gather */
        *zero_s = N * (ts_plan_overlap(ag, x->f) + (x->nl > 0 ? ag / x->nl : 0));
    double held = x->params / (c->zero >= 1 && d > 1 ? d : 1), bytes = held * TS_OPT_BYTES;
    if (r->framework == TS_FW_MEGATRON) {
        /* Megatron-Core's step besides Adam's 32 bytes (megatron/core/distributed/
         * param_and_grad_buffer.py, megatron/core/optimizer/): the gradient norm for clipping
         * reads each fp32 main gradient of the shard (4 bytes) and the updated fp32 main
         * weights are copied into the bf16 model weights (read 4, write 2); over every
         * gradient the GPU holds, not its shard, the buffer is pre-scaled by 1 / d before the
         * reduction (start_grad_sync's grad_data *= gradient_scaling_factor: read and write)
         * and zeroed for the next iteration (zero_grad_buffer: write), 4 bytes each (2 bf16) */
        double gb = r->grad_bf16 ? 2 : 4;
        bytes += held * 10 + x->params * gb * (d > 1 ? 3 : 1);
    }
    *opt_s = bytes / (r->h->hbm_gbs * 1e9);
}

static void ts_plan_flops(const ts_plan_req *r, const ts_plan_tables *t, const ts_plan_cfg *c,
                          const int *cut, const ts_pstage *st, ts_plan_cost *out)
{
    double F = ts_model_fwd_flops(r->m), rounds = r->m->recycles > 0 ? r->m->recycles : 1;
    double passes = r->infer ? rounds : rounds + 2;
    out->model_flops = F * passes * r->global;
    out->causal_flops = out->model_flops - ts_model_causal_attn_flops(r->m) / 2 * passes * r->global;
    double redo = 0;
    for (int s = 0; s < c->P && !r->infer; s++)
        for (int ch = s; ch < c->P * c->v; ch += c->P)
            for (int i = cut[ch]; i < cut[ch + 1]; i++)
                redo += t->redo[st[s].rc][i] * st[s].q;
    /* redo is per micro-batch of b samples on one of T GPUs' shares: per sample, the model's */
    out->counted_flops = out->model_flops + redo / c->b * r->global;
}

static int ts_plan_check(const ts_plan_req *r, const ts_plan_tables *t, const ts_plan_cfg *c,
                         char *why, size_t len)
{
    if (c->N < 1) {
        snprintf(why, len,
                 "the global batch %ld does not split into micro-batches of %d over %d "
                 "replicas",
                 r->global, c->b, c->dp);
        return TS_REFUSE_BATCH + 1;
    }
    if (c->P * c->v > t->n || c->P * c->v > TS_PLAN_MAX_CHUNKS) {
        snprintf(why, len, "%d stages x %d virtual stages exceed the model's %d layers", c->P, c->v,
                 t->n);
        return TS_REFUSE_STAGES + 1;
    }
    if (c->v > 1 && strcmp(c->strategy, "interleaved")) {
        snprintf(why, len, "%s has one model chunk per stage (virtual stages: interleaved)",
                 c->strategy);
        return TS_REFUSE_CHUNKS + 1;
    }
    /* Megatron splits query heads and key/value groups alike (--num-query-groups must be a
     * multiple of the tensor-parallel size) */
    for (int i = 0; i < r->m->nlayers; i++) {
        const ts_layer *l = &r->m->layers[i];
        if (l->heads % c->T || (l->kv_heads > 0 && l->kv_heads % c->T)) {
            snprintf(why, len,
                     "tensor parallelism %d does not divide layer %s's %d heads (%d key/value)",
                     c->T, l->name, l->heads, l->kv_heads);
            return TS_REFUSE_HEADS + 1;
        }
    }
    int rules = ts_plan_rules(r, c, why, len);
    if (rules)
        return rules;
    const ts_strategy_info *si = ts_strategy_find(c->strategy);
    if (si && si->replicas == 2 && (c->N % 2 || c->P % 2)) {
        snprintf(why, len, "%s needs an even micro-batch count and stage count, got %d and %d",
                 c->strategy, c->N, c->P);
        return TS_REFUSE_TWO_WAY + 1;
    }
    return 0;
}

int ts_plan_cost_with(const ts_plan_req *r, const ts_plan_tables *t, const ts_plan_cfg *c,
                      double prune_above, ts_plan_cost *out, char *why, size_t len)
{
    memset(out, 0, sizeof *out);
    /* no context or expert parallelism is one GPU of each */
    ts_plan_cfg one = *c;
    one.C = c->C > 1 ? c->C : 1;
    one.E = c->E > 1 ? c->E : 1;
    c = &one;
    int bad = ts_plan_check(r, t, c, why, len);
    if (bad)
        return bad;
    /* no stage can beat an even share of the work */
    if (prune_above > 0 && c->N * t->work / c->P >= prune_above)
        return -1;
    int cut[TS_PLAN_MAX_CHUNKS + 1];
    ts_pstage st[TS_PLAN_MAX_CHUNKS];
    st[0] = (ts_pstage){0};
    if ((bad = ts_plan_layout(r, t, c, cut, why, len)) ||
        (bad = ts_plan_stages(r, t, c, cut, st, out, why, len)))
        return bad;
    int crit = 0;
    for (int s = 1; s < c->P; s++)
        if (ts_st_time(&st[s]) > ts_st_time(&st[crit]))
            crit = s;
    const ts_pstage *x = &st[crit];
    out->lower_bound_s = c->N * ts_st_time(x);
    if (prune_above > 0 && out->lower_bound_s >= prune_above)
        return -1;
    double pipe = ts_plan_pipe(c, st, crit, &out->closed_form);
    double worst = -1;
    for (int s = 0; s < c->P; s++) {
        double d, z, o;
        ts_plan_tail(r, c, &st[s], s, out->closed_form, &d, &z, &o);
        if (d + z + o > worst) {
            worst = d + z + o;
            out->dp_s = d;
            out->zero_s = z;
            out->optimizer_s = o;
        }
    }
    out->tp_s = c->N * x->tp;
    out->p2p_s = c->N * x->p2p;
    out->compute_s = c->N * (x->f + x->bg + x->wg - x->tp);
    out->bubble_s = pipe - out->lower_bound_s;
    out->iter_s = out->compute_s + out->tp_s + out->p2p_s + out->bubble_s + out->dp_s +
                  out->zero_s + out->optimizer_s;
    ts_plan_flops(r, t, c, cut, st, out);
    return 0;
}

int ts_plan_cost_eval(const ts_plan_req *r, const ts_plan_cfg *c, ts_plan_cost *out, char *why,
                      size_t len)
{
    ts_plan_tables t;
    ts_err e = {0};
    if (ts_plan_tables_make(r, c->T, c->b, c->seqpar, c->C, c->E, c->etp, c->tpo, &t, &e)) {
        snprintf(why, len, "%s", e.msg);
        return TS_REFUSE_KINDS + 1;
    }
    int rc = ts_plan_cost_with(r, &t, c, 0, out, why, len);
    ts_plan_tables_free(&t);
    return rc;
}

const char *ts_recompute_name(int mode)
{
    static const char *const names[] = {"none", "selective", "full", "adaptive"};
    return mode >= 0 && mode < 4 ? names[mode] : "?";
}

const char *ts_refuse_name(int kind)
{
    static const char *const names[] = {"batch does not split",    "over memory",
                                        "more stages than layers", "virtual stages",
                                        "two-way pipeline",        "heads do not split",
                                        "framework rules",         "derivation or search"};
    return kind >= 0 && kind < TS_REFUSE_KINDS ? names[kind] : "?";
}

void ts_plan_name(const ts_plan_cfg *c, char *out, size_t len)
{
    char v[16] = "", cp[16] = "", ep[16] = "", et[16] = "", fl[32] = "";
    if (c->v > 1)
        snprintf(v, sizeof v, "-v%d", c->v);
    if (c->C > 1)
        snprintf(cp, sizeof cp, "-c%d", c->C);
    if (c->E > 1)
        snprintf(ep, sizeof ep, "-e%d", c->E);
    /* expert tensor parallelism only where it is not T (Megatron-Core's default) */
    if (c->etp > 0 && c->etp != c->T)
        snprintf(et, sizeof et, "-et%d", c->etp);
    if (c->first > 0 || c->last > 0)
        snprintf(fl, sizeof fl, "-f%d-l%d", c->first, c->last);
    snprintf(out, len, "%s-t%d-p%d%s%s%s%s%s-z%d-%s-b%d%s%s", c->strategy, c->T, c->P, v, cp, ep, et,
             fl, c->zero, ts_recompute_name(c->recompute), c->b, c->seqpar ? "-sp" : "",
             c->tpo ? "-tpo" : "");
}
