/* The explorer's request parser: route matching and a strict reading of each route's JSON body
 * into a ts_api_request. It has no state and does no I/O, so a fuzz target can call it directly;
 * every refusal is a 4xx status and one line naming the field. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_json.h"
#include "ts_jsonutil.h"
#include "ts_op_baseline.h"
#include "ts_op_compare.h"
#include "ts_op_model.h"
#include "ts_op_search.h"
#include "ts_serve.h"
#include "ts_solver.h"

/* Most instances a view, trace or baseline may unroll: keeps one answer (an SVG of about 250
 * bytes per box) within tens of megabytes. 32 devices x 128 micro-batches of vshape is 8,192. */
#define TS_API_MAX_INSTANCES 200000L

static int ts_api_refuse(ts_api_request *rq, int status, ts_err *e, const char *msg)
{
    rq->http_status = status;
    return ts_fail(e, TS_EINPUT, "%s", msg);
}

/* Copies a string field into buf; absent keeps buf. Refuses control characters so that names in
 * messages stay one line. */
static int ts_api_str(json_t *o, const char *key, char *buf, size_t cap, ts_err *e)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return TS_OK;
    const char *s = json_string_value(v);
    if (!s || !*s)
        return ts_fail(e, TS_EINPUT, "request: field '%s' must be a non-empty string, got %s", key,
                       ts_jtype(v));
    if (strlen(s) >= cap)
        return ts_fail(e, TS_EINPUT, "request: field '%s' is longer than %zu characters", key,
                       cap - 1);
    for (const char *c = s; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return ts_fail(e, TS_EINPUT, "request: field '%s' holds a control character", key);
    memcpy(buf, s, strlen(s) + 1);
    return TS_OK;
}

static int ts_api_bool(json_t *o, const char *key, bool *out, ts_err *e)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return TS_OK;
    if (!json_is_boolean(v))
        return ts_fail(e, TS_EINPUT, "request: field '%s' must be true or false, got %s", key,
                       ts_jtype(v));
    *out = json_is_true(v);
    return TS_OK;
}

static int ts_api_int(json_t *o, const char *key, long lo, long hi, long def, int *out, ts_err *e)
{
    long v;
    if (ts_jint_opt(o, key, "request", lo, hi, def, &v, e))
        return TS_EINPUT;
    *out = (int)v;
    return TS_OK;
}

/* memory: a capacity, "none", or one capacity per device (checked against ndevs later). */
static int ts_api_memory(json_t *o, ts_api_request *rq, ts_err *e)
{
    json_t *v = json_object_get(o, "memory");
    rq->has_memory = false;
    if (!v || (json_is_string(v) && !strcmp(json_string_value(v), "none")))
        return TS_OK;
    size_t n = json_is_array(v) ? json_array_size(v) : 1;
    if (!json_is_integer(v) && !json_is_array(v))
        return ts_fail(e, TS_EINPUT,
                       "request: field 'memory' must be a capacity, \"none\" or a "
                       "list of capacities, got %s",
                       ts_jtype(v));
    if (n < 1 || n > TS_MAX_DEVS)
        return ts_fail(e, TS_EINPUT, "request: field 'memory' lists %zu capacities", n);
    rq->memory = calloc(n, sizeof(long));
    if (!rq->memory)
        return ts_fail(e, TS_ESYS, "request: out of memory");
    for (size_t i = 0; i < n; i++) {
        char what[40];
        snprintf(what, sizeof what, "memory[%zu]", i);
        json_t *c = json_is_array(v) ? json_array_get(v, i) : v;
        if (ts_jint_value(c, "request", json_is_array(v) ? what : "memory", 0, TS_MAX_MEMORY,
                          &rq->memory[i], e))
            return TS_EINPUT;
    }
    rq->nmemory = (int)n;
    rq->has_memory = true;
    return TS_OK;
}

/* The capacities an operation's table read (n entries: 1 for every device, or one per device), as
 * the explorer's jobs and answers keep them. */
