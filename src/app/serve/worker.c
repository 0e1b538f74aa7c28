/* The work of one search job, run inside its worker process (jobs.c starts it): a search, a
 * compare table or a what-if sweep. It talks to the server only through fd, one line per
 * message: "P {progress}", then "R {result}" or "E {error}". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ts_bound.h"
#include "ts_clock.h"
#include "ts_json.h"
#include "ts_op_compare.h"
#include "ts_op_search.h"
#include "ts_results.h"
#include "ts_serve.h"
#include "ts_solver.h"

typedef struct {
    int fd;
    double t0, last; /* job start, last progress line (monotonic seconds) */
    char step[64]; /* which part of the job runs: "lazy", "memory 6", ... */
    int part, parts; /* compare rows / what-if points done and to do */
} ts_wctx;

/* Writes "tag json\n" (steals j). A failed write means the server is gone: nothing to do. */
static void ts_wline(ts_wctx *w, char tag, json_t *j)
{
    char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!s)
        return;
    size_t n = strlen(s);
    char head[2] = {tag, ' '};
    if (write(w->fd, head, 2) == 2) {
        for (size_t off = 0; off < n;) {
            ssize_t k = write(w->fd, s + off, n - off);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0)
                break;
            off += (size_t)k;
        }
        (void)!write(w->fd, "\n", 1);
    }
    free(s);
}

static void ts_wpart(ts_wctx *w, const char *phase, long tried, long total, long best)
{
    ts_wline(w, 'P',
             json_pack("{s:s, s:s, s:I, s:I, s:I, s:f, s:i, s:i}", "step", w->step, "phase",
                       phase ? phase : "", "tried", (json_int_t)tried, "total", (json_int_t)total,
                       "best_bubbles", (json_int_t)best, "elapsed", ts_clock_now() - w->t0, "part",
                       w->part, "parts", w->parts));
}

/* At most ten progress lines a second: the solver may call back far more often. */
static void ts_wprogress(void *ud, const ts_search_progress *p)
{
    ts_wctx *w = ud;
    double now = ts_clock_now();
    if (now - w->last < 0.1)
        return;
    w->last = now;
    ts_wpart(w, p->phase, p->tried, p->total, p->best_bubbles);
}

/* The request parser has checked the name against the methods' registry. */
static ts_method ts_wmethod(const char *name)
{
    ts_method m = TS_METHOD_AUTO;
    ts_method_parse(name, &m);
    return m;
}

/* The largest capacity of a request (its one capacity, or the largest of a per-device list). */
static long ts_wmemory(const ts_api_request *rq)
{
    long m = rq->memory[0];
    for (int i = 1; i < rq->nmemory; i++)
        if (rq->memory[i] > m)
            m = rq->memory[i];
    return m;
}

/* The search options of a request: one capacity for every device, or a per-device list (whose
 * length the request's parser checked against the placement). */
static void ts_wopts(ts_wctx *w, const ts_api_request *rq, const char *method, int n,
                     ts_search_opts *so)
{
    ts_search_opts_init(so);
    so->method = ts_wmethod(method);
    so->has_memory = rq->has_memory;
    so->memory = rq->has_memory ? ts_wmemory(rq) : 0;
    if (rq->has_memory && rq->nmemory > 1)
        ts_search_opts_memory(so, rq->memory, rq->nmemory);
    so->micro_batches = n;
    so->time_limit = rq->time_limit;
    so->progress = ts_wprogress;
    so->progress_ud = w;
}

/* One search; on TS_OK *out is the schedule and *summary what `tessel search --json` prints of
 * it, with the page's keys (ts_results_search). */
static int ts_wsearch(ts_wctx *w, const ts_api_request *rq, const ts_placement *p,
                      const char *method, int n, ts_schedule **out, json_t **summary, ts_err *e)
{
    ts_search_opts so;
    ts_wopts(w, rq, method, n, &so);
    return ts_results_search(p, &so, rq->has_memory ? rq->memory : NULL,
                             rq->has_memory ? rq->nmemory : 0, out, summary, e);
}

/* The one word the page shows beside a search's figures, from its record: "greedy" (full's
 * schedule for a problem too large for the solver, not a search result), "time limit" (cut by
 * it, the best found), "optimal" (meets the lower bound) or "not proven optimal", as `tessel
 * search` and `tessel compare` say. */
