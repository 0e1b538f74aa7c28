/* Improvement of a complete schedule at its N by local search on the order of its instances.
 *
 * The state is one sequence of all instances that respects every dependency; each device runs
 * its instances in sequence order, each as early as its devices and inputs allow (a replay).
 * Such a sequence never deadlocks, and a device's memory level in start order is its prefix
 * sum in sequence order, so memory is checked on the sequence alone. Moves reposition one
 * instance inside the window its dependencies allow, mostly along the critical chain of the
 * replay (an instance that waited for its device is moved before the one it waited for). A
 * move is kept when the makespan does not grow and memory holds. */
#ifndef TS_IMPROVE_H
#define TS_IMPROVE_H

#include <stdbool.h>
#include "ts_clock.h"
#include "ts_schedule.h"

typedef struct {
    /* absolute time (ts_clock_now) to stop at; <= 0: no limit */
    double deadline;
    /* moves to try; <= 0: no limit (then deadline must be set) */
    long max_moves;
    /* stop as soon as the makespan is <= target (e.g. the bound) */
    long target;
    /* of the move choice (a local generator; runs are repeatable) */
    unsigned long long seed;
    /* stop after this many moves without a shorter makespan; <= 0: no */
    long stall;
} ts_improve_opts;

typedef struct {
    /* makespans */
    long before, after;
    /* moves tried / kept */
    long moves, kept;
    /* stopped by opts.stall */
    bool stalled;
    double seconds;
} ts_improve_stats;

/* s: a valid, complete schedule (no repetend needed); its memory capacities, when present,
 * hold for the result. *out is a new schedule of the same N with makespan <= s's after
 * replay, memory within s's capacities, no repetend, and search info copied from s. Returns
 * TS_OK, TS_EINPUT for an incomplete or cyclic schedule, TS_ESYS on allocation failure. */
int ts_improve(const ts_schedule *s, const ts_improve_opts *o, ts_schedule **out,
               ts_improve_stats *st, ts_err *e);

#endif
