/* A memory-aware list schedule of N micro-batches (memlist.c): no solver, time step by step. */
#ifndef TS_MEMLIST_H
#define TS_MEMLIST_H

#include "ts_schedule.h"

/* Instances of each block run in micro-batch order. At every step, each block whose next
 * instance has its inputs and all its devices free starts it, in this priority: backward passes
 * that something waits for (they free memory and carry the critical path), then forward passes
 * that fit every device's capacity cap[d] (cap NULL: none), then backward passes that nothing
 * waits for (weight gradients: they free memory, so they also run when a forward pass does not
 * fit). Within a class the oldest micro-batch goes first. The forwards thus run as far ahead as
 * memory allows and no further, which is what the zero-bubble and controllable-memory schedules
 * do by hand. TS_EINPUT for a placement where some device runs blocks on different sets of
 * devices (sharded blocks beside single-device stages, which the rule starves); TS_ENOANSWER
 * when the run stalls (a device whose next forward never fits and nothing left to free) or when
 * N x blocks x steps is too large to time. */
int ts_memlist_schedule(const ts_placement *p, int n, const long *cap, ts_schedule **out,
                        ts_err *e);

#endif
