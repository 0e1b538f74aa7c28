/* Internal to the solver library: the one-micro-batch-at-a-time schedule (fallback.c), a method's
 * last resort. */
#ifndef TS_FALLBACK_H
#define TS_FALLBACK_H

#include "ts_schedule.h"
#include "ts_solver.h"

/* A timetable that always exists when memory >= the floor: one micro-batch at a time
 * in a memory-minimal order, as a k = 1 repetend. */
int ts_sequential_schedule(const ts_placement *p, const long *cap, ts_schedule **out, ts_err *e);
/* ts_sequential_schedule as a method's last resort, recorded in st as a k = 1 repetend with its
 * bubbles over maxload and not proven optimal (a caller that knows better says so after). */
int ts_sequential_fallback(const ts_placement *p, const long *cap, long maxload, ts_schedule **out,
                           ts_search_stats *st, ts_err *e);

#endif
