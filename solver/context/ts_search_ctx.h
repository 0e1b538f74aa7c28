/* Internal to the solver library: the one search context every method runs in (search.c).
 *
 * It holds what a search shares whatever its method: the placement and options, the statistics
 * it fills, the clock and deadline of the time limit, the phase timings and the progress report.
 * A method begins with ts_ctx_begin, asks ts_ctx_over / ts_ctx_call before solver work, records
 * its phases with ts_ctx_lap, reports with ts_ctx_progress and returns through ts_ctx_end. */
#ifndef TS_SEARCH_CTX_H
#define TS_SEARCH_CTX_H

#include <stdbool.h>
#include "ts_clock.h"
#include "ts_solver.h"

/* ---- time and effort ----------------------------------------------------------------------- */

/* A search spends a deterministic effort, not wall time: Z3's resource units (rlimit) as Z3
 * counts them, plus TS_EFFORT_TICK for each check of a budget (each stands for a fixed amount of
 * solver-free work between checks: residues tried, candidates screened). Every budget reads the
 * effort as seconds, TS_EFFORT_PER_SECOND units to a second, so the same request stops at the
 * same place on a quiet machine and on a busy one. The time limit stays a cap of wall time: when
 * it cuts work, the meter says so (wall_hit) and the record says timed_out. Z3's units per
 * second vary by instance: measured on a quiet 2-core machine, 1.3e6 to 1.6e6 (auto on nnshape
 * at N 32, modulo on mshape at 16 devices, full on xshape) down to 4e5 (modulo on nnshape at 8
 * devices, N 128: 91% of its time in Z3) and 4.6e4 (modulo on the 2-fold mshape at 32
 * devices), and 2 to 3 times fewer on the same machine loaded by other builds; a tick's screening
 * is about 50 units' worth (lazy). At 1.2e5 units per second of --time-limit, auto on the
 * quality matrix's slowest cases (nnshape and mshape at N 128) takes about half of the limit on
 * a lightly loaded machine: a machine twice as busy reaches the cap there, and says so. */
#define TS_EFFORT_PER_SECOND 1.2e5
#define TS_EFFORT_TICK 50.0

/* The effort one search spends (shared by the searches it runs: auto's candidates, the
 * completion), and the wall-clock cap over all of them. */
typedef struct ts_meter {
    /* effort units spent */
    double spent;
    /* absolute time (ts_clock_now) of the cap; <= 0: none */
    double wall;
    /* the cap cut some work: the answer may differ from machine to machine */
    bool wall_hit;
} ts_meter;

/* A meter with nothing spent and a cap `seconds` from now (<= 0: none). */
void ts_meter_init(ts_meter *m, double seconds);
/* The effort spent, in seconds (units / TS_EFFORT_PER_SECOND). */
double ts_meter_now(const ts_meter *m);
/* The cap has passed: marks it hit. */
bool ts_meter_wall_over(ts_meter *m);
void ts_meter_spend(ts_meter *m, double units);

/* A budget of effort on a meter, in seconds of effort. deadline <= 0: none (the meter's wall
 * cap still holds). A NULL meter counts nothing and has no cap (every ts_meter_ function takes
 * NULL). A budget copied from the search's carries its cancel flag (ts_search_opts.cancel): once
 * set, the budget is over, and the meter marks the wall hit (the answer depends on when). */
typedef struct {
    ts_meter *m;
    double start;
    double deadline;
    const volatile int *cancel;
} ts_budget;

/* A budget of `seconds` of effort from what m has spent now (<= 0: none). */
void ts_budget_init(ts_budget *b, ts_meter *m, double seconds);
/* Seconds of effort left (a large number when there is no deadline); 0 past the wall cap;
 * never negative. */
double ts_budget_left(const ts_budget *b);
/* The effort is spent or the wall cap has passed. Charges TS_EFFORT_TICK. */
bool ts_budget_over(const ts_budget *b);
/* Seconds one solver call may take: what is left, capped by cap (cap <= 0: no cap). */
double ts_budget_call(const ts_budget *b, double cap);

