/* tessel serve: a local web application (the placement explorer) over the core library and the
 * solver. The HTTP server is libmicrohttpd; the page's assets are compiled in (serve_assets.h).
 *
 * Layers, each callable on its own:
 *   ts_api_parse    bytes of one request (method, path, body) -> a checked ts_api_request.
 *                   Pure: no server state, no I/O, no solver. This is the function a fuzz target
 *                   drives: any input yields either TS_OK and a request to free, or an error with
 *                   the HTTP status in rq->http_status and a one-line message in e.
 *                   A fuzz target links tessel_serve and does, per input:
 *                     ts_api_request rq; ts_err e = {0};
 *                     if (ts_api_parse("POST", "/api/check", data, size, &rq, &e) == TS_OK)
 *                         ts_api_request_free(&rq);
 *                   (any route: /api/builtin, /api/check, /api/baseline, /api/view, /api/trace,
 *                   /api/jobs, /api/model-placement; the parse starts nothing, so job bodies are
 *                   safe to fuzz too).
 *   ts_api_handle   one parsed request -> a JSON answer and an HTTP status (jobs run in workers).
 *   ts_serve_main   the `tessel serve` command: options, the daemon, Ctrl-C. */
#ifndef TS_SERVE_H
#define TS_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "ts_model.h"
#include "ts_placement.h"
#include "ts_op_views.h"
#include "ts_schedule.h"
#include "ts_time_limit.h"

#define TS_API_MAX_BODY (4u << 20) /* bytes; a larger request body is refused with 413 */
#define TS_API_MAX_VALUES 32 /* what-if points */
#define TS_API_MAX_N 4096 /* micro-batches */
#define TS_API_DEFAULT_LIMIT 10.0 /* seconds of a job's search when the page gives none */

typedef enum {
    TS_API_INFO, /* GET  /api/info: built-ins, baselines, methods, limits */
    TS_API_BUILTIN, /* POST /api/builtin {name, ndevs, infer, chunks} -> placement */
    TS_API_CHECK, /* POST /api/check {placement, file, memory, micro_batches} -> bound, load */
    TS_API_BASELINE, /* POST /api/baseline {placement, file, kind, micro_batches} -> schedule */
    TS_API_VIEW, /* POST /api/view {schedule, micro_batches, timeline} -> svg, memory */
    TS_API_TRACE, /* POST /api/trace {schedule, micro_batches, timeline} -> Chrome trace */
    TS_API_JOB_START, /* POST /api/jobs {job: search|compare|whatif, ...} -> {id} */
    TS_API_JOB_LIST, /* GET  /api/jobs */
    TS_API_JOB_STATUS, /* GET  /api/jobs/ID: state, progress, result */
    TS_API_JOB_CANCEL, /* POST /api/jobs/ID/cancel (or DELETE /api/jobs/ID) */
    TS_API_MODELS, /* GET  /api/models: the embedded models, hardware and strategies */
    TS_API_MODEL_PLACEMENT /* POST /api/model-placement {model, hardware, gpus, strategy, ...} */
} ts_api_route;

typedef enum { TS_JOB_SEARCH, TS_JOB_COMPARE, TS_JOB_WHATIF } ts_job_kind;

typedef struct {
    ts_api_route route;
    int http_status; /* set when parsing refuses the request (400, 404, 405, 413) */
    /* names the placement in messages, as a file name does on the CLI: the file's name, or
     * what a built-in or model placement is ("vshape on 4 devices"), "placement" when not given */
    char file[80];
    ts_placement *placement; /* owned: check, baseline, jobs */
    ts_schedule *schedule; /* owned: view, trace */
    bool has_memory; /* false: "none" (unconstrained) */
    int nmemory; /* 1 (uniform) or ndevs entries */
    long *memory; /* owned: nmemory capacities */
    int micro_batches; /* N (default 128) */
    char method[16]; /* search: auto, lazy, fast, full, modulo */
    double time_limit; /* seconds per search (default 10) */
    int nmicros; /* lazy's k, 0 = search it */
    char kind[32]; /* baseline kind */
    bool no_svg; /* view: leave the SVG out (the page draws from the entries) */
    /* check: the request read by the bound operation's table (ts_op_views.h); owns its memory */
    ts_op_bound_req bound;
    /* view, trace: the request read by the render or trace operation's table, its title copied
     * to title (the body does not outlive the parse) */
    ts_op_view_req view;
    char title[256];
    ts_job_kind job;
    long job_id;
    char builtin[48]; /* builtin, and what-if over the device count */
    ts_builtin_opts bopts;
    char knob[16]; /* what-if: memory, n, time_limit, ndevs */
    bool whatif_model; /* what-if over ndevs: of the model that derive names */
    int nvalues;
    long values[TS_API_MAX_VALUES];
    char model[48], hardware[48], strategy[16]; /* model-placement */
    /* owned: a search job's request, read by the search operation's table (ts_op_search.h) */
    struct ts_op_search_req *search;
    /* owned: a compare job's request, read by the compare operation's table (ts_op_compare.h) */
    struct ts_op_compare_req *compare;
    /* owned: a model placement's request (model-placement, what-if over a model's GPUs), read by
     * its operation's table (ts_op_model.h) */
    struct ts_op_model_placement_req *derive;
    /* Borrowed, set by ts_api_parse: the body it read (valid while the caller's buffer is). A
     * job's worker process gets these bytes and parses them again (see ts_worker_main). */
    const char *raw_body;
    size_t raw_len;
} ts_api_request;

