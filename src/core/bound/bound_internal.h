/* Internals of the lower bound: bound_devblocks.c and bound_mctx.c (below all) serve the rest;
 * bound_memdev.c serves bound_memory.c and bound_exclusive.c, which with bound_cross.c serve
 * bound.c. */
#ifndef TS_BOUND_INTERNAL_H
#define TS_BOUND_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
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

/* The warm-up term (bound_warmup.c): -1 in *out when no device has forced idle time before its
 * first freeing block or after its last allocating one. est and tail are one micro-batch's, db the devices' blocks. Returns -1 on
 * allocation failure. */
int ts_bound_warmup_term(const ts_placement *p, int n, const long *cap, const long *est,
                         const long *tail, const ts_devblocks *db, long *out, int *dev);

/* The memory term (bound_memory.c): -1 in *out when it bounds nothing or the placement is too
 * large for it. est and tail are one micro-batch's. Returns -1 on allocation failure. */
int ts_bound_memory_term(const ts_placement *p, int n, const long *cap, const long *est,
                         const long *tail, long *out, int *dev);

/* What the memory terms (bound_memory.c, bound_exclusive.c, bound_cross.c) know of the
 * dependencies (bound_mctx.c), made by ts_mctx_make and freed by ts_mctx_free. */
typedef struct {
    const ts_placement *p;
    int nb, words;
    uint64_t *desc; /* nb rows of `words`: descendants through distance-0 edges */
    int *topo, *off, *list;
    long *dist; /* longest path from the start of one block to the start of each block */
} ts_mctx;

int ts_mctx_make(ts_mctx *c, const ts_placement *p);
void ts_mctx_free(ts_mctx *c);
/* Whether y depends on x through distance-0 edges. */
bool ts_reaches(const ts_mctx *c, int x, int y);
/* c->dist: the longest start-to-start path from a to every block (LONG_MIN: unreachable). */
void ts_mctx_dist(ts_mctx *c, int a);
/* The least one micro-batch can hold on a device in its blocks on[i] with in[i] set, over the
 * sets closed under dependencies; budget: non longs of scratch. */
long ts_hold_min(const ts_mctx *c, const int *on, int non, const char *in, long *budget);

/* What one device's memory term reads: on[] its non blocks in topological order, cap its
 * capacity, est and tail one micro-batch's, budget and in scratch of the placement's size. */
typedef struct {
    ts_mctx *c;
    const int *on;
    int non, n;
    long cap;
    const long *est, *tail;
    long *budget;
    char *in;
} ts_mdev;

/* One device's value of a memory term: -1 when it bounds nothing, -2 on allocation failure. */
typedef long (*ts_mdev_term)(const ts_mdev *m);

/* The largest value of term over the devices (bound_memdev.c), in *out with its device in *dev:
 * -1 in both when none bounds anything or the placement is too large for the memory terms.
 * Returns -1 on allocation failure. */
int ts_bound_mem_devices(const ts_placement *p, int n, const long *cap, const long *est,
                         const long *tail, ts_mdev_term term, long *out, int *dev);

/* The exclusive-windows term (bound_exclusive.c): windows of micro-batches on a device that the
 * capacity keeps from overlapping, laid end to end. -1 in *out when it bounds nothing or the
 * placement is too large. Returns -1 on allocation failure. */
int ts_bound_exclusive_term(const ts_placement *p, int n, const long *cap, const long *est,
                            const long *tail, long *out, int *dev);

/* One window kind of a device (bound_exclusive.c): a and f as indices into the device's blocks;
 * h what one micro-batch holds with it open, len L(a, f), w len + span(f). */
typedef struct {
    int a, f;
    long h, len, w;
} ts_xkind;

/* One device's window kinds and which cannot share a point of its order (bound_exclusive.c):
 * c, on, non, n, cap, budget and in as in ts_mdev; ts_xdev_windows fills the rest. */
typedef struct {
    ts_mctx *c;
    const int *on;
    int non, n;
    long cap, hold_min;
    long *budget;
    char *in;
    ts_xkind *kind;
    int nkind;
    char *conflict; /* nkind x nkind: the two kinds cannot share a point */
} ts_xdev;

/* The kinds whose windows of two micro-batches cannot overlap, the longest first, and their
 * conflicts (none without capacity or blocks). Returns -1 on allocation failure; ts_xdev_free
 * frees what it made either way. */
int ts_xdev_windows(ts_xdev *x);
void ts_xdev_free(ts_xdev *x);

/* The cross term (bound_cross.c): windows of two devices, each holding a window of the other
 * device that the other's windows keep away from. -1 in *out when it bounds nothing or the
 * placement is too large. Returns -1 on allocation failure. */
int ts_bound_cross_term(const ts_placement *p, int n, const long *cap, const long *est,
                        const long *tail, long *out, int *dev);

#endif
