/* Internal to the solver library: the Z3 plumbing every model shares (z3util.c). One context and
 * one incremental solver per model, linear terms, checks whose effort comes from a budget (Z3's
 * resource limit, so that the same request stops at the same place on every machine), and
 * cached bound literals "x <= v" for a bounded minimisation by assumptions. */
#ifndef TS_Z3_H
#define TS_Z3_H

#include <stdbool.h>
#include <z3.h>
#include "ts_error.h"
#include "ts_search_ctx.h"

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
/* Whether model mdl satisfies every formula of av and the nassume assumptions, by Z3's own
 * evaluation. av is the solver's assertions taken before a check: Z3 4.8's default solver may
 * answer sat after calls cut by the resource limit with a model that breaks them (z3util.c).
 * ts_z3_check_effort applies it to every sat; a sat that fails is answered as unknown. */
bool ts_z3_model_holds(Z3_context ctx, Z3_model mdl, Z3_ast_vector av, int nassume, Z3_ast *assume);
/* Model access after Z3_L_TRUE. The model is owned by the caller: release with ts_z3_model_free. */
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

#endif
