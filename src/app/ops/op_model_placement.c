/* The model placement operation (`tessel placement --model`, tessel.placement_from_model, the
 * explorer's POST /api/model-placement): its option table, its request, and its run, which loads
 * the model and the GPU profile, derives the placement and builds the derivation's summary (what
 * `tessel placement --model -o FILE --json` prints) for every front end. */
#include <stdlib.h>
#include <string.h>
#include "ts_op_model.h"

#define TS_MP_ALL TS_FRONT_ALL, NULL

static const ts_op_option ts_op_mp_opts[] = {
    {"model", NULL, "model", 0, TS_OPV_TEXT, 0, 0, "NAME",
     "a model of the models folder, or a file (tessel-model/1)", TS_MP_ALL},
    {"hardware", NULL, "hardware", 0, TS_OPV_TEXT, 0, 0, "H", "a GPU profile (models/hardware)",
     TS_MP_ALL},
    {"gpus", NULL, "gpus", 0, TS_OPV_INT, 1, 4096, "D", "GPUs: T x the stages", TS_MP_ALL},
    {"strategy", NULL, "strategy", 0, TS_OPV_TEXT, 0, 0, "S",
     "1f1b, interleaved, zb, chimera, mshape, nnshape, kshape, mllm, alphafold, terapipe, tp, "
     "nnshape-eager (the model lists those that apply)",
     TS_MP_ALL},
    {"micro_batch_size", NULL, "micro-batch-size", 0, TS_OPV_INT, 1, 65536, "b",
     "samples per micro-batch; default 1", TS_MP_ALL},
    {"seq", NULL, "seq", 0, TS_OPV_INT, 1, 10000000, "s", "override the model's sequence length",
     TS_MP_ALL},
    {"tensor_parallel", NULL, "tensor-parallel", 0, TS_OPV_INT, 1, 1024, "T",
     "GPUs per stage; default 1", TS_MP_ALL},
    {"chunks", NULL, "chunks", 0, TS_OPV_INT, 1, 64, "v",
     "interleaved: model chunks per GPU; default 2", TS_MP_ALL},
    {"micro_batches", NULL, "micro-batches", 0, TS_OPV_INT, 1, 100000, "N",
     "micro-batches the stage DP plans for; default 2 x stages", TS_MP_ALL},
    {"slices", NULL, "slices", 0, TS_OPV_INT, 1, 64, "K",
     "terapipe: at most K token slices; default 4", TS_MP_ALL},
    {"max_span", NULL, "max-span", 0, TS_OPV_INT, 4, 100000, "M",
     "largest span the time unit may give; default 64", TS_MP_ALL},
    {"recompute", NULL, "recompute", 0, TS_OPV_FLAG, 0, 0, NULL, "full activation recomputation",
     TS_MP_ALL},
    {"infer", NULL, "infer", 0, TS_OPV_FLAG, 0, 0, NULL,
     "inference: forward blocks only, no activations kept", TS_MP_ALL},
    {"efficiency", NULL, "efficiency", 0, TS_OPV_NUM, 0.01, 1, "f",
     "achievable fraction of peak FLOP/s; default: the profile's", TS_MP_ALL},
    {"workspace_gb", NULL, "workspace-gb", 0, TS_OPV_NUM, 0, 1e4, "g",
     "memory kept free per GPU; default: the profile's", TS_MP_ALL},
    {"param_bytes", NULL, "param-bytes", 0, TS_OPV_NUM, 0.5, 64, "B",
     "training bytes per parameter (default 16: mixed-precision Adam; 8: fp16 weights, gradients "
     "and Adam state)",
     TS_MP_ALL},
    {"first_stage_param_cap_gb", NULL, "first-stage-param-cap-gb", 0, TS_OPV_NUM, 0.001, 1e6, "G",
     "the first stage holds at most G GiB of weights and optimizer state per GPU (a parameter "
     "limit, as in the Tessel authors' 1F1B baseline)",
     TS_MP_ALL},
    {"comm", NULL, "comm", 0, TS_OPV_TEXT, 0, 0, "overlap|sync",
     "overlap: sharded blocks' collectives and sends run beside other blocks; sync: both on the "
     "critical path; default: collectives in the block, sends as edge delays",
     TS_MP_ALL},
    {"models_dir", NULL, "models-dir", 0, TS_OPV_TEXT, 0, 0, "DIR",
     "the models folder; default $TESSEL_MODELS or the project's", TS_FRONT_CLI | TS_FRONT_PY,
     "the explorer's models are compiled into it (GET /api/models lists them)"},
    {"output", NULL, "output", 'o', TS_OPV_TEXT, 0, 0, "FILE",
     "write the placement there; default stdout", TS_FRONT_CLI,
     "Python returns a Placement (its save() writes the file); the explorer returns the "
     "placement to the page"},
    {"json", NULL, "json", 0, TS_OPV_FLAG, 0, 0, NULL,
     "the derivation summary as JSON (on stdout; needs -o)", TS_FRONT_CLI,
     "Python's Placement holds the summary as its .info; the explorer answers with the "
     "placement and its figures"},
};

