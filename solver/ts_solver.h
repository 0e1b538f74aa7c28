/* Schedule search over Z3. This public header exposes no Z3 type.
 *
 * Three lists declare what every method shares; each is written once and everything else is
 * generated from it (see solver/README.md, "Extending"):
 *  - TS_SEARCH_OPTIONS: the options with their defaults and ranges (ts_search_opts, its
 *    initialiser, the command line's checks);
 *  - TS_SEARCH_STATS: the statistics (ts_search_stats, the schedule's `search` record and the
 *    keys of `tessel search --json`);
 *  - TS_SEARCH_PHASES: the named phases whose seconds the record keeps.
 * The methods themselves are listed in ts_methods.h (core, so that the command line knows the
 * names without a solver). */
#ifndef TS_SOLVER_H
#define TS_SOLVER_H

#include <stdbool.h>
#include <stddef.h>
#include "ts_fold.h"
#include "ts_methods.h"
#include "ts_schedule.h"
#include "ts_time_limit.h"

/* ---- options ------------------------------------------------------------------------------- */

/* X(field, C type, default, min, max, short flag (0: none), command-line flag, Python keyword,
 * help). min..max is the accepted range when the option is set; a default outside it means "not
 * set". The operations layer (src/app/ops) makes each a row of the search's option table, from
 * which the command line's flags and --help, the explorer's fields and the Python keywords come. */
#define TS_SEARCH_OPTIONS(X)                                                                       \
    X(k, int, 0, 1, 64, 'k', "nmicros", "k",                                                       \
      "k: micro-batches per repetend (lazy); default: search 1..")                                 \
    X(micro_batches, int, TS_DEFAULT_MICRO_BATCHES, 1, 100000, 'n', "micro-batches", "n",          \
      "N: where the summary is taken, and full's size")                                            \
    X(time_limit, double, 0, TS_TIME_LIMIT_MIN, TS_TIME_LIMIT_MAX, 't', "time-limit",              \
      "time_limit",                                                                                \
      "seconds: sets the effort (unless --effort: auto gives each of compare's search rows it "    \
      "runs, and then its own phases, this much effort each) and is the whole request's one "      \
      "wall-clock deadline; a search the deadline cuts says timed_out and may differ from "        \
      "machine to machine (0: none)")                                                              \
    X(effort, double, 0, 1, 1e15, 0, "effort", "effort",                                           \
      "work of the search in solver resource units, the same on any machine (default: "            \
      "1.2e5 per second of --time-limit)")                                                         \
    X(accept, double, 0.05, 0.0, 1.0, 0, "accept", "accept",                                       \
      "fast: accept a warm-up/cool-down within this fraction of the run")                          \
    X(per_period, int, 1, 1, TS_FOLD_MAX, 0, "per-period", "per_period",                           \
      "R: lazy, fast and modulo search repetends of R micro-batches per period (on the R-fold "    \
      "placement; the schedule is then written at N, with its steady state's repetend)")           \
    X(gap, double, 0, 0.0, 10.0, 0, "gap", "gap",                                                  \
      "auto: return as soon as a schedule is within this fraction of the lower bound (0: only "    \
      "at the bound)")                                                                             \
    X(seed, int, 0, 1, 2147483647, 0, "seed", "seed",                                              \
      "auto: seed of the improvement phase's moves (default: a fixed one; the answer changes "     \
      "only when given)")

typedef enum {
#define TS_X_OPT_ID(f, t, def, lo, hi, sh, flag, py, help) TS_OPT_##f,
    TS_SEARCH_OPTIONS(TS_X_OPT_ID)
#undef TS_X_OPT_ID
        TS_OPT_COUNT
} ts_search_option_id;

typedef struct {
    /* long command-line flag without the dashes */
    const char *flag;
    double def, min, max;
    const char *help;
    /* the one-letter flag, or 0 */
    int shortflag;
    /* the field is an int: the command line takes whole numbers only */
    bool integer;
} ts_search_option;

/* The table generated from TS_SEARCH_OPTIONS, indexed by ts_search_option_id. */
extern const ts_search_option ts_search_options[TS_OPT_COUNT];

