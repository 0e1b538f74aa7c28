/* Schedules (timetables): a start step for every instance (block, micro-batch) of a placement. */
#ifndef TS_SCHEDULE_H
#define TS_SCHEDULE_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>
#include "ts_placement.h"

typedef struct {
    int block;
    int micro;
    long step;
} ts_entry;

/* The window [start, end) holds exactly per instances of every block; block b's instances in it
 * are micro-batches mids[b * per .. b * per + per), ascending. Unrolling repeats the window with
 * step + r*period, micro + r*per: per micro-batches every period (1 for the methods' own
 * repetends; more for a steady state that repeats only every few micro-batches). */
typedef struct {
    long start, end, period;
    /* max(mids) - min(mids) + 1 */
    int k;
    /* micro-batches per period, >= 1 */
    int per;
    /* nblocks * per entries */
    int *mids;
} ts_repetend;

/* The most micro-batches per period a schedule file's repetend may hold. */
#define TS_REPETEND_MAX_PER 64

typedef struct {
    /* owned */
    ts_placement *placement;
    bool has_memory;
    /* per-device capacity when has_memory */
    long *memory;
    int nmicros;
    int nentries, cap_entries;
    ts_entry *entries;
    bool has_repetend;
    ts_repetend rep;
    /* how it was found (method, options, seconds, optimal); owned, may be NULL */
    json_t *search;
} ts_schedule;

/* clones p */
ts_schedule *ts_schedule_new(const ts_placement *p, int nmicros);
void ts_schedule_free(ts_schedule *s);
ts_schedule *ts_schedule_clone(const ts_schedule *s);
/* 0 or -1 (allocation) */
int ts_schedule_add(ts_schedule *s, int block, int micro, long step);
/* cap == NULL: unconstrained memory. */
void ts_schedule_set_memory(ts_schedule *s, const long *cap);
void ts_schedule_set_uniform_memory(ts_schedule *s, long cap);
/* Declares the repetend window of one micro-batch per period; mids has nblocks entries. Returns
 * -1 on allocation failure. */
int ts_schedule_set_repetend(ts_schedule *s, long start, long end, const int *mids);
/* The same with per >= 1 micro-batches per period: mids has nblocks * per entries, block b's at
 * [b * per, b * per + per) (sorted here). Returns -1 on allocation failure. */
int ts_schedule_set_repetend_per(ts_schedule *s, long start, long end, int per, const int *mids);
void ts_schedule_clear_repetend(ts_schedule *s);
/* Takes ownership of info (may be NULL). */
void ts_schedule_set_search_info(ts_schedule *s, json_t *info);
/* Sorts entries by (step, first device, block, micro): the canonical order of files and views. */
void ts_schedule_sort(ts_schedule *s);
/* Dense table index[block * nmicros + micro] -> entry index, -1 where missing. Caller frees.
 * Returns NULL on allocation failure. Duplicate instances keep the first entry. */
int *ts_schedule_index(const ts_schedule *s);

/* The first and last busy step: [min start, max end). Empty schedule: 0, 0. */
void ts_schedule_span(const ts_schedule *s, long *first, long *last);

/* Unrolls a schedule with a repetend to n >= nmicros micro-batches (n == nmicros clones); for
 * 1 <= n < nmicros it keeps the first n micro-batches (without the repetend). A repetend of per > 1
 * micro-batches per period adds them per at a time: n - nmicros not a multiple of per unrolls to
 * the next count that is and keeps its first n micro-batches (without the repetend). Fails with
 * TS_EINPUT when n > nmicros and there is no repetend. */
int ts_schedule_unroll(const ts_schedule *s, int n, ts_schedule **out, ts_err *e);
/* Declares the repetend of a schedule without one whose steady state repeats R micro-batches per
 * period (R = 1 .. TS_FIND_REPETEND_MAX_PER, the smallest first: every block's instances m and
 * m + R around a middle micro-batch start P steps apart, and a window of P steps there holds R
 * instances of each, one of each residue mod R), kept only when the schedule is valid and,
 * unrolled to N + 1 .. N + R + 2, N + 2R and 2N, validates. Returns 1 when declared, 0 when not
 * (nothing changes), -1 on allocation failure. */
#define TS_FIND_REPETEND_MAX_PER 8
int ts_schedule_find_repetend(ts_schedule *s);
/* Shifts the schedule so that its first step is 0 (repetend window included). */
void ts_schedule_normalize(ts_schedule *s);

