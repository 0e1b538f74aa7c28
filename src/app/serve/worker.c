/* The work of one search job, run inside its worker process (jobs.c starts it): a search, a
 * compare table or a what-if sweep. It talks to the server only through fd, one line per
 * message: "P {progress}", then "R {result}" or "E {error}". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "ts_baseline.h"
#include "ts_json.h"
#include "ts_serve.h"
#include "ts_solver.h"

typedef struct {
    int fd;
    double t0, last; /* job start, last progress line (monotonic seconds) */
    char step[64]; /* which part of the job runs: "lazy", "memory 6", ... */
    int part, parts; /* compare rows / what-if points done and to do */
} ts_wctx;

static double ts_wnow(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

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
                       "best_bubbles", (json_int_t)best, "elapsed", ts_wnow() - w->t0, "part",
                       w->part, "parts", w->parts));
}

/* At most ten progress lines a second: the solver may call back far more often. */
static void ts_wprogress(void *ud, const ts_search_progress *p)
{
    ts_wctx *w = ud;
    double now = ts_wnow();
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

static long ts_wmemory(const ts_api_request *rq)
{
    long m = rq->memory[0];
    for (int i = 1; i < rq->nmemory; i++)
        if (rq->memory[i] < m)
            m = rq->memory[i];
    return m;
}

/* One search; on TS_OK *out is the schedule and *summary its figures and statistics. The search
 * takes one capacity: the smallest of a per-device list (fits is judged per device). */
static int ts_wsearch(ts_wctx *w, const ts_api_request *rq, const ts_placement *p,
                      const char *method, int n, ts_schedule **out, json_t **summary, ts_err *e)
{
    ts_search_opts so;
    ts_search_stats st;
    ts_search_opts_init(&so);
    so.method = ts_wmethod(method);
    so.has_memory = rq->has_memory;
    so.memory = rq->has_memory ? ts_wmemory(rq) : 0;
    so.micro_batches = n;
    so.time_limit = rq->time_limit;
    so.progress = ts_wprogress;
    so.progress_ud = w;
    *out = NULL;
    *summary = NULL;
    int rc = ts_search(p, &so, out, &st, e);
    if (rc)
        return rc;
    json_t *j = ts_serve_summary(*out, n, rq, e), *sec = json_object();
    if (!j) {
        json_decref(sec);
        ts_schedule_free(*out);
        *out = NULL;
        return TS_ESYS;
    }
    json_object_set_new(sec, "total", json_real(st.seconds));
    for (int i = 0; i < st.nphases; i++)
        json_object_set_new(sec, st.phases[i].name, json_real(st.phases[i].seconds));
    json_object_set_new(j, "method", json_string(ts_method_name(so.method)));
    json_object_set_new(j, "k", json_integer(st.k));
    json_object_set_new(j, "period", json_integer(st.period));
    json_object_set_new(j, "bubbles_per_repetend", json_integer(st.bubbles));
    json_object_set_new(j, "optimal", json_boolean(st.optimal));
    json_object_set_new(j, "timed_out", json_boolean(st.timed_out));
    json_object_set_new(j, "seconds", json_real(st.seconds));
    json_object_set_new(j, "search_seconds", sec);
    json_object_set_new(j, "memory_searched",
                        so.has_memory ? json_integer(so.memory) : json_string("none"));
    *summary = j;
    return TS_OK;
}

static void ts_wjob_search(ts_wctx *w, const ts_api_request *rq)
{
    ts_schedule *s;
    json_t *sum;
    ts_err e = {0};
    snprintf(w->step, sizeof w->step, "%s", rq->method);
    if (ts_wsearch(w, rq, rq->placement, rq->method, rq->micro_batches, &s, &sum, &e)) {
        ts_wline(w, 'E', json_pack("{s:s, s:i}", "error", e.msg, "code", e.code));
        return;
    }
    ts_wline(w, 'R', json_pack("{s:o, s:o}", "summary", sum, "schedule", ts_schedule_to_json(s)));
    ts_schedule_free(s);
}

/* One compare row: a baseline built by its rule, or a search. */
static json_t *ts_wrow(ts_wctx *w, const ts_api_request *rq, const char *name)
{
    ts_schedule *s = NULL;
    json_t *sum = NULL;
    ts_err e = {0};
    bool search = ts_baseline_find(name) == NULL;
    double t0 = ts_wnow();
    snprintf(w->step, sizeof w->step, "%s", name);
    ts_wpart(w, "start", 0, 0, -1);
    int rc;
    if (search) {
        rc = ts_wsearch(w, rq, rq->placement, name, rq->micro_batches, &s, &sum, &e);
    } else {
        rc = ts_baseline_make(name, rq->placement, rq->micro_batches, &s, &e);
        if (rc == TS_OK && !(sum = ts_serve_summary(s, rq->micro_batches, rq, &e)))
            rc = TS_ESYS;
        if (sum)
            json_object_set_new(sum, "seconds", json_real(ts_wnow() - t0));
    }
    json_t *row = json_pack("{s:s, s:s}", "method", name, "kind", search ? "search" : "baseline");
    if (rc) {
        json_object_set_new(row, "status", json_string(e.msg));
        return row;
    }
    json_object_set_new(row, "status",
                        json_string(json_is_true(json_object_get(sum, "timed_out"))
                                        ? "timed out (best found)"
                                        : "ok"));
    json_object_update(row, sum);
    json_decref(sum);
    json_object_set_new(row, "schedule", ts_schedule_to_json(s));
    ts_schedule_free(s);
    return row;
}

static void ts_wjob_compare(ts_wctx *w, const ts_api_request *rq)
{
    const char *names[TS_API_MAX_METHODS + 16];
    int n = 0;
    for (int i = 0; i < rq->nmethods; i++)
        names[n++] = rq->methods[i];
    if (n == 0) { /* every baseline that fits, then every search method */
        for (int i = 0; i < ts_baseline_count() && n < 12; i++)
            if (ts_baseline_fits(ts_baseline_at(i)->name, rq->placement, rq->micro_batches, NULL) ==
                TS_OK)
                names[n++] = ts_baseline_at(i)->name;
        for (int i = 0; i < (int)TS_METHOD_COUNT; i++)
            names[n++] = ts_method_name((ts_method)i);
    }
    json_t *rows = json_array();
    long best = -1, best_ms = 0;
    w->parts = n;
    for (int i = 0; i < n; i++) {
        w->part = i;
        json_t *row = ts_wrow(w, rq, names[i]);
        json_t *ms = json_object_get(row, "makespan");
        if (ms && json_is_true(json_object_get(row, "fits")) &&
            (best < 0 || json_integer_value(ms) < best_ms)) {
            best = i;
            best_ms = (long)json_integer_value(ms);
        }
        json_array_append_new(rows, row);
    }
    ts_wline(w, 'R',
             json_pack("{s:o, s:I, s:I}", "rows", rows, "best", (json_int_t)best, "lower_bound",
                       (json_int_t)ts_lower_bound(rq->placement, rq->micro_batches)));
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
    ts_wctx w = {fd, ts_wnow(), 0, "", 0, 1};
    switch (rq->job) {
    case TS_JOB_SEARCH: ts_wjob_search(&w, rq); break;
    case TS_JOB_COMPARE: ts_wjob_compare(&w, rq); break;
    case TS_JOB_WHATIF: ts_wjob_whatif(&w, rq); break;
    }
}
