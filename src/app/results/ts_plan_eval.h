/* The evaluation of one parallel plan (ts_plan.h, in the core's model): derive its placement,
 * search it with `auto` at N micro-batches within the derived capacity, measure the schedule at N
 * and convert its figures to real units. Here, above the solver, since it searches. */
#ifndef TS_PLAN_EVAL_H
#define TS_PLAN_EVAL_H

#include "ts_plan.h"

/* Evaluates one plan; fills ok/reason and the figures. 0, or -1 when out of memory. */
int ts_plan_eval(const ts_plan_req *r, ts_plan *pl);

#endif
