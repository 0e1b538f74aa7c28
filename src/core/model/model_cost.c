/* The cost model: a layer's time and memory on a GPU, from its FLOPs and bytes (formulas and
 * sources in models/README.md). The collectives live in model_comm.c. */
#include <math.h>
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
    if (l->gemm_tokens <= 0 || l->gemm_h <= 0)
        return 1;
    double m = l->gemm_tokens * b, hh = l->gemm_h, hq = l->gemm_hq, f = l->gemm_f;
    double nm = l->gemm_nm > 0 ? l->gemm_nm : 2, t = T > 0 ? T : 1;
    double qkv = l->gemm_qkv > 0 ? l->gemm_qkv : 3 * hq;
    /* an MoE layer's experts run as one grouped GEMM over every routed copy of a token */
    double rows = l->gemm_ffn_rows > 0 ? l->gemm_ffn_rows : 1;
    /* (n, k) of each GEMM per GPU under Megatron's split: QKV and the first feed-forward
     * matrices split their outputs, the attention output and the second split their inputs. */
    double n[4] = {qkv / t, hh, (nm - 1) * f / t, hh};
    double k[4] = {hh, hq / t, hh, f / t};
    double mm[4] = {m, m, m * rows, m * rows};
    double flops = 0, time = 0;
    for (int i = 0; i < 4; i++) {
        double fl = 2 * mm[i] * n[i] * k[i];
        flops += fl;
        time += fl / ts_gemm_efficiency(h, mm[i], n[i], k[i]);
    }
    return flops > 0 ? flops / time : 1;
}

/* Activation bytes per sample of one layer, by recomputation and sequence parallelism
 * (Korthikanti et al., eqs. 1-2 and section 5): selective drops the attention core's
 * 5 a s^2 bytes, sequence parallelism splits the part tensor parallelism keeps whole. */
static double ts_layer_act(const ts_layer *l, const ts_cost_opts *o, double T)
{
    if (o->recompute)
        return o->seqpar ? l->act_recompute_bytes / T : l->act_recompute_bytes;
    double whole = l->act_whole_bytes, split = l->act_bytes - whole;
    if (o->selective && l->gemm_tokens > 0 && l->gemm_h > 0) {
        /* 5 a s^2: the softmax output, its dropout mask and the dropped-out scores */
        split -= fmax(0, l->act_core_bytes);
    }
    return o->seqpar ? (whole + split) / T : whole + split / T;
}

/* The shape model's seconds per FLOP at micro-batch b on T GPUs: the fraction of peak large GEMMs
 * reach (gemm_efficiency) times the layer's GEMM-shape factor. */
static double ts_shape_flops(const ts_layer *l, const ts_hardware *h, int b, int T)
{
    double e = h->gemm_efficiency > 0 ? h->gemm_efficiency : h->efficiency;
    return h->peak_tflops * 1e12 * e * ts_layer_gemm_factor(l, h, b, T);
}

void ts_layer_cost_of(const ts_layer *l, const ts_hardware *h, const ts_cost_opts *o, int first_dev,
                      ts_layer_cost *c)
{
    double b = o->b, T = o->T > 0 ? o->T : 1;
    double fl = o->gemm_shape ? ts_shape_flops(l, h, o->b, (int)T) : ts_hw_flops(h);
    double comp = l->fwd_flops * b / (fl * T);
    double ar = l->allreduces * ts_hw_allreduce_s(h, first_dev, (int)T, l->ar_bytes * b);
    /* The shape model adds the memory-bound element-wise work (norms, activations, softmax,
     * dropout): each stored activation byte written once and read once at HBM bandwidth in the
     * forward, twice that in the backward. */
    double elem = 0, elem_core = 0;
    if (o->gemm_shape) {
        ts_cost_opts plain = {.b = 1, .T = o->T, .seqpar = o->seqpar};
        double bw = (h->hbm_gbs > 0 ? h->hbm_gbs : 2000) * 1e9;
        elem = 2 * ts_layer_act(l, &plain, T) * b / bw;
        plain.selective = true;
        elem_core = fmax(0, elem - 2 * ts_layer_act(l, &plain, T) * b / bw);
    }
    c->fwd_s = comp + elem + ar;
    /* Backward is twice the forward's FLOPs: the input gradient and the weight gradient, one
     * forward's worth each; the all-reduces of the forward recur in the input-gradient half.
     * Full recomputation repeats the forward (with its all-reduces), selective only the
     * attention core. */
    double redo = o->recompute   ? comp + elem + ar
                  : o->selective ? l->attn_flops * b / (fl * T) + elem_core
                                 : 0;
    c->bgrad_s = comp + 2 * elem + ar + redo;
    c->wgrad_s = comp;
    c->out_bytes = l->out_bytes * b;
    if (o->infer) {
        c->static_bytes = l->params * TS_BYTES_PER_PARAM_INFER / T;
        c->act_bytes = 0;
        c->bgrad_s = c->wgrad_s = 0;
        return;
    }
    c->static_bytes =
        l->params *
        (o->param_bytes > 0 ? o->param_bytes : ts_zero_bytes_per_param(o->zero, o->dp)) / T;
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
