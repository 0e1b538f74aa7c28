/* The results module: what every front end (tessel compare, search, sweep, plan, serve) reports,
 * built once here so that each of them only prints.
 *  - the schedule summary: a schedule's figures at N micro-batches, as JSON (summary.c);
 *  - the search record: what `tessel search --json` prints of a search, and what the explorer
 *    shows, every TS_SEARCH_STATS key included (record.c);
 *  - the compare row: a baseline or a search measured at N, with its status text, and the table's
 *    best row (compare_row.c, compare_guard.c);
 *  - the watchdog rule and the one supervisor of child processes (watch.c);
 *  - the plan's evaluation: derive, search and measure one parallel plan (plan_eval.c);
 *  - the model's per-layer table as `tessel model --json` prints it (model_json.c).
 * The time-limit range is the core's (ts_time_limit.h), since the solver's options use it too. */
#ifndef TS_RESULTS_H
#define TS_RESULTS_H

#include <stdbool.h>
#include <sys/types.h>
#include "ts_model.h"
#include "ts_schedule.h"
#include "ts_time_limit.h"
#ifdef TS_HAVE_SOLVER
#include "ts_solver.h"
#endif

/* ---- schedule summary (summary.c) ----------------------------------------------------------- */

/* The schedule as a runtime would run it at n micro-batches: unrolled to n when it has a repetend
 * and fewer micro-batches (cut to its first n when it has more), then replayed as early as each
 * device's order allows (kept as it is when that fails). *at gets that schedule and m its metrics
 * (both the caller's to free). Returns 0; 1 when the unroll failed (e says why); -1 when out of
 * memory. */
int ts_results_at(const ts_schedule *s, int n, ts_schedule **at, ts_metrics *m, ts_err *e);
/* Adds a schedule's figures to j, in this order: micro_batches, makespan, bubble_rate,
 * lower_bound, peak_memory, load (one entry per device of the last two). */
void ts_results_metrics_json(json_t *j, const ts_metrics *m, int nmicros, int ndevs);
/* Adds ratio (makespan over lower bound, 0 without a bound) and fits (every device's peak within
 * its capacity: cap[d], or cap[0] for all when ncap is 1; true when ncap is 0). */
void ts_results_fit_json(json_t *j, const ts_metrics *m, int ndevs, const long *cap, int ncap);
/* The summary of s at n micro-batches: ts_results_metrics_json, then ts_results_fit_json. NULL
 * with e set on failure. */
json_t *ts_results_summary(const ts_schedule *s, int n, const long *cap, int ncap, ts_err *e);

/* The lower bound of a replay (`tessel simulate --scale/--comm-delay`): the bound of a copy of p
 * whose spans carry the factors scale[b] and whose edges between different devices carry comm
 * on top of their delay; -1 when it cannot be computed. */
double ts_results_sim_lower_bound(const ts_placement *p, int n, const double *scale, double comm);

/* ---- search record (record.c) --------------------------------------------------------------- */

#ifdef TS_HAVE_SOLVER
/* The words of a search's claims, from what proved them, for every front end's text: what makes
 * the answer optimal at N ("meets the lower bound", "the exact search refuted every shorter
 * schedule"; NULL when nothing does), and what the repetend's period rests on ("no bubble in
 * the period", "smallest period of its class", "period not proven minimal"). */
const char *ts_results_optimal_by(const ts_search_stats *st);
const char *ts_results_period_claim(const ts_search_stats *st);
/* What `tessel search --json` prints of a search that found a schedule: placement, ndevs,
 * memory, feasible, the search record (ts_search_record: method, every TS_SEARCH_STATS key,
 * search_seconds) and the figures at N of the schedule at (ts_results_metrics_json). NULL when out
 * of memory. */
json_t *ts_results_search_json(const ts_placement *p, const ts_search_opts *so,
                               const ts_search_stats *st, const ts_schedule *at,
                               const ts_metrics *m);
/* The same for a search that found none: method, placement, memory, feasible (false), message,
 * min_memory (null when unknown), search_seconds. */
json_t *ts_results_refusal_json(const ts_placement *p, const ts_search_opts *so,
                                const ts_search_stats *st, const ts_err *e);
/* The keys the explorer adds to ts_results_search_json for its page (its summary line): ratio,
 * fits, seconds (the search's wall time) and memory_searched. */
#define TS_RESULTS_PAGE_KEYS "ratio", "fits", "seconds", "memory_searched"
/* One search and its summary as the explorer shows it: ts_results_search_json, plus the page's
 * keys (fits judged against cap/ncap as in ts_results_fit_json). On TS_OK *out is the schedule
 * and *summary the object (both the caller's); otherwise e says why. */
int ts_results_search(const ts_placement *p, const ts_search_opts *so, const long *cap, int ncap,
                      ts_schedule **out, json_t **summary, ts_err *e);
#endif

/* ---- compare row (compare_row.c, compare_guard.c) ------------------------------------------- */

#define TS_COMPARE_NAME 24

