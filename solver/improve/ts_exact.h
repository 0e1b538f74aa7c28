/* Internal to the solver library: the exact search at N (exact.c), with no Z3 type, for auto. */
#ifndef TS_EXACT_H
#define TS_EXACT_H

#include <stdbool.h>
#include "ts_search_ctx.h"

typedef struct {
    /* micro-batches */
    int n;
    /* ndevs capacities, NULL: unconstrained */
    const long *cap;
    /* a lower bound on the makespan, and the incumbent's makespan (the search looks below it) */
    long lo, hi;
    /* Z3 resource units (rlimit) for the whole search: the same work on every machine */
    long effort;
    /* the wall-clock safety net (required) */
    const ts_budget *budget;
} ts_exact_opts;

typedef struct {
    /* the model was built and searched (the instance count was small enough) */
    bool run;
    /* best is the minimum makespan at N within the capacities */
    bool proven;
    /* a schedule shorter than the incumbent was found */
    bool improved;
    /* the wall-clock net, not the effort, ended the search (the result depends on the machine) */
    bool timed_out;
    long best;
    /* resource units spent */
    long effort;
} ts_exact_res;

/* Small enough for the exact search: N <= TS_EXACT_MAX_MICROS, devices <= TS_EXACT_MAX_DEVS,
 * N x blocks <= TS_EXACT_MAX_INSTANCES. */
bool ts_exact_affordable(const ts_placement *p, int n);
/* Searches for a schedule of o->n micro-batches shorter than o->hi, down to o->lo. *better: that
 * schedule (normalised, with the capacities) when one is found, else NULL. r->proven: nothing
 * shorter than r->best exists (every schedule, not only the model's class: see exact.c). Does
 * nothing (r->run false) when the instance set is not affordable. */
int ts_exact_search(const ts_placement *p, const ts_exact_opts *o, ts_schedule **better,
                    ts_exact_res *r, ts_err *e);

#endif
