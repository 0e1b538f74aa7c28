/* What rank 0 makes of the per-rank timings of one iteration: wall time, the simulator's
 * prediction from measured block times, efficiency, and a Chrome trace. */
#ifndef TS_RT_REPORT_H
#define TS_RT_REPORT_H

#include "rt_plan.h"

/* Timings gathered from every rank, seconds from each rank's iteration start. */
typedef struct {
    int nranks;
    /* per rank, per op: inputs were there */
    const double *const *ready;
    /* per rank, per op: compute began */
    const double *const *start;
    /* per rank, per op: compute ended */
    const double *const *end;
    /* per rank: last send completed */
    const double *finish;
    /* per rank: monotonic clock at the iteration's start */
    const double *base;
} ts_rt_timings;

typedef struct {
    /* slowest rank's finish */
    double wall;
    /* simulated makespan with the measured per-block durations */
    double predicted;
    /* the schedule's own makespan x unit (0 when no unit) */
    double planned;
    /* predicted / wall */
    double efficiency;
    /* micro-batches per second */
    double throughput;
} ts_rt_iter_stats;

/* block_seconds (nblocks): mean measured duration per block; a block on several devices counts
 * each instance once, by its shortest member (the others include waiting for it). unit_s: seconds
 * per time unit of the timing workload, which emulates the edges' delays (the prediction counts
 * them as delay x unit_s); 0 for the other workloads, which do not (the prediction leaves them
 * out). */
int ts_rt_report_iteration(const ts_rt_plan *p, const ts_rt_timings *t, double unit_s,
                           double *block_seconds, ts_rt_iter_stats *st, ts_err *e);
/* One track per rank, one slice per instance, a flow per message. */
int ts_rt_report_trace(const ts_rt_plan *p, const ts_rt_timings *t, const char *path, ts_err *e);

#endif
