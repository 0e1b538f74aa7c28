/* The one clock of the project: monotonic seconds, for time limits, deadlines and reports.
 * Every layer (core, solver, runtime, front ends) reads time through this function, so that
 * there is one definition of "now" to reason about. */
#ifndef TS_CLOCK_H
#define TS_CLOCK_H

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC): only differences mean anything. */
double ts_clock_now(void);

#endif
