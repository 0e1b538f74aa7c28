/* Models and plans for Python: `tessel model NAME --json`, `tessel placement --model ... --json`
 * (the derived placement with its summary) and `tessel plan --json` (with each fitting plan's
 * placement and schedule). Models are found in "models-dir", else $TESSEL_MODELS, else the
 * source tree's models/, as the command line finds them. */
#include <stdlib.h>
#include <string.h>
#include "pyapi_internal.h"
#include "ts_model.h"
#include "ts_results.h"
#include "ts_plan.h"
#include "ts_plan_eval.h"

#ifndef TS_MODELS_DIR
#define TS_MODELS_DIR "models"
#endif

int ts_py_models_dir(json_t *req, const char **dir, ts_err *e)
{
    if (ts_py_string(req, "models-dir", dir, e))
        return TS_EINPUT;
    const char *env = getenv("TESSEL_MODELS");
    if (!*dir)
        *dir = env && *env ? env : TS_MODELS_DIR;
    return 0;
}

int ts_py_model_load(const char *dir, const char *name, long seq, const char *hw, ts_model **m,
                     ts_hardware *h, ts_err *e)
{
    char path[4200];
    ts_err le = {0};
    *m = NULL;
    if (ts_model_path(dir, name, false, path, sizeof path, &le) ||
        ts_model_load(path, (int)seq, m, &le) ||
        (hw && (ts_model_path(dir, hw, true, path, sizeof path, &le) ||
                ts_hardware_load(path, h, &le)))) {
        ts_model_free(*m);
        *m = NULL;
        return ts_py_fail(e, le.code ? le.code : TS_EINPUT, "%s", le.msg);
    }
    return 0;
}

int ts_py_op_model(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    const char *dir, *name, *hw;
    long b, T, seq;
    bool rec;
    if (ts_py_models_dir(req, &dir, e) || ts_py_string(req, "name", &name, e) ||
        ts_py_string(req, "hardware", &hw, e) ||
        ts_py_long(req, "micro-batch-size", "--micro-batch-size", 1, 65536, 1, &b, e) ||
        ts_py_long(req, "tensor-parallel", "--tensor-parallel", 1, 1024, 1, &T, e) ||
        ts_py_long(req, "seq", "--seq", 1, 10000000, 0, &seq, e) ||
        ts_py_bool(req, "recompute", &rec, e))
        return TS_EINPUT;
    if (!name)
        return ts_py_fail(e, TS_EINPUT, "missing the model name");
    ts_model *m;
    ts_hardware hwd = {0};
    int rc = ts_py_model_load(dir, name, seq, hw, &m, &hwd, e);
    if (rc)
        return rc;
    ts_cost_opts co = {.b = (int)b, .T = (int)T, .recompute = rec};
    *out = ts_results_model_json(m, hw ? &hwd : NULL, &co);
    ts_model_free(m);
    ts_hardware_clear(&hwd);
    return 0;
}
