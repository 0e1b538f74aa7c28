/* `tessel model --json`'s object: a model description's per-layer table, with each layer's times
 * and memory on a GPU when one is given. The command line and the Python package print the same
 * object, so it is built once here. */
#include "ts_model.h"
#include "ts_results.h"

/* One layer's row; with hardware h, its forward and backward seconds and its memory under co. */
static json_t *ts_results_layer_json(const ts_layer *l, const ts_hardware *h,
                                     const ts_cost_opts *co)
{
    json_t *x = json_pack("{ss ss ss sf sf sb sf sf}", "name", l->name, "kind", l->kind, "branch",
                          l->branch, "fwd_flops", l->fwd_flops, "params", l->params, "shared",
                          l->shared, "act_bytes", l->act_bytes, "out_bytes", l->out_bytes);
    /* attention and experts: what tensor and expert parallelism must divide */
    if (x && l->heads > 0) {
        json_t *a = json_pack("{si si}", "heads", l->heads, "kv_heads", l->kv_heads);
        json_object_update(x, a);
        json_decref(a);
    }
    if (x && l->experts > 0) {
        json_t *a = json_pack("{si si sf}", "experts", l->experts, "top_k", l->top_k,
                              "expert_params", l->expert_params);
        json_object_update(x, a);
        json_decref(a);
    }
    if (h && x) {
        ts_layer_cost c;
        ts_layer_cost_of(l, h, co, 0, &c);
        json_object_set_new(x, "fwd_s", json_real(c.fwd_s));
        json_object_set_new(x, "bwd_s", json_real(c.bgrad_s + c.wgrad_s));
        json_object_set_new(x, "state_bytes", json_real(c.static_bytes));
        json_object_set_new(x, "act_bytes_per_micro_batch", json_real(c.act_bytes));
    }
    return x;
}

json_t *ts_results_model_json(const ts_model *m, const ts_hardware *h, const ts_cost_opts *co)
{
    json_t *j = json_pack("{ss ss ss si si sf sf}", "model", m->name, "description", m->description,
                          "source", m->source, "seq", m->seq, "recycles", m->recycles, "params",
                          ts_model_params(m), "fwd_flops_per_sample", ts_model_fwd_flops(m));
    json_t *st = json_array(), *ls = json_array();
    for (int i = 0; i < m->nstrategies; i++)
        json_array_append_new(st, json_string(m->strategies[i]));
    for (int i = 0; i < m->nlayers; i++)
        json_array_append_new(ls, ts_results_layer_json(&m->layers[i], h, co));
    json_object_set_new(j, "strategies", st);
    json_object_set_new(j, "layers", ls);
    if (h)
        json_object_set_new(j, "hardware",
                            json_pack("{ss si si sb}", "name", h->name, "micro_batch_size", co->b,
                                      "tensor_parallel", co->T, "recompute", co->recompute));
    return j;
}