/* The schedule of exactly n micro-batches that a user is shown and measured on: unrolled when
 * it has a repetend and n is larger, cut to the first n when n is smaller, and, when replayed,
 * tightened as each device's order allows (a tightening that deadlocks keeps the planned steps,
 * which are valid too). Fails with TS_EINPUT when n exceeds a schedule without a repetend. */
int ts_schedule_at(const ts_schedule *s, int n, bool replayed, ts_schedule **out, ts_err *e);

typedef struct {
    /* (5): instances of one block run in micro-batch order */
    bool monotone;
    /* skip (3) even when capacities are present */
    bool ignore_memory;
} ts_validate_opts;

/* Checks exclusivity, dependencies (delays, distances), memory and completeness. Returns TS_OK,
 * or TS_ENOANSWER with the first violation (device, step, instances) in e->msg. */
int ts_schedule_validate(const ts_schedule *s, const ts_validate_opts *o, ts_err *e);

/* Per-device order of instances: for device d, order[off[d] .. off[d+1]) are entry indices in
 * start order (ties by block, micro). Caller frees both. Returns -1 on allocation failure. */
int ts_schedule_device_orders(const ts_schedule *s, int **off, int **order);

/* Moves every instance as early as its device order and dependencies allow. Fails with
 * TS_ENOANSWER when the device orders deadlock. Keeps the repetend only if it stays periodic
 * (it is dropped otherwise, since the tightened schedule no longer repeats). */
int ts_schedule_tighten(ts_schedule *s, ts_err *e);

typedef struct {
    /* last end - first start */
    long makespan;
    /* first start, last end */
    long first, last;
    /* 1 - busy / (ndevs * makespan) */
    double bubble_rate;
    /* ndevs: peak running memory (starting from 0) */
    long *peak;
    /* ndevs: per-micro-batch load of the placement */
    long *load;
    /* sum over instances of span * ndevices */
    long busy;
    /* LB(nmicros): ts_schedule_metrics (ts_bound.h) fills it, ts_schedule_measure leaves 0 */
    long lower_bound;
} ts_metrics;

/* Every metric but the lower bound, which is the bound's (ts_schedule_metrics in ts_bound.h
 * adds it). 0 or -1 (allocation). */
int ts_schedule_measure(const ts_schedule *s, ts_metrics *m);
void ts_metrics_free(ts_metrics *m);
/* Declared in ts_bound.h and defined in bound/: repeated here only while three callers reach
 * it through this header alone (solver/improve/lns.c, tests/solver/solver_testutil.h,
 * src/app/pyapi/pyapi_schedule.c, being edited elsewhere). Remove it once they include
 * ts_bound.h. */
int ts_schedule_metrics(const ts_schedule *s, ts_metrics *m);

/* Event replay of each device's order with given durations. */
typedef struct {
    /* per block; NULL = spans */
    const double *duration;
    /* per block multiplier; NULL = 1 */
    const double *scale;
    /* each instance's duration *= 1 + U(-noise, +noise); 0 = none */
    double noise;
    unsigned long long seed;
    /* added to every edge between blocks on different devices (on top of the placement's
     * delays); same-device edges pass data in place */
    double comm_delay;
    /* per edge: replaces the placement's delay, in the durations' unit (NULL = the placement's
     * delays) */
    const double *edge_delay;
} ts_sim_opts;

typedef struct {
    double makespan;
    /* per entry of the schedule */
    double *start;
    /* per entry */
    double *finish;
} ts_sim_result;

int ts_simulate(const ts_schedule *s, const ts_sim_opts *o, ts_sim_result *r, ts_err *e);
void ts_sim_result_free(ts_sim_result *r);

/* JSON files (format "tessel-schedule/1"). path "-" means stdin/stdout. */
int ts_schedule_load(const char *path, ts_schedule **out, ts_err *e);
int ts_schedule_save(const ts_schedule *s, const char *path, ts_err *e);

/* Reads a schedule written by the Python Tessel; p supplies edges and block identities. */
int ts_pyimport_load(const char *path, const ts_placement *p, ts_schedule **out, ts_err *e);

/* Text timeline: one row per device, repetend marked. width = max characters per row segment.
 * Idle stretches of more than TS_SHOW_GAP steps on every device are drawn as one column; a
 * timeline of more than TS_SHOW_MAX_CELLS cells (devices x drawn steps x cell width) is refused
 * with TS_EINPUT, so that time and memory stay bounded whatever the steps. */
#define TS_SHOW_GAP 8
#define TS_SHOW_MAX_CELLS (1L << 26)
int ts_show_text(const ts_schedule *s, FILE *out, int width, ts_err *e);

#endif