static int ts_api_memory_of(ts_api_request *rq, bool has_memory, const long *cap, int n, ts_err *e)
{
    rq->has_memory = has_memory && cap && n > 0;
    if (!rq->has_memory)
        return TS_OK;
    if (!(rq->memory = malloc((size_t)n * sizeof *rq->memory)))
        return ts_fail(e, TS_ESYS, "request: out of memory");
    memcpy(rq->memory, cap, (size_t)n * sizeof *rq->memory);
    rq->nmemory = n;
    return TS_OK;
}

static int ts_api_placement(json_t *o, ts_api_request *rq, ts_err *e)
{
    json_t *v = json_object_get(o, "placement");
    if (!v)
        return ts_fail(e, TS_EINPUT, "request: missing field 'placement'");
    if (ts_placement_from_json(v, rq->file, &rq->placement, e))
        return TS_EINPUT;
    if (rq->has_memory && rq->nmemory > 1 && rq->nmemory != rq->placement->ndevs)
        return ts_fail(e, TS_EINPUT, "request: field 'memory' lists %d capacities for %d devices",
                       rq->nmemory, rq->placement->ndevs);
    return TS_OK;
}

/* The schedule of a view or a trace, within the instances the explorer draws. */
static int ts_api_schedule(json_t *o, ts_api_request *rq, ts_err *e)
{
    json_t *v = json_object_get(o, "schedule");
    if (!v)
        return ts_fail(e, TS_EINPUT, "request: missing field 'schedule'");
    if (ts_schedule_from_json(v, "schedule", &rq->schedule, e))
        return TS_EINPUT;
    long inst =
        (long)rq->schedule->placement->nblocks *
        (rq->micro_batches > rq->schedule->nmicros ? rq->micro_batches : rq->schedule->nmicros);
    if (inst > TS_API_MAX_INSTANCES)
        return ts_fail(e, TS_EINPUT, "request: %ld instances is more than %ld to draw", inst,
                       TS_API_MAX_INSTANCES);
    return TS_OK;
}

/* Sets field key of o to v when the page gave none: the explorer's own default. Steals v. */
static int ts_api_default(json_t *o, const char *key, json_t *v, ts_err *e)
{
    if (json_object_get(o, key)) {
        json_decref(v);
        return TS_OK;
    }
    return json_object_set_new(o, key, v) ? ts_fail(e, TS_ESYS, "request: out of memory") : TS_OK;
}

/* A check is the bound operation's request (ts_op_views.h), read once by its table as the
 * command line and Python read theirs: N 128 when the page gives none. */
static int ts_api_check_body(json_t *o, ts_api_request *rq, ts_err *e)
{
    static const char *const extra[] = {"placement", "file", NULL};
    if (ts_op_check_keys(&ts_op_bound, o, TS_FRONT_SERVE, extra, e) || ts_api_placement(o, rq, e) ||
        ts_api_default(o, "micro_batches", json_integer(rq->micro_batches), e) ||
        ts_op_bound_read(o, TS_FRONT_SERVE, rq->placement, &rq->bound, e))
        return e->code == TS_ESYS ? TS_ESYS : TS_EINPUT;
    return ts_api_memory_of(rq, rq->bound.mem.has_memory, rq->bound.mem.cap, rq->bound.mem.n, e);
}

/* A view or a trace is the render or trace operation's request, read by its table. When the page
 * gives no N, the explorer's default: 128, or the schedule's own count when it cannot be unrolled
 * to 128 (no repetend); the trace's time unit is 1 microsecond unless the page gives one. */
