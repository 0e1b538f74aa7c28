/* Internal to the solver library: the claims a search record makes about its schedule. */
#ifndef TS_LABEL_H
#define TS_LABEL_H

#include "ts_search_caps.h"
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

/* The second half of ts_search_label alone: optimal and gap_to_bound of s at the user's N on p,
 * the method's own claims left as they are. --per-period R uses it once the schedule found on
 * the R-fold placement is unfolded onto p: that label was made at ceil(N / R) folded
 * micro-batches against the folded placement's bound, which says nothing of N on p (R*ceil(N/R)
 * micro-batches cut to N may end later than the bound at N allows). */
void ts_search_label_at(const ts_placement *p, const ts_search_opts *o, const ts_schedule *s,
                        ts_search_stats *st);


#endif
