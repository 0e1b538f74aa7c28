/* The barrier-frame construction (bframe.c): periodic schedules for a chain with barriers. */
#ifndef TS_BFRAME_H
#define TS_BFRAME_H

#include "ts_schedule.h"

/* For a placement that is one path of blocks, each on one device or on every device (a barrier,
 * holding no memory), every device holding two single-device blocks of it that the path meets
 * in a V (the first holds +a, the second -a; nnshape and mshape): the periodic schedule of R
 * micro-batches per P steps (R 1 or 2) with the fewest steps per micro-batch in the class where
 * each period opens with one block of all its barrier steps and each device runs its own blocks
 * at fixed offsets of the rest (the one-boundary class; tests/bench/barrier_frames.py is the
 * same search, checked against CP-SAT). The search is exact within the class and bounded by a
 * count of work (no clock). N micro-batches of it in *out, within cap[d] on each device.
 * TS_EINPUT when the placement is not of the kind, TS_ENOANSWER when no period up to a few
 * steps above the load fits or the work bound cuts the search. */
int ts_bframe_schedule(const ts_placement *p, int n, const long *cap, ts_schedule **out, ts_err *e);

#endif