static int ts_api_view_body(json_t *o, ts_api_request *rq, ts_err *e)
{
    static const char *const extra[] = {"schedule", NULL};
    const ts_op *op = rq->route == TS_API_VIEW ? &ts_op_render : &ts_op_trace;
    if (ts_op_check_keys(op, o, TS_FRONT_SERVE, extra, e) || ts_api_schedule(o, rq, e))
        return TS_EINPUT;
    const ts_schedule *s = rq->schedule;
    int n = s->has_repetend || rq->micro_batches < s->nmicros ? rq->micro_batches : s->nmicros;
    if (ts_api_default(o, "micro_batches", json_integer(n), e) ||
        (op == &ts_op_trace && ts_api_default(o, "unit_us", json_real(1.0), e)) ||
        ts_op_view_read(op, o, TS_FRONT_SERVE, &rq->view, e))
        return TS_EINPUT;
    if (rq->view.ro.title) {
        snprintf(rq->title, sizeof rq->title, "%s", rq->view.ro.title);
        rq->view.ro.title = rq->title;
    }
    bool svg = true;
    if (op == &ts_op_render && ts_api_bool(o, "svg", &svg, e))
        return TS_EINPUT;
    rq->no_svg = !svg;
    return TS_OK;
}

static bool ts_api_known_method(const char *m)
{
    ts_method x;
    return ts_method_parse(m, &x) == 0;
}

static int ts_api_values(json_t *o, ts_api_request *rq, ts_err *e)
{
    json_t *v = json_object_get(o, "values"), *it;
    size_t i;
    if (ts_api_str(o, "knob", rq->knob, sizeof rq->knob, e))
        return TS_EINPUT;
    if (strcmp(rq->knob, "memory") && strcmp(rq->knob, "n") && strcmp(rq->knob, "ndevs") &&
        strcmp(rq->knob, "time_limit"))
        return ts_fail(e, TS_EINPUT,
                       "request: field 'knob' must be memory, n, time_limit or ndevs");
    if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > TS_API_MAX_VALUES)
        return ts_fail(e, TS_EINPUT, "request: field 'values' must be a list of 1 to %d numbers",
                       TS_API_MAX_VALUES);
    long hi = !strcmp(rq->knob, "memory")       ? TS_MAX_MEMORY
              : !strcmp(rq->knob, "n")          ? TS_API_MAX_N
              : !strcmp(rq->knob, "time_limit") ? (long)TS_TIME_LIMIT_MAX
                                                : TS_MAX_DEVS;
    json_array_foreach(v, i, it)
    {
        char what[32];
        snprintf(what, sizeof what, "values[%zu]", i);
        if (ts_jint_value(it, "request", what, !strcmp(rq->knob, "memory") ? 0 : 1, hi,
                          &rq->values[rq->nvalues++], e))
            return TS_EINPUT;
    }
    return TS_OK;
}

/* The built-in named by {name, ndevs, infer, chunks} (ndevs absent for a what-if over it). */
static int ts_api_builtin(json_t *o, ts_api_request *rq, bool need_ndevs, ts_err *e)
{
    static const char *const keys[] = {"name", "ndevs", "infer", "chunks", NULL};
    int nd = 0, ch = 0;
    if (!json_is_object(o))
        return ts_fail(e, TS_EINPUT, "request: the built-in must be an object {name, ndevs}");
    if (ts_jkeys(o, "request", keys, e) ||
        ts_api_str(o, "name", rq->builtin, sizeof rq->builtin, e) ||
        ts_api_int(o, "ndevs", 1, TS_MAX_DEVS, 0, &nd, e) ||
        ts_api_int(o, "chunks", 0, 64, 0, &ch, e) || ts_api_bool(o, "infer", &rq->bopts.infer, e))
        return TS_EINPUT;
    if (!rq->builtin[0] || !ts_builtin_find(rq->builtin))
        return ts_fail(e, TS_EINPUT, "request: unknown built-in placement '%s'", rq->builtin);
    if (need_ndevs && nd == 0)
        return ts_fail(e, TS_EINPUT, "request: missing field 'ndevs'");
    rq->bopts.ndevs = nd;
    rq->bopts.chunks = ch;
    return TS_OK;
}

/* A search job's fields are the search operation's (ts_op_search.h), read once by its table as
 * the command line and Python read theirs; the explorer's own default time limit stands when the
 * page gives none. The job's method, limit and capacities (its caps and watchdog, its answer's
 * figures) are then the request's as read. */
