/* Z3 plumbing: one context and one incremental solver per problem, numerals, linear terms,
 * checks with a timeout on every call, model values, and cached bound literals. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ts_search_ctx.h"
#include "ts_z3.h"

int ts_z3_open(ts_z3 *z, ts_err *e)
{
    memset(z, 0, sizeof *z);
    Z3_config cfg = Z3_mk_config();
    if (!cfg)
        return ts_fail(e, TS_ESYS, "solver: cannot create a Z3 configuration");
    Z3_set_param_value(cfg, "model", "true");
    z->ctx = Z3_mk_context(cfg);
    Z3_del_config(cfg);
    if (!z->ctx)
        return ts_fail(e, TS_ESYS, "solver: cannot create a Z3 context");
    /* No handler: errors are recorded and read back with Z3_get_error_code, never exit(). */
    Z3_set_error_handler(z->ctx, NULL);
    /* The plain SMT kernel: incremental, honours assumptions and the timeout parameter. */
    z->solver = Z3_mk_simple_solver(z->ctx);
    Z3_solver_inc_ref(z->ctx, z->solver);
    z->int_sort = Z3_mk_int_sort(z->ctx);
    z->bool_sort = Z3_mk_bool_sort(z->ctx);
    return ts_z3_error(z, "opening Z3", e);
}

void ts_z3_close(ts_z3 *z)
{
    if (!z->ctx)
        return;
    if (z->solver)
        Z3_solver_dec_ref(z->ctx, z->solver);
    Z3_del_context(z->ctx);
    memset(z, 0, sizeof *z);
}

int ts_z3_error(ts_z3 *z, const char *where, ts_err *e)
{
    Z3_error_code c = Z3_get_error_code(z->ctx);
    if (c == Z3_OK)
        return TS_OK;
    return ts_fail(e, TS_ESYS, "solver: Z3 error while %s: %s", where, Z3_get_error_msg(z->ctx, c));
}

Z3_ast ts_z3_int_var(ts_z3 *z, const char *prefix)
{
    char name[64];
    snprintf(name, sizeof name, "%s!%ld", prefix, z->fresh++);
    return Z3_mk_const(z->ctx, Z3_mk_string_symbol(z->ctx, name), z->int_sort);
}

Z3_ast ts_z3_bool_var(ts_z3 *z, const char *prefix)
{
    char name[64];
    snprintf(name, sizeof name, "%s!%ld", prefix, z->fresh++);
    return Z3_mk_const(z->ctx, Z3_mk_string_symbol(z->ctx, name), z->bool_sort);
}

Z3_ast ts_z3_num(ts_z3 *z, long v)
{
    return Z3_mk_int64(z->ctx, (int64_t)v, z->int_sort);
}

Z3_ast ts_z3_add(ts_z3 *z, int n, Z3_ast *terms)
{
    if (n == 0)
        return ts_z3_num(z, 0);
    if (n == 1)
        return terms[0];
    return Z3_mk_add(z->ctx, (unsigned)n, terms);
}

Z3_ast ts_z3_add2(ts_z3 *z, Z3_ast a, Z3_ast b)
{
    Z3_ast t[2] = {a, b};
    return Z3_mk_add(z->ctx, 2, t);
}

Z3_ast ts_z3_addc(ts_z3 *z, Z3_ast a, long c)
{
    if (c == 0)
        return a;
    return ts_z3_add2(z, a, ts_z3_num(z, c));
}

Z3_ast ts_z3_mulc(ts_z3 *z, long c, Z3_ast a)
{
    if (c == 1)
        return a;
    Z3_ast t[2] = {ts_z3_num(z, c), a};
    return Z3_mk_mul(z->ctx, 2, t);
}

Z3_ast ts_z3_le(ts_z3 *z, Z3_ast a, Z3_ast b)
{
    return Z3_mk_le(z->ctx, a, b);
}

Z3_ast ts_z3_ge(ts_z3 *z, Z3_ast a, Z3_ast b)
{
    return Z3_mk_ge(z->ctx, a, b);
}

Z3_ast ts_z3_lec(ts_z3 *z, Z3_ast a, long c)
{
    return Z3_mk_le(z->ctx, a, ts_z3_num(z, c));
}