/* ---- progress ------------------------------------------------------------------------------ */

/* X(ID, name). A phase's seconds accumulate under its name; the record lists the phases a
 * search went through in the order it first entered them. */
#define TS_SEARCH_PHASES(X)                                                                        \
    X(BOUNDS, "bounds")                                                                            \
    X(FLOOR, "floor")                                                                              \
    X(SEED, "seed")                                                                                \
    X(CONSTRUCT, "construct")                                                                      \
    X(SCREEN, "screen")                                                                            \
    X(REPETEND, "repetend")                                                                        \
    X(CHECK, "check")                                                                              \
    X(REPAIR, "repair")                                                                            \
    X(PERIOD, "period")                                                                            \
    X(SCHEDULE, "schedule")                                                                        \
    X(LATENCY, "latency")                                                                          \
    X(GREEDY, "greedy")                                                                            \
    X(TOO_LARGE, "too_large")                                                                      \
    X(ENCODE, "encode")                                                                            \
    X(MAKESPAN, "makespan")                                                                        \
    X(COMPLETION, "completion")                                                                    \
    X(WARMUP, "warmup")                                                                            \
    X(COOLDOWN, "cooldown")                                                                        \
    X(FALLBACK, "fallback")                                                                        \
    X(BASELINES, "baselines")                                                                      \
    X(SEARCHES, "searches")                                                                        \
    X(IMPROVE, "improve")                                                                          \
    X(EXACT, "exact")

typedef enum {
#define TS_X_PHASE_ID(id, name) TS_PHASE_##id,
    TS_SEARCH_PHASES(TS_X_PHASE_ID)
#undef TS_X_PHASE_ID
        TS_PHASE_COUNT
} ts_phase;

const char *ts_phase_name(ts_phase ph);

typedef struct {
    /* a TS_SEARCH_PHASES name, e.g. "repetend", "period" */
    const char *phase;
    /* candidates tried / to try (total 0 when unknown) */
    long tried, total;
    /* -1 while none found */
    long best_bubbles;
    /* seconds since the search began */
    double elapsed;
} ts_search_progress;

struct ts_meter;
struct ts_search_stats;

typedef struct ts_search_opts {
    ts_method method;
    /* false: unconstrained */
    bool has_memory;
    /* the capacity of every device; with memory_per_device, the largest of them */
    long memory;
    /* NULL: every device holds `memory`; otherwise device d holds memory_per_device[d] (ndevs
     * entries, the caller's array, which must outlive the search): ts_search_opts_memory */
    const long *memory_per_device;
    /* auto: the rows of its portfolio it may run, names separated by commas (the caller's
     * string, which must outlive the search); NULL: every row (ts_portfolio_*) */
    const char *candidates;
#define TS_X_OPT_FIELD(f, t, def, lo, hi, sh, flag, py, help) t f;
    TS_SEARCH_OPTIONS(TS_X_OPT_FIELD)
#undef TS_X_OPT_FIELD
    /* may be NULL */
    void (*progress)(void *ud, const ts_search_progress *p);
    void *progress_ud;
    /* May be NULL. Another thread sets *cancel to non-zero to stop the search: every check of the
     * time limit then answers "over" (a solver call under way runs to its own timeout first), and
     * the search returns what it has, marked timed_out. The caller owns the flag; one per search. */
    const volatile int *cancel;
    /* Internal to the solver, NULL from callers: the effort meter a search spends on, shared
     * with the searches it runs (auto's candidates); NULL: its own, capped at time_limit. */
    struct ts_meter *meter;
    /* Internal to the solver, set by ts_search: the dispatcher itself, which auto's rows call
     * back (so that the portfolio runs a method by its row without naming the file that
     * dispatches to the portfolio) */
    int (*dispatch)(const ts_placement *p, const struct ts_search_opts *o, ts_schedule **out,
                    struct ts_search_stats *st, ts_err *e);
} ts_search_opts;

