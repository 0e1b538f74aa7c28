/* The cost model: a layer's time and memory on a GPU, from its FLOPs and bytes (formulas and
 * sources in models/README.md). */
#include "ts_model.h"

double ts_hw_flops(const ts_hardware *h)
{
    return h->peak_tflops * 1e12 * h->efficiency;
}

double ts_hw_link_bw(const ts_hardware *h, int a, int b)
{
    bool same = a / h->gpus_per_node == b / h->gpus_per_node;
    return (same ? h->nvlink_gbs : h->internode_gbs) * 1e9;
}

double ts_hw_allreduce_s(const ts_hardware *h, int first, int T, double n)
{
    if (T <= 1 || n <= 0)
        return 0;
    /* A ring is as fast as its slowest link: NVLink inside one node, the network otherwise. */
    double bw = ts_hw_link_bw(h, first, first + T - 1);
    return 2.0 * (T - 1) / T * n / bw;
}

void ts_layer_cost_of(const ts_layer *l, const ts_hardware *h, const ts_cost_opts *o, int first_dev,
                      ts_layer_cost *c)
{
    double b = o->b, T = o->T > 0 ? o->T : 1;
    double comp = l->fwd_flops * b / (ts_hw_flops(h) * T);
    double ar = l->allreduces * ts_hw_allreduce_s(h, first_dev, (int)T, l->ar_bytes * b);
    c->fwd_s = comp + ar;
    /* Backward is twice the forward's FLOPs: the input gradient and the weight gradient, one
     * forward's worth each; the all-reduces of the forward recur in the input-gradient half. */
    c->bgrad_s = comp + ar + (o->recompute ? comp + ar : 0);
    c->wgrad_s = comp;
    c->out_bytes = l->out_bytes * b;
    if (o->infer) {
        c->static_bytes = l->params * TS_BYTES_PER_PARAM_INFER / T;
        c->act_bytes = 0;
        c->bgrad_s = c->wgrad_s = 0;
        return;
    }
    c->static_bytes = l->params * TS_BYTES_PER_PARAM_TRAIN / T;
    if (o->recompute)
        c->act_bytes = l->act_recompute_bytes * b;
    else
        c->act_bytes = (l->act_whole_bytes + (l->act_bytes - l->act_whole_bytes) / T) * b;
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
