/* tessel plan: rank parallel plans (strategy x pipeline size x data-parallel replicas) for a model
 * on a cluster, in real units. cmd_plan.c parses and prints; cmd_plan_eval.c evaluates one plan
 * (derive, search, simulate, convert); cmd_plan_out.c writes a plan's files. */
#ifndef TS_PLAN_H
#define TS_PLAN_H

#include <stdbool.h>
#include "ts_model.h"
#include "ts_schedule.h"

typedef struct {
    const ts_model *m;
    const ts_hardware *h;
    int gpus, T, b;
    long global; /* G: samples per iteration */
    bool infer, recompute;
    double time_limit; /* seconds per search */
} ts_plan_req;

typedef struct {
    char strategy[24];
    int pipe; /* GPUs per pipeline (stages x T) */
    int replicas; /* data-parallel copies: gpus / pipe */
    int N; /* micro-batches per pipeline per iteration: G / (b x replicas) */
    bool ok;
    char reason[400]; /* why it does not fit */
    /* real units */
    double iter_s, dp_s, samples_s, tflops_gpu, mfu, peak_gb, bubble, gap, latency_s;
    double time_unit_s, search_s;
    long makespan, lower_bound;
    char source[48]; /* what auto kept */
    bool timed_out;
    ts_placement *p; /* the derived placement (owned) */
    ts_schedule *s; /* its schedule at N (owned) */
} ts_plan;

/* Evaluates one plan; fills ok/reason and the figures. 0, or -1 when out of memory. */
int ts_plan_eval(const ts_plan_req *r, ts_plan *pl);
void ts_plan_clear(ts_plan *pl);
/* The plan's figures as JSON. */
json_t *ts_plan_json(const ts_plan *pl);
/* Writes placement, schedule, SVG and Chrome trace of an evaluated plan into dir as NAME.*. */
int ts_plan_write(const ts_plan *pl, const char *dir, ts_err *e);

#endif
