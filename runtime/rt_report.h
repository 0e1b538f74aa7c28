/* What rank 0 makes of the per-rank timings of one iteration: wall time, the simulator's
 * prediction from measured block times, efficiency, and a Chrome trace. */
#ifndef RT_REPORT_H
#define RT_REPORT_H

#include "rt_plan.h"

/* Timings gathered from every rank, seconds from each rank's iteration start. */
typedef struct {
    int nranks;
    const double *const *ready; /* per rank, per op: inputs were there */
    const double *const *start; /* per rank, per op: compute began */
    const double *const *end; /* per rank, per op: compute ended */
    const double *finish; /* per rank: last send completed */
    const double *base; /* per rank: monotonic clock at the iteration's start */
} rt_timings;

typedef struct {
    double wall; /* slowest rank's finish */
    double predicted; /* simulated makespan with the measured per-block durations */
    double planned; /* the schedule's own makespan x unit (0 when no unit) */
    double efficiency; /* predicted / wall */
    double throughput; /* micro-batches per second */
} rt_iter_stats;

/* block_seconds (nblocks): mean measured duration per block; a block on several devices counts
 * each instance once, by its shortest member (the others include waiting for it). unit_s: seconds
 * per time unit of the timing workload, which emulates the edges' delays (the prediction counts
 * them as delay x unit_s); 0 for the other workloads, which do not (the prediction leaves them
 * out). */
int rt_report_iteration(const rt_plan *p, const rt_timings *t, double unit_s, double *block_seconds,
                        rt_iter_stats *st, ts_err *e);
/* One track per rank, one slice per instance, a flow per message. */
int rt_report_trace(const rt_plan *p, const rt_timings *t, const char *path, ts_err *e);

#endif
