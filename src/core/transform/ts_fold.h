/* Folding: r micro-batches as one.
 *
 * The r-fold of a placement holds r copies of every block; one micro-batch of it stands for r
 * consecutive micro-batches of the original (copy j of micro-batch m is micro-batch r*m + j).
 * A repetend of the fold with one folded micro-batch per period is therefore a repetend of the
 * original with r micro-batches per period, so a search restricted to one micro-batch per
 * period reaches steady states with a fractional period per micro-batch (issue: richer
 * repetends). The memory per device is unchanged: a capacity bounds the same running sum. */
#ifndef TS_FOLD_H
#define TS_FOLD_H

#include "ts_error.h"
#include "ts_schedule.h"

/* the largest r taken */
#define TS_FOLD_MAX 8

/* Copy j of block b is block j * p->nblocks + b; its id is b's id, then "#j" for j > 0. An
 * edge of distance d from copy j leads to copy (j + d) % r at distance (j + d) / r. */
int ts_placement_fold(const ts_placement *p, int r, ts_placement **out, ts_err *e);

/* s: a schedule of the r-fold of p (as ts_placement_fold made it) with M micro-batches; *out is
 * the same timetable as a schedule of p with r * M micro-batches, without repetend (one of the
 * fold holds r instances of each block: ts_schedule_find_repetend finds it in the schedule at N),
 * with s's memory capacities. */
int ts_schedule_unfold(const ts_schedule *s, const ts_placement *p, int r, ts_schedule **out,
                       ts_err *e);

#endif