static int ts_api_search_body(json_t *o, ts_api_request *rq, ts_err *e)
{
    if (ts_api_placement(o, rq, e))
        return TS_EINPUT;
    if (!json_object_get(o, "time_limit") &&
        json_object_set_new(o, "time_limit", json_real(TS_API_DEFAULT_LIMIT)))
        return ts_fail(e, TS_ESYS, "request: out of memory");
    if (!(rq->search = calloc(1, sizeof *rq->search)))
        return ts_fail(e, TS_ESYS, "request: out of memory");
    if (ts_op_search_read(o, TS_FRONT_SERVE, rq->placement, rq->search, e))
        return e->code == TS_ESYS ? TS_ESYS : TS_EINPUT;
    const ts_search_opts *so = &rq->search->so;
    rq->time_limit = so->time_limit;
    rq->nmicros = so->k;
    snprintf(rq->method, sizeof rq->method, "%s", ts_method_name(so->method));
    return ts_api_memory_of(rq, so->has_memory, rq->search->cap, rq->placement->ndevs, e);
}

/* A compare job's fields are the compare operation's (ts_op_compare.h), read by its table; the
 * explorer's own default time limit stands when the page gives none. */
static int ts_api_compare_body(json_t *o, ts_api_request *rq, ts_err *e)
{
    if (!json_object_get(o, "time_limit") &&
        json_object_set_new(o, "time_limit", json_real(TS_API_DEFAULT_LIMIT)))
        return ts_fail(e, TS_ESYS, "request: out of memory");
    if (!(rq->compare = calloc(1, sizeof *rq->compare)))
        return ts_fail(e, TS_ESYS, "request: out of memory");
    if (ts_api_placement(o, rq, e) ||
        ts_op_compare_read(o, TS_FRONT_SERVE, rq->placement, rq->compare, e))
        return e->code == TS_ESYS ? TS_ESYS : TS_EINPUT;
    rq->time_limit = rq->compare->time_limit;
    return TS_OK;
}

static int ts_api_job_body(json_t *o, ts_api_request *rq, ts_err *e)
{
    static const char *const keys[] = {
        "job",     "placement", "file",   "memory",  "micro_batches", "method", "time_limit",
        "nmicros", "knob",      "values", "builtin", "model",         NULL};
    static const char *const op_extra[] = {"job", "placement", "file", NULL};
    char job[16] = "";
    double tl = TS_API_DEFAULT_LIMIT;
    json_t *t = json_object_get(o, "time_limit");
    if (ts_api_str(o, "job", job, sizeof job, e))
        return TS_EINPUT;
    const ts_op *op = !strcmp(job, "search")    ? &ts_op_search
                      : !strcmp(job, "compare") ? &ts_op_compare
                                                : NULL;
    if (op ? ts_op_check_keys(op, o, TS_FRONT_SERVE, op_extra, e) : ts_jkeys(o, "request", keys, e))
        return TS_EINPUT;
    if (op == &ts_op_compare) {
        rq->job = TS_JOB_COMPARE;
        return ts_api_compare_body(o, rq, e);
    }
    if (op == &ts_op_search) {
        rq->job = TS_JOB_SEARCH;
        return ts_api_search_body(o, rq, e);
    }
    if (!strcmp(job, "whatif"))
        rq->job = TS_JOB_WHATIF;
    else
        return ts_fail(e, TS_EINPUT, "request: field 'job' must be search, compare or whatif");
    /* a what-if: the explorer's own fields (the search's, and a knob over its values) */
    if (t && (!json_is_number(t) || json_number_value(t) < TS_TIME_LIMIT_MIN ||
              json_number_value(t) > TS_TIME_LIMIT_MAX))
        return ts_fail(e, TS_EINPUT,
                       "request: field 'time_limit' must be a number of seconds in "
                       "[%g, %g]",
                       TS_TIME_LIMIT_MIN, TS_TIME_LIMIT_MAX);
    if (t)
        tl = json_number_value(t);
    rq->time_limit = tl;
    strcpy(rq->method, "auto");
    if (ts_api_str(o, "method", rq->method, sizeof rq->method, e) ||
        ts_api_int(o, "nmicros", 0, 64, 0, &rq->nmicros, e) || ts_api_memory(o, rq, e))
        return TS_EINPUT;
    if (!ts_api_known_method(rq->method)) {
        char list[128];
        return ts_fail(e, TS_EINPUT, "request: unknown method '%s' (%s)", rq->method,
                       ts_method_list(list, sizeof list));
    }
    if (rq->job == TS_JOB_WHATIF) {
        if (ts_api_values(o, rq, e))
            return TS_EINPUT;
        json_t *model = json_object_get(o, "model");
        /* Over the device count: a built-in re-made, or a model re-derived, at each value. */
        if (!strcmp(rq->knob, "ndevs") && model) {
            if (!json_is_object(model))
                return ts_fail(e, TS_EINPUT,
                               "request: field 'model' must be an object {model, hardware, "
                               "gpus, strategy}");
            rq->whatif_model = true;
            return ts_api_model_body(model, rq, e);
        }
        if (!strcmp(rq->knob, "ndevs"))
            return ts_api_builtin(json_object_get(o, "builtin"), rq, false, e);
    }
    return ts_api_placement(o, rq, e) ? TS_EINPUT : TS_OK;
}

