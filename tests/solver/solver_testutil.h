/* Helpers shared by the solver tests: search options, a placement's memory floor and auto's
 * makespan, over the core's (core_testutil.h: capacities, built-ins, checks and measures of a
 * schedule). */
#ifndef SOLVER_TESTUTIL_H
#define SOLVER_TESTUTIL_H

#include "core_testutil.h"
#include "ts_memory.h"
#include "ts_search_ctx.h"
#include "ts_exact.h"
#include "ts_solver.h"

/* Search options for method m within memory cap on every device (when has_memory), the rest at
 * their defaults: what most tests set before the fields of their own. */
static inline ts_search_opts tu_opts(ts_method m, bool has_memory, long cap)
{
    ts_search_opts o;
    ts_search_opts_init(&o);
    o.method = m;
    o.has_memory = has_memory;
    o.memory = cap;
    return o;
}

/* The memory floor of p (ts_memory_floor, the same capacity on every device) under a budget of
 * 10 s of effort: its return value, the floor in *floor_cap and whether it is exact in *exact. */
static inline int tu_memory_floor(const ts_placement *p, long *floor_cap, bool *exact, ts_err *e)
{
    ts_meter m;
    ts_meter_init(&m, 0);
    ts_budget b;
    ts_budget_init(&b, &m, 10);
    return ts_memory_floor(p, NULL, &b, floor_cap, exact, e);
}

/* The makespan auto finds within cap at 6e4 units of effort (tightened, as `tessel search`
 * measures it): -1 when it finds none, -2 when its schedule breaks the capacity or is not
 * valid (callers assert that it is not -2). */
static inline long tu_auto_makespan(const ts_placement *p, int n, const long *cap)
{
    ts_search_opts o;
    ts_search_opts_init(&o);
    o.method = TS_METHOD_AUTO;
    ts_search_opts_memory(&o, cap, p->ndevs);
    o.micro_batches = n;
    o.time_limit = 30;
    o.effort = 60000;
    ts_schedule *s = NULL;
    ts_search_stats st;
    ts_err e = {0};
    if (ts_search(p, &o, &s, &st, &e) != TS_OK || !s)
        return -1;
    long peak[TU_CAPS];
    long mk = tu_makespan(s, n, peak);
    for (int d = 0; d < p->ndevs; d++)
        if (peak[d] > cap[d])
            mk = -2;
    if (tu_valid_range(s, n, n) != 0)
        mk = -2;
    ts_schedule_free(s);
    return mk;
}

/* The optimum the exact search proves within cap, started from upper (no schedule at or above it
 * counts, so the proof leans on no bound) with effort units and a 30 s cap: the optimum, -1 when
 * not proven, -2 when the search fails. */
static inline long tu_exact_optimum(const ts_placement *p, int n, const long *cap, long upper,
                                    long effort)
{
    ts_meter m;
    ts_meter_init(&m, 0);
    ts_budget bu;
    ts_budget_init(&bu, &m, 30);
    ts_exact_opts eo = {n, cap, 0, upper, effort, &bu};
    ts_schedule *better = NULL;
    ts_exact_res r;
    ts_err e = {0};
    if (ts_exact_search(p, &eo, &better, &r, &e) != TS_OK)
        return -2;
    ts_schedule_free(better);
    return r.run && r.proven && !r.timed_out ? r.best : -1;
}

#endif
