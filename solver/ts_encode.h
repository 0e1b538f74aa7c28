/* Internal to the solver library: the Z3 plumbing and the constraint encodings that every search
 * method shares.
 *
 * Two problem shapes cover every method:
 *  - an *instance set* (ts_iset): explicit (block, micro-batch) instances with integer starts in
 *    [0, H) — warm-up, cool-down, the full problem, one micro-batch for the memory floor;
 *  - a *repetend* (repetend.c): one instance of every block starting inside a window [0, P)
 *    (it may run past the end: exclusivity is on a circle of length P) with micro-batch offsets
 *    (mids) — lazy and fast.
 * Both use the same encodings: exclusivity as one order literal per pair of instances sharing a
 * device (pairs whose order is forced by dependencies get no literal), dependencies as difference
 * constraints, and memory as one linear check at the start of each positive-memory instance over
 * the instances that start before it on that device (order literals, no time-indexed sums).
 * Minimisation is a bounded search with assumption literals "X <= v" on one incremental solver. */
#ifndef TS_ENCODE_H
#define TS_ENCODE_H

#include <stdbool.h>
#include <stdint.h>
#include <z3.h>
#include "ts_schedule.h"
#include "ts_search_ctx.h"
#include "ts_solver.h"

/* ---- Z3 ------------------------------------------------------------------------------------ */

typedef struct {
    Z3_context ctx;
    Z3_solver solver;
    Z3_sort int_sort;
    Z3_sort bool_sort;
    /* counter for fresh names */
    long fresh;
} ts_z3;

int ts_z3_open(ts_z3 *z, ts_err *e);
void ts_z3_close(ts_z3 *z);
/* Returns TS_ESYS with Z3's message when the context recorded an error. */
int ts_z3_error(ts_z3 *z, const char *where, ts_err *e);

Z3_ast ts_z3_int_var(ts_z3 *z, const char *prefix);
Z3_ast ts_z3_bool_var(ts_z3 *z, const char *prefix);
Z3_ast ts_z3_num(ts_z3 *z, long v);
/* n == 0: the numeral 0 */
Z3_ast ts_z3_add(ts_z3 *z, int n, Z3_ast *terms);
Z3_ast ts_z3_add2(ts_z3 *z, Z3_ast a, Z3_ast b);
/* a + c */
Z3_ast ts_z3_addc(ts_z3 *z, Z3_ast a, long c);
/* c * a */
Z3_ast ts_z3_mulc(ts_z3 *z, long c, Z3_ast a);
Z3_ast ts_z3_le(ts_z3 *z, Z3_ast a, Z3_ast b);
Z3_ast ts_z3_ge(ts_z3 *z, Z3_ast a, Z3_ast b);
/* a <= c */
Z3_ast ts_z3_lec(ts_z3 *z, Z3_ast a, long c);
/* a >= c */
Z3_ast ts_z3_gec(ts_z3 *z, Z3_ast a, long c);
/* a + c <= b: the difference constraint of dependencies and exclusivity. */
Z3_ast ts_z3_diff(ts_z3 *z, Z3_ast a, long c, Z3_ast b);
Z3_ast ts_z3_implies(ts_z3 *z, Z3_ast a, Z3_ast b);
Z3_ast ts_z3_not(ts_z3 *z, Z3_ast a);
Z3_ast ts_z3_or(ts_z3 *z, int n, Z3_ast *args);
Z3_ast ts_z3_and(ts_z3 *z, int n, Z3_ast *args);
void ts_z3_assert(ts_z3 *z, Z3_ast a);

/* Checks under assumptions with the effort ts_budget_call(b, cap) allows, as Z3's resource
 * limit, and the wall-clock cap of b's meter as the timeout; the units Z3 spent go on b's meter.
 * Nothing left: a token effort, i.e. give up. */
Z3_lbool ts_z3_check(ts_z3 *z, int nassume, Z3_ast *assume, const ts_budget *b, double cap);
/* The same on any Z3 solver: `seconds` of effort, spent on m (NULL: not counted, no cap). */
Z3_lbool ts_z3_check_effort(Z3_context ctx, Z3_solver solver, int nassume, Z3_ast *assume,
                            ts_meter *m, double seconds);