/* The baseline route's fields are the baseline operation's (ts_op_baseline.h), read by its
 * table. */
static int ts_api_baseline_body(json_t *o, ts_api_request *rq, ts_err *e)
{
    static const char *const extra[] = {"placement", "file", NULL};
    ts_op_baseline_req r;
    if (ts_op_check_keys(&ts_op_baseline, o, TS_FRONT_SERVE, extra, e) ||
        ts_op_baseline_read(o, TS_FRONT_SERVE, &r, e))
        return TS_EINPUT;
    snprintf(rq->kind, sizeof rq->kind, "%s", r.kind);
    rq->micro_batches = r.n;
    return TS_OK;
}

/* Reads the body of a POST route: a JSON object with the keys the route allows. */
static int ts_api_body(json_t *o, ts_api_request *rq, ts_err *e)
{
    static const char *const kbuiltin[] = {"name", "ndevs", "infer", "chunks", NULL};
    if (ts_api_str(o, "file", rq->file, sizeof rq->file, e) ||
        ts_api_int(o, "micro_batches", 1, TS_API_MAX_N, 128, &rq->micro_batches, e))
        return TS_EINPUT;
    switch (rq->route) {
    case TS_API_BUILTIN:
        return ts_jkeys(o, "request", kbuiltin, e) || ts_api_builtin(o, rq, true, e);
    case TS_API_CHECK: return ts_api_check_body(o, rq, e);
    case TS_API_BASELINE:
        if (ts_api_baseline_body(o, rq, e) || ts_api_placement(o, rq, e))
            return TS_EINPUT;
        if ((long)rq->placement->nblocks * rq->micro_batches > TS_API_MAX_INSTANCES)
            return ts_fail(e, TS_EINPUT, "request: too many instances to build");
        return TS_OK;
    case TS_API_VIEW:
    case TS_API_TRACE: return ts_api_view_body(o, rq, e);
    case TS_API_JOB_START: return ts_api_job_body(o, rq, e);
    case TS_API_MODEL_PLACEMENT: return ts_api_model_body(o, rq, e);
    default: return TS_OK;
    }
}

