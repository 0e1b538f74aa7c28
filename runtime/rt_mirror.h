/* The training workload needs a placement whose backward blocks mirror its forward blocks: each
 * backward block computes the gradients of exactly one forward block on the same devices, and the
 * backward edges are the forward edges reversed. This file finds that pairing or says why not. */
#ifndef TS_RT_MIRROR_H
#define TS_RT_MIRROR_H

#include <stdbool.h>
#include "ts_placement.h"

typedef struct {
    int nblocks;
    int *
        /* forward -> its backward block (-1: frozen, no gradients); backward -> forward */
        partner;
    /* forward block without forward predecessors: reads the micro-batch data */
    bool *source;
    /* forward block without forward successors: its output enters the loss */
    bool *sink;
} ts_rt_mirror;

/* Fails with TS_EINPUT and a message naming the block or edge that breaks the mirror shape. */
int ts_rt_mirror_build(const ts_placement *p, ts_rt_mirror *m, ts_err *e);
void ts_rt_mirror_free(ts_rt_mirror *m);

#endif
