/* Schedule completion: the warm-up before and the cool-down after a repetend.
 *
 * Internal to the solver library (any method that builds a repetend may call it: lazy, fast,
 * modulo). A repetend is given the way ts_schedule's window describes it: a period P, and for
 * every block b the micro-batch offset mids[b] of its instance inside the window and that
 * instance's start step start[b] in [0, P). An instance may run past the window end (modulo
 * schedules wrap around); the cool-down then starts after the last instance ends.
 *
 * The completed schedule has k = max(mids) + 1 micro-batches: the warm-up runs every instance
 * (b, m) with m < mids[b], the window runs (b, mids[b]), the cool-down every (b, m) with
 * m > mids[b]. Unrolled to N >= k micro-batches it repeats the window N - k + 1 times.
 *
 * Requirements on the repetend (the caller's search guarantees them): min(mids) == 0; for every
 * edge src -> dst with distance d, mids[src] + d - mids[dst] >= 0 (offsets never grow along a
 * same-micro-batch edge, so the warm-up is closed under predecessors and the cool-down under
 * successors) and start[dst] + (mids[src] + d - mids[dst]) * P >= start[src] + span[src] + delay;
 * the window alone is exclusive; its memory, starting from the level the warm-up leaves
 * (sum over blocks of memory * mids[b] on each device), stays within the capacity. */
#ifndef TS_COMPLETE_H
#define TS_COMPLETE_H

#include <stdbool.h>
#include "ts_methods.h"
#include "ts_schedule.h"

/* The solver's one repetend value: every method hands its answer to the completion in this
 * shape (lazy and fast build it directly, modulo converts its timetable with ts_modulo_repetend,
 * the fallback builds a k = 1 one). For every block b: its micro-batch offset mids[b] in the
 * window and its start start[b] in [0, period). k = max(mids) + 1. */
typedef struct {
    /* nblocks starts in [0, period) */
    long *start;
    /* P > 0 */
    long period;
    /* max(mids) + 1 */
    int k;
    /* nblocks offsets, min 0 */
    int *mids;
} ts_rep;

/* Arrays for nblocks blocks, zeroed (period 0, k 1). -1 on allocation failure. */
int ts_rep_alloc(ts_rep *r, int nblocks);
void ts_rep_free(ts_rep *r);
/* dst takes src's figures (both allocated for nblocks). */
void ts_rep_copy(ts_rep *dst, const ts_rep *src, int nblocks);
/* k of offsets: max(mids) + 1. */
int ts_rep_k(const int *mids, int nblocks);
/* The repetend that a schedule's window declares (its instances inside the window), into r
 * (allocated for the placement's blocks). */
void ts_rep_from_schedule(const ts_schedule *s, ts_rep *r);

typedef struct {
    /* each device's capacity (ndevs entries, the caller's); NULL: unconstrained */
    const long *cap;
    /* seconds of effort for the whole completion; <= 0: none (each Z3 call still has its own
     * cap) */
    double time_limit;
    /* the meter the effort goes on, with its wall-clock cap; NULL: its own, uncapped */
    struct ts_meter *meter;
    /* Stop minimising a phase's steps once within accept * (makespan of micro_batches
     * micro-batches) of its lower bound; 0 = minimise until proven (or time is up). */
    double accept;
    /* N used by accept (TS_DEFAULT_MICRO_BATCHES when <= 0) */
    int micro_batches;
} ts_complete_opts;

void ts_complete_opts_init(ts_complete_opts *o);

typedef struct {
    /* length of each phase's window */
    long warmup_steps, cooldown_steps;
    /* steps proven minimal */
    bool warmup_optimal, cooldown_optimal;
    /* the caller's time limit ran out (a minimisation cut by the per-phase cap only clears
     * *_optimal) */
    bool timed_out;
    double warmup_seconds, cooldown_seconds;
} ts_complete_stats;

/* Builds the complete schedule (warm-up with minimum steps, the window once, cool-down with
 * minimum steps) for k micro-batches, with its repetend window declared and normalised to start
 * at step 0. The result validates (exclusivity, dependencies, memory when has_memory) and unrolls
 * to any N >= k. Returns TS_ENOANSWER when the warm-up or the cool-down cannot fit the memory,
 * TS_EINPUT when the repetend breaks a requirement above, TS_ESYS on allocation or solver
 * failure. st may be NULL. */
int ts_complete(const ts_placement *p, const ts_rep *r, const ts_complete_opts *o,
                ts_schedule **out, ts_complete_stats *st, ts_err *e);

/* Whether the warm-up and the cool-down that mids imply can fit the memory (they depend on the
 * offsets only, not on the window's timetable). A fast greedy order answers most cases; Z3 decides
 * the rest within time_limit seconds of effort on meter (NULL: its own; <= 0: a default cap). *feasible is false when proven
 * impossible; on a timeout it returns TS_OK with *feasible false and *unknown true. */
int ts_complete_feasible(const ts_placement *p, const int *mids, const long *cap,
                         struct ts_meter *meter, double time_limit, bool *feasible, bool *unknown,
                         ts_err *e);

#endif
