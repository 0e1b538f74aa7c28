/* Models for Python, through the operations layer: tessel.model (`tessel model NAME --json`) and
 * tessel.placement_from_model (`tessel placement --model ... -o FILE --json`: the placement and
 * the derivation's summary). The request's fields are the operations' table keys (the package
 * maps its keywords onto them); models are found in models_dir, else $TESSEL_MODELS, else the
 * source tree's models/, as the command line finds them. */
#include "pyapi_internal.h"
#include "ts_op_model.h"

int ts_py_op_model(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    static const char *const extra[] = {"name", NULL};
    const char *name;
    if (ts_op_check_keys(&ts_op_model, req, TS_FRONT_PY, extra, e) ||
        ts_py_string(req, "name", &name, e))
        return TS_EINPUT;
    ts_op_model_req r;
    ts_op_model_res res = {0};
    int rc = ts_op_model_read(req, TS_FRONT_PY, name, &r, e);
    if (rc == TS_OK)
        rc = ts_op_model_run(&r, &res, e);
    if (rc == TS_OK)
        *out = json_incref(res.json);
    ts_op_model_res_free(&res);
    ts_op_model_req_free(&r);
    return rc;
}

int ts_py_op_placement_model(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    if (ts_op_check_keys(&ts_op_model_placement, req, TS_FRONT_PY, NULL, e))
        return TS_EINPUT;
    ts_op_model_placement_req r;
    ts_op_model_placement_res res = {0};
    int rc = ts_op_model_placement_read(req, TS_FRONT_PY, &r, e);
    if (rc == TS_OK)
        rc = ts_op_model_placement_run(&r, &res, e);
    if (rc == TS_OK) {
        *out =
            json_pack("{so sO}", "placement", ts_placement_to_json(res.p), "summary", res.summary);
        rc = *out ? TS_OK : ts_py_fail(e, TS_ESYS, "out of memory");
    }
    ts_op_model_placement_res_free(&res);
    ts_op_model_placement_req_free(&r);
    return rc;
}
