/* A chain with barriers, read once for the constructions that schedule it (bframe.c, bwave.c). */
#ifndef TS_BCHAIN_H
#define TS_BCHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include "ts_schedule.h"

/* One path of blocks, each on one device or on every device (a barrier: it holds no memory),
 * every device holding two single-device blocks that the path meets in a V (the first holds +a,
 * the second -a): nnshape and mshape. */
typedef struct {
    int D; /* devices, and pairs: work[k] and work[2D - 1 - k] share a device */
    int nbar; /* barrier blocks on the path */
    long barsteps; /* their spans together: the steps one micro-batch stops every device */
    int *chain; /* every block in path order */
    int *work; /* the 2D single-device blocks in path order */
    bool *cross; /* work[i] -> work[i + 1] passes a barrier */
} ts_bchain;

/* 0; 1 when the placement is not of the kind (why says what; empty when out of memory).
 * ts_bchain_free(b) after either. */
int ts_bchain_read(const ts_placement *p, ts_bchain *b, char *why, size_t nwhy);
void ts_bchain_free(ts_bchain *b);

/* N micro-batches of a periodic pattern in *out: micro-batch m runs block x at
 * base[(m % R) * nblocks + x] + (m / R) * period, shifted so that the first starts at step 0,
 * within cap (NULL: none). TS_ESYS, with `who` in the message, when out of memory. */
int ts_bchain_unroll(const ts_placement *p, const long *cap, int n, int R, long period,
                     const long *base, const char *who, ts_schedule **out, ts_err *e);

#endif
