/* What rank 0 prints at the end of a run: a short text summary for people, or one JSON object
 * (format "tessel-run/1") for programs. */
#ifndef RT_SUMMARY_H
#define RT_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "rt_options.h"
#include "rt_plan.h"
#include "rt_report.h"

typedef struct {
    const rt_options *o;
    const rt_plan *p;
    const char *workload, *backend;
    int ranks;
    int iterations;
    const rt_iter_stats *stats; /* per iteration */
    const double *loss; /* per iteration (train) */
    const double *block_seconds; /* per block, last iteration */
    const double *peak_bytes; /* per rank, over all iterations */
    bool checked; /* a check ran */
    long compared, failed;
    double max_rel_error;
    bool loss_ok;
    bool passed;
} rt_summary;

/* The table's header (before the first iteration) and one row per iteration. */
void rt_summary_header(const rt_summary *s, FILE *out);
void rt_summary_row(const rt_summary *s, int iteration, FILE *out);
/* Peak memory, planned makespan and the check's verdict; or, with --json, everything at once. */
void rt_summary_text(const rt_summary *s, FILE *out);
void rt_summary_json(const rt_summary *s, FILE *out);

#endif