/* One row of a compare table: a baseline built by its rule, or a search, measured at N. */
typedef struct {
    /* The name, "full (greedy)" for full's greedy fallback. */
    char method[TS_COMPARE_NAME];
    bool search;
    /* A schedule given as a file (compare --schedule), measured as it is. */
    bool file;
    /* Full's greedy fallback (too large for the solver): not a search result. */
    bool greedy;
    /* The shortest makespan among the rows that fit. */
    bool best;
    /* The figures below are valid. */
    bool ok;
    /* "ok", "timed out (best found)", or why there is no number. */
    char status[160];
    /* -1 when not applicable. */
    long k, period;
    /* micro-batches per period of the schedule's repetend (0: none), so that a period of
     * several micro-batches reads against one of one */
    int per;
    /* measured at the table's N (false: at the file's own micro-batches, which cannot be taken
     * to N): only such a row can be the best */
    bool at_n;
    long makespan, lower_bound;
    double bubble_rate, seconds;
    bool fits;
    int ndevs;
    /* Ndevs entries when ok (owned). */
    long *peak;
    /* The schedule summary (a search's with its record) when asked (owned). */
    json_t *summary;
    /* The schedule as found, when asked (owned). */
    ts_schedule *schedule;
} ts_compare_row;

/* Reports a search's progress while a row runs; NULL for none. */
#ifdef TS_HAVE_SOLVER
typedef void (*ts_compare_progress_fn)(void *ud, const ts_search_progress *p);
#else
typedef void (*ts_compare_progress_fn)(void *ud, const void *p);
#endif

/* What every row of one table shares. */
typedef struct {
    const ts_placement *p;
    /* Micro-batches. */
    int n;
    bool has_memory;
    /* The capacity a search is held to (the largest, with a capacity per device). */
    long memory;
    /* Per-device capacities for "fits" and, with ncap == ndevs, for a search too (ncap 1: one
     * for all; 0: none) */
    const long *cap;
    int ncap;
    /* Seconds per search: its effort (unless effort > 0) and its wall-clock cap. */
    double time_limit;
    /* Solver resource units per search; 0: from time_limit. */
    double effort;
    /* auto's row: its gap to the bound and its seed (0: the search's defaults) */
    double gap;
    int seed;
    /* Keep the summary JSON and the schedule in the row. */
    bool keep;
    /* The default table (every baseline that fits, every method): a search row that auto leaves
     * out of its candidates there is shown with why, not run (ts_search_row_skip, ts_rows.h) */
    bool default_rows;
    ts_compare_progress_fn progress;
    void *progress_ud;
} ts_compare_opts;

/* True when name is a search method (ts_methods.h), false for a baseline kind. */
bool ts_compare_is_search(const char *name);
/* Runs and measures one row in this process. */
void ts_compare_row_run(const ts_compare_opts *o, const char *name, ts_compare_row *r);
/* The same, a search in a child process under the watchdog (ts_watch): a method that overruns its
 * time limit then shows that in its row instead of holding up the whole table. Baselines run in
 * this process. o->keep is not honoured for a search run in the child. */
void ts_compare_row_run_guarded(const ts_compare_opts *o, const char *name, ts_compare_row *r);
void ts_compare_row_clear(ts_compare_row *r);
/* A row named name for a schedule the caller has (a file): measured as every row is. Takes s. */
void ts_compare_row_schedule(const ts_compare_opts *o, const char *name, ts_schedule *s,
                             ts_compare_row *r);
/* Gives every row the lower bound lb and marks the best: the shortest makespan among the rows
 * that fit. Returns the index of the first best row, or -1. */
int ts_compare_finish(ts_compare_row *rows, int nrows, long lb);
/* The row as the explorer shows it: method, kind (search, baseline), status, k and period (when
 * there is a repetend), the summary's keys, seconds, and the schedule when kept. Steals nothing;
 * NULL when out of memory. */
json_t *ts_compare_row_json(const ts_compare_row *r);

/* ---- model table (model_json.c) ------------------------------------------------------------ */

/* `tessel model --json`'s object for m: its figures, strategies and per-layer rows; with h, each
 * layer's seconds and memory on that GPU under co, and the hardware's name and options. */
json_t *ts_results_model_json(const ts_model *m, const ts_hardware *h, const ts_cost_opts *co);

/* ---- watchdog and supervisor (watch.c) ------------------------------------------------------ */

/* The watchdog rule: seconds a child given `limit` seconds may run before it is stopped, a
 * quarter more than its limit plus a few seconds of grace for starting and measuring. */
double ts_watchdog_seconds(double limit);

/* A child process under the watchdog. */
typedef struct {
    /* > 0 while it runs. */
    pid_t pid;
    /* Pid leads a process group of its own: stop the whole group. */
    bool group;
    /* Ts_clock_now() at its start. */
    double started;
    /* The seconds it was given (0: none, no deadline) */
    double limit;
    /* Runs of `limit` seconds it makes. */
    int searches;
    /* When the watchdog stops it (0: never) */
    double deadline;
    /* The watchdog stopped it. */
    bool overdue;
} ts_watch;

/* Watches pid from now on: `searches` runs of `limit` seconds each (a compare job runs several),
 * so the deadline is searches x ts_watchdog_seconds(limit) away. */
void ts_watch_start(ts_watch *w, pid_t pid, bool group, double limit, int searches);
/* The one supervisor step: stops the child (SIGKILL, its group too) when it is past its deadline,
 * and marks it overdue. Returns true when the child is overdue (now or before). */
bool ts_watch_check(ts_watch *w, double now);
/* Waits until fd is readable or the child is overdue (stopped by ts_watch_check). Returns true
 * when fd is readable. */
bool ts_watch_wait_fd(ts_watch *w, int fd);
/* Stops the child now (SIGKILL, its group too), without reaping it. */
void ts_watch_kill(const ts_watch *w);
/* The one message of a child that the watchdog stopped: "stopped after T s: ran past its time
 * limit of L s [per search] by more than a quarter". */
void ts_watch_message(const ts_watch *w, double now, char *buf, size_t len);

#endif
