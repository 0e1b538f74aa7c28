/* The model operation (`tessel model NAME`, tessel.model): its option table, its request, and
 * its run, which loads the model and builds `tessel model --json`'s object (ts_results_model_json)
 * for every front end; and where every model operation finds its models. */
#include <stdlib.h>
#include <string.h>
#include "ts_op_model.h"
#include "ts_results.h"

#define TS_NO_ROUTE "the explorer has no route for it"

static const ts_op_option ts_op_model_opts[] = {
    {"hardware", NULL, "hardware", 0, TS_OPV_TEXT, 0, 0, "H",
     "add per-layer times and memory on GPU H (models/hardware)", TS_FRONT_CLI | TS_FRONT_PY,
     TS_NO_ROUTE},
    {"micro_batch_size", NULL, "micro-batch-size", 0, TS_OPV_INT, 1, 65536, "b",
     "samples per micro-batch for those columns; default 1", TS_FRONT_CLI | TS_FRONT_PY,
     TS_NO_ROUTE},
    {"tensor_parallel", NULL, "tensor-parallel", 0, TS_OPV_INT, 1, 1024, "T",
     "split each layer over T GPUs; default 1", TS_FRONT_CLI | TS_FRONT_PY, TS_NO_ROUTE},
    {"recompute", NULL, "recompute", 0, TS_OPV_FLAG, 0, 0, NULL, "full activation recomputation",
     TS_FRONT_CLI | TS_FRONT_PY, TS_NO_ROUTE},
    {"seq", NULL, "seq", 0, TS_OPV_INT, 1, 10000000, "s", "override the model's sequence length",
     TS_FRONT_CLI | TS_FRONT_PY, TS_NO_ROUTE},
    {"json", NULL, "json", 0, TS_OPV_FLAG, 0, 0, NULL, "print JSON instead of the table",
     TS_FRONT_CLI, "Python answers with that object; the explorer has no route for it"},
    {"models_dir", NULL, "models-dir", 0, TS_OPV_TEXT, 0, 0, "DIR",
     "the models folder; default $TESSEL_MODELS or the project's", TS_FRONT_CLI | TS_FRONT_PY,
     TS_NO_ROUTE},
};

const ts_op ts_op_model = {"model",
                           "a model description's per-layer table, with each layer's times and "
                           "memory on a GPU",
                           TS_OP_ON_MODEL,
                           "model",
                           "model",
                           NULL,
                           NULL,
                           ts_op_model_opts,
                           (int)(sizeof ts_op_model_opts / sizeof ts_op_model_opts[0])};

const char *ts_op_models_dir(const char *dir, char *buf, size_t cap)
{
    return dir ? dir : ts_models_dir(buf, cap);
}

/* The model and the hardware from files of the folder dir. */
static int ts_op_models_files(const char *dir, const char *name, int seq, const char *hw,
                              ts_model **m, ts_hardware *h, ts_err *e)
{
    char path[4200], found[TS_PATH_MAX];
    dir = ts_op_models_dir(dir, found, sizeof found);
    if (ts_model_path(dir, name, false, path, sizeof path, e) || ts_model_load(path, seq, m, e))
        return e->code ? e->code : TS_EINPUT;
    if (hw && (ts_model_path(dir, hw, true, path, sizeof path, e) || ts_hardware_load(path, h, e)))
        return e->code ? e->code : TS_EINPUT;
    return TS_OK;
}

int ts_op_models_load(const char *dir, ts_op_model_loader load, void *ud, const char *name, int seq,
                      const char *hw, ts_model **m, ts_hardware *h, ts_err *e)
{
    int rc;
    *m = NULL;
    if (load) {
        rc = load(ud, name, false, seq, m, NULL, e);
        if (rc == TS_OK && hw)
            rc = load(ud, hw, true, 0, NULL, h, e);
    } else {
        rc = ts_op_models_files(dir, name, seq, hw, m, h, e);
    }
    if (rc) {
        ts_model_free(*m);
        *m = NULL;
        if (hw)
            ts_hardware_clear(h);
    }
    return rc;
}

int ts_op_model_read(json_t *req, ts_front f, const char *name, ts_op_model_req *r, ts_err *e)
{
    const ts_op *op = &ts_op_model;
    memset(r, 0, sizeof *r);
    r->co.b = r->co.T = 1;
    if (!json_is_object(req))
        return ts_fail(e, TS_EINPUT, "model: the request is not an object");
    if (!name || !*name)
        return ts_fail(e, TS_EINPUT, "missing the model name");
    if (!(r->name = strdup(name)))
        return ts_fail(e, TS_ESYS, "out of memory");
    if (ts_op_read_name(op, "hardware", req, f, &r->hardware, e) ||
        ts_op_read_name(op, "models_dir", req, f, &r->dir, e) ||
        ts_op_read_int(op, "micro_batch_size", req, f, &r->co.b, e) ||
        ts_op_read_int(op, "tensor_parallel", req, f, &r->co.T, e) ||
        ts_op_read_int(op, "seq", req, f, &r->seq, e) ||
        ts_op_read_flag(op, "recompute", req, f, &r->co.recompute, e))
        return e->code;
    return TS_OK;
}

void ts_op_model_req_free(ts_op_model_req *r)
{
    free(r->name);
    free(r->dir);
    free(r->hardware);
    memset(r, 0, sizeof *r);
}

int ts_op_model_run(const ts_op_model_req *r, ts_op_model_res *res, ts_err *e)
{
    memset(res, 0, sizeof *res);
    int rc =
        ts_op_models_load(r->dir, NULL, NULL, r->name, r->seq, r->hardware, &res->m, &res->h, e);
    if (rc)
        return rc;
    res->has_hw = r->hardware != NULL;
    res->json = ts_results_model_json(res->m, res->has_hw ? &res->h : NULL, &r->co);
    return res->json ? TS_OK : ts_fail(e, TS_ESYS, "model: out of memory for its table");
}

void ts_op_model_res_free(ts_op_model_res *res)
{
    ts_model_free(res->m);
    ts_hardware_clear(&res->h);
    json_decref(res->json);
    memset(res, 0, sizeof *res);
}
