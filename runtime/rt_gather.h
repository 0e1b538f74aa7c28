/* Measurement gathering of tessel-run: after each iteration rank 0 collects every rank's timings
 * (ready, start and end per instance; finish, clock base and peak bytes) and the loss, and after
 * the run the workload's check. Collective calls: every rank makes them in the same order. The
 * analysis of what is gathered is in rt_report.c (pure, unit-tested). */
#ifndef RT_GATHER_H
#define RT_GATHER_H

#include <stddef.h>

#include "rt_exec.h"
#include "rt_report.h"
#include "rt_summary.h"

typedef struct {
    int *counts, *displs; /* per rank: doubles sent, offset in all */
    double *mine, *all;
    const double **ready, **start, **end; /* per rank, into all (rank 0) */
    double *finish, *base;
    double *peak; /* per rank: peak live bytes over the iterations so far (rank 0) */
    rt_timings tm; /* what rt_report reads (rank 0) */
} rt_gather;

int rt_gather_init(rt_gather *g, const rt_plan *p, int rank, int nranks, ts_err *e);
void rt_gather_free(rt_gather *g);
/* This iteration's timings of every rank into g->tm on rank 0, and the loss summed over ranks
 * into *loss_sum (rank 0). */
int rt_gather_iteration(rt_gather *g, rt_exec *x, double loss, double *loss_sum, ts_err *e);
/* Runs the workload's check on every rank and sums the results into sum (rank 0); first receives
 * the first mismatch of the lowest rank that has one. */
int rt_gather_check(rt_exec *x, rt_workload *w, rt_summary *sum, char *first, size_t cap,
                    ts_err *e);

#endif