const ts_op ts_op_model_placement = {"model_placement",
                                     "a placement derived from a model on GPUs by a strategy, "
                                     "with its units and the capacity per GPU",
                                     TS_OP_ON_NOTHING,
                                     "placement --model",
                                     "placement_from_model",
                                     "/api/model-placement",
                                     NULL,
                                     ts_op_mp_opts,
                                     (int)(sizeof ts_op_mp_opts / sizeof ts_op_mp_opts[0])};

/* The derivation's whole numbers, each by its row. */
static int ts_op_mp_ints(json_t *req, ts_front f, ts_op_model_placement_req *r, ts_err *e)
{
    const ts_op *op = &ts_op_model_placement;
    const struct {
        const char *key;
        int *dst;
    } ints[] = {{"gpus", &r->o.gpus},
                {"micro_batch_size", &r->o.b},
                {"seq", &r->seq},
                {"tensor_parallel", &r->o.T},
                {"chunks", &r->o.chunks},
                {"micro_batches", &r->o.nmicros},
                {"slices", &r->o.max_slices},
                {"max_span", &r->o.max_span}};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (ts_op_read_int(op, ints[i].key, req, f, ints[i].dst, e))
            return TS_EINPUT;
    return ts_op_read_flag(op, "recompute", req, f, &r->o.recompute, e) ||
                   ts_op_read_flag(op, "infer", req, f, &r->o.infer, e)
               ? TS_EINPUT
               : TS_OK;
}

/* The numbers (efficiency, workspace, bytes per parameter, the first stage's cap) and --comm. */
static int ts_op_mp_nums(json_t *req, ts_front f, ts_op_model_placement_req *r, ts_err *e)
{
    const ts_op *op = &ts_op_model_placement;
    double v;
    bool given;
    const char *comm;
    if (ts_op_read_num(op, "efficiency", req, f, &r->efficiency, &given, e) ||
        ts_op_read_num(op, "workspace_gb", req, f, &r->workspace_gb, &given, e) ||
        ts_op_read_num(op, "param_bytes", req, f, &r->o.param_bytes, &given, e) ||
        ts_op_read_num(op, "first_stage_param_cap_gb", req, f, &v, &given, e))
        return TS_EINPUT;
    /* GiB, as the authors' limit (their planner compares with GB * 1024^3) */
    if (given)
        r->o.first_stage_param_cap = v * 1073741824.0;
    if (ts_op_read_text(op, "comm", req, f, &comm, &given, e))
        return TS_EINPUT;
    if (given && !strcmp(comm, "overlap"))
        r->o.comm = TS_COMM_OVERLAP;
    else if (given && !strcmp(comm, "sync"))
        r->o.comm = TS_COMM_SYNC;
    else if (given) {
        char name[96];
        return ts_fail(e, TS_EINPUT, "%s takes overlap or sync, not '%s'",
                       ts_op_field(ts_op_option_find(op, "comm"), f, name, sizeof name), comm);
    }
    return TS_OK;
}

