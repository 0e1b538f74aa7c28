/* Internal pieces of the modulo repetend search (the files of solver/methods/modulo). Not a public
 * header. The files form a ladder: modulo_plan.c (memory plan, verification) is below all;
 * modulo_greedy.c, modulo_bound.c, modulo_z3.c, modulo_repetend.c and modulo_tighten.c each serve
 * modulo.c, the search, at the top; none calls upward.
 *
 * A modulo timetable gives each block b one start t[b] for micro-batch 0; micro-batch j starts
 * at t[b] + j*P. Everything below works on that one vector t and the period P. */
#ifndef TS_MODULO_INTERNAL_H
#define TS_MODULO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include "modulo_plan.h"
#include "ts_complete.h"
#include "ts_placement.h"
#include "ts_search_ctx.h"
#include "ts_schedule.h"

/* Greedy modulo scheduling (in the order given): each block at the earliest start that its
 * dependencies allow and whose arc is free on all its devices. Returns 1 when the result passes
 * ts_modulo_verify (t filled), 0 otherwise; hint_r (may be NULL) receives the residue each
 * placed block got (-1 for blocks it could not place). budget (may be NULL) is read as it goes:
 * past its deadline the construction gives up and returns 0. */
int ts_modulo_greedy(const ts_placement *p, const ts_mplan *mp, long P, const int *order,
                     const long *cap, long *t, long *hint_r, const ts_budget *budget);

/* Like ts_modulo_greedy, but first gives the blocks on several devices consecutive residues
 * and places each single-device block only where the rest of its device still packs. */
int ts_modulo_greedy_packed(const ts_placement *p, const ts_mplan *mp, long P, const int *order,
                            const long *cap, long *t, long *hint_r, const ts_budget *budget);

/* Like ts_modulo_greedy_packed, but the blocks on several devices may form two clusters of
 * consecutive residues: every split of them (chain order within each) and every opening of
 * the second cluster, then, for the few reservations nearest to fitting memory, the allocating
 * single-device blocks delayed by a free start or two (each one, then each pair). A device then
 * has two free arcs a period, which a path work -> shard -> work needs when two micro-batches
 * share a period: on nnshape at 8 devices and memory 10, the 2-fold fits 17 steps (one cluster:
 * 18). Only up to TS_CLUSTER_MAX_MULTI such blocks, periods up to TS_CLUSTER_MAX_PERIOD, and
 * at most TS_CLUSTER_MAX_TRIES constructions: the splits most even and the openings nearest
 * half a period first. Returns 1 when one verifies (t filled). */
int ts_modulo_greedy_clustered(const ts_placement *p, const ts_mplan *mp, long P,
                               const int *order, const long *cap, long *t, long *hint_r,
                               const ts_budget *budget);

/* The timetable that needs no search: the blocks one after the other in chain order, each no
 * earlier than its inputs, so it is feasible at any period that holds the whole micro-batch
 * (memory permitting). O(blocks + edges): the answer when the time runs out before a
 * construction at a smaller period finished. Returns 1 when it verifies at P (t filled). */
int ts_modulo_sequential(const ts_placement *p, const ts_mplan *mp, long P, const int *order,
                         const long *cap, long *t);

/* 1 when period P is proven infeasible for the capacities cap (per device) by the
 * dependency-path memory bound (modulo_bound.c): some device would hold more than its capacity
 * for every placement of the blocks on several devices. 0 when it cannot tell (including plans
 * that are not exact). */
int ts_modulo_memory_infeasible(const ts_placement *p, const ts_mplan *mp, long P,
                                const long *cap, const ts_budget *budget);

/* The Z3 model of one period. */
typedef struct ts_mz ts_mz;

/* anchor: a block whose start is fixed at 0 (breaks the translation and rotation symmetry). */
/* cap: per-device capacities, NULL: unconstrained */
ts_mz *ts_mz_new(const ts_placement *p, const ts_mplan *mp, long P, const long *cap, int anchor,
                 ts_err *e);
void ts_mz_free(ts_mz *z);

typedef enum { TS_MZ_UNSAT = 0, TS_MZ_SAT = 1, TS_MZ_UNKNOWN = -1 } ts_mz_result;

/* Solves within `timeout` seconds of effort (> 0), spent on meter (may be NULL). hint_r (may be NULL, -1 entries ignored) gives residues
 * to try first: they are assumed, and the ones in an unsatisfiable core are dropped until the
 * problem is solved without them. max_latency >= 0 bounds max(t + span) - min(t). On SAT, t is
 * filled. why receives the solver's reason on UNKNOWN. */
ts_mz_result ts_mz_solve(ts_mz *z, ts_meter *meter, double timeout, const long *hint_r,
                         long max_latency, long *t, char *why, size_t whylen);

/* ---- modulo_repetend.c: a timetable into schedules */

/* Latency of one micro-batch: max(t + span) - min(t). */
long ts_modulo_latency(const ts_placement *p, const long *t);

/* The plain modulo timetable for n micro-batches (no repetend), shifted so it starts at 0. */
ts_schedule *ts_modulo_timetable(const ts_placement *p, long P, const long *t, int n);

/* The one conversion from a modulo timetable to the solver's repetend value: the window
 * [W, W + P), W = max(t div P) * P + delta (t shifted to start at 0, 0 <= delta < P; other
 * delta: 0), holds micro-batch mids[b] = max(t div P) - t[b] div P (+1 when t[b] mod P < delta)
 * of block b, which starts start[b] in [0, P) steps into it. Fills r (its arrays allocated for
 * nblocks; r->start may be NULL) and *wstart (may be NULL); returns k = max(mids) + 1. */
int ts_modulo_repetend(const ts_placement *p, long P, const long *t, long delta, ts_rep *r,
                       long *wstart);

/* The schedule of t with its repetend window [W, W + P), W = max(t div P) * P + delta (t shifted
 * to start at 0, 0 <= delta < P): block b's instance in the window is micro-batch
 * mids[b] = max(t div P) - t[b] div P (+1 when t[b] mod P < delta), and the schedule holds
 * k = max(mids) + 1 micro-batches. Unrolling it to n >= k gives ts_modulo_timetable(n). */
ts_schedule *ts_modulo_repetend_schedule(const ts_placement *p, long P, const long *t, long delta);

/* Moves the warm-up of a schedule from ts_modulo_repetend_schedule as late, and its cool-down
 * as early, as dependencies and each device's order allow, keeping the window (so the repetend
 * stays valid) and every device's order (so the memory peaks stay). Normalises to step 0. The
 * caller validates the result. */
int ts_modulo_tighten(ts_schedule *s, long P, ts_err *e);

#endif
