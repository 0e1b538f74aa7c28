/* Searches and baselines for Python: `tessel search` (with progress and cancel hooks) and `tessel
 * baseline`, each through the operations layer and answered with the schedule's file text and
 * the figures the command prints with --json; and the operations' option tables. */
#include <stdlib.h>
#include <string.h>
#include "pyapi_internal.h"
#include "ts_op_baseline.h"
#include "ts_op_search.h"
#include "ts_solver.h"

/* Hands the solver's progress to the caller's hook. */
static void ts_py_progress(void *ud, const ts_search_progress *p)
{
    const ts_py_hooks *h = ud;
    h->progress(h->progress_ud, p->phase, p->tried, p->total, p->best_bubbles, p->elapsed);
}

/* The fields of a search or baseline request besides its option table's: the placement, as
 * ts_py_placement reads it. */
static const char *const ts_py_search_extra[] = {"builtin", "ndevs", "chunks", "infer",
                                                 "file",    "placement", "where", NULL};

/* `tessel search -o FILE --json` in this process, through the operations layer: the request's
 * fields are the search table's keys (tessel.search maps its keywords onto them), and the reply
 * is the file's text and the figures. */
int ts_py_op_search(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    if (ts_op_check_keys(&ts_op_search, req, TS_FRONT_PY, ts_py_search_extra, e))
        return TS_EINPUT;
    ts_placement *p;
    int rc = ts_py_placement(req, &p, NULL, 0, e);
    if (rc)
        return rc;
    ts_op_search_req r;
    ts_op_search_res res = {0};
    rc = ts_op_search_read(req, TS_FRONT_PY, p, &r, e);
    if (rc == TS_OK) {
        if (h->progress) {
            r.so.progress = ts_py_progress;
            r.so.progress_ud = (void *)h;
        }
        r.so.cancel = h->cancel;
        rc = ts_op_search_run(&r, &res, e);
    }
    if (rc == TS_OK) {
        *out = json_pack("{so sO}", "schedule", ts_py_schedule_text(res.s), "summary",
                         res.summary);
        rc = *out ? TS_OK : ts_py_fail(e, TS_ESYS, "out of memory");
    }
    ts_op_search_res_free(&res);
    ts_op_search_req_free(&r);
    ts_placement_free(p);
    return rc;
}

/* The operations' option tables (ts_ops_json): what tessel.search maps its keywords by, and what
 * the package's test walks against the three front ends. */
int ts_py_op_ops(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)req;
    (void)h;
    json_t *rows = json_array();
    for (int i = 0; rows && i < ts_portfolio_count(); i++) {
        const char *doc, *name = ts_portfolio_name(i, &doc);
        json_array_append_new(rows, json_pack("{ss ss}", "name", name, "doc", doc));
    }
    *out = json_pack("{so so}", "ops", ts_ops_json(), "portfolio", rows);
    return *out ? TS_OK : ts_py_fail(e, TS_ESYS, "out of memory");
}

/* `tessel baseline KIND -o FILE --json` in this process, through the operations layer (a request
 * without a kind: the kinds and what each fits, as `tessel baseline --list`). */
int ts_py_op_baseline(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    if (!json_object_get(req, "kind"))
        return (*out = json_pack("{so}", "baselines", ts_op_baselines_json()))
                   ? TS_OK
                   : ts_py_fail(e, TS_ESYS, "out of memory");
    ts_op_baseline_req r;
    ts_op_baseline_res res = {0};
    ts_placement *p;
    if (ts_op_check_keys(&ts_op_baseline, req, TS_FRONT_PY, ts_py_search_extra, e) ||
        ts_op_baseline_read(req, TS_FRONT_PY, &r, e))
        return TS_EINPUT;
    int rc = ts_py_placement(req, &p, NULL, 0, e);
    if (rc)
        return rc;
    rc = ts_op_baseline_run(&r, p, &res, e);
    if (rc == TS_OK) {
        *out = json_pack("{so sO}", "schedule", ts_py_schedule_text(res.s), "summary", res.summary);
        rc = *out ? TS_OK : ts_py_fail(e, TS_ESYS, "out of memory");
    }
    ts_op_baseline_res_free(&res);
    ts_placement_free(p);
    return rc;
}
