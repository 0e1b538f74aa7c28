/* The bottom of the modulo search (modulo_plan.c): the floor division every file uses, the memory
 * plan of a modulo timetable, the recurrence bound and the timetable's verification. Every other
 * file of solver/methods/modulo builds on these; this header includes none of theirs. */
#ifndef TS_MODULO_PLAN_H
#define TS_MODULO_PLAN_H

#include <stdbool.h>
#include "ts_error.h"
#include "ts_placement.h"

/* floor(a / b) for b > 0, also for negative a. */
static inline long ts_mod_floordiv(long a, long b)
{
    long q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* The memory plan. On device d the running memory at any start of a positive block a, for
 * every number of micro-batches, is at most
 *     sum over (b, c) in entries of d:  c * floor((t[a] - t[b]) / P)
 * provided every allocation unit is freed by a later block: the plan pairs each positive unit
 * with a negative unit of a block reachable from it (so it starts later), and where no such
 * block exists with another negative unit under a forced order t[after] >= t[before]. Negative
 * units left unpaired are dropped (they only lower the real memory). When every unit pairs,
 * the bound is the exact steady-state memory. */
typedef struct {
    int ndevs, nblocks;
    int *off; /* ndevs + 1: entries of device d are [off[d], off[d+1]) */
    int *block; /* entry -> block */
    long *coef; /* entry -> effective memory (positive: allocation, negative: paired free) */
    int nforced; /* forced orders t[after[i]] >= t[before[i]] */
    int *before, *after;
    bool exact; /* every unit paired through dependencies: the bound is exact */
} ts_mplan;

/* Builds the plan. Fails with TS_ENOANSWER when a device gains memory with every micro-batch
 * (no capacity holds for every N). Without memory limits it builds an empty plan. */
int ts_mplan_build(const ts_placement *p, bool has_memory, ts_mplan *mp, ts_err *e);
void ts_mplan_free(ts_mplan *mp);

/* Largest memory bound over devices for the timetable t at period P (0 with an empty plan). */
long ts_mplan_peak(const ts_mplan *mp, long P, const long *t, int *dev_out);
/* The same on device d alone; LONG_MIN when the plan holds no allocation there. */
long ts_mplan_peak_on(const ts_mplan *mp, long P, const long *t, int d);

/* Smallest period that the recurrences (cycles through distance edges) allow: for every
 * cycle, P >= sum(span + delay) / sum(distance). 1 when there is no such cycle. */
long ts_modulo_recurrence_bound(const ts_placement *p);

/* Checks a modulo timetable: exclusivity of [t mod P, t mod P + span) on the circle of every
 * device, dependencies with delay and distance, the plan's forced orders, and its memory bound
 * against each device's capacity cap[d] (cap NULL: unconstrained). TS_OK or TS_ENOANSWER naming
 * the first violation. */
int ts_modulo_verify(const ts_placement *p, const ts_mplan *mp, long P, const long *t,
                     const long *cap, ts_err *e);

#endif
