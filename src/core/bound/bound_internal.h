/* Internals of the lower bound: bound_devblocks.c (below both) serves bound.c and bound_memory.c;
 * bound_memory.c serves bound.c. */
#ifndef TS_BOUND_INTERNAL_H
#define TS_BOUND_INTERNAL_H

#include "ts_bound.h"

/* Work caps of the memory term: reachability is quadratic in the blocks, the pairs of one
 * device quartic in its blocks. */
#define TS_BOUND_MEM_MAX_BLOCKS 1500
#define TS_BOUND_MEM_MAX_ON_DEVICE 48

/* The blocks of each device, list[off[d] .. off[d + 1]), in the order given (NULL: by index):
 * built once per bound so that the per-device terms are linear in the placement, not
 * devices x blocks (0.25-0.5 s a bound at 4096 devices). */
typedef struct {
    int *off, *list;
} ts_devblocks;

int ts_devblocks_make(const ts_placement *p, const int *order, ts_devblocks *db);
void ts_devblocks_free(ts_devblocks *db);

/* The memory term (bound_memory.c): -1 in *out when it bounds nothing or the placement is too
 * large for it. est and tail are one micro-batch's. Returns -1 on allocation failure. */
int ts_bound_memory_term(const ts_placement *p, int n, const long *cap, const long *est,
                         const long *tail, long *out, int *dev);

#endif
