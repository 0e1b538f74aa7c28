/* tessel plan: rank parallel plans (strategy x pipeline size x data-parallel replicas) for a model
 * on a cluster, in real units. The plans, their figures and ranking are the core's (ts_plan.h),
 * their evaluation the results module's (ts_plan_eval.h); cmd_plan.c parses and prints, and
 * cmd_plan_out.c writes a plan's files. */
#ifndef TS_CLI_PLAN_H
#define TS_CLI_PLAN_H

#include "ts_plan.h"

/* Writes placement, schedule, SVG and Chrome trace of an evaluated plan into dir as NAME.*. */
int ts_plan_write(const ts_plan *pl, const char *dir, ts_err *e);

#endif
