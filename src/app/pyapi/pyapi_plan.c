/* Placements derived from models and parallel plans for Python: `tessel placement --model ...
 * --json` (the placement and the derivation's summary) and `tessel plan --json` (the ranking,
 * with the placement and schedule of every plan that fits). */
#include <stdlib.h>
#include <string.h>
#include "pyapi_internal.h"
#include "ts_plan.h"
#include "ts_plan_eval.h"

/* The integer options of `tessel placement --model`, with their flags and ranges. */
static int ts_py_derive_opts(json_t *req, ts_derive_opts *o, ts_err *e)
{
    struct {
        const char *flag;
        int *dst;
        long lo, hi, def;
    } ints[] = {
        {"gpus", &o->gpus, 1, 4096, 0},
        {"micro-batch-size", &o->b, 1, 65536, 1},
        {"tensor-parallel", &o->T, 1, 1024, 1},
        {"chunks", &o->chunks, 1, 64, 0},
        {"micro-batches", &o->nmicros, 1, 100000, 0},
        {"slices", &o->max_slices, 1, 64, 0},
        {"max-span", &o->max_span, 4, 100000, 0},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        char flag[40];
        long v;
        snprintf(flag, sizeof flag, "--%s", ints[i].flag);
        if (ts_py_long(req, ints[i].flag, flag, ints[i].lo, ints[i].hi, ints[i].def, &v, e))
            return TS_EINPUT;
        *ints[i].dst = (int)v;
    }
    if (ts_py_string(req, "strategy", &o->strategy, e) ||
        ts_py_bool(req, "recompute", &o->recompute, e) || ts_py_bool(req, "infer", &o->infer, e))
        return TS_EINPUT;
    return 0;
}

/* `tessel placement --model --json`'s summary. */
static json_t *ts_py_derive_json(const ts_model *m, const ts_hardware *h, const ts_derive_opts *o,
                                 const ts_derive_info *in)
{
    json_t *cuts = json_array(), *sl = json_array(), *units = json_array();
    for (int s = 0; s < in->stages && in->cuts; s++)
        json_array_append_new(cuts, json_string(m->layers[in->cuts[s]].name));
    for (int j = 0; j < in->nslices; j++)
        json_array_append_new(sl, json_integer(in->slice_tokens[j]));
    for (int d = 0; d < o->gpus; d++)
        json_array_append_new(units, json_real(in->memory_unit_dev[d]));
    return json_pack("{ss ss ss si si si si sb sf sf so sf sf sf sI so so}", "model", m->name,
                     "hardware", h->name, "strategy", o->strategy, "gpus", o->gpus,
                     "tensor_parallel", o->T, "micro_batch_size", o->b, "stages", in->stages,
                     "infer", o->infer, "time_unit_s", in->time_unit_s, "time_error",
                     in->time_error, "memory_unit_bytes", units, "memory_error", in->memory_error,
                     "state_bytes_max", in->static_bytes_max, "capacity_bytes", in->capacity_bytes,
                     "capacity", (json_int_t)in->capacity, "stage_first_layers", cuts,
                     "slice_tokens", sl);
}

/* The hardware overrides --efficiency and --workspace-gb. */
static int ts_py_hw_overrides(json_t *req, ts_hardware *h, ts_err *e)
{
    double eff, ws;
    if (ts_py_double(req, "efficiency", "--efficiency", 0.01, 1, -1, &eff, e) ||
        ts_py_double(req, "workspace-gb", "--workspace-gb", 0, 1e4, -1, &ws, e))
        return TS_EINPUT;
    if (eff > 0)
        h->efficiency = eff;
    if (ws >= h->hbm_gb)
        return ts_py_fail(e, TS_EINPUT, "--workspace-gb %g leaves nothing of %s's %g GB", ws,
                          h->name, h->hbm_gb);
    if (ws >= 0)
        h->workspace_gb = ws;
    return 0;
}

int ts_py_op_placement_model(json_t *req, const ts_py_hooks *hk, json_t **out, ts_err *e)
{
    (void)hk;
    const char *dir, *model, *hw;
    long seq;
    ts_derive_opts o = {0};
    if (ts_py_models_dir(req, &dir, e) || ts_py_string(req, "model", &model, e) ||
        ts_py_string(req, "hardware", &hw, e) ||
        ts_py_long(req, "seq", "--seq", 1, 10000000, 0, &seq, e) || ts_py_derive_opts(req, &o, e))
        return TS_EINPUT;
    if (!model || !hw || !o.gpus || !o.strategy)
        return ts_py_fail(e, TS_EINPUT,
                          "--model, --hardware, --gpus and --strategy are all "
                          "required with --model");
    ts_model *m;
    ts_hardware h = {0};
    ts_placement *p = NULL;
    ts_derive_info in = {0};
    ts_err de = {0};
    int rc = ts_py_model_load(dir, model, seq, hw, &m, &h, e);
    if (rc)
        return rc;
    if (!(rc = ts_py_hw_overrides(req, &h, e))) {
        if ((rc = ts_model_derive(m, &h, &o, &p, &in, &de)))
            ts_py_fail(e, de.code ? de.code : rc, "%s", de.msg);
        else
            *out = json_pack("{so so}", "placement", ts_placement_to_json(p), "summary",
                             ts_py_derive_json(m, &h, &o, &in));
    }
    ts_placement_free(p);
    ts_derive_info_clear(&in);
    ts_model_free(m);
    ts_hardware_clear(&h);
    return rc;
}