int ts_op_model_placement_read(json_t *req, ts_front f, ts_op_model_placement_req *r, ts_err *e)
{
    static const char *const required[] = {"model", "hardware", "gpus", "strategy", NULL};
    const ts_op *op = &ts_op_model_placement;
    memset(r, 0, sizeof *r);
    r->front = f;
    r->o.b = r->o.T = 1;
    r->efficiency = r->workspace_gb = -1;
    if (!json_is_object(req))
        return ts_fail(e, TS_EINPUT, "model_placement: the request is not an object");
    if (ts_op_read_name(op, "model", req, f, &r->model, e) ||
        ts_op_read_name(op, "hardware", req, f, &r->hardware, e) ||
        ts_op_read_name(op, "strategy", req, f, &r->strategy, e) ||
        ts_op_read_name(op, "models_dir", req, f, &r->dir, e) || ts_op_mp_ints(req, f, r, e) ||
        ts_op_mp_nums(req, f, r, e))
        return e->code;
    r->o.strategy = r->strategy;
    return ts_op_require(op, req, f, required, f == TS_FRONT_CLI ? " with --model" : NULL, e);
}

void ts_op_model_placement_req_free(ts_op_model_placement_req *r)
{
    free(r->model);
    free(r->hardware);
    free(r->strategy);
    free(r->dir);
    memset(r, 0, sizeof *r);
}

/* The GPU profile as the request amends it: its efficiency and workspace. */
static int ts_op_mp_amend(const ts_op_model_placement_req *r, ts_hardware *h, ts_err *e)
{
    if (r->efficiency > 0)
        h->efficiency = r->efficiency;
    if (r->workspace_gb >= h->hbm_gb) {
        char name[96];
        const ts_op_option *o = ts_op_option_find(&ts_op_model_placement, "workspace_gb");
        return ts_fail(e, TS_EINPUT, "%s %g leaves nothing of %s's %g GB",
                       ts_op_field(o, r->front, name, sizeof name), r->workspace_gb, h->name,
                       h->hbm_gb);
    }
    if (r->workspace_gb >= 0)
        h->workspace_gb = r->workspace_gb;
    return TS_OK;
}

/* The derivation's summary: the stages' first layers, the units, the capacity. */
static json_t *ts_op_mp_summary(const ts_op_model_placement_res *res, const ts_derive_opts *o)
{
    const ts_derive_info *in = &res->in;
    const ts_model *m = res->m;
    json_t *cuts = json_array(), *sl = json_array(), *units = json_array();
    for (int s = 0; s < in->stages && in->cuts; s++)
        json_array_append_new(cuts, json_string(m->layers[in->cuts[s]].name));
    for (int j = 0; j < in->nslices; j++)
        json_array_append_new(sl, json_integer(in->slice_tokens[j]));
    for (int d = 0; d < o->gpus; d++)
        json_array_append_new(units, json_real(in->memory_unit_dev[d]));
    return json_pack("{ss ss ss si si si si sb sf sf so sf sf sf sI so so}", "model", m->name,
                     "hardware", res->h.name, "strategy", o->strategy, "gpus", o->gpus,
                     "tensor_parallel", o->T, "micro_batch_size", o->b, "stages", in->stages,
                     "infer", o->infer, "time_unit_s", in->time_unit_s, "time_error",
                     in->time_error, "memory_unit_bytes", units, "memory_error", in->memory_error,
                     "state_bytes_max", in->static_bytes_max, "capacity_bytes", in->capacity_bytes,
                     "capacity", (json_int_t)in->capacity, "stage_first_layers", cuts,
                     "slice_tokens", sl);
}

int ts_op_model_placement_run(const ts_op_model_placement_req *r, ts_op_model_placement_res *res,
                              ts_err *e)
{
    memset(res, 0, sizeof *res);
    int rc = ts_op_models_load(r->dir, r->load, r->load_ud, r->model, r->seq, r->hardware, &res->m,
                               &res->h, e);
    if (rc == TS_OK)
        rc = ts_op_mp_amend(r, &res->h, e);
    if (rc == TS_OK)
        rc = ts_model_derive(res->m, &res->h, &r->o, &res->p, &res->in, e);
    if (rc)
        return rc;
    res->summary = ts_op_mp_summary(res, &r->o);
    return res->summary ? TS_OK : ts_fail(e, TS_ESYS, "model_placement: out of memory");
}

void ts_op_model_placement_res_free(ts_op_model_placement_res *res)
{
    ts_placement_free(res->p);
    ts_derive_info_clear(&res->in);
    ts_model_free(res->m);
    ts_hardware_clear(&res->h);
    json_decref(res->summary);
    memset(res, 0, sizeof *res);
}
