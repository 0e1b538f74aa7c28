/* Internal to the solver library: instance sets (iset.c), the first of the two problem shapes.
 *
 * An instance set holds explicit (block, micro-batch) instances with integer starts in [0, H):
 * warm-up, cool-down, the full problem, one micro-batch for the memory floor. Here: the set, its
 * dependency arcs and forced orders, lower bounds, the memory settings of a problem, and the
 * greedy list schedules that need no solver. Its Z3 model is ts_imodel.h. */
#ifndef TS_ISET_H
#define TS_ISET_H

#include <stdbool.h>
#include <stdint.h>
#include "ts_schedule.h"

typedef struct {
    int block;
    int micro;
} ts_inst;

/* start[y] >= start[x] + lag */
typedef struct {
    int x, y;
    long lag;
} ts_arc;

typedef struct {
    const ts_placement *p;
    int n;
    ts_inst *inst;
    int narcs;
    ts_arc *arcs;
    /* instances on device d: dlist[doff[d] .. doff[d+1]) */
    int *doff, *dlist;
    /* n x n bits: x must end before y starts (forced by arcs); NULL above TS_IMODEL_MAX_TERMS
     * pairs, where no model of the set is built (ts_iset_prec then says false) */
    uint64_t *prec;
    /* pairs of instances sharing a device */
    long pairs;
    /* 64-bit words per row of prec */
    int words;
    /* earliest start (from arcs, starting at 0) */
    long *est;
    /* longest time from start of x to the end of everything after it */
    long *tail;
} ts_iset;

/* Builds the arcs (placement edges between instances of the set, with delays and distances;
 * with monotone, also (b, m) before (b, m') for m < m'), the forced orders and the bounds. */
int ts_iset_build(const ts_placement *p, int n, const ts_inst *inst, bool monotone, ts_iset *s,
                  ts_err *e);
void ts_iset_free(ts_iset *s);
bool ts_iset_prec(const ts_iset *s, int x, int y);
/* Lower bound on the steps of any schedule of the set (critical path, device loads). */
long ts_iset_lower_bound(const ts_iset *s);
/* The schedule of n micro-batches with every instance of the set at start[x], sorted and
 * normalised to step 0, held to cap (NULL: no memory). NULL on allocation failure. */
ts_schedule *ts_iset_schedule(const ts_iset *s, int n, const long *cap, const long *start);

/* Memory settings of a problem: one capacity and a starting level per device. Per-device
 * capacities come in as levels: a device with less than the largest capacity starts that much
 * fuller (ts_memspec_fill). */
typedef struct {
    bool has_memory;
    long cap;
    /* ndevs entries; NULL = all 0 */
    const long *level;
} ts_memspec;

/* The memspec of capacities cap (ndevs entries; NULL: unconstrained) from starting levels level
 * (NULL: 0): cap the largest capacity, and each device's level raised by what it lacks of it,
 * written to buf (ndevs entries). */
ts_memspec ts_memspec_fill(const long *cap, int ndevs, const long *level, long *buf);

/* Serial list schedule: repeatedly starts the ready instance that can start earliest and fits
 * the memory. prio 0 prefers early starts, prio 1 prefers freeing memory, prio 2 early starts
 * then the longest remaining path. Returns 0 and fills start (n entries) and *steps, 1 when the
 * memory blocks every ready instance, -1 on allocation failure. */
int ts_iset_greedy(const ts_iset *s, const ts_memspec *m, int prio, long *start, long *steps);
/* The best of the greedy priorities (fewest steps); same return values. */
int ts_iset_greedy_best(const ts_iset *s, const ts_memspec *m, long *start, long *steps);

#endif
