/* The cost model: a layer's time and memory on a GPU, from its FLOPs and bytes (formulas and
 * sources in models/README.md). The collectives live in model_comm.c. */
#include <math.h>
#include <string.h>
#include "ts_model.h"

double ts_hw_flops(const ts_hardware *h)
{
    return h->peak_tflops * 1e12 * h->efficiency;
}

double ts_gemm_efficiency(const ts_hardware *h, double m, double n, double k)
{
    if (m < 1 || n < 1 || k < 1)
        return 1;
    int sms = h->sms > 0 ? h->sms : 108;
    double tiles = ceil(m / 128) * ceil(n / 128);
    double waves = ceil(tiles / sms);
    double wave = tiles / (waves * sms);
    double intensity = 2 * m * n * k / (2 * (m * k + k * n + m * n));
    double bw = (h->hbm_gbs > 0 ? h->hbm_gbs : 2000) * 1e9;
    double ridge = h->peak_tflops * 1e12 / bw;
    return wave * fmin(1, intensity / ridge);
}

double ts_layer_gemm_factor(const ts_layer *l, const ts_hardware *h, int b, int T)
{
    return ts_layer_gemm_factor_etp(l, h, b, T, 0);
}

double ts_layer_gemm_factor_etp(const ts_layer *l, const ts_hardware *h, int b, int T, int etp)
{
    if (l->gemm_tokens <= 0 || l->gemm_h <= 0)
        return 1;
    double m = l->gemm_tokens * b, hh = l->gemm_h, hq = l->gemm_hq, f = l->gemm_f;
    double nm = l->gemm_nm > 0 ? l->gemm_nm : 2, t = T > 0 ? T : 1;
    double qkv = l->gemm_qkv > 0 ? l->gemm_qkv : 3 * hq;
    /* an MoE layer's experts run as one grouped GEMM over every routed copy of a token */
    double rows = l->gemm_ffn_rows > 0 ? l->gemm_ffn_rows : 1;
    /* (n, k) of each GEMM per GPU under Megatron's split: QKV and the first feed-forward
     * matrices split their outputs, the attention output and the second split their inputs. */
    double n[8] = {qkv / t, hh, (nm - 1) * f / t, hh};
    double k[8] = {hh, hq / t, hh, f / t};
    double mm[8] = {m, m, m * rows, m * rows, m, m, m, m};
    /* FLOPs a GPU runs per FLOP counted (a duplicated GEMM runs whole on each of T) */
    double dup[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    int g = 4;
    if (l->mla_down > 0) {
        /* MLA: the down-projection (whole on every GPU) and the two up-projections */
        double qk = l->mla_q_rank > 0 ? l->mla_q_rank : hh;
        n[0] = l->mla_down, k[0] = hh, dup[0] = t;
        n[4] = l->mla_q_n / t, k[4] = qk;
        n[5] = l->mla_kv_n / t, k[5] = l->mla_kv_rank;
        g = 6;
    }
    double et = etp > 0 ? etp : t;
    if (l->experts > 0 && et != t) {
        /* Expert tensor parallelism other than T (Megatron-Core's --expert-tensor-parallel-size;
         * its alltoall token dispatcher gathers the tokens of the E x etp expert group, so each
         * of the group's GPUs runs its experts for etp / T times the routed copies of its own
         * tokens at 1 / etp of their width): the same FLOPs per GPU, other GEMM shapes. The
         * shared experts (rows beyond top_k) stay with the dense layers' T. */
        double routed = l->top_k > 0 ? l->top_k : 1, shared = rows - routed;
        n[2] = (nm - 1) * f / et, k[3] = f / et;
        mm[2] = mm[3] = m * routed * et / t;
        if (shared > 0) {
            n[g] = (nm - 1) * f / t, k[g] = hh, mm[g] = m * shared;
            n[g + 1] = hh, k[g + 1] = f / t, mm[g + 1] = m * shared;
            g += 2;
        }
    }
    double flops = 0, time = 0;
    for (int i = 0; i < g; i++) {
        double fl = 2 * mm[i] * n[i] * k[i];
        flops += fl / dup[i];
        time += fl / ts_gemm_efficiency(h, mm[i], n[i], k[i]);
    }
    return flops > 0 ? flops / time : 1;
}

/* Activation bytes per sample of one layer, by recomputation and sequence parallelism
 * (Korthikanti et al., eqs. 1-2 and section 5): selective recomputation and fused attention drop
 * the attention core's 5 a s^2 bytes, sequence parallelism splits the part tensor parallelism
 * keeps whole, context parallelism splits everything. */
static double ts_layer_act(const ts_layer *l, const ts_cost_opts *o, double T)
{
    double C = o->cp > 1 ? o->cp : 1;
    if (o->recompute)
        return (o->seqpar ? l->act_recompute_bytes / T : l->act_recompute_bytes) / C;
    double whole = l->act_whole_bytes, split = l->act_bytes - whole;
    if ((o->selective || o->fused) && l->gemm_tokens > 0 && l->gemm_h > 0) {
        /* 5 a s^2: the softmax output, its dropout mask and the dropped-out scores */
        split -= fmax(0, l->act_core_bytes);
    }
    /* Transformer Engine keeps an FP8 copy of each GEMM input for the weight gradient */
    if (o->fp8)
        split -= l->act_gemm_in_bytes / 2;
    return (o->seqpar ? (whole + split) / T : whole + split / T) / C;
}

/* The GEMM-shape factor at m tokens per GPU (ts_layer_gemm_factor takes b samples of s). */
static double ts_factor_at(const ts_layer *l, const ts_hardware *h, double m, int T, int etp)
{
    if (l->gemm_tokens <= 0)
        return 1;
    ts_layer x = *l;
    x.gemm_tokens = m;
    return ts_layer_gemm_factor_etp(&x, h, 1, T, etp);
}

/* Seconds of one forward's compute on one GPU: the linear GEMMs (FP8 when the profile says so)
 * and the attention core (core_s, BF16: at the GEMMs' rate unless fused, where a causal kernel
 * runs half the score pairs at attention_efficiency). */
static double ts_layer_compute(const ts_layer *l, const ts_hardware *h, const ts_cost_opts *o,
                               double *core_s)
{
    double b = o->b, T = o->T > 0 ? o->T : 1, C = o->cp > 1 ? o->cp : 1;
    double core = l->attn_flops * b / (T * C), lin = l->fwd_flops * b / (T * C) - core;
    if (!o->gemm_shape) {
        *core_s = core / ts_hw_flops(h);
        return (lin + core) / ts_hw_flops(h);
    }
    double e = h->gemm_efficiency > 0 ? h->gemm_efficiency : h->efficiency;
    double f = ts_factor_at(l, h, l->gemm_tokens * b / C, (int)T, o->etp);
    double bf16 = h->peak_tflops * 1e12 * e * f, rate = bf16;
    if (h->fp8 && h->peak_fp8_tflops > 0 && l->gemm_tokens > 0)
        rate = h->peak_fp8_tflops * 1e12 *
               (h->fp8_gemm_efficiency > 0 ? h->fp8_gemm_efficiency : e) * f;
    *core_s = core / bf16;
    if (o->fused && l->gemm_tokens > 0) {
        double ae = h->attention_efficiency > 0 ? h->attention_efficiency : e;
        double causal = strcmp(l->kind, "transformer") ? 1 : 0.5;
        *core_s = core * causal / (h->peak_tflops * 1e12 * ae);
    }
    return lin / rate + *core_s;
}

/* Context parallelism's ring (Liu et al., "Ring Attention", 2023; Megatron-Core's context
 * parallelism): cp - 1 steps pass each GPU's keys and values of s / cp tokens on, overlapped
 * with the attention core of the step before; the backward passes them again with their
 * gradients (twice the bytes). Returns the forward's exposed seconds; *bwd the backward's. */
static double ts_layer_ring(const ts_layer *l, const ts_hardware *h, const ts_cost_opts *o,
                            double core_s, double *bwd)
{
    *bwd = 0;
    if (o->cp <= 1 || l->kv_bytes <= 0)
        return 0;
    double C = o->cp, T = o->T > 0 ? o->T : 1;
    if (o->cp_allgather) {
        /* The Llama 3 paper's context parallelism (Llama Team 2024, section 3.3.2): each GPU
         * all-gathers the whole sequence's keys and values (split by T, their heads) before the
         * attention core, and its backward reduce-scatters their gradients; both exposed, the
         * paper relying on grouped-query attention's small keys and values rather than overlap */
        double n = l->kv_bytes * o->b / T;
        double ag = ts_hw_collective_s(h, TS_COLL_ALLGATHER, (int)T, o->cp, n) +
                    ts_hw_collective_lat_s(h, TS_COLL_ALLGATHER, (int)T, o->cp);
        *bwd = ts_hw_collective_s(h, TS_COLL_REDUCE_SCATTER, (int)T, o->cp, n) +
               ts_hw_collective_lat_s(h, TS_COLL_REDUCE_SCATTER, (int)T, o->cp);
        return ag;
    }
    /* keys and values split by T (their heads) on each GPU */
    double step = l->kv_bytes * o->b / (C * T) / ts_hw_group_bw(h, (int)T, o->cp);
    double ring = (C - 1) * step;
    *bwd = fmax(0, 2 * ring - 2 * core_s);
    return fmax(0, ring - core_s);
}

/* Context parallelism's ring merges each step's partial attention into the output (Transformer
 * Engine's AttnFuncWithCPAndKVP2P, transformer_engine/pytorch/attention/dot_product_attention/
 * context_parallel.py): the forward adds each of the cp steps' partial output, rescaled by its
 * softmax statistics, into the output (flash_attn_fwd_out_correction: out.add_(out_per_step *
 * exp(lse_step - lse))), and the backward accumulates each step's query gradient and the keys'
 * and values' gradients passed round the ring (bwd_dq_update, bwd_dkv_update: copy or add_).
 * Memory-bound PyTorch element-wise work: read the step's tensor, read and write the
 * accumulator, 6 bytes per element in bf16, per step. Returns the forward's seconds; *bwd the
 * backward's. The all-gather form computes the whole attention at once and merges nothing. */
static double ts_layer_cp_merge(const ts_layer *l, const ts_hardware *h, const ts_cost_opts *o,
                                double *bwd)
{
    *bwd = 0;
    if (o->cp <= 1 || o->cp_allgather || l->kv_bytes <= 0 || l->gemm_tokens <= 0 ||
        l->gemm_hq <= 0)
        return 0;
    double C = o->cp, T = o->T > 0 ? o->T : 1, bw = (h->hbm_gbs > 0 ? h->hbm_gbs : 2000) * 1e9;
    double tokens = l->gemm_tokens * o->b / C, hq = l->gemm_hq / T;
    double kv = (l->gemm_qkv > 0 ? l->gemm_qkv - l->gemm_hq : 2 * l->gemm_hq) / T;
    *bwd = 6 * C * tokens * (hq + kv) / bw;
    return 6 * C * tokens * hq / bw;
}

/* Expert parallelism's all-to-alls of one forward: dispatch and combine, each GPU sending its
 * tokens' (ep - 1) / ep share to the other GPUs of its group, the other nodes' share through
 * the network (ts_hw_alltoall_s; Megatron-Core's alltoall token dispatcher; with sequence
 * parallelism each tensor-parallel GPU sends its s / T tokens). The group's members lie etp
 * apart: Megatron-Core orders the expert ranks tp-ep-dp-pp with expert tensor parallelism
 * innermost (megatron/core/parallel_state.py, initialize_model_parallel's
 * expert_decoder_rank_generator). */
static double ts_layer_a2a(const ts_layer *l, const ts_hardware *h, const ts_cost_opts *o)
{
    if (l->experts <= 0 || o->ep <= 1)
        return 0;
    double T = o->T > 0 ? o->T : 1, C = o->cp > 1 ? o->cp : 1;
    int etp = o->etp > 0 ? o->etp : (int)T;
    double bytes = l->a2a_bytes * o->b / C / (o->seqpar ? T : 1);
    return 2 * ts_hw_alltoall_s(h, etp, o->ep, bytes);
}

/* An MoE layer's token permutation (Megatron-Core's token dispatcher): before the experts each
 * token's hidden state is copied once per chosen expert, grouped by expert (read h, write top_k
 * h), and after them the top_k outputs are read back and summed into one (read top_k h, write
 * h), bf16; with expert parallelism and more than one expert per GPU the received tokens are
 * sorted by local expert once more each way. Memory-bound: seconds of one forward at HBM
 * bandwidth (the backward moves the gradients the same way). Each tensor-parallel GPU permutes
 * its s / T tokens under sequence parallelism, all s otherwise. */
static double ts_layer_permute(const ts_layer *l, const ts_hardware *h, const ts_cost_opts *o)
{
    if (l->experts <= 0 || l->gemm_tokens <= 0)
        return 0;
    double T = o->T > 0 ? o->T : 1, C = o->cp > 1 ? o->cp : 1, k = l->top_k > 0 ? l->top_k : 1;
    double tokens = l->gemm_tokens * o->b / C / (o->seqpar ? T : 1);
    double sorts = o->ep > 1 && l->experts / o->ep > 1 ? 2 : 1;
    double bytes = sorts * 2 * 2 * l->gemm_h * (1 + k) * tokens;
    return bytes / ((h->hbm_gbs > 0 ? h->hbm_gbs : 2000) * 1e9);
}

/* Parameters a GPU holds of the layer: the dense ones split by T, the routed experts ep x etp
 * ways (expert parallelism, then expert tensor parallelism, T unless given). */
double ts_layer_held(const ts_layer *l, int T, int ep, int etp)
{
    double t = T > 0 ? T : 1, e = ep > 1 ? ep : 1, et = etp > 0 ? etp : t;
    return (l->params - l->expert_params) / t + l->expert_params / (e * et);
}

/* torchtitan's per-op selective activation checkpointing (torchtitan/models/llama3/
 * parallelize_llama.py, _apply_ac_to_transformer_block with selective_ac_option "op", at the
 * commit of its H200 benchmark): its policy saves the outputs of the ops in _save_list
 * (aten.mm, the scaled-dot-product attention kernels, reduce_scatter, max) except every second
 * mm of the block's forward, and recomputes everything else in the backward. torchtitan's
 * blocks call their linears in the order wq, wk, wv, wo, then w1, w3, w2 (SwiGLU; w1, w2
 * without a gate), so the recomputed ones are wk, wo and the feed-forward's h x f matrix: the
 * fraction of the block's linear GEMM FLOPs its backward runs again. */
double ts_layer_op_sac(const ts_layer *l)
{
    if (l->gemm_tokens <= 0 || l->gemm_h <= 0)
        return 0;
    double hq = l->gemm_hq, f = l->gemm_f, nm = l->gemm_nm > 0 ? l->gemm_nm : 2;
    double qkv = l->gemm_qkv > 0 ? l->gemm_qkv : 3 * hq, kv = (qkv - hq) / 2;
    double rows = l->gemm_ffn_rows > 0 ? l->gemm_ffn_rows : 1;
    return (kv + hq + rows * f) / (qkv + hq + rows * nm * f);
}

void ts_layer_cost_of(const ts_layer *l, const ts_hardware *h, const ts_cost_opts *o, int first_dev,
                      ts_layer_cost *c)
{
    double b = o->b, T = o->T > 0 ? o->T : 1, C = o->cp > 1 ? o->cp : 1, core_s;
    double comp = ts_layer_compute(l, h, o, &core_s);
    double ar = l->allreduces * ts_hw_allreduce_s(h, first_dev, (int)T, l->ar_bytes * b / C);
    /* The shape model adds the memory-bound element-wise work (norms, activations, softmax,
     * dropout): each stored activation byte written once and read once at HBM bandwidth in the
     * forward, twice that in the backward. */
    double elem = 0, elem_core = 0;
    if (o->gemm_shape) {
        ts_cost_opts plain = {
            .b = 1, .T = o->T, .seqpar = o->seqpar, .cp = o->cp, .fused = o->fused};
        double bw = (h->hbm_gbs > 0 ? h->hbm_gbs : 2000) * 1e9;
        elem = 2 * ts_layer_act(l, &plain, T) * b / bw;
        plain.selective = true;
        elem_core = fmax(0, elem - 2 * ts_layer_act(l, &plain, T) * b / bw);
    }
    /* FP8 (Transformer Engine) casts each GEMM input to FP8 before the GEMM, a memory-bound
     * pass reading 2 bytes and writing 1 per element: the forward's inputs, and the backward's
     * output gradients for both of its GEMMs (twice). Under current scaling the quantizer first
     * runs an amax kernel over the input (Float8CurrentScalingQuantizer::quantize_impl calls
     * nvte_compute_amax before the cast, transformer_engine/pytorch/csrc/quantizer.cpp): 2 bytes
     * more read per element. On a GPU whose FP8 GEMMs take only the TN layout (Hopper), the
     * backward's GEMMs need each cast input transposed: the quantizer writes the FP8 transpose
     * beside the FP8 copy in the same pass (Float8Quantizer::create_tensor allocates it when
     * columnwise usage is asked and !nvte_is_non_tn_fp8_gemm_supported(), transformer_engine/
     * pytorch/csrc/quantizer.cpp; the forward's inputs and the output gradients are both used
     * column-wise by the weight-gradient GEMM): 1 byte more written per element. */
    if (o->gemm_shape && o->fp8 && l->gemm_tokens > 0) {
        double bw = (h->hbm_gbs > 0 ? h->hbm_gbs : 2000) * 1e9;
        double pass = (h->fp8_current ? 2.5 : 1.5) + (h->fp8_tn_only ? 0.5 : 0);
        elem += pass * l->act_gemm_in_bytes * b / (T * C) / bw;
    }
    double ring_b, ring_f = ts_layer_ring(l, h, o, core_s, &ring_b), merge_b = 0;
    double merge_f = o->gemm_shape ? ts_layer_cp_merge(l, h, o, &merge_b) : 0;
    elem += merge_f;
    double a2a = ts_layer_a2a(l, h, o), perm = o->gemm_shape ? ts_layer_permute(l, h, o) : 0;
    c->cp_s = ring_f + ring_b;
    c->gemm_s = comp - core_s;
    c->a2a_s = 2 * a2a;
    c->fwd_s = comp + elem + ar + ring_f + a2a + perm;
    /* Backward is twice the forward's FLOPs: the input gradient and the weight gradient, one
     * forward's worth each; the all-reduces and all-to-alls of the forward recur in the
     * input-gradient half. A fused attention kernel's backward recomputes the scores (half
     * the core's forward again). Full recomputation repeats the forward (with its
     * collectives), selective only the attention core (nothing when fused: it is not stored). */
    double flash = o->fused && o->gemm_shape && l->gemm_tokens > 0 ? core_s / 2 : 0;
    double redo = o->recompute                ? comp + elem + ar + ring_f + a2a + perm
                  : o->selective && !o->fused ? core_s + elem_core
                                              : 0;
    if (o->selective && o->op_sac && o->gemm_shape && l->gemm_tokens > 0)
        redo = ts_layer_op_sac(l) * (comp - core_s) + elem + (o->fused ? 0 : core_s);
    c->bgrad_s = comp + flash + 2 * (elem - merge_f) + merge_b + ar + ring_b + a2a + perm + redo;
    c->wgrad_s = comp;
    c->out_bytes = l->out_bytes * b / C;
    if (o->infer) {
        c->static_bytes = ts_layer_held(l, (int)T, o->ep, o->etp) * TS_BYTES_PER_PARAM_INFER;
        c->act_bytes = 0;
        c->bgrad_s = c->wgrad_s = 0;
        return;
    }
    c->static_bytes =
        ts_layer_held(l, (int)T, o->ep, o->etp) *
        (o->param_bytes > 0 ? o->param_bytes : ts_zero_bytes_per_param(o->zero, o->dp));
    c->act_bytes = ts_layer_act(l, o, T) * b;
}

double ts_layer_slice_fwd_s(const ts_layer *l, const ts_hardware *h, const ts_cost_opts *o,
                            int first_dev, int seq, int prefix, int len)
{
    double b = o->b, T = o->T > 0 ? o->T : 1, frac = seq > 0 ? (double)len / seq : 1;
    double flops = l->slice_lin > 0
                       ? l->slice_lin * len + l->slice_attn * len * (double)(prefix + len)
                       : l->fwd_flops * frac;
    double ar = l->allreduces * ts_hw_allreduce_s(h, first_dev, (int)T, l->ar_bytes * b * frac);
    return flops * b / (ts_hw_flops(h) * T) + ar;
}
