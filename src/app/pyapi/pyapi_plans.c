/* `tessel plan --json` for Python: the plans of a model on a cluster, each evaluated (derived,
 * searched, measured) by the results module and ranked by the core, with the placement and the
 * schedule of every plan that fits. */
#include <stdlib.h>
#include <string.h>
#include "pyapi_internal.h"
#include "ts_plan.h"
#include "ts_plan_eval.h"
#include "ts_time_limit.h"

/* The request's ts_plan_req (model and hardware left to the caller), as `tessel plan` checks. */
static int ts_py_plan_req(json_t *req, ts_plan_req *r, ts_err *e)
{
    long g, b, T;
    if (ts_py_long(req, "gpus", "--gpus", 1, 4096, 0, &g, e) ||
        ts_py_long(req, "micro-batch-size", "--micro-batch-size", 1, 4096, 0, &b, e) ||
        ts_py_long(req, "tensor-parallel", "--tensor-parallel", 1, 4096, 1, &T, e) ||
        ts_py_long(req, "global-batch", "--global-batch", 1, 100000000, 0, &r->global, e) ||
        ts_py_double(req, "time-limit", "--time-limit", TS_TIME_LIMIT_MIN, TS_TIME_LIMIT_MAX, 3,
                     &r->time_limit, e) ||
        ts_py_bool(req, "infer", &r->infer, e) || ts_py_bool(req, "recompute", &r->recompute, e))
        return TS_EINPUT;
    r->gpus = (int)g, r->b = (int)b, r->T = (int)T;
    if (!r->gpus || !r->global || !r->b)
        return ts_py_fail(e, TS_EINPUT,
                          "--model, --hardware, --gpus, --global-batch and "
                          "--micro-batch-size are all required");
    if (r->global % r->b)
        return ts_py_fail(e, TS_EINPUT,
                          "the global batch %ld is not a multiple of the micro-batch size %d",
                          r->global, r->b);
    if (r->gpus % r->T)
        return ts_py_fail(e, TS_EINPUT, "%d GPUs are not a multiple of tensor parallelism %d",
                          r->gpus, r->T);
    return 0;
}

/* The strategies asked for (a list of names), or none: every strategy of the model. */
static int ts_py_plan_names(json_t *req, const char **names, int max, int *n, ts_err *e)
{
    json_t *list = json_object_get(req, "strategies");
    size_t i;
    json_t *v;
    *n = -1;
    if (!list || json_is_null(list))
        return 0;
    if (!json_is_array(list))
        return ts_py_fail(e, TS_EINPUT, "--strategies: expected a list of names");
    *n = 0;
    json_array_foreach(list, i, v)
    {
        if (!json_is_string(v) || *n == max)
            return ts_py_fail(e, TS_EINPUT, "--strategies: bad entry %zu", i);
        names[(*n)++] = json_string_value(v);
    }
    return 0;
}

/* The ranking as `tessel plan --json` prints it, each plan that fits with its files. */
static json_t *ts_py_plans_json(const ts_plan_req *r, const ts_plan *pl, int n)
{
    json_t *arr = json_array();
    for (int i = 0; arr && i < n; i++) {
        json_t *j = ts_plan_json(&pl[i]);
        if (j && pl[i].ok && pl[i].p && pl[i].s) {
            json_object_set_new(j, "placement_json", ts_placement_to_json(pl[i].p));
            json_object_set_new(j, "schedule_text", ts_py_schedule_text(pl[i].s));
        }
        json_array_append_new(arr, j);
    }
    return json_pack("{ss ss si sI si si sb sb sf so}", "model", r->m->name, "hardware", r->h->name,
                     "gpus", r->gpus, "global_batch", (json_int_t)r->global, "micro_batch_size",
                     r->b, "tensor_parallel", r->T, "infer", r->infer, "recompute", r->recompute,
                     "time_limit_s", r->time_limit, "plans", arr);
}

/* Lists, evaluates and ranks the plans of r; *out gets the ranking. */
static int ts_py_plan_run(ts_plan_req *r, const char **names, int nnames, json_t **out, ts_err *e)
{
    ts_plan *pl = NULL;
    int n = 0;
    ts_err le = {0};
    int rc = ts_plan_list(r, nnames >= 0 ? names : NULL, nnames < 0 ? 0 : nnames, &pl, &n, &le);
    if (rc)
        return ts_py_fail(e, rc == TS_EINPUT ? TS_EINPUT : TS_ESYS, "%s", le.msg);
    for (int i = 0; i < n && !rc; i++)
        if (pl[i].N && ts_plan_eval(r, &pl[i]) < 0)
            rc = ts_py_fail(e, TS_ESYS, "out of memory");
    if (!rc) {
        ts_plan_rank(pl, n);
        if (n > 0 && pl[0].ok)
            *out = ts_py_plans_json(r, pl, n);
        else
            rc = ts_py_fail(e, TS_ENOANSWER, "no plan fits %s on %d x %s", r->m->name, r->gpus,
                            r->h->name);
    }
    for (int i = 0; i < n; i++)
        ts_plan_clear(&pl[i]);
    free(pl);
    return rc;
}

int ts_py_op_plan(json_t *req, const ts_py_hooks *hk, json_t **out, ts_err *e)
{
    (void)hk;
    const char *dir, *model, *hw, *names[64];
    int nnames;
    double eff;
    ts_plan_req r = {0};
    if (ts_py_models_dir(req, &dir, e) || ts_py_string(req, "model", &model, e) ||
        ts_py_string(req, "hardware", &hw, e) ||
        ts_py_double(req, "efficiency", "--efficiency", 0.01, 1, -1, &eff, e) ||
        ts_py_plan_names(req, names, 64, &nnames, e))
        return TS_EINPUT;
    if (!model || !hw)
        return ts_py_fail(e, TS_EINPUT,
                          "--model, --hardware, --gpus, --global-batch and "
                          "--micro-batch-size are all required");
    if (ts_py_plan_req(req, &r, e))
        return TS_EINPUT;
    ts_model *m;
    ts_hardware h = {0};
    int rc = ts_py_model_load(dir, model, 0, hw, &m, &h, e);
    if (rc)
        return rc;
    if (eff > 0)
        h.efficiency = eff;
    r.m = m;
    r.h = &h;
    rc = ts_py_plan_run(&r, names, nnames, out, e);
    ts_model_free(m);
    ts_hardware_clear(&h);
    return rc;
}