Z3_ast ts_z3_gec(ts_z3 *z, Z3_ast a, long c)
{
    return Z3_mk_ge(z->ctx, a, ts_z3_num(z, c));
}

Z3_ast ts_z3_diff(ts_z3 *z, Z3_ast a, long c, Z3_ast b)
{
    /* b - a >= c keeps it a difference constraint for the arithmetic solver. */
    Z3_ast t[2] = {b, a};
    return Z3_mk_ge(z->ctx, Z3_mk_sub(z->ctx, 2, t), ts_z3_num(z, c));
}

Z3_ast ts_z3_implies(ts_z3 *z, Z3_ast a, Z3_ast b)
{
    return Z3_mk_implies(z->ctx, a, b);
}

Z3_ast ts_z3_not(ts_z3 *z, Z3_ast a)
{
    return Z3_mk_not(z->ctx, a);
}

Z3_ast ts_z3_or(ts_z3 *z, int n, Z3_ast *args)
{
    if (n == 0)
        return Z3_mk_false(z->ctx);
    if (n == 1)
        return args[0];
    return Z3_mk_or(z->ctx, (unsigned)n, args);
}

Z3_ast ts_z3_and(ts_z3 *z, int n, Z3_ast *args)
{
    if (n == 0)
        return Z3_mk_true(z->ctx);
    if (n == 1)
        return args[0];
    return Z3_mk_and(z->ctx, (unsigned)n, args);
}

void ts_z3_assert(ts_z3 *z, Z3_ast a)
{
    Z3_solver_assert(z->ctx, z->solver, a);
}

double ts_z3_rlimit_count(Z3_context ctx, Z3_solver solver)
{
    Z3_stats st = Z3_solver_get_statistics(ctx, solver);
    if (!st)
        return 0;
    Z3_stats_inc_ref(ctx, st);
    double v = 0;
    unsigned n = Z3_stats_size(ctx, st);
    for (unsigned i = 0; i < n; i++)
        if (strcmp(Z3_stats_get_key(ctx, st, i), "rlimit count") == 0)
            v = Z3_stats_is_uint(ctx, st, i) ? (double)Z3_stats_get_uint_value(ctx, st, i)
                                             : Z3_stats_get_double_value(ctx, st, i);
    Z3_stats_dec_ref(ctx, st);
    return v;
}

bool ts_z3_model_holds(Z3_context ctx, Z3_model mdl, Z3_ast_vector av, int nassume, Z3_ast *assume)
{
    unsigned na = Z3_ast_vector_size(ctx, av);
    bool ok = true;
    for (unsigned i = 0; ok && i < na + (unsigned)nassume; i++) {
        Z3_ast a = i < na ? Z3_ast_vector_get(ctx, av, i) : assume[i - na], v = NULL;
        ok = Z3_model_eval(ctx, mdl, a, true, &v) && v && Z3_get_bool_value(ctx, v) == Z3_L_TRUE;
    }
    return ok;
}