/* Every option at its default (method lazy, no memory limit, no progress). */
void ts_search_opts_init(ts_search_opts *o);
/* Sets option id to v (converted to its type); -1 when v is outside its range. */
int ts_search_opts_set(ts_search_opts *o, ts_search_option_id id, double v);
/* Holds the search to capacity cap[d] on device d (ndevs entries, kept by pointer: the caller's
 * array must outlive the search; equal entries make a uniform capacity, kept by value). */
void ts_search_opts_memory(ts_search_opts *o, const long *cap, int ndevs);
/* Device d's capacity under o (o->has_memory). */
static inline long ts_search_cap(const ts_search_opts *o, int d)
{
    return o->memory_per_device ? o->memory_per_device[d] : o->memory;
}
/* The capacities as a user writes them: "4", or "9,4,4,4,4,4" per device (cut with "..." when
 * longer than buf). "none" without a memory limit. Returns buf. */
const char *ts_search_memory_text(const ts_search_opts *o, int ndevs, char *buf, size_t len);
/* The capacities as a record writes them: "none", a number, or one number per device. */
json_t *ts_search_memory_json(const ts_search_opts *o, int ndevs);

/* ---- statistics ---------------------------------------------------------------------------- */

/* X(field, C type, JSON key, JSON kind, initial value, meaning). Kinds: INT, BOOL, REAL, COUNT
 * (an integer, null when negative: not known), TEXT (a string, null when NULL). */
#define TS_SEARCH_STATS(X)                                                                         \
    X(k, int, "k", INT, 0, "micro-batches one repetend touches (0 for full)")                      \
    X(period, long, "period", INT, 0, "repetend period (0 for full)")                              \
    X(bubbles, long, "bubbles_per_repetend", INT, 0, "period - max load; 0: optimal steady state") \
    X(optimal, bool, "optimal", BOOL, false,                                                       \
      "proven: the makespan at N meets the lower bound within the memory, or (auto) the exact "    \
      "search refused every shorter one")                                                          \
    X(period_optimal, bool, "period_optimal", BOOL, false,                                         \
      "proven within the method's class: smallest period of a repetend with one micro-batch per "  \
      "period (lazy, modulo), minimum makespan of monotone schedules (full)")                      \
    X(gap_to_bound, double, "gap_to_bound", REAL, -1.0,                                            \
      "makespan at N over the lower bound, minus 1 (-1: not measured)")                            \
    X(timed_out, bool, "timed_out", BOOL, false,                                                   \
      "the wall-clock cap (--time-limit) cut the search: the answer may differ between machines")  \
    X(effort_out, bool, "effort_out", BOOL, false,                                                 \
      "the effort ran out before the search finished (the same on every machine)")                 \
    X(effort, long long, "effort", INT, 0,                                                         \
      "work spent: solver resource units and screening ticks, the same on every machine")          \
    X(completion_optimal, bool, "completion_optimal", BOOL, false,                                 \
      "warm-up and cool-down steps proven minimal")                                                \
    X(candidates, long, "candidates", INT, 0, "offset assignments or periods tried")               \
    X(min_memory, long, "min_memory", COUNT, -1, "smallest feasible capacity, when known")         \
    X(latency, long, "latency", COUNT, -1, "modulo: steps of one micro-batch, when measured")      \
    X(latency_optimal, bool, "latency_optimal", BOOL, false, "modulo: latency proven minimal")     \
    X(memory_bound, const char *, "memory_bound", TEXT, "exact",                                   \
      "exact: the memory model is exact; safe: it may refuse feasible schedules")                  \
    X(per_period, int, "per_period", INT, 1, "micro-batches per period (--per-period)")            \
    X(source, const char *, "source", TEXT, NULL, "auto: the baseline or method it kept")          \
    X(improved, bool, "improved", BOOL, false, "auto: the improvement phase shortened it")         \
    X(improve_moves, long, "improve_moves", COUNT, -1,                                             \
      "auto: moves its improvement phase tried (a count, the same on any machine)")                \
    X(exact, const char *, "exact", TEXT, NULL,                                                    \
      "auto: the exact search at N (small instance counts): proven (nothing shorter exists), "     \
      "cut (its effort ran out), timed out (its clock did); null when not run")                    \
    X(exact_effort, long, "exact_effort", COUNT, -1,                                               \
      "auto: Z3 resource units the exact search spent (the same on any machine; the "              \
      "large-neighbourhood search's are in effort)")

