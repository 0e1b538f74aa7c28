/* auto's portfolio inside the solver: the pool of candidates it measures at N, and the rows it
 * runs (auto_rows.c: the table; auto_pool.c: measuring and keeping; auto_improve.c: the
 * improvement rows; auto.c: the loop over the rows). The public face is ts_portfolio_* in
 * ts_solver.h: the names a request may ask for. */
#ifndef TS_AUTO_H
#define TS_AUTO_H

#include "ts_search_ctx.h"

typedef struct {
    ts_schedule *at; /* at N, replayed; owned */
    ts_schedule *orig; /* the schedule as the method returned it (repetend), owned, may be NULL */
    long makespan;
    const char *source; /* static: a baseline's or a method's name */
    bool improved;
    ts_search_stats sub; /* the search's statistics (repetend claims), when from a search */
    bool from_search;
} ts_auto_cand;

/* A fitting baseline waiting for its measurement: its schedule as built, at N, and the makespan
 * there (the replay can only shorten it). */
typedef struct {
    int i;
    long built;
    ts_schedule *s;
} ts_auto_built;

typedef struct ts_auto {
    ts_search_ctx *c;
    int n; /* N */
    const long *cap; /* per device (the context's), or NULL */
    long bound; /* the lower bound at N within the memory */
    ts_auto_cand pool[TS_AUTO_POOL]; /* best first; makespan 0: empty */
    ts_err why; /* the first search's refusal: auto's own when nothing fits */
    long min_memory; /* the smallest feasible capacity a search reported, -1 */
    bool improve_cut; /* the time limit, not the effort, ended an improvement slice */
    bool exact_proven; /* the exact search proved the best makespan minimal */
    bool effort_cut; /* a candidate's search stopped on its effort */
    /* why the search rows stopped (auto done, or a row proved that no schedule fits the memory);
     * NULL while they go on */
    const char *searches_end;
    const ts_search_opts *req; /* the request as given: compare's rows are built from it */
    double rows_spent; /* effort units the rows spent (theirs, outside auto's own budget) */
    ts_auto_cand held; /* a construction offered only if it leads when the searches are done */
    /* auto itself (auto.c's ts_auto_run), which the unsharded row runs on the reduced placement:
     * handed down, so that the rows' file does not name the loop's */
    int (*rerun)(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                 ts_search_stats *st, double *rows_spent, ts_err *e);
    /* the baselines built and fitting as built, waiting to be measured (auto_rows.c) */
    ts_auto_built *built;
    int nbuilt;
} ts_auto;

/* The stages of the portfolio, in the order they run; each closes with its hook (auto_rows.c)
 * and adds its seconds to its phase of the record. */
typedef enum {
    TS_AUTO_STAGE_BASELINES,
    TS_AUTO_STAGE_CONSTRUCTIONS,
    TS_AUTO_STAGE_SEARCHES,
    TS_AUTO_STAGE_IMPROVE,
    TS_AUTO_STAGE_EXACT,
    TS_AUTO_STAGE_COUNT
} ts_auto_stage;

typedef struct ts_auto_row ts_auto_row;

/* One candidate of the portfolio. applies returns NULL when the row runs now, or why not (a
 * static text, or buf); run offers what it finds to the pool and lists it in the record. */
struct ts_auto_row {
    const char *name;
    ts_auto_stage stage;
    const char *(*applies)(ts_auto *a, const ts_auto_row *r, char *buf, size_t len);
    void (*run)(ts_auto *a, const ts_auto_row *r);
    /* its share of the effort: of the time limit's effort, or of what is left (see each row) */
    double share;
    /* the row's own argument: a baseline's registry index, a construction, a method, a fold */
    int arg;
    const char *doc;
};

/* The rows in the order auto runs them: every baseline of the registry, then the static rows.
 * Fills rows (at most max) and returns their count. */
int ts_auto_rows(ts_auto_row *rows, int max);
/* The phase a stage's seconds go to, and what closes it (NULL: nothing). */
ts_phase ts_auto_stage_phase(ts_auto_stage s);
void ts_auto_stage_close(ts_auto *a, ts_auto_stage s);
/* Most rows a portfolio has (the baselines and the static rows). */
#define TS_AUTO_ROWS_MAX 64

/* ---- the pool (auto_pool.c) ---------------------------------------------------------------- */

void ts_auto_cand_free(ts_auto_cand *x);
/* s measured at N (unrolled or cut, replayed). Returns the makespan, or -1 when it cannot be
 * taken to N or overflows the memory. *at receives the replayed schedule with the capacities. */
long ts_auto_measure(const ts_auto *a, const ts_schedule *s, ts_schedule **at);
/* Offers a candidate (takes at and orig); the pool keeps the best TS_AUTO_POOL by makespan,
 * the earlier one on a tie. */
void ts_auto_offer(ts_auto *a, ts_schedule *at, ts_schedule *orig, long mk, const char *source,
                   const ts_search_stats *sub);
/* Measures s (not taken) and offers it as source, listed in the record with the seconds and
 * effort since t0 and e0. */
void ts_auto_take(ts_auto *a, const ts_schedule *s, const char *source, double t0, double e0);
/* Lists a candidate in the record: its source, makespan at N (-1: none that fits), and the wall
 * seconds and effort since t0 and e0 (ts_ctx_elapsed, the meter's units). */
void ts_auto_log(ts_auto *a, const char *source, long mk, double t0, double e0);
/* The bound is met, or the gap to it is within --gap: nothing worth the rest of the effort. */
bool ts_auto_close(const ts_auto *a);
/* ts_auto_close, or the time limit has passed. */
bool ts_auto_done(const ts_auto *a);
/* The time limit of the request, or auto's default without one. */
double ts_auto_limit(const ts_auto *a);

/* ---- the improvement rows (auto_improve.c) ------------------------------------------------ */

void ts_auto_improve(ts_auto *a, const ts_auto_row *r);
const char *ts_auto_exact_applies(ts_auto *a, const ts_auto_row *r, char *buf, size_t len);
void ts_auto_exact(ts_auto *a, const ts_auto_row *r);
const char *ts_auto_lns_applies(ts_auto *a, const ts_auto_row *r, char *buf, size_t len);
void ts_auto_lns(ts_auto *a, const ts_auto_row *r);

/* auto itself (auto.c), for the unsharded row's inner search on the reduced placement; *rows_spent
 * receives the effort its rows spent. */
int ts_auto_run(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                ts_search_stats *st, double *rows_spent, ts_err *e);

#endif
