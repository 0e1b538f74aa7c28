/* Internal to the solver library: the Z3 model of an instance set (imodel.c; the set is
 * ts_iset.h).
 *
 * Exclusivity is one order literal per pair of instances sharing a device (pairs whose order is
 * forced by dependencies get no literal), dependencies are difference constraints, and memory is
 * one linear check at the start of each positive-memory instance over the instances that start
 * before it on that device (order literals, no time-indexed sums). Minimisation is a bounded
 * search with assumption literals "X <= v" on one incremental solver. The repetend model
 * (ts_rmodel.h) uses the same encodings on a circle. */
#ifndef TS_IMODEL_H
#define TS_IMODEL_H

#include <stdbool.h>
#include "ts_iset.h"
#include "ts_search_ctx.h"
#include "ts_z3.h"

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

#endif
