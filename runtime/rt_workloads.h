/* The three workloads of tessel-run. Each constructor prepares this rank's state and fills the
 * workload's hooks (check and loss where the workload has them, see rt_exec.h). */
#ifndef RT_WORKLOADS_H
#define RT_WORKLOADS_H

#include <stdbool.h>

#include "rt_exec.h"

typedef struct {
    int size; /* dataflow: S x S matrices; train: hidden width */
    double unit_us; /* timing: microseconds per span and delay unit */
    int nmicros;
    bool check; /* keep what the check needs (dataflow: every instance's output) */
} rt_workload_opts;

int rt_dataflow_new(const rt_plan *p, int rank, rt_backend *be, const rt_workload_opts *o,
                    rt_workload **out, ts_err *e);

int rt_train_new(const rt_plan *p, int rank, rt_backend *be, const rt_workload_opts *o,
                 rt_workload **out, ts_err *e);
#define RT_TRAIN_BATCH 16 /* samples (columns) per micro-batch */

int rt_timing_new(const rt_plan *p, rt_backend *be, const rt_workload_opts *o, rt_workload **out,
                  ts_err *e);

#endif
