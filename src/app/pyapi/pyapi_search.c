/* Searches and baselines for Python: `tessel search` (with progress and cancel hooks), `tessel
 * baseline` and `tessel compare`, each answered with the schedule's file text and the figures
 * the command prints with --json (compare: its CSV columns, one object per row). */
#include <stdlib.h>
#include <string.h>
#include "pyapi_internal.h"
#include "ts_baseline.h"
#include "ts_bound.h"
#include "ts_methods.h"
#include "ts_results.h"
#include "ts_solver.h"

/* Hands the solver's progress to the caller's hook. */
static void ts_py_progress(void *ud, const ts_search_progress *p)
{
    const ts_py_hooks *h = ud;
    h->progress(h->progress_ud, p->phase, p->tried, p->total, p->best_bubbles, p->elapsed);
}

/* The search options of the request, keyed by their command-line flags ("micro-batches",
 * "time-limit", ...) with the command line's ranges and messages. */
static int ts_py_search_opts(json_t *req, ts_search_opts *so, ts_err *e)
{
    const char *method;
    if (ts_py_string(req, "method", &method, e))
        return TS_EINPUT;
    if (method && ts_method_parse(method, &so->method)) {
        char names[96];
        return ts_py_fail(e, TS_EINPUT, "--method: unknown method '%s' (%s)", method,
                          ts_method_list(names, sizeof names));
    }
    for (int i = 0; i < TS_OPT_COUNT; i++) {
        const ts_search_option *o = &ts_search_options[i];
        json_t *v = json_object_get(req, o->flag);
        char flag[48];
        snprintf(flag, sizeof flag, "--%s", o->flag);
        double x;
        long l;
        if (!v || json_is_null(v))
            continue;
        if (o->integer ? ts_py_long(req, o->flag, flag, (long)o->min, (long)o->max, 0, &l, e)
                       : ts_py_double(req, o->flag, flag, o->min, o->max, 0, &x, e))
            return TS_EINPUT;
        if (ts_search_opts_set(so, (ts_search_option_id)i, o->integer ? (double)l : x))
            return ts_py_fail(e, TS_EINPUT, "%s: not a valid value", flag);
    }
    return 0;
}

/* The search of p as `tessel search -o FILE --json` runs it: the file's text and the record. */
static int ts_py_search_run(const ts_placement *p, ts_search_opts *so, json_t **out, ts_err *e)
{
    ts_schedule *s = NULL, *at = NULL;
    ts_search_stats st;
    ts_metrics m = {0};
    ts_err se = {0};
    int rc = ts_search(p, so, &s, &st, &se);
    if (rc) {
        ts_py_fail(e, se.code ? se.code : rc, "%s", se.msg[0] ? se.msg : "failed");
    } else if (ts_results_at(s, so->micro_batches, &at, &m, &se)) {
        rc = ts_py_fail(e, TS_ESYS, "cannot summarise the schedule at %d micro-batches",
                        so->micro_batches);
    } else {
        *out = json_pack("{so so}", "schedule", ts_py_schedule_text(s), "summary",
                         ts_results_search_json(p, so, &st, at, &m));
    }
    ts_metrics_free(&m);
    ts_schedule_free(at);
    ts_schedule_free(s);
    return rc;
}

int ts_py_op_search(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    ts_search_opts so;
    bool given;
    ts_search_opts_init(&so);
    so.method = TS_METHOD_AUTO; /* the command's default: the user's makespan at N */
    if (ts_py_search_opts(req, &so, e) || ts_py_memory(req, &given, &so.has_memory, &so.memory, e))
        return TS_EINPUT;
    ts_placement *p;
    int rc = ts_py_placement(req, &p, NULL, 0, e);
    if (rc)
        return rc;
    if (!given && !p->has_capacity) {
        ts_placement_free(p);
        return ts_py_fail(e, TS_EINPUT,
                          "--memory is required: a per-device capacity, or none "
                          "(a placement file may state its own capacity)");
    }
    if (!given) {
        so.has_memory = true;
        so.memory = p->capacity;
        /* a file's list of one per device (p outlives the search) */
        if (p->capacity_per_device)
            ts_search_opts_memory(&so, p->capacity_per_device, p->ndevs);
    }
    if (h->progress) {
        so.progress = ts_py_progress;
        so.progress_ud = (void *)h;
    }
    so.cancel = h->cancel;
    rc = ts_py_search_run(p, &so, out, e);
    ts_placement_free(p);
    return rc;
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