/* The resource units the solver's context has spent (Z3's "rlimit count"). */
double ts_z3_rlimit_count(Z3_context ctx, Z3_solver solver);
/* Model access after Z3_L_TRUE. The model is owned by the caller: release with ts_z3_model_free. */
/* Whether model mdl satisfies every formula of av and the nassume assumptions, by Z3's own
 * evaluation. av is the solver's assertions taken before a check: Z3 4.8's default solver may
 * answer sat after calls cut by the resource limit with a model that breaks them (z3util.c).
 * ts_z3_check_effort applies it to every sat; a sat that fails is answered as unknown. */
bool ts_z3_model_holds(Z3_context ctx, Z3_model mdl, Z3_ast_vector av, int nassume, Z3_ast *assume);
Z3_model ts_z3_model(ts_z3 *z);
void ts_z3_model_free(ts_z3 *z, Z3_model m);
long ts_z3_value(ts_z3 *z, Z3_model m, Z3_ast t);
bool ts_z3_bool_value(ts_z3 *z, Z3_model m, Z3_ast t);

/* A cache of literals lit(v) -> (x <= v) for bounded minimisation of one integer term x. */
typedef struct {
    Z3_ast x;
    int n, cap;
    long *vals;
    Z3_ast *lits;
} ts_z3_bound;

void ts_z3_bound_init(ts_z3_bound *b, Z3_ast x);
void ts_z3_bound_free(ts_z3_bound *b);
/* The literal for x <= v (created and its implication asserted on first use); NULL on allocation
 * failure. */
Z3_ast ts_z3_bound_lit(ts_z3 *z, ts_z3_bound *b, long v);

/* ---- instance sets ------------------------------------------------------------------------- */

typedef struct {
    int block;
    int micro;
} ts_inst;

/* start[y] >= start[x] + lag */
typedef struct {
    int x, y;
    long lag;
} ts_arc;

typedef struct {
    const ts_placement *p;
    int n;
    ts_inst *inst;
    int narcs;
    ts_arc *arcs;
    /* instances on device d: dlist[doff[d] .. doff[d+1]) */
    int *doff, *dlist;
    /* n x n bits: x must end before y starts (forced by arcs); NULL above TS_IMODEL_MAX_TERMS
     * pairs, where no model of the set is built (ts_iset_prec then says false) */
    uint64_t *prec;
    /* pairs of instances sharing a device */
    long pairs;
    /* 64-bit words per row of prec */
    int words;
    /* earliest start (from arcs, starting at 0) */
    long *est;
    /* longest time from start of x to the end of everything after it */
    long *tail;
} ts_iset;

/* Builds the arcs (placement edges between instances of the set, with delays and distances;
 * with monotone, also (b, m) before (b, m') for m < m'), the forced orders and the bounds. */
int ts_iset_build(const ts_placement *p, int n, const ts_inst *inst, bool monotone, ts_iset *s,
                  ts_err *e);
void ts_iset_free(ts_iset *s);
bool ts_iset_prec(const ts_iset *s, int x, int y);
/* Lower bound on the steps of any schedule of the set (critical path, device loads). */
long ts_iset_lower_bound(const ts_iset *s);
/* The schedule of n micro-batches with every instance of the set at start[x], sorted and
 * normalised to step 0, held to cap (NULL: no memory). NULL on allocation failure. */
ts_schedule *ts_iset_schedule(const ts_iset *s, int n, const long *cap, const long *start);

/* Memory settings of a problem: one capacity and a starting level per device. Per-device
 * capacities come in as levels: a device with less than the largest capacity starts that much
 * fuller (ts_memspec_fill). */
typedef struct {
    bool has_memory;
    long cap;
    /* ndevs entries; NULL = all 0 */
    const long *level;
} ts_memspec;

/* The memspec of capacities cap (ndevs entries; NULL: unconstrained) from starting levels level
 * (NULL: 0): cap the largest capacity, and each device's level raised by what it lacks of it,
 * written to buf (ndevs entries). */
ts_memspec ts_memspec_fill(const long *cap, int ndevs, const long *level, long *buf);