/* Matches the path; sets rq->route and job_id. 404 for an unknown path, 405 for a wrong verb. */
static int ts_api_route_of(const char *method, const char *url, ts_api_request *rq, ts_err *e)
{
    static const struct {
        const char *path, *verb;
        ts_api_route route;
    } routes[] = {{"/api/info", "GET", TS_API_INFO},
                  {"/api/builtin", "POST", TS_API_BUILTIN},
                  {"/api/check", "POST", TS_API_CHECK},
                  {"/api/baseline", "POST", TS_API_BASELINE},
                  {"/api/view", "POST", TS_API_VIEW},
                  {"/api/trace", "POST", TS_API_TRACE},
                  {"/api/jobs", "POST", TS_API_JOB_START},
                  {"/api/jobs", "GET", TS_API_JOB_LIST},
                  {"/api/models", "GET", TS_API_MODELS},
                  {"/api/model-placement", "POST", TS_API_MODEL_PLACEMENT}};
    size_t plen = strcspn(url, "?#");
    bool path_known = false;
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        if (strlen(routes[i].path) == plen && !strncmp(url, routes[i].path, plen)) {
            path_known = true;
            if (!strcmp(method, routes[i].verb)) {
                rq->route = routes[i].route;
                return TS_OK;
            }
        }
    if (path_known)
        return ts_api_refuse(rq, 405, e, "request: method not allowed on this path");
    /* /api/jobs/ID and /api/jobs/ID/cancel */
    if (plen > 10 && !strncmp(url, "/api/jobs/", 10)) {
        char *end;
        long id = strtol(url + 10, &end, 10);
        size_t rest = plen - (size_t)(end - url);
        if (end != url + 10 && id > 0 && url[10] >= '0' && url[10] <= '9') {
            rq->job_id = id;
            if (rest == 0 && !strcmp(method, "GET"))
                rq->route = TS_API_JOB_STATUS;
            else if ((rest == 0 && !strcmp(method, "DELETE")) ||
                     (rest == 7 && !strncmp(end, "/cancel", 7) && !strcmp(method, "POST")))
                rq->route = TS_API_JOB_CANCEL;
            else
                return ts_api_refuse(rq, rest == 0 || rest == 7 ? 405 : 404, e,
                                     "request: no such job action");
            return TS_OK;
        }
    }
    return ts_api_refuse(rq, 404, e, "request: no such API path");
}

int ts_api_parse(const char *method, const char *url, const char *body, size_t len,
                 ts_api_request *rq, ts_err *e)
{
    memset(rq, 0, sizeof *rq);
    rq->raw_body = body;
    rq->raw_len = len;
    /* a request that names no file names no file: its placement may be a built-in or a model's */
    strcpy(rq->file, "placement");
    rq->micro_batches = 128;
    rq->http_status = 400;
    if (!method || !url || (!body && len))
        return ts_api_refuse(rq, 400, e, "request: no method, path or body");
    if (len > TS_API_MAX_BODY)
        return ts_api_refuse(rq, 413, e, "request: body larger than the limit");
    if (ts_api_route_of(method, url, rq, e))
        return TS_EINPUT;
    if (strcmp(method, "POST") || rq->route == TS_API_JOB_CANCEL)
        return TS_OK;
    json_error_t je;
    json_t *o = json_loadb(body ? body : "", len, JSON_REJECT_DUPLICATES, &je);
    int rc = TS_OK;
    if (!o)
        rc = ts_fail(e, TS_EINPUT, "request body: invalid JSON at line %d, column %d: %s", je.line,
                     je.column, je.text);
    else if (!json_is_object(o))
        rc = ts_fail(e, TS_EINPUT, "request body: expected a JSON object, got %s", ts_jtype(o));
    else
        rc = ts_api_body(o, rq, e) ? TS_EINPUT : TS_OK;
    json_decref(o);
    if (rc) {
        ts_api_request_free(rq);
        rq->http_status = e && e->code == TS_ESYS ? 500 : 400;
        return TS_EINPUT;
    }
    return TS_OK;
}

void ts_api_request_free(ts_api_request *rq)
{
    if (!rq)
        return;
    ts_placement_free(rq->placement);
    ts_schedule_free(rq->schedule);
    free(rq->memory);
    ts_op_bound_req_free(&rq->bound);
    if (rq->search)
        ts_op_search_req_free(rq->search);
    free(rq->search);
    rq->search = NULL;
    if (rq->compare)
        ts_op_compare_req_free(rq->compare);
    free(rq->compare);
    rq->compare = NULL;
    if (rq->derive)
        ts_op_model_placement_req_free(rq->derive);
    free(rq->derive);
    rq->derive = NULL;
    rq->placement = NULL;
    rq->schedule = NULL;
    rq->memory = NULL;
}
