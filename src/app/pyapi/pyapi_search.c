/* Searches and baselines for Python: `tessel search` (with progress and cancel hooks), `tessel
 * baseline` and `tessel compare`, each answered with the schedule's file text and the figures
 * the command prints with --json (compare: its CSV columns, one object per row). */
#include <stdlib.h>
#include <string.h>
#include "pyapi_internal.h"
#include "ts_baseline.h"
#include "ts_bound.h"
#include "ts_methods.h"
#include "ts_op_search.h"
#include "ts_results.h"
#include "ts_solver.h"

/* Hands the solver's progress to the caller's hook. */
static void ts_py_progress(void *ud, const ts_search_progress *p)
{
    const ts_py_hooks *h = ud;
    h->progress(h->progress_ud, p->phase, p->tried, p->total, p->best_bubbles, p->elapsed);
}

/* The fields of a search request besides its option table's: the placement, as
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

/* The kinds of the baseline registry and what each fits (`tessel baseline --list`). */
static json_t *ts_py_baseline_list(void)
{
    json_t *list = json_array();
    for (int i = 0; list && i < ts_baseline_count(); i++) {
        char fits[512];
        ts_baseline_fits_text(ts_baseline_at(i), fits, sizeof fits);
        json_array_append_new(list,
                              json_pack("{ss ss}", "name", ts_baseline_at(i)->name, "fits", fits));
    }
    return json_pack("{so}", "baselines", list);
}

int ts_py_op_baseline(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    const char *kind;
    long n;
    if (ts_py_string(req, "kind", &kind, e) ||
        ts_py_long(req, "n", "--micro-batches", 1, 100000, TS_DEFAULT_MICRO_BATCHES, &n, e))
        return TS_EINPUT;
    if (!kind)
        return (*out = ts_py_baseline_list()) ? 0 : ts_py_fail(e, TS_ESYS, "out of memory");
    if (!ts_baseline_find(kind))
        return ts_py_fail(e, TS_EINPUT, "unknown baseline '%s' (see --list)", kind);
    ts_placement *p;
    int rc = ts_py_placement(req, &p, NULL, 0, e);
    if (rc)
        return rc;
    ts_schedule *s = NULL;
    ts_metrics m;
    ts_err be = {0};
    if ((rc = ts_baseline_make(kind, p, (int)n, &s, &be)) != TS_OK) {
        ts_py_fail(e, be.code ? be.code : rc, "%s", be.msg);
    } else if (ts_schedule_metrics(s, &m) != 0) {
        rc = ts_py_fail(e, TS_ESYS, "out of memory");
    } else {
        json_t *j = json_pack("{ss ss}", "baseline", kind, "placement", p->name);
        if (j)
            ts_results_metrics_json(j, &m, s->nmicros, p->ndevs);
        *out = json_pack("{so so}", "schedule", ts_py_schedule_text(s), "summary", j);
        ts_metrics_free(&m);
    }
    ts_schedule_free(s);
    ts_placement_free(p);
    return rc;
}
