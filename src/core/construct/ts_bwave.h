/* The barrier-wave construction (bwave.c): periodic schedules for a chain with barriers where
 * memory, not the load, sets the pace. */
#ifndef TS_BWAVE_H
#define TS_BWAVE_H

#include "ts_schedule.h"

/* For a barrier V (ts_bchain.h: nnshape, mshape) with at most three barrier crossings between
 * its single-device blocks: R micro-batches per period of Q gap steps (the steps no barrier
 * runs in) plus their barrier steps. Every micro-batch runs its chain without waiting, except a
 * fixed wait at each barrier crossing; the R classes start g steps apart or more (g, the grain).
 * In gap time the blocks of every device repeat every Q steps without overlap, and every barrier
 * runs at a point no block runs across, so the barrier steps are put in there. The search takes
 * (Q, R) in order of steps per micro-batch, from the least the memory of the first device of the
 * V admits, then grains and waits, and keeps the first that fits every device's capacity; it is
 * bounded by a count of work (no clock). N micro-batches of it in *out, within cap[d] on each
 * device. TS_EINPUT when the placement is not of the kind, TS_ENOANSWER when nothing fits. */
int ts_bwave_schedule(const ts_placement *p, int n, const long *cap, ts_schedule **out, ts_err *e);

#endif
