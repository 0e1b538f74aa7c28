/* tessel plan: search the parallel plans of a model on a cluster, in real units. The plan space,
 * the cost model and ranking are the core's (ts_plan.h), a plan's schedule search the results
 * module's (ts_plan_eval.h); cmd_plan.c parses and runs, cmd_plan_print.c prints (table, JSON,
 * CSV, --explain), and cmd_plan_out.c writes the files of -o DIR. */
#ifndef TS_CLI_PLAN_H
#define TS_CLI_PLAN_H

#include "ts_plan.h"

typedef struct {
    const char *model, *hw, *dir, *out, *strategies;
    ts_plan_req r;
    ts_plan_space sp;
    ts_plan_stats st;
    double eff;
    int top, search_top, fp8;
    /* plans searched and those pruned before their schedule search */
    int searched, search_pruned;
    bool json, csv, progress, explain;
} ts_plan_args;

/* Writes placement, schedule, SVG and Chrome trace of a searched plan into dir as NAME.*. */
int ts_plan_write(const ts_plan *pl, const char *dir, ts_err *e);
/* Writes an SVG of the plans' iteration times broken down (stacked bars, best first). */
int ts_plan_breakdown_svg(const ts_plan *pl, int n, const char *path, ts_err *e);
/* cmd_plan_print.c */
void ts_plan_print(const ts_plan_args *a, const ts_plan *pl, int n);
void ts_plan_explain(const ts_plan *pl);
json_t *ts_plans_json(const ts_plan_args *a, const ts_plan *pl, int n);
void ts_plan_csv(const ts_plan *pl, int n);

#endif
