/* Placements for Python: one from a built-in, a file or an object (as `tessel placement`), the
 * list of built-ins (`tessel placements`), and the lower bound (`tessel bound --json`, the bound
 * operation of ts_op_views.h). */
#include <stdlib.h>
#include "pyapi_internal.h"
#include "ts_op_views.h"

int ts_py_op_placement(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    ts_placement *p;
    char warning[TS_ERRLEN];
    int rc = ts_py_placement(req, &p, warning, sizeof warning, e);
    if (rc)
        return rc;
    *out = json_pack("{so}", "placement", ts_placement_to_json(p));
    if (*out && warning[0])
        json_object_set_new(*out, "warning", json_string(warning));
    ts_placement_free(p);
    return 0;
}

int ts_py_op_placements(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)req;
    (void)h;
    (void)e;
    json_t *list = json_array();
    for (int i = 0; list && i < ts_builtin_count(); i++) {
        const ts_builtin_info *b = ts_builtin_at(i);
        json_array_append_new(list, json_pack("{ss ss si si si sb}", "name", b->name, "description",
                                              b->description, "min_devs", b->min_devs, "max_devs",
                                              b->max_devs, "step_devs", b->step_devs, "chunks",
                                              b->chunks));
    }
    *out = json_pack("{so}", "placements", list);
    return 0;
}

/* The fields of a bound request besides its table's: the placement, as ts_py_placement reads
 * it. */
static const char *const ts_py_bound_extra[] = {"builtin", "ndevs",     "chunks", "infer",
                                                "file",    "placement", "where",  NULL};

/* `tessel bound --json` through the operations layer: the request's fields are the bound
 * table's (Placement.bound maps its keywords onto them). */
int ts_py_op_bound(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    if (ts_op_check_keys(&ts_op_bound, req, TS_FRONT_PY, ts_py_bound_extra, e))
        return TS_EINPUT;
    ts_placement *p;
    int rc = ts_py_placement(req, &p, NULL, 0, e);
    if (rc)
        return rc;
    ts_op_bound_req r;
    ts_op_bound_res res = {0};
    if ((rc = ts_op_bound_read(req, TS_FRONT_PY, p, &r, e)) == TS_OK &&
        (rc = ts_op_bound_run(p, &r, &res, e)) == TS_OK)
        *out = json_incref(res.json);
    ts_op_bound_res_free(&res);
    ts_op_bound_req_free(&r);
    ts_placement_free(p);
    return rc;
}
