/* The explorer's JSON API: one function per route over the core library; searches go to the
 * job workers (jobs.c). Every answer is a JSON object; a refusal is {"error": one line}. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_baseline.h"
#include "ts_json.h"
#include "ts_serve.h"
#include "ts_solver.h"
#include "ts_trace.h"

static int ts_api_error(json_t **out, int status, const char *msg)
{
    *out = json_pack("{s:s}", "error", msg);
    return status;
}

static int ts_api_info(json_t **out)
{
    json_t *b = json_array(), *bl = json_array(), *m = json_array();
    for (int i = 0; i < ts_builtin_count(); i++) {
        const ts_builtin_info *bi = ts_builtin_at(i);
        /* chunks: the chunks per device it takes by default, 0 for a built-in without chunks
         * (the page shows the field only where there are chunks to set) */
        json_array_append_new(b, json_pack("{s:s, s:s, s:i, s:i, s:i, s:i}", "name", bi->name,
                                           "description", bi->description, "min_devs", bi->min_devs,
                                           "max_devs", bi->max_devs, "step_devs", bi->step_devs,
                                           "chunks", bi->chunks ? TS_BUILTIN_CHUNKS : 0));
    }
    for (int i = 0; i < ts_baseline_count(); i++) {
        const ts_baseline_info *bi = ts_baseline_at(i);
        char fits[512];
        ts_baseline_fits_text(bi, fits, sizeof fits);
        json_array_append_new(bl, json_pack("{s:s, s:s, s:s}", "name", bi->name, "description",
                                            bi->description, "fits", fits));
    }
    for (int i = 0; i < (int)TS_METHOD_COUNT; i++)
        json_array_append_new(m, json_string(ts_method_name((ts_method)i)));
    *out =
        json_pack("{s:o, s:o, s:o, s:{s:i, s:i, s:f, s:i}}", "builtins", b, "baselines", bl,
                  "methods", m, "limits", "max_body", (int)TS_API_MAX_BODY, "max_n", TS_API_MAX_N,
                  "max_time_limit", TS_TIME_LIMIT_MAX, "max_values", TS_API_MAX_VALUES);
    return 200;
}

static int ts_api_builtin_place(const ts_api_request *rq, json_t **out)
{
    ts_placement *p;
    ts_err e = {0};
    if (ts_builtin_make(rq->builtin, &rq->bopts, &p, &e))
        return ts_api_error(out, 422, e.msg);
    *out = json_pack("{s:o}", "placement", ts_placement_to_json(p));
    ts_placement_free(p);
    return 200;
}

static json_t *ts_api_longs(const long *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

/* The placement parsed (so it passed every check the command line makes): its figures, and its
 * lower bound within the memory asked for, by the bound operation (`tessel bound`'s). */
static int ts_api_check(const ts_api_request *rq, json_t **out)
{
    const ts_placement *p = rq->placement;
    ts_op_bound_res res;
    ts_err e = {0};
    if (ts_op_bound_run(p, &rq->bound, &res, &e)) {
        ts_op_bound_res_free(&res);
        return ts_api_error(out, 500, e.msg);
    }
    *out = json_pack("{s:b, s:s, s:i, s:i, s:i, s:i, s:I, s:I, s:o}", "ok", 1, "name",
                     p->name ? p->name : "", "ndevs", p->ndevs, "nblocks", p->nblocks, "nedges",
                     p->nedges, "micro_batches", rq->bound.n, "lower_bound",
                     (json_int_t)res.b.value, "max_load", (json_int_t)ts_placement_max_load(p),
                     "load", ts_api_longs(res.load, p->ndevs));
    ts_op_bound_res_free(&res);
    return 200;
}

static int ts_api_baseline(const ts_api_request *rq, json_t **out)
{
    ts_schedule *s;
    ts_err e = {0};
    if (ts_baseline_make(rq->kind, rq->placement, rq->micro_batches, &s, &e))
        return ts_api_error(out, 422, e.msg);
    json_t *sum = ts_serve_summary(s, rq->micro_batches, rq, &e);
    if (!sum) {
        ts_schedule_free(s);
        return ts_api_error(out, 500, e.msg);
    }
    *out = json_pack("{s:o, s:o}", "schedule", ts_schedule_to_json(s), "summary", sum);
    ts_schedule_free(s);
    return 200;
}

/* The trace operation's schedule at N as the Chrome trace object. */
static int ts_api_trace(const ts_api_request *rq, json_t **out)
{
    ts_op_view_res res;
    ts_err e = {0};
    if (ts_op_view_run(&ts_op_trace, rq->schedule, "schedule", &rq->view, &res, &e)) {
        ts_op_view_res_free(&res);
        return ts_api_error(out, e.code == TS_ESYS ? 500 : 422, e.msg);
    }
    ts_trace *t = ts_trace_from_schedule(res.at, rq->view.unit_us);
    *out = t ? ts_trace_to_json(t) : NULL;
    ts_trace_free(t);
    ts_op_view_res_free(&res);
    return *out ? 200 : ts_api_error(out, 500, "trace: out of memory");
}

/* The render operation's schedule at N as the page draws it (view.c). */
static int ts_api_view_route(const ts_api_request *rq, json_t **out)
{
    ts_op_view_res res;
    ts_err e = {0};
    if (ts_op_view_run(&ts_op_render, rq->schedule, "schedule", &rq->view, &res, &e)) {
        ts_op_view_res_free(&res);
        return ts_api_error(out, e.code == TS_ESYS ? 500 : 422, e.msg);
    }
    *out = ts_api_view(&res, &rq->view, !rq->no_svg, &e);
    ts_op_view_res_free(&res);
    return *out ? 200 : ts_api_error(out, 500, e.msg);
}

static int ts_api_jobs(ts_jobs *jobs, const ts_api_request *rq, json_t **out)
{
    ts_err e = {0};
    long id = 0;
    int st;
    switch (rq->route) {
    case TS_API_JOB_START:
        st = ts_jobs_start(jobs, rq, &id, &e);
        if (st != 200)
            return ts_api_error(out, st, e.msg);
        *out = json_pack("{s:I}", "id", (json_int_t)id);
        return 200;
    case TS_API_JOB_LIST: *out = ts_jobs_list(jobs); return 200;
    case TS_API_JOB_STATUS:
        *out = ts_jobs_status(jobs, rq->job_id, true);
        return *out ? 200 : ts_api_error(out, 404, "no such job");
    default:
        if (ts_jobs_cancel(jobs, rq->job_id))
            return ts_api_error(out, 404, "no such job");
        *out = ts_jobs_status(jobs, rq->job_id, false);
        return 200;
    }
}

int ts_api_handle(ts_jobs *jobs, const ts_api_request *rq, json_t **out)
{
    int st;
    *out = NULL;
    switch (rq->route) {
    case TS_API_INFO: st = ts_api_info(out); break;
    case TS_API_BUILTIN: st = ts_api_builtin_place(rq, out); break;
    case TS_API_CHECK: st = ts_api_check(rq, out); break;
    case TS_API_BASELINE: st = ts_api_baseline(rq, out); break;
    case TS_API_VIEW: st = ts_api_view_route(rq, out); break;
    case TS_API_TRACE: st = ts_api_trace(rq, out); break;
    case TS_API_MODELS: st = ts_api_models(out); break;
    case TS_API_MODEL_PLACEMENT: st = ts_api_model_placement(rq, out); break;
    default: st = ts_api_jobs(jobs, rq, out); break;
    }
    if (!*out)
        return ts_api_error(out, 500, "out of memory");
    return st;
}