/* Parses one request. method is the HTTP verb, url the path (a query string is ignored), body the
 * raw bytes (need not be NUL-terminated; may be NULL when len is 0). On TS_OK the caller frees rq
 * with ts_api_request_free; on error rq holds nothing to free and rq->http_status says which 4xx. */
int ts_api_parse(const char *method, const char *url, const char *body, size_t len,
                 ts_api_request *rq, ts_err *e);
void ts_api_request_free(ts_api_request *rq);
/* The body of POST /api/model-placement (models.c). */
int ts_api_model_body(json_t *o, ts_api_request *rq, ts_err *e);
/* GET /api/models and POST /api/model-placement over the embedded descriptions (models.c). */
int ts_api_models(json_t **out);
int ts_api_model_placement(const ts_api_request *rq, json_t **out);
/* The placement of rq's model on `gpus` GPUs (what /api/model-placement answers; the what-if over
 * the device count of a model). Returns 200 with *p and *in (the caller's to free), or the HTTP
 * status of a refusal with its message in msg. */
int ts_serve_model_derive(const ts_api_request *rq, int gpus, ts_placement **p, ts_derive_info *in,
                          char *msg, size_t len);

typedef struct ts_jobs ts_jobs;

/* Runs one parsed request. *out gets the JSON answer (also for errors: {"error": message}).
 * Returns the HTTP status. */
int ts_api_handle(ts_jobs *jobs, const ts_api_request *rq, json_t **out);

/* Search workers: each job is a child process (so a solver run can be cancelled by killing it)
 * that streams progress lines and its result through a pipe; a monitor thread reads them and
 * stops a job past its time limit (the watchdog rule, ts_watchdog_seconds). At most max_running jobs run at once.
 * The server has threads, so the child of fork() may only make async-signal-safe calls: it execs
 * worker_exe (NULL: this program, /proc/self/exe) as `serve --worker`, which reads the request
 * from its stdin and answers on fd 3 (ts_worker_main). */
ts_jobs *ts_jobs_new(int max_running, const char *worker_exe, ts_err *e);
void ts_jobs_free(ts_jobs *j); /* kills and reaps every running worker */
/* Returns the HTTP status: 200 with *id, 429 when max_running jobs run, 500. rq->raw_body is
 * what the worker gets. A worker that cannot start ends its job as failed, with the reason. */
int ts_jobs_start(ts_jobs *j, const ts_api_request *rq, long *id, ts_err *e);
json_t *ts_jobs_status(ts_jobs *j, long id, bool with_result); /* NULL: unknown id */
int ts_jobs_cancel(ts_jobs *j, long id); /* 0, or -1: unknown id */
json_t *ts_jobs_list(ts_jobs *j);

/* The work of one job, run inside the worker: writes "P <json>\n" progress lines and one
 * "R <json>\n" result line (or "E <json>\n" with {error, status}) to fd. */
void ts_worker_run(const ts_api_request *rq, int fd);
/* Writes "E {error, code}" to fd: a job that failed before its work started. */
void ts_worker_fail(int fd, const char *msg, int code);
/* `tessel serve --worker`: reads one job request from in ("METHOD URL LENGTH\n", then LENGTH bytes
 * of body), parses it with ts_api_parse and runs it with ts_worker_run(&rq, out). Returns the exit
 * status: 0, or 2 when the request could not be read or parsed (after an "E" line on out). */
int ts_worker_main(int in, int out);

/* One line of a compare table or a search summary: figures at n micro-batches. */
json_t *ts_serve_summary(const ts_schedule *s, int n, const ts_api_request *rq, ts_err *e);
/* What the page draws of the render operation's schedule at N (view.c): the SVG (with_svg), the
 * figures, validity, each device's memory over time, every instance, the blocks, the repetend.
 * NULL with e set. */
json_t *ts_api_view(const ts_op_view_res *res, const ts_op_view_req *r, bool with_svg, ts_err *e);

/* `tessel serve [--port P] [--host H] [--open] [--max-searches J]`; argv[0] is "serve". */
int ts_serve_main(int argc, char **argv);

#endif
