/* The plan operation (`tessel plan`, tessel.plan): the plan space of a model on a cluster
 * searched with the cost model (ts_plan_space_search), the best plans with a pipeline searched
 * for their schedule (the results module's ts_plan_search_best), ranked. Its option table, its
 * request, and the run every front end shares. Only in a build with the solver. */
#ifndef TS_OP_PLAN_H
#define TS_OP_PLAN_H

#include "ts_op_model.h"
#include "ts_plan.h"

extern const ts_op ts_op_plan;

#define TS_OP_PLAN_MAX_STRATEGIES 64

typedef struct {
    /* owned: the model, the GPU profile, the folder (NULL: the default), the strategies asked
     * for (names separated by commas; NULL: every one the model lists) */
    char *model, *hardware, *dir, *strategies;
    /* the request's gpus, global batch, inference and time limit (m and h set by the run) */
    ts_plan_req r;
    /* the space: each of T, P, v, b, ZeRO, recomputation and sequence parallelism auto unless
     * given; sp.strategies points at names (words of strategies) */
    ts_plan_space sp;
    const char *names[TS_OP_PLAN_MAX_STRATEGIES];
    char names_buf[512];
    /* plans kept and shown, plans whose schedule is searched */
    int top, search_top;
    /* tokens per sample replacing the model's (0: the model's) */
    int seq;
    /* the profile's FP8 peak for compute; its achievable fraction of peak (< 0: the profile's) */
    bool fp8;
    double efficiency;
    /* 1 fused, 0 unfused attention, 2 fused at FlashAttention-2's efficiency; -1: the
     * profile's */
    int attention;
    /* 1: FP8 with current scaling (--fp8-scaling current), 0: delayed */
    int fp8_current;
    /* names each schedule search on stderr (the command line on a terminal, or --progress) */
    bool show;
    /* the front end that sent it, whose names the run's messages use */
    ts_front front;
} ts_op_plan_req;

/* Reads a plan request sent by front f: model, hardware, gpus and global_batch are required, and
 * the global batch and the GPUs must divide as the fixed sizes ask. */
int ts_op_plan_read(json_t *req, ts_front f, ts_op_plan_req *r, ts_err *e);
void ts_op_plan_req_free(ts_op_plan_req *r);

typedef struct {
    /* owned: the model and the GPU profile (as the request amends it) */
    ts_model *m;
    ts_hardware h;
    /* the request, with m and h pointing here: the result must stay where the run put it */
    ts_plan_req r;
    /* owned: n plans, ranked (those that fit first) */
    ts_plan *pl;
    int n;
    ts_plan_stats st;
    /* plans whose schedule was searched, and those pruned before their search */
    int searched, search_pruned;
    /* some plan fits: pl[0] */
    bool fits;
} ts_op_plan_res;

/* Loads the model and the profile, searches the space, searches the best plans' schedules and
 * ranks them. TS_OK also when no plan fits (res->fits false): the ranking says why. */
int ts_op_plan_run(const ts_op_plan_req *r, ts_op_plan_res *res, ts_err *e);
void ts_op_plan_res_free(ts_op_plan_res *res);
/* `tessel plan --json`'s object: the request, the counts and the ranking. NULL when out of
 * memory. */
json_t *ts_op_plan_json(const ts_op_plan_res *res);

#endif
