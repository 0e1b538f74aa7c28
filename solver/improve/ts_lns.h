/* Internal to the solver library: the large-neighbourhood search at N (lns.c), with no Z3 type,
 * for auto. */
#ifndef TS_LNS_H
#define TS_LNS_H

#include <stdbool.h>
#include "ts_search_ctx.h"

typedef struct {
    /* ndevs capacities, NULL: unconstrained */
    const long *cap;
    /* a lower bound on the makespan: the search stops once it is met */
    long lo;
    /* the effort for the whole search, on a meter (required, with a deadline): the same work
     * on every machine */
    const ts_budget *budget;
    /* seconds of effort one window's solver calls may spend together (<= 0: none is solved) */
    double window_cap;
} ts_lns_opts;

typedef struct {
    /* windows given to the solver, and those the fixed part alone ruled out (no solver call) */
    int solved, ruled_out;
    /* windows whose new order shortened the makespan */
    int kept;
    /* makespans of the seed (tightened) and of the result */
    long before, after;
} ts_lns_stats;

/* Frees the entries [first, first + count) of sc (a valid schedule at its N, entries sorted by
 * step, first step 0; first and first + count cut between steps, so that everything before
 * starts earlier and everything after later), keeps every other instance in its device order,
 * and searches that window's starts exactly (Z3, as the exact search's model: ts_imodel) below
 * sc's makespan, the rest replayed as early as its device orders allow. *better: the whole
 * schedule (replayed, validated, normalised) when one shorter than sc is found, else NULL;
 * *mk its makespan. */
int ts_lns_window(const ts_schedule *sc, int first, int count, const ts_lns_opts *o,
                  ts_schedule **better, long *mk, ts_err *e);

/* The search: windows of the seed's instances freed and re-solved by ts_lns_window, each kept
 * when it shortens the makespan: the fill first, then the drain, then windows in the middle
 * where idle time concentrates, at growing sizes, while the budget lasts and the makespan is
 * above o->lo. *out: the shortest schedule found (valid, normalised, with sc's capacities), or
 * NULL when nothing beats the seed. Deterministic: every decision reads the meter, never the
 * clock. */
int ts_lns(const ts_schedule *sc, const ts_lns_opts *o, ts_schedule **out, ts_lns_stats *st,
           ts_err *e);

#endif
