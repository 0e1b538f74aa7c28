/* The operations over a placement or a schedule that search nothing: bound (`tessel bound`,
 * Placement.bound, the explorer's check), validate, simulate (and Schedule.summary), show, render
 * (the explorer's view) and trace. Each has its option table, its request read by it and one run
 * that every front end shares; the front end gives the placement or the schedule its own way (a
 * file, a built-in, an object, the text of a file) and prints the result. */
#ifndef TS_OP_VIEWS_H
#define TS_OP_VIEWS_H

#include <stdio.h>
#include "ts_bound.h"
#include "ts_ops.h"
#include "ts_render.h"

extern const ts_op ts_op_bound, ts_op_validate, ts_op_simulate, ts_op_show, ts_op_render,
    ts_op_trace;

/* ---- bound (op_bound.c) --------------------------------------------------------------------- */

typedef struct {
    /* N: required */
    int n;
    /* the memory as given (absent: none), and each device's capacity (owned; NULL: none) */
    ts_op_memory mem;
    long *cap;
} ts_op_bound_req;

int ts_op_bound_read(json_t *req, ts_front f, const ts_placement *p, ts_op_bound_req *r, ts_err *e);
void ts_op_bound_req_free(ts_op_bound_req *r);

typedef struct {
    ts_bound b;
    /* owned: each device's load */
    long *load;
    /* owned: what `tessel bound --json` prints (placement, micro_batches, memory as given,
     * lower_bound, binding, terms, load, binding_device) */
    json_t *json;
} ts_op_bound_res;

int ts_op_bound_run(const ts_placement *p, const ts_op_bound_req *r, ts_op_bound_res *res,
                    ts_err *e);
void ts_op_bound_res_free(ts_op_bound_res *res);

/* ---- the schedule at N, shared by the operations on a schedule (op_views.c) ----------------- */

/* The schedule of n micro-batches (n 0: its own): cut to its first n, or unrolled by its
 * repetend, then (replayed) tightened as each device's order allows. A count it cannot reach is
 * TS_EINPUT "WHERE: why", where naming the schedule as the front end does (its file). */
int ts_op_schedule_at(const ts_schedule *s, int n, bool replayed, const char *where,
                      ts_schedule **out, ts_err *e);
/* Reads the micro_batches and timeline rows of op (absent: 0, planned). */
int ts_op_read_at(const ts_op *op, json_t *req, ts_front f, int *n, bool *replayed, ts_err *e);

/* ---- validate (op_validate.c) --------------------------------------------------------------- */

typedef struct {
    int n;
    ts_validate_opts vo;
} ts_op_validate_req;

int ts_op_validate_read(json_t *req, ts_front f, ts_op_validate_req *r, ts_err *e);

typedef struct {
    /* owned: the schedule judged (at N) and its metrics */
    ts_schedule *at;
    ts_metrics m;
    /* owned: valid, micro_batches, makespan, lower_bound */
    json_t *json;
} ts_op_validate_res;

/* Judges s (named where in messages): TS_ENOANSWER with the first violation ("WHERE: invalid:
 * why"), TS_EINPUT when it cannot be unrolled to N. */
int ts_op_validate_run(const ts_schedule *s, const char *where, const ts_op_validate_req *r,
                       ts_op_validate_res *res, ts_err *e);
void ts_op_validate_res_free(ts_op_validate_res *res);

/* ---- simulate (op_simulate.c) --------------------------------------------------------------- */

typedef struct {
    int n;
    ts_sim_opts so;
    /* owned: each block's factor (so points at it); nscale of them given */
    double *scale;
    int nscale;
} ts_op_simulate_req;

/* Reads a simulate request for schedules of placement p (the blocks that scale names). */
int ts_op_simulate_read(json_t *req, ts_front f, const ts_placement *p, ts_op_simulate_req *r,
                        ts_err *e);
void ts_op_simulate_req_free(ts_op_simulate_req *r);

typedef struct {
    /* owned: the schedule at N, replayed */
    ts_schedule *at;
    /* owned: what `tessel simulate --json` prints */
    json_t *json;
    ts_sim_result sim;
    ts_metrics m;
    double lower_bound, bubble_rate;
} ts_op_simulate_res;

/* Replays s at N: TS_ENOANSWER when it is invalid ("WHERE: invalid: why"). */
int ts_op_simulate_run(const ts_schedule *s, const char *where, const ts_op_simulate_req *r,
                       ts_op_simulate_res *res, ts_err *e);
void ts_op_simulate_res_free(ts_op_simulate_res *res);
/* The summary of s at n micro-batches (0: its own), as `tessel compare` measures: unrolled as
 * simulate unrolls it (a count it cannot reach fails the same way), then ts_results_summary
 * with s's own capacities. */
json_t *ts_op_summary(const ts_schedule *s, const char *where, int n, ts_err *e);

/* ---- show, render, trace (op_views.c) ------------------------------------------------------- */

typedef struct {
    int n;
    bool replayed;
    /* show */
    int width;
    /* render: scale and title (borrowed from the request) */
    ts_render_opts ro;
    /* trace: microseconds per time unit */
    double unit_us;
} ts_op_view_req;

/* Reads a show, render or trace request (op says which) by its table. */
int ts_op_view_read(const ts_op *op, json_t *req, ts_front f, ts_op_view_req *r, ts_err *e);

typedef struct {
    /* owned: the schedule at N */
    ts_schedule *at;
    bool valid;
    /* why it is invalid ("" when valid) */
    char why[TS_ERRLEN];
} ts_op_view_res;

/* The schedule at N that every view draws, and whether it is valid (an invalid one is drawn
 * too). trace first refuses a count whose slices pass TS_TRACE_MAX_SLICES, before unrolling. */
int ts_op_view_run(const ts_op *op, const ts_schedule *s, const char *where,
                   const ts_op_view_req *r, ts_op_view_res *res, ts_err *e);
void ts_op_view_res_free(ts_op_view_res *res);
/* show: the header (placement, figures, repetend, peak memory) and the text timeline, to out. */
int ts_op_show_write(const ts_op_view_res *res, const ts_op_view_req *r, FILE *out, ts_err *e);
/* render: the SVG as a string (the caller frees); NULL with e set. */
char *ts_op_render_svg(const ts_op_view_res *res, const ts_op_view_req *r, ts_err *e);

#endif