static void ts_wlabel(json_t *sum)
{
    json_t *secs = json_object_get(sum, "search_seconds");
    const char *l = json_object_get(secs, "too_large")                ? "greedy"
                    : json_is_true(json_object_get(sum, "timed_out")) ? "time limit"
                    : json_is_true(json_object_get(sum, "optimal"))   ? "optimal"
                                                                      : "not proven optimal";
    json_object_set_new(sum, "label", json_string(l));
}

/* The search job through the search operation, with the request its table read (request.c):
 * the same schedule as `tessel search` and tessel.search for the same request, and the page's
 * keys around the command line's figures. */
static void ts_wjob_search(ts_wctx *w, const ts_api_request *rq)
{
    ts_op_search_req r = *rq->search;
    const ts_placement *p = r.p;
    ts_op_search_res res;
    ts_err e = {0};
    r.so.progress = ts_wprogress;
    r.so.progress_ud = w;
    snprintf(w->step, sizeof w->step, "%s", ts_method_name(r.so.method));
    if (ts_op_search_run(&r, &res, &e)) {
        ts_wline(w, 'E', json_pack("{s:s, s:i}", "error", e.msg, "code", e.code));
        ts_op_search_res_free(&res);
        return;
    }
    json_t *sum = json_incref(res.summary);
    ts_results_fit_json(sum, &res.m, p->ndevs, r.cap, r.cap ? p->ndevs : 0);
    json_object_set_new(sum, "seconds", json_real(res.st.seconds));
    json_object_set_new(sum, "memory_searched", ts_search_memory_json(&r.so, p->ndevs));
    ts_wlabel(sum);
    ts_wline(w, 'R',
             json_pack("{s:o, s:o}", "summary", sum, "schedule", ts_schedule_to_json(res.s)));
    ts_op_search_res_free(&res);
}

/* Tells the page which compare row runs, as it starts. */
static void ts_wrow_start(void *ud, const char *name, int i, int n)
{
    ts_wctx *w = ud;
    w->part = i;
    w->parts = n;
    snprintf(w->step, sizeof w->step, "%s", name);
    ts_wpart(w, "start", 0, 0, -1);
}

/* "greedy", "time limit", "optimal", "no schedule" or "": the row's status in one word. */
static const char *ts_wrow_label(const ts_compare_row *r)
{
    if (!r->ok)
        return "no schedule";
    if (r->greedy)
        return "greedy";
    if (!strncmp(r->status, "timed out", 9))
        return "time limit";
    return strstr(r->status, "optimal") ? "optimal" : "";
}

/* A row as `tessel compare --csv` has it: the table's bound and the ratio to it (the summary's
 * own bound ignores the memory), k and period only with a repetend (the record says 0 without),
 * "from" (the CSV's source column: search, greedy, baseline, file; "source" is the record's key
 * for a kept schedule), best, and fits only when there is a capacity to fit. */
static json_t *ts_wrow_json(const ts_compare_row *r, bool has_memory)
{
    json_t *row = ts_compare_row_json(r);
    if (!row)
        return NULL;
    json_object_del(row, "k");
    json_object_del(row, "period");
    if (r->k > 0)
        json_object_set_new(row, "k", json_integer(r->k));
    if (r->period > 0)
        json_object_set_new(row, "period", json_integer(r->period));
    json_object_set_new(row, "from",
                        json_string(r->greedy   ? "greedy"
                                    : r->search ? "search"
                                    : r->file   ? "file"
                                                : "baseline"));
    json_object_set_new(row, "best", json_boolean(r->best));
    json_object_set_new(row, "label", json_string(ts_wrow_label(r)));
    if (r->ok) {
        json_object_set_new(row, "lower_bound", json_integer(r->lower_bound));
        /* a row over the memory is not held to the bound within it: no ratio (as the CLI) */
        json_object_set_new(row, "ratio",
                            r->lower_bound > 0 && r->at_n && (r->fits || !has_memory)
                                ? json_real((double)r->makespan / r->lower_bound)
                                : json_null());
        if (!has_memory)
            json_object_set_new(row, "fits", json_null());
    }
    return row;
}

/* The compare job through the compare operation, with the request its table read (request.c):
 * the rows, bound and best of `tessel compare` for the same request, each row with its summary
 * and schedule for the page. */
