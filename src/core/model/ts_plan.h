/* Parallel plans of a model on a cluster (strategy x pipeline size x data-parallel replicas), in
 * real units: which plans there are, the figures of one evaluated plan (iteration time in
 * seconds, the data-parallel all-reduce, latency, throughput, MFU, peak memory), their JSON and
 * their ranking. Shared by `tessel plan`, the explorer and any other front end; the evaluation
 * itself (derive, search, measure) is ts_plan_eval in the results module, above the solver. */
#ifndef TS_PLAN_H
#define TS_PLAN_H

#include <stdbool.h>
#include "ts_model.h"
#include "ts_schedule.h"

typedef struct {
    const ts_model *m;
    const ts_hardware *h;
    int gpus, T, b;
    /* G: samples per iteration. */
    long global;
    bool infer, recompute;
    /* Seconds per search. */
    double time_limit;
} ts_plan_req;

typedef struct {
    char strategy[24];
    /* GPUs per pipeline (stages x T) */
    int pipe;
    /* Data-parallel copies: gpus / pipe. */
    int replicas;
    /* Micro-batches per pipeline per iteration: G / (b x replicas); 0 when none. */
    int N;
    bool ok;
    /* Why it does not fit. */
    char reason[400];
    /* real units */
    double iter_s, dp_s, samples_s, tflops_gpu, mfu, peak_gb, bubble, gap, latency_s;
    double time_unit_s, search_s;
    long makespan, lower_bound;
    /* What auto kept. */
    char source[48];
    bool timed_out;
    /* The derived placement (owned). */
    ts_placement *p;
    /* Its schedule at N (owned). */
    ts_schedule *s;
} ts_plan;

/* The plans to try: each strategy of names[0..nnames) (every strategy of the model when names
 * is NULL) at every pipeline size that divides r->gpus, each with its N (0 and a reason when the
 * global batch does not split). TS_EINPUT when a name is not one of the model's strategies. */
int ts_plan_list(const ts_plan_req *r, const char *const *names, int nnames, ts_plan **out,
                 int *count, ts_err *e);
/* Fills the figures of pl (whose p and s are set) from the metrics of its schedule at N and what
 * the derivation found. */
void ts_plan_figures(const ts_plan_req *r, ts_plan *pl, const ts_metrics *m,
                     const ts_derive_info *in);
/* Ranks plans: those that fit first, by iteration time (a stable order for ties is not kept). */
void ts_plan_rank(ts_plan *pl, int n);
void ts_plan_clear(ts_plan *pl);
/* The plan's figures as JSON. */
json_t *ts_plan_json(const ts_plan *pl);

#endif
