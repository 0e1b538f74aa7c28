/* The three workloads of tessel-run. Each constructor prepares this rank's state; the check
 * functions compare what this rank computed against a single-process recomputation. */
#ifndef RT_WORKLOADS_H
#define RT_WORKLOADS_H

#include <stdbool.h>

#include "rt_exec.h"

typedef struct {
    int size;       /* dataflow: S x S matrices; train: hidden width */
    double unit_us; /* timing: microseconds per span unit */
    int nmicros;
    bool check;     /* keep what the check needs (dataflow: every instance's output) */
} rt_workload_opts;

/* Result of a check on one rank. */
typedef struct {
    long compared;       /* instances (dataflow) or weight shards (train) compared */
    long failed;
    double max_rel_error;
    char first[256];     /* the first mismatch, for the message */
} rt_check;

int rt_dataflow_new(const rt_plan *p, int rank, rt_backend *be, const rt_workload_opts *o,
                    rt_workload **out, ts_err *e);
int rt_dataflow_check(rt_workload *w, const rt_plan *p, int rank, rt_check *c, ts_err *e);

int rt_train_new(const rt_plan *p, int rank, rt_backend *be, const rt_workload_opts *o,
                 rt_workload **out, ts_err *e);
/* Gradients of the first iteration against the reference, relative Frobenius error per shard. */
int rt_train_check(rt_workload *w, const rt_plan *p, int rank, rt_check *c, ts_err *e);
/* This rank's share of the loss of the last iteration (sum over its loss-taking instances). */
double rt_train_loss(const rt_workload *w);
#define RT_TRAIN_BATCH 16 /* samples (columns) per micro-batch */

int rt_timing_new(const rt_plan *p, rt_backend *be, const rt_workload_opts *o, rt_workload **out,
                  ts_err *e);

#endif