/* Serial list schedule: repeatedly starts the ready instance that can start earliest and fits
 * the memory. prio 0 prefers early starts, prio 1 prefers freeing memory, prio 2 early starts
 * then the longest remaining path. Returns 0 and fills start (n entries) and *steps, 1 when the
 * memory blocks every ready instance, -1 on allocation failure. */
int ts_iset_greedy(const ts_iset *s, const ts_memspec *m, int prio, long *start, long *steps);
/* The best of the greedy priorities (fewest steps); same return values. */
int ts_iset_greedy_best(const ts_iset *s, const ts_memspec *m, long *start, long *steps);

/* Z3 model of an instance set: start t[x] >= est[x], t[x] + span <= H, exclusivity,
 * dependencies, memory (level + running sum <= C at each positive start). H and C are integer
 * terms to bound by assumptions; C is fixed to the capacity when fix_cap. */
typedef struct {
    ts_z3 z;
    const ts_iset *s;
    Z3_ast *t;
    Z3_ast H, C;
    ts_z3_bound hb, cb;
} ts_imodel;

int ts_imodel_build(ts_imodel *m, const ts_iset *s, const ts_memspec *ms, bool fix_cap, ts_err *e);
/* The part of the model every encoding of an instance set shares (ts_imodel_build,
 * exact_model.c's ts_exact_model_build): m->t[x] made, x at or after est[x], its tail before
 * m->H, and every arc's lag kept. m->z, m->s, m->t (n entries) and m->H set before. */
void ts_imodel_starts(ts_imodel *m);
/* Rough size of that model in terms (order literals, memory and load sums); see
 * TS_IMODEL_MAX_TERMS. */
long ts_imodel_size(const ts_iset *s);
void ts_imodel_free(ts_imodel *m);

/* Outcome of a bounded minimisation. */
typedef struct {
    /* best value found (the known upper bound when nothing better) */
    long best;
    /* the model produced a solution (start filled) */
    bool found;
    /* best proven minimal */
    bool optimal;
    /* a solver call hit its time limit */
    bool timed_out;
} ts_minres;

/* Minimises H (what == 0) or C (what == 1) between lo and hi (hi: a known feasible value, or
 * -1 when unknown). Stops early once best <= lo + slack. Fills start (n entries) from the best
 * model when one is found. Each call's timeout comes from the budget, capped at call_cap. */
int ts_imodel_minimise(ts_imodel *m, int what, long lo, long hi, long slack, const ts_budget *b,
                       double call_cap, long *start, ts_minres *r, ts_err *e);

/* ---- repetends ----------------------------------------------------------------------------- */

/* One incremental Z3 model of the repetend problem for every candidate of a placement: starts
 * s[b] in the window [0, P), circular exclusivity, no fully idle step, and, behind assumption
 * literals, each candidate's dependencies (s_dst + (m_src + dist - m_dst) * P >= s_src + span +
 * delay) and memory (the level its offsets leave, plus the running sum, within the capacity). */
typedef struct ts_rmodel ts_rmodel;

typedef struct {
    /* start and period filled */
    bool found;
    long period;
    /* period minimal for the candidate, or no period <= hi exists */
    bool proven;
    bool timed_out;
} ts_rres;

/* cap: ndevs capacities, NULL: unconstrained */
int ts_rmodel_new(const ts_placement *p, const long *cap, ts_rmodel **out, ts_err *e);
/* May a search with this time limit (<= 0: none) build p's repetend model at all? Its size is
 * quadratic in the blocks (TS_RMODEL_MAX_PAIRS, and TS_RMODEL_MAX_PAIRS_TIMED with a limit). */
static inline bool ts_rmodel_affordable(const ts_placement *p, double time_limit)
{
    long pairs = (long)p->nblocks * p->nblocks;
    return pairs <= (time_limit > 0 ? TS_RMODEL_MAX_PAIRS_TIMED : TS_RMODEL_MAX_PAIRS);
}
void ts_rmodel_free(ts_rmodel *m);
/* Smallest period in [lo, hi] (hi < 0: no upper bound) of the repetend with offsets mids. */
int ts_rmodel_solve(ts_rmodel *m, const int *mids, long lo, long hi, const ts_budget *b,
                    double call_cap, long *start, ts_rres *r, ts_err *e);
/* Z3 checks so far */
long ts_rmodel_calls(const ts_rmodel *m);