Z3_lbool ts_z3_check_effort(Z3_context ctx, Z3_solver solver, int nassume, Z3_ast *assume,
                            ts_meter *m, double seconds)
{
    /* the effort as Z3's resource limit (relative to what the context has spent), at least a
     * little, so that a call made with nothing left still ends at once */
    double units = seconds * TS_EFFORT_PER_SECOND;
    units = units < 1000 ? 1000 : units > (double)UINT_MAX - 1 ? (double)UINT_MAX - 1 : units;
    Z3_params prm = Z3_mk_params(ctx);
    Z3_params_inc_ref(ctx, prm);
    Z3_params_set_uint(ctx, prm, Z3_mk_string_symbol(ctx, "rlimit"), (unsigned)units);
    /* the wall-clock cap as the timeout: it cuts only what the effort did not */
    if (m && m->wall > 0) {
        double ms = (m->wall - ts_clock_now()) * 1000.0;
        ms = ms < 1 ? 1 : ms > (double)UINT_MAX - 1 ? (double)UINT_MAX - 1 : ms;
        Z3_params_set_uint(ctx, prm, Z3_mk_string_symbol(ctx, "timeout"), (unsigned)ms);
    }
    Z3_solver_set_params(ctx, solver, prm);
    Z3_params_dec_ref(ctx, prm);
    double before = ts_z3_rlimit_count(ctx, solver);
    /* What was asserted, kept before the call: Z3 4.8's default solver can fall back to its
     * tactic solver after calls cut by the resource limit, and its sat then comes with a model of
     * the simplified formulas that breaks the originals (on the uneven GPT fixture at memory 4,
     * full read starts near step 0, makespan 73 against a bound of 1104; the solver's assertions
     * had gone from 11,221 to 771). A sat whose model breaks what was asserted proves nothing:
     * it is answered as unknown, the same on every machine. */
    Z3_ast_vector av = Z3_solver_get_assertions(ctx, solver);
    Z3_ast_vector_inc_ref(ctx, av);
    Z3_lbool r = nassume ? Z3_solver_check_assumptions(ctx, solver, (unsigned)nassume, assume)
                         : Z3_solver_check(ctx, solver);
    double used = ts_z3_rlimit_count(ctx, solver) - before;
    if (r == Z3_L_TRUE) {
        Z3_model mdl = Z3_solver_get_model(ctx, solver);
        if (mdl)
            Z3_model_inc_ref(ctx, mdl);
        if (!mdl || !ts_z3_model_holds(ctx, mdl, av, nassume, assume))
            r = Z3_L_UNDEF;
        if (mdl)
            Z3_model_dec_ref(ctx, mdl);
    }
    Z3_ast_vector_dec_ref(ctx, av);
    if (m) {
        ts_meter_spend(m, used);
        if (r == Z3_L_UNDEF && used < units)
            ts_meter_wall_over(m);
    }
    return r;
}

Z3_lbool ts_z3_check(ts_z3 *z, int nassume, Z3_ast *assume, const ts_budget *b, double cap)
{
    return ts_z3_check_effort(z->ctx, z->solver, nassume, assume, b->m, ts_budget_call(b, cap));
}

Z3_model ts_z3_model(ts_z3 *z)
{
    Z3_model m = Z3_solver_get_model(z->ctx, z->solver);
    if (m)
        Z3_model_inc_ref(z->ctx, m);
    return m;
}

void ts_z3_model_free(ts_z3 *z, Z3_model m)
{
    if (m)
        Z3_model_dec_ref(z->ctx, m);
}

long ts_z3_value(ts_z3 *z, Z3_model m, Z3_ast t)
{
    Z3_ast v = NULL;
    int64_t out = 0;
    if (Z3_model_eval(z->ctx, m, t, true, &v) && v)
        Z3_get_numeral_int64(z->ctx, v, &out);
    return (long)out;
}

bool ts_z3_bool_value(ts_z3 *z, Z3_model m, Z3_ast t)
{
    Z3_ast v = NULL;
    if (Z3_model_eval(z->ctx, m, t, true, &v) && v)
        return Z3_get_bool_value(z->ctx, v) == Z3_L_TRUE;
    return false;
}

void ts_z3_bound_init(ts_z3_bound *b, Z3_ast x)
{
    memset(b, 0, sizeof *b);
    b->x = x;
}

void ts_z3_bound_free(ts_z3_bound *b)
{
    free(b->vals);
    free(b->lits);
    memset(b, 0, sizeof *b);
}

Z3_ast ts_z3_bound_lit(ts_z3 *z, ts_z3_bound *b, long v)
{
    for (int i = 0; i < b->n; i++)
        if (b->vals[i] == v)
            return b->lits[i];
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 16;
        long *vals = realloc(b->vals, (size_t)cap * sizeof *vals);
        if (!vals)
            return NULL;
        b->vals = vals;
        Z3_ast *lits = realloc(b->lits, (size_t)cap * sizeof *lits);
        if (!lits)
            return NULL;
        b->lits = lits;
        b->cap = cap;
    }
    Z3_ast lit = ts_z3_bool_var(z, "le");
    ts_z3_assert(z, ts_z3_implies(z, lit, ts_z3_lec(z, b->x, v)));
    b->vals[b->n] = v;
    b->lits[b->n] = lit;
    b->n++;
    return lit;
}
