/* The lower bound on the makespan of N micro-batches: the maximum of several sound bounds, each
 * of which no valid schedule can beat. Which term binds tells a user where the time goes. */
#ifndef TS_BOUND_H
#define TS_BOUND_H

#include "ts_schedule.h"

typedef enum {
    /* max_d head(d) + N*load(d) + tail(d) (the first, simple bound) */
    TS_BOUND_LOAD = 0,
    /* the longest path of one micro-batch */
    TS_BOUND_CRITICAL_PATH,
    /* the longest path of N micro-batches through distance edges */
    TS_BOUND_RECURRENCE,
    /* per device: Jackson's preemptive schedule, releases and tails */
    TS_BOUND_ONE_MACHINE,
    /* per device: micro-batches in flight limited by the capacity */
    TS_BOUND_MEMORY,
    /* blocks on every device: their total span plus the rest's bound */
    TS_BOUND_PAUSES,
    /* per device: windows the capacity keeps apart, laid end to end */
    TS_BOUND_EXCLUSIVE,
    /* two devices: windows each holding a window of the other that the other's keep away */
    TS_BOUND_CROSS,
    /* per device: idle steps the capacity forces before its first freeing block can start
     * and after its last allocating block */
    TS_BOUND_WARMUP,
    TS_BOUND_NTERMS
} ts_bound_term;

typedef struct {
    /* max of the computed terms */
    long value;
    /* -1 where a term was not computed (too large, no memory) */
    long term[TS_BOUND_NTERMS];
    /* the first term that reaches value */
    ts_bound_term binding;
    /* the device a per-device term was taken on, -1 otherwise */
    int device[TS_BOUND_NTERMS];
} ts_bound;

const char *ts_bound_term_name(ts_bound_term t);

/* Computes every term for n >= 1 micro-batches. cap: per-device memory capacity (ndevs
 * entries), or NULL for unconstrained memory (no memory term). Returns 0, or -1 on allocation
 * failure (b->value then holds the load bound, which needs no memory). */
int ts_bound_compute(const ts_placement *p, int n, const long *cap, ts_bound *b);

/* Convenience: the bound's value (with per-device capacities, or NULL). */
long ts_bound_value(const ts_placement *p, int n, const long *cap);

/* The first, simple bound alone: max_d head(d) + n*load(d) + tail(d). */
long ts_lower_bound_load(const ts_placement *p, int n);
/* Lower bound on the makespan of n micro-batches without memory limits: the maximum of the
 * sound bounds of ts_bound.h (load, critical path, recurrences, one machine per device). */
long ts_lower_bound(const ts_placement *p, int n);

/* A schedule's metrics (ts_schedule_measure) with its lower bound at its micro-batches, under
 * its capacities when it has them (bound_metrics.c). 0 or -1 (allocation). */
int ts_schedule_metrics(const ts_schedule *s, ts_metrics *m);

#endif
