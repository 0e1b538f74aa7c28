/* Internal to the solver library: the claims a search record makes about its schedule. */
#ifndef TS_LABEL_H
#define TS_LABEL_H

#include "ts_solver.h"

/* Called once a method has its schedule s: the method's own optimality claim (within its
 * class: a repetend's period, or full's monotone schedules) moves to period_optimal, and
 * optimal becomes what holds for the user's question: the makespan of s at N (unrolled, or cut
 * to the first N micro-batches, and replayed) meets the lower bound within the memory.
 * gap_to_bound is that makespan over the bound, minus 1. Beyond TS_LABEL_MAX_INSTANCES the
 * measure is skipped (optimal false, gap -1): it would cost more than the searches it labels.
 * auto's own claims (made the same way, ts_auto_finish) are kept as they are. */
void ts_search_label(const ts_placement *p, const ts_search_opts *o, const ts_schedule *s,
                     ts_search_stats *st);

#define TS_LABEL_MAX_INSTANCES 2000000L

#endif
