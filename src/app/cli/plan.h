/* tessel plan: search the parallel plans of a model on a cluster, in real units. The request and
 * its run are the operations layer's (ts_op_plan.h); cmd_plan.c parses and runs, cmd_plan_print.c
 * prints (table, CSV, --explain), and cmd_plan_out.c writes the files of -o DIR. */
#ifndef TS_CLI_PLAN_H
#define TS_CLI_PLAN_H

#include "ts_op_plan.h"

/* Writes placement, schedule, SVG and Chrome trace of a searched plan into dir as NAME.*. */
int ts_plan_write(const ts_plan *pl, const char *dir, ts_err *e);
/* Writes an SVG of the plans' iteration times broken down (stacked bars, best first). */
int ts_plan_breakdown_svg(const ts_plan *pl, int n, const char *path, ts_err *e);
/* cmd_plan_print.c */
void ts_plan_print(const ts_op_plan_res *res);
void ts_plan_explain(const ts_plan *pl);
void ts_plan_csv(const ts_plan *pl, int n);

#endif
