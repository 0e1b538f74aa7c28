/* The caps of the constructions that need no solver (memlist, the barrier frames and waves):
 * each bounds a count of work, never a clock, so a construction gives the same answer on any
 * machine. The solver's own caps list them too (TS_SEARCH_CAPS, ts_search_caps.h), so that one
 * table, shown by `tessel search --help`, holds every cap of a search. */
#ifndef TS_CONSTRUCT_CAPS_H
#define TS_CONSTRUCT_CAPS_H

/* memlist: steps x blocks above which the run is refused (it would take seconds) */
#define TS_MEMLIST_MAX_WORK 400000000L
/* barrier frames: micro-batches per period, patterns per position and window extensions over
 * the whole pass (past them, no answer), and the periods tried, from the load up to this many
 * steps per micro-batch above it */
#define TS_BF_MAX_R 2
#define TS_BF_MAX_PATTERNS 4096
#define TS_BF_MAX_WORK 100000000L
#define TS_BF_EXTRA 4
/* barrier waves: micro-batches per period, gap steps per period, the grain, the wait at a
 * crossing and the crossings, the cells touched over the whole search (past it, no answer), and
 * the steps per micro-batch tried: up to this factor above the least the memory admits */
#define TS_BW_MAX_R 64
#define TS_BW_MAX_Q 2048
#define TS_BW_MAX_GRAIN 12
#define TS_BW_MAX_WAIT 12
#define TS_BW_MAX_CROSS 3
#define TS_BW_MAX_WORK 400000000L
#define TS_BW_SPREAD 1.5

/* X(name, value, unit, what it caps) */
#define TS_CONSTRUCT_CAPS(X)                                                                       \
    X(memlist_work, TS_MEMLIST_MAX_WORK, "steps x blocks", "memlist: refused above")               \
    X(bframe_per_period, TS_BF_MAX_R, "micro-batches", "barrier frames: per period")               \
    X(bframe_patterns, TS_BF_MAX_PATTERNS, "patterns", "barrier frames: per position")             \
    X(bframe_work, TS_BF_MAX_WORK, "extensions", "barrier frames: no answer past them")            \
    X(bframe_extra, TS_BF_EXTRA, "steps", "barrier frames: periods tried above the load")          \
    X(bwave_per_period, TS_BW_MAX_R, "micro-batches", "barrier waves: per period")                 \
    X(bwave_gap_steps, TS_BW_MAX_Q, "steps", "barrier waves: gap steps per period")                \
    X(bwave_grain, TS_BW_MAX_GRAIN, "steps", "barrier waves: grain between classes")               \
    X(bwave_wait, TS_BW_MAX_WAIT, "steps", "barrier waves: wait at a barrier crossing")            \
    X(bwave_crossings, TS_BW_MAX_CROSS, "crossings", "barrier waves: of the V's barriers")         \
    X(bwave_work, TS_BW_MAX_WORK, "cells", "barrier waves: no answer past them")                   \
    X(bwave_spread, TS_BW_SPREAD, "x", "barrier waves: steps per micro-batch over the least")

#endif