/* every cap on a search's effort: one table (ts_search_caps.h) */
#include "ts_search_caps.h"

/* ---- the context --------------------------------------------------------------------------- */

typedef struct {
    const ts_placement *p;
    const ts_search_opts *o;
    /* the caller's, or local */
    ts_search_stats *st;
    ts_search_stats local;
    /* the effort: the caller's (o->meter) or own */
    ts_meter *meter;
    ts_meter own;
    /* what the meter had spent at ts_ctx_begin */
    double spent0;
    /* wall time at ts_ctx_begin */
    double wall0;
    /* the whole search: starts at ts_ctx_begin, ends when the effort is spent */
    ts_budget budget;
    /* when progress was last reported (rate limit) */
    double last_progress;
    /* each device's capacity (ts_search_cap), ndevs entries; NULL without a memory limit */
    long *cap;
} ts_search_ctx;

/* Starts the clock, resets the statistics (st, or the context's own when st is NULL) and lays
 * out each device's capacity, so that every method can be called directly as well as through
 * ts_search. TS_ESYS when out of memory (then end the context with ts_ctx_end all the same). */
int ts_ctx_begin(ts_search_ctx *c, const ts_placement *p, const ts_search_opts *o,
                 ts_search_stats *st, ts_err *e);
/* Records the whole search's seconds and, when rc is TS_OK, attaches the search record
 * (ts_search_record and the options) to s; frees the capacities. Returns rc. */
int ts_ctx_end(ts_search_ctx *c, int rc, ts_schedule *s);
/* Wall seconds since ts_ctx_begin (reports only: no decision may depend on it). */
double ts_ctx_elapsed(const ts_search_ctx *c);
/* Seconds of effort spent since ts_ctx_begin (what decisions read). */
double ts_ctx_spent(const ts_search_ctx *c);
/* The share of o's time limit a method may search for, so that what follows (the completion or
 * fallback, the label, the caller's summary and file at N) still fits: 1 less TS_FINISH_SECONDS
 * per instance at N and device it runs on, between TS_LAZY_SHARE_MIN and TS_LAZY_SHARE; 1
 * without a limit. What follows grows with the instances, not the limit: next to nothing on the
 * paper's placements, over a second at a million or more. */
double ts_finish_share(const ts_placement *p, const ts_search_opts *o);
/* The time limit has passed (never without one). */
bool ts_ctx_over(const ts_search_ctx *c);
/* As ts_ctx_over, and then marks the statistics as cut by the time limit. */
bool ts_ctx_cut(ts_search_ctx *c);
/* A budget that ends at fraction (0, 1] of the time limit (none without a limit): for work that
 * must leave the rest of the limit to what follows it. */
ts_budget ts_ctx_share(const ts_search_ctx *c, double fraction);
/* Adds the seconds since t0 to phase; returns now (the next lap's t0). */
double ts_ctx_lap(ts_search_ctx *c, ts_phase ph, double t0);
void ts_ctx_phase(ts_search_ctx *c, ts_phase ph, double seconds);
/* Reports progress when the caller asked for it: at most every 0.2 s unless force. */
void ts_ctx_progress(ts_search_ctx *c, ts_phase ph, long tried, long total, long best_bubbles,
                     bool force);

/* ---- folded search (folded.c) -------------------------------------------------------------- */

typedef int (*ts_search_fn)(const ts_placement *, const ts_search_opts *, ts_schedule **,
                            ts_search_stats *, ts_err *);

/* --per-period R: fn (lazy, fast or modulo) on the R-fold of p (ts_fold.h), whose repetends run
 * R micro-batches per period; *out is its schedule at N micro-batches of p, without repetend
 * (ts_search finds the one of the replayed schedule, ts_schedule_find_repetend). st: the method's figures for the fold (period
 * and bubbles per R micro-batches), k in p's micro-batches, per_period R. */
int ts_search_folded(const ts_placement *p, const ts_search_opts *o, ts_search_fn fn,
                     ts_schedule **out, ts_search_stats *st, ts_err *e);

#endif
