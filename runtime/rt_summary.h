/* What rank 0 prints at the end of a run: a short text summary for people, or one JSON object
 * (format "tessel-run/1") for programs. */
#ifndef TS_RT_SUMMARY_H
#define TS_RT_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "rt_options.h"
#include "rt_plan.h"
#include "rt_report.h"

typedef struct {
    const ts_rt_options *o;
    const ts_rt_plan *p;
    const char *workload, *backend;
    int ranks;
    int iterations;
    /* per iteration */
    const ts_rt_iter_stats *stats;
    /* per iteration (train) */
    const double *loss;
    /* per block, last iteration */
    const double *block_seconds;
    /* per rank, over all iterations */
    const double *peak_bytes;
    /* a check ran */
    bool checked;
    long compared, failed;
    double max_rel_error;
    bool loss_ok;
    bool passed;
} ts_rt_summary;

/* The table's header (before the first iteration) and one row per iteration. */
void ts_rt_summary_header(const ts_rt_summary *s, FILE *out);
void ts_rt_summary_row(const ts_rt_summary *s, int iteration, FILE *out);
/* Peak memory, planned makespan and the check's verdict; or, with --json, everything at once. */
void ts_rt_summary_text(const ts_rt_summary *s, FILE *out);
void ts_rt_summary_json(const ts_rt_summary *s, FILE *out);

#endif
