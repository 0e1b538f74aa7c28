/* Internal to the solver library: the solver-free constructions one method lends another: a
 * repetend by modulo list scheduling (construct.c, for lazy), fast's repetend (fast.c, lazy's
 * seed), full's greedy schedule at N (full.c, a candidate of auto). No Z3 type here. */
#ifndef TS_CONSTRUCT_H
#define TS_CONSTRUCT_H

#include <stdbool.h>
#include "ts_schedule.h"
#include "ts_search_ctx.h"

/* Builds a repetend with period P for the offsets without a solver (modulo list scheduling in
 * chain order). true: start filled with a valid window (dependencies, circular exclusivity,
 * memory, no idle step); false proves nothing (also when the budget, NULL: none, ends first). */
bool ts_repetend_construct(const ts_placement *p, const int *chain, const int *mids, long P,
                           const long *cap, const ts_budget *budget, long *start);

/* The fast method's constructed repetend (fast.c): offsets, starts and period. *fits tells
 * whether its window stays within the memory (its warm-up and cool-down are not checked).
 * TS_ENOANSWER when the budget b (NULL: none; a search passes its own) ends first. */
int ts_fast_construct(const ts_placement *p, const int *chain, const long *cap, const ts_budget *b,
                      int *mids, long *start, long *period, bool *fits, ts_err *e);

/* Full's greedy start (full.c): every instance of N micro-batches list-scheduled within each
 * device's capacity (cap, NULL: none), as `tessel compare`'s "full (greedy)" row shows it; no
 * solver. */
int ts_full_greedy(const ts_placement *p, int N, const long *cap, ts_schedule **out, ts_err *e);

#endif
