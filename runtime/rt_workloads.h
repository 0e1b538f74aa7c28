/* The three workloads of tessel-run. Each constructor prepares this rank's state and fills the
 * workload's hooks (check and loss where the workload has them, see rt_exec.h). */
#ifndef TS_RT_WORKLOADS_H
#define TS_RT_WORKLOADS_H

#include <stdbool.h>

#include "rt_exec.h"

typedef struct {
    /* dataflow: S x S matrices; train: hidden width */
    int size;
    /* timing: microseconds per span and delay unit */
    double unit_us;
    int nmicros;
    /* keep what the check needs (dataflow: every instance's output) */
    bool check;
} ts_rt_workload_opts;

int ts_rt_dataflow_new(const ts_rt_plan *p, int rank, ts_rt_backend *be,
                       const ts_rt_workload_opts *o, ts_rt_workload **out, ts_err *e);

int ts_rt_train_new(const ts_rt_plan *p, int rank, ts_rt_backend *be, const ts_rt_workload_opts *o,
                    ts_rt_workload **out, ts_err *e);
/* samples (columns) per micro-batch */
#define TS_RT_TRAIN_BATCH 16

int ts_rt_timing_new(const ts_rt_plan *p, ts_rt_backend *be, const ts_rt_workload_opts *o,
                     ts_rt_workload **out, ts_err *e);

#endif