/* Candidates an auto search's record lists (what it tried, with each one's seconds and effort);
 * beyond, the rest are counted only. */
#define TS_PORTFOLIO_MAX 48
/* Rows of auto's portfolio the record lists (the baselines and auto's own rows) */
#define TS_PORTFOLIO_ROWS_MAX 64

typedef struct ts_search_stats {
#define TS_X_STAT_FIELD(f, t, key, kind, init, doc) t f;
    TS_SEARCH_STATS(TS_X_STAT_FIELD)
#undef TS_X_STAT_FIELD
    /* wall time of the whole search */
    double seconds;
    /* phases entered, in order */
    int nphases;
    struct {
        const char *name;
        double seconds;
    } phases[TS_PHASE_COUNT];
    /* auto: the candidates in the order tried (the record's "portfolio"; their seconds are under
     * search_seconds), and how many were tried in all */
    int nportfolio, portfolio_tried;
    struct {
        /* static: a baseline's or a method's name */
        const char *source;
        /* at N within the memory; -1: none that fits */
        long makespan;
        double seconds;
        long long effort;
    } portfolio[TS_PORTFOLIO_MAX];
    /* auto: every row of its portfolio in the order it came up (the record's "portfolio_rows"):
     * ran, or skipped and why */
    int nrows;
    struct {
        /* static: the row's name */
        const char *name;
        bool ran;
        char why[160];
    } rows[TS_PORTFOLIO_ROWS_MAX];
} ts_search_stats;

/* Every statistic at its initial value, no phase. */
void ts_search_stats_reset(ts_search_stats *st);
/* Adds the statistics' keys (TS_SEARCH_STATS) to j. */
void ts_search_stats_json(const ts_search_stats *st, json_t *j);
/* {"total": seconds, "<phase>": seconds, ...}. NULL on allocation failure. */
json_t *ts_search_seconds_json(const ts_search_stats *st);
/* The record stored with a schedule and printed by `tessel search --json`: method, the
 * statistics' keys and search_seconds. NULL on allocation failure. */
json_t *ts_search_record(const ts_search_opts *o, const ts_search_stats *st);

/* ---- auto's portfolio ---------------------------------------------------------------------- */

/* The rows of auto's portfolio, in the order it runs them: every baseline of the registry, the
 * constructions without a solver, compare's search rows, and the improvement rows. Any of them
 * can be asked for by name (ts_search_opts.candidates). */
int ts_portfolio_count(void);
/* Row i's name (NULL past the end), and in *doc (may be NULL) one line on what it is. */
const char *ts_portfolio_name(int i, const char **doc);
/* Checks a list of row names separated by commas: TS_EINPUT naming the first unknown one. */
int ts_portfolio_check(const char *list, ts_err *e);
/* Whether the comma-separated list names `name`. */
bool ts_portfolio_lists(const char *list, const char *name);

/* ---- search -------------------------------------------------------------------------------- */

/* Finds a schedule of p. On TS_OK *out is a schedule (with its repetend when the method makes
 * one) for stats->k or opts->micro_batches micro-batches; it carries its search record. Returns
 * TS_ENOANSWER when no schedule exists within the limits (message says why), TS_EINPUT for a
 * request the method cannot take. st may be NULL. */
int ts_search(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
              ts_search_stats *st, ts_err *e);

/* The methods behind ts_search (one per row of ts_methods.h), same contract; st may be NULL, it
 * is reset first. */
int ts_search_lazy(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                   ts_search_stats *st, ts_err *e);
int ts_search_fast(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                   ts_search_stats *st, ts_err *e);
int ts_search_full(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                   ts_search_stats *st, ts_err *e);
int ts_search_modulo(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                     ts_search_stats *st, ts_err *e);
int ts_search_auto(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                   ts_search_stats *st, ts_err *e);

#endif
