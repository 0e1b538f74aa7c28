/* `tessel compare` for Python, through the operations layer: the request's fields are the compare
 * table's keys (tessel.compare maps its keywords onto them), the rows run in this process one
 * after the other, and the reply is one object per row with the columns of `tessel compare
 * --csv`. */
#include <stdlib.h>
#include <string.h>
#include "pyapi_internal.h"
#include "ts_op_compare.h"

/* The fields of a compare request besides its option table's: the placement, as ts_py_placement
 * reads it. */
static const char *const ts_py_cmp_extra[] = {"builtin", "ndevs",     "chunks", "infer",
                                              "file",    "placement", "where",  NULL};

/* One row as the columns of `tessel compare --csv` (null where the CSV cell is empty). */
static json_t *ts_py_cmp_row(const ts_op_compare_req *q, const ts_compare_row *r)
{
    const ts_placement *p = q->p;
    const char *source = r->greedy   ? "greedy"
                         : r->search ? "search"
                         : r->file   ? "file"
                                     : "baseline";
    json_t *j = json_pack("{ss si si so ss ss}", "placement", p->name, "ndevs", p->ndevs,
                          "micro_batches", q->n, "memory", ts_op_compare_memory_json(q), "method",
                          r->method, "source", source);
    if (!j)
        return NULL;
    json_object_set_new(j, "k", r->k > 0 ? json_integer(r->k) : json_null());
    json_object_set_new(j, "period", r->period > 0 ? json_integer(r->period) : json_null());
    json_object_set_new(j, "makespan", r->ok ? json_integer(r->makespan) : json_null());
    json_object_set_new(j, "lower_bound", r->ok ? json_integer(r->lower_bound) : json_null());
    json_object_set_new(j, "makespan_over_lb",
                        r->ok && r->lower_bound > 0
                            ? json_real((double)r->makespan / (double)r->lower_bound)
                            : json_null());
    json_object_set_new(j, "bubble_rate", r->ok ? json_real(r->bubble_rate) : json_null());
    json_object_set_new(j, "peak_memory",
                        r->ok ? ts_py_long_array(r->peak, p->ndevs) : json_null());
    json_object_set_new(j, "fits", r->ok && q->cap ? json_boolean(r->fits) : json_null());
    json_object_set_new(j, "best", json_boolean(r->ok && r->best));
    json_object_set_new(j, "seconds", json_real(r->seconds));
    json_object_set_new(j, "status", json_string(r->status));
    return j;
}

int ts_py_op_compare(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    if (ts_op_check_keys(&ts_op_compare, req, TS_FRONT_PY, ts_py_cmp_extra, e))
        return TS_EINPUT;
    ts_placement *p;
    int rc = ts_py_placement(req, &p, NULL, 0, e);
    if (rc)
        return rc;
    ts_op_compare_req r;
    ts_op_compare_res res = {0};
    rc = ts_op_compare_read(req, TS_FRONT_PY, p, &r, e);
    if (rc == TS_OK)
        rc = ts_op_compare_run(&r, &res, e);
    if (rc == TS_OK) {
        json_t *list = json_array();
        for (int i = 0; list && i < res.nrows; i++)
            json_array_append_new(list, ts_py_cmp_row(&r, &res.rows[i]));
        *out = json_pack("{so sI ss}", "rows", list, "lower_bound", (json_int_t)res.lb.value,
                         "binding", ts_bound_term_name(res.lb.binding));
        rc = *out ? TS_OK : ts_py_fail(e, TS_ESYS, "out of memory");
    }
    ts_op_compare_res_free(&res);
    ts_op_compare_req_free(&r);
    ts_placement_free(p);
    return rc;
}
