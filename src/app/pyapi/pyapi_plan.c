/* tessel.plan (`tessel plan --json`) for Python, through the operations layer: the request's
 * fields are the plan table's keys (the package maps its keywords onto them), the run is the
 * command line's (ts_op_plan_run), and the answer is its JSON with, for each searched plan that
 * fits, its placement and schedule. */
#include "pyapi_internal.h"
#include "ts_op_plan.h"

/* The ranking, each searched plan that fits with its placement and schedule file. */
static json_t *ts_py_plans_json(const ts_op_plan_res *res)
{
    json_t *j = ts_op_plan_json(res);
    json_t *plans = json_object_get(j, "plans");
    for (int i = 0; plans && i < res->n; i++) {
        const ts_plan *pl = &res->pl[i];
        json_t *x = json_array_get(plans, (size_t)i);
        if (x && pl->ok && pl->searched && pl->p && pl->s) {
            json_object_set_new(x, "placement_json", ts_placement_to_json(pl->p));
            json_object_set_new(x, "schedule_text", ts_py_schedule_text(pl->s));
        }
    }
    return j;
}

int ts_py_op_plan(json_t *req, const ts_py_hooks *hk, json_t **out, ts_err *e)
{
    if (ts_op_check_keys(&ts_op_plan, req, TS_FRONT_PY, NULL, e))
        return TS_EINPUT;
    ts_op_plan_req r;
    ts_op_plan_res res = {0};
    int rc = ts_op_plan_read(req, TS_FRONT_PY, &r, e);
    r.r.cancel = hk->cancel;
    if (rc == TS_OK)
        rc = ts_op_plan_run(&r, &res, e);
    if (rc == TS_OK && !res.fits)
        rc = ts_py_fail(e, TS_ENOANSWER, "no plan fits %s on %d x %s", res.m->name, res.r.gpus,
                        res.h.name);
    if (rc == TS_OK)
        rc = (*out = ts_py_plans_json(&res)) ? TS_OK : ts_py_fail(e, TS_ESYS, "out of memory");
    ts_op_plan_res_free(&res);
    ts_op_plan_req_free(&r);
    return rc;
}