static void ts_wjob_compare(ts_wctx *w, const ts_api_request *rq)
{
    ts_op_compare_req r = *rq->compare;
    ts_op_compare_res res;
    ts_err e = {0};
    r.keep = true;
    r.row_start = ts_wrow_start;
    r.row_ud = w;
    r.progress = ts_wprogress;
    r.progress_ud = w;
    if (ts_op_compare_run(&r, &res, &e)) {
        ts_wline(w, 'E', json_pack("{s:s, s:i}", "error", e.msg, "code", e.code));
        ts_op_compare_res_free(&res);
        return;
    }
    json_t *arr = json_array();
    for (int i = 0; i < res.nrows; i++)
        json_array_append_new(arr, ts_wrow_json(&res.rows[i], r.cap != NULL));
    ts_wline(w, 'R',
             json_pack("{s:o, s:I, s:I, s:s, s:o}", "rows", arr, "best", (json_int_t)res.best,
                       "lower_bound", (json_int_t)res.lb.value, "bound_term",
                       ts_bound_term_name(res.lb.binding), "memory_searched",
                       ts_op_compare_memory_json(&r)));
    ts_op_compare_res_free(&res);
}

/* One what-if point: the search's makespan against LB at the point's knob value. */
static json_t *ts_wpoint(ts_wctx *w, const ts_api_request *rq, long v)
{
    ts_api_request q = *rq;
    ts_placement *owned = NULL;
    ts_err e = {0};
    long mem = v;
    int n = rq->micro_batches;
    if (!strcmp(rq->knob, "memory")) {
        q.has_memory = true;
        q.nmemory = 1;
        q.memory = &mem;
    } else if (!strcmp(rq->knob, "n")) {
        n = (int)v;
    } else if (!strcmp(rq->knob, "time_limit")) {
        q.time_limit = (double)v;
    } else if (rq->whatif_model) {
        ts_derive_info in;
        char msg[700];
        if (ts_serve_model_derive(rq, (int)v, &owned, &in, msg, sizeof msg) != 200)
            return json_pack("{s:I, s:s}", "value", (json_int_t)v, "status", msg);
        /* Each GPU count has its own capacity in its own units: the one the derivation states. */
        mem = in.capacity;
        q.has_memory = in.capacity > 0;
        q.nmemory = 1;
        q.memory = &mem;
        q.placement = owned;
        ts_derive_info_clear(&in);
    } else {
        ts_builtin_opts bo = rq->bopts;
        bo.ndevs = (int)v;
        if (ts_builtin_make(rq->builtin, &bo, &owned, &e))
            return json_pack("{s:I, s:s}", "value", (json_int_t)v, "status", e.msg);
        q.placement = owned;
        if (q.has_memory && q.nmemory > 1)
            q.nmemory = 1; /* a per-device list does not carry over to another device count */
    }
    snprintf(w->step, sizeof w->step, "%s %ld", rq->knob, v);
    ts_schedule *s = NULL;
    json_t *sum = NULL, *pt = json_pack("{s:I}", "value", (json_int_t)v);
    if (ts_wsearch(w, &q, q.placement, rq->method, n, &s, &sum, &e)) {
        json_object_set_new(pt, "status", json_string(e.msg));
    } else {
        json_object_set_new(pt, "status", json_string("ok"));
        json_object_update(pt, sum);
    }
    json_decref(sum);
    ts_schedule_free(s);
    ts_placement_free(owned);
    return pt;
}

static void ts_wjob_whatif(ts_wctx *w, const ts_api_request *rq)
{
    json_t *pts = json_array();
    w->parts = rq->nvalues;
    for (int i = 0; i < rq->nvalues; i++) {
        w->part = i;
        json_array_append_new(pts, ts_wpoint(w, rq, rq->values[i]));
        /* the points so far, kept by the server: a job cut or cancelled later still answers
         * with them */
        if (i + 1 < rq->nvalues)
            ts_wline(w, 'Q',
                     json_pack("{s:s, s:O, s:b}", "knob", rq->knob, "points", pts, "partial", 1));
    }
    ts_wline(w, 'R', json_pack("{s:s, s:o}", "knob", rq->knob, "points", pts));
}

void ts_worker_fail(int fd, const char *msg, int code)
{
    ts_wctx w = {fd, 0, 0, "", 0, 1};
    ts_wline(&w, 'E', json_pack("{s:s, s:i}", "error", msg, "code", code));
}

void ts_worker_run(const ts_api_request *rq, int fd)
{
    ts_wctx w = {fd, ts_clock_now(), 0, "", 0, 1};
    switch (rq->job) {
    case TS_JOB_SEARCH: ts_wjob_search(&w, rq); break;
    case TS_JOB_COMPARE: ts_wjob_compare(&w, rq); break;
    case TS_JOB_WHATIF: ts_wjob_whatif(&w, rq); break;
    }
}