/* Builds a repetend with period P for the offsets without a solver (modulo list scheduling in
 * chain order). true: start filled with a valid window (dependencies, circular exclusivity,
 * memory, no idle step); false proves nothing (also when the budget, NULL: none, ends first). */
bool ts_repetend_construct(const ts_placement *p, const int *chain, const int *mids, long P,
                           const long *cap, const ts_budget *budget, long *start);

/* The fast method's constructed repetend (fast.c): offsets, starts and period. *fits tells
 * whether its window stays within the memory (its warm-up and cool-down are not checked).
 * TS_ENOANSWER when the budget b (NULL: none; a search passes its own) ends first. */
int ts_fast_construct(const ts_placement *p, const int *chain, const long *cap, const ts_budget *b,
                      int *mids, long *start, long *period, bool *fits, ts_err *e);

/* ---- memory arithmetic (memory.c) and the fallback schedule (fallback.c) -------------------- */

/* Per-device memory level left by running instances (b, m) for m < mids[b]: sum of memory *
 * mids[b] over the blocks on each device. */
void ts_mids_levels(const ts_placement *p, const int *mids, long *level);
/* Does a repetend window (start per block, offsets mids) stay within cap on every device, started
 * from the level its offsets leave (written to level)? Checked at every positive start over the
 * blocks that started no later; with strict_level, a level above cap fails by itself too. */
bool ts_window_memory_fits(const ts_placement *p, const int *mids, const long *start,
                           const long *cap, long *level, bool strict_level);
/* Per-device memory level the cool-down of a repetend starts from: ts_mids_levels plus one
 * micro-batch's net memory (the window's micro-batch is done too). */
void ts_cooldown_level(const ts_placement *p, const int *mids, long *level);
/* The instances of the warm-up (phase 0: m < mids[b]) or the cool-down (phase 1: mids[b] < m
 * < k) of a repetend. Returns the count; inst has room for nblocks * k. */
int ts_phase_instances(const ts_placement *p, const int *mids, int k, int phase, ts_inst *inst);
/* Per-device net memory of one micro-batch. */
void ts_net_memory(const ts_placement *p, long *net);
/* Smallest capacity with which one micro-batch at a time fits (min over orders of the peak).
 * With capacities cap (per device) it is the largest capacity needed with every other device
 * kept as far below it as cap says; it stops at a greedy answer within cap (then *exact is
 * false: cap is enough, the floor may be lower); otherwise it asks Z3 for the exact floor
 * (*exact false on a timeout). cap NULL: the exact floor of uniform memory. */
int ts_memory_floor(const ts_placement *p, const long *cap, const ts_budget *b, long *floor_cap,
                    bool *exact, ts_err *e);
/* ts_memory_floor that also leaves the order reaching the floor: the starts of one micro-batch
 * (nblocks entries) in start. */
int ts_memory_floor_order(const ts_placement *p, const long *cap, const ts_budget *b,
                          long *floor_cap, bool *exact, long *start, ts_err *e);
/* Full's greedy start (full.c): every instance of N micro-batches list-scheduled within each
 * device's capacity (cap, NULL: none), as `tessel compare`'s "full (greedy)" row shows it; no
 * solver. */
int ts_full_greedy(const ts_placement *p, int N, const long *cap, ts_schedule **out, ts_err *e);

/* fallback.c: a timetable that always exists when memory >= the floor: one micro-batch at a time
 * in a memory-minimal order, as a k = 1 repetend. */
int ts_sequential_schedule(const ts_placement *p, const long *cap, ts_schedule **out, ts_err *e);
/* ts_sequential_schedule as a method's last resort, recorded in st as a k = 1 repetend with its
 * bubbles over maxload and not proven optimal (a caller that knows better says so after). */
int ts_sequential_fallback(const ts_placement *p, const long *cap, long maxload, ts_schedule **out,
                           ts_search_stats *st, ts_err *e);
/* The refusal when the memory floor proves that nothing fits cap (floor_cap > the largest
 * capacity and exact): TS_ENOANSWER with the floor in st->min_memory. TS_OK when there is no
 * such proof. */
int ts_floor_refusal(const ts_placement *p, const long *cap, long floor_cap, bool exact,
                     ts_search_stats *st, ts_err *e);

#endif
