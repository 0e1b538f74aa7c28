/* The evaluation of one parallel plan (ts_plan.h, in the core's model): derive its placement,
 * search it with `auto` at N micro-batches within the derived capacity, measure the schedule at N
 * and convert its figures to real units. Here, above the solver, since it searches. */
#ifndef TS_PLAN_EVAL_H
#define TS_PLAN_EVAL_H

#include <stdbool.h>
#include "ts_plan.h"

/* Evaluates one plan; fills ok/reason and the figures. 0, or -1 when out of memory. */
int ts_plan_eval(const ts_plan_req *r, ts_plan *pl);

/* The schedule search of the best plans with a pipeline (pl ranked best first, at most top of
 * them), each skipped when its lower bound is not below the best iteration time found; then the
 * plans without a closed form that were not searched stop ranking (a bound is no time). `show`,
 * when set, names each search on stderr. Counts into *searched and *pruned. 0, or -1 when out of
 * memory. tessel plan and the Python package both rank through it. */
int ts_plan_search_best(const ts_plan_req *r, ts_plan *pl, int n, int top, bool show, int *searched,
                        int *pruned);

#endif
