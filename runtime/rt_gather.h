/* Measurement gathering of tessel-run: after each iteration rank 0 collects every rank's timings
 * (ready, start and end per instance; finish, clock base and peak bytes) and the loss, and after
 * the run the workload's check. Collective calls: every rank makes them in the same order. The
 * analysis of what is gathered is in rt_report.c (pure, unit-tested). */
#ifndef TS_RT_GATHER_H
#define TS_RT_GATHER_H

#include <stddef.h>

#include "rt_exec.h"
#include "rt_report.h"
#include "rt_summary.h"

typedef struct {
    /* per rank: doubles sent, offset in all */
    int *counts, *displs;
    double *mine, *all;
    /* per rank, into all (rank 0) */
    const double **ready, **start, **end;
    double *finish, *base;
    /* per rank: peak live bytes over the iterations so far (rank 0) */
    double *peak;
    /* what ts_rt_report reads (rank 0) */
    ts_rt_timings tm;
} ts_rt_gather;

int ts_rt_gather_init(ts_rt_gather *g, const ts_rt_plan *p, int rank, int nranks, ts_err *e);
void ts_rt_gather_free(ts_rt_gather *g);
/* This iteration's timings of every rank into g->tm on rank 0, and the loss summed over ranks
 * into *loss_sum (rank 0). */
int ts_rt_gather_iteration(ts_rt_gather *g, ts_rt_exec *x, double loss, double *loss_sum,
                           ts_err *e);
/* Runs the workload's check on every rank and sums the results into sum (rank 0); first receives
 * the first mismatch of the lowest rank that has one. */
int ts_rt_gather_check(ts_rt_exec *x, ts_rt_workload *w, ts_rt_summary *sum, char *first,
                       size_t cap, ts_err *e);

#endif
