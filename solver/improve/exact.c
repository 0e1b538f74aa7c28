/* The exact search at N (the large-neighbourhood search on windows of an incumbent, the drain
 * among them, is lns.c).
 *
 * The exact search: every instance of N micro-batches in one Z3 model (as `full` builds it),
 * searched below an incumbent's makespan with a deterministic effort, so that `optimal` can come
 * from a proof and not only from meeting the lower bound.
 *
 * The model keeps each block's instances in micro-batch order. That loses no schedule: sorting
 * the starts of every block's instances (each block on its own) keeps every dependency (if
 * x_m >= y_m + lag for every m, the k-th smallest x is at least the k-th smallest y plus lag; with
 * a distance d the same count shows x_(k) >= y_(k - d) + lag), and it leaves each device's set of
 * (start, span, memory) as it was, so exclusivity and every running memory sum stay as they were.
 * A makespan the model refuses is therefore refused for every schedule.
 *
 * The model is exact_model.c's, written for a proof (memory as pseudo-Boolean sums, the orders a
 * capacity forces where a device's memory falls into pairs); lns.c keeps ts_imodel_build's.
 *
 * Effort: each solver call is bounded by Z3's resource count (rlimit), the same on every machine;
 * a wall-clock cap stays behind it as a safety net, and when that cap ends a call the result says
 * so (it then depends on the machine). */
#include <stdlib.h>
#include <string.h>
#include "ts_exact.h"
#include "ts_exact_model.h"
#include "ts_imodel.h"
#include "ts_iset.h"
#include "ts_search_ctx.h"
#include "ts_z3.h"

/* Z3's resource count so far on z's solver (the statistic "rlimit count"), 0 when absent. */
static long ts_exact_rcount(ts_z3 *z)
{
    Z3_stats st = Z3_solver_get_statistics(z->ctx, z->solver);
    Z3_stats_inc_ref(z->ctx, st);
    long v = 0;
    for (unsigned i = 0; i < Z3_stats_size(z->ctx, st); i++)
        if (!strcmp(Z3_stats_get_key(z->ctx, st, i), "rlimit count"))
            v = Z3_stats_is_uint(z->ctx, st, i) ? (long)Z3_stats_get_uint_value(z->ctx, st, i)
                                                : (long)Z3_stats_get_double_value(z->ctx, st, i);
    Z3_stats_dec_ref(z->ctx, st);
    return v;
}

/* One check of lit within rlimit resource units and at most seconds of wall time. *by_time:
 * the wall-clock cap, not the resource count, ended an undecided call. Z3 names the resource
 * limit "canceled" in some versions, so the count decides: a call that stopped short of its
 * units was stopped by the clock. */
static Z3_lbool ts_exact_check(ts_z3 *z, Z3_ast lit, long rlimit, double seconds, bool *by_time)
{
    double ms = seconds * 1000.0;
    /* both within what an unsigned parameter holds */
    ms = ms < 1 ? 1 : ms;
    ms = ms > 4e9 ? 4e9 : ms;
    rlimit = rlimit < 1 ? 1 : rlimit;
    rlimit = rlimit > 4000000000L ? 4000000000L : rlimit;
    Z3_params prm = Z3_mk_params(z->ctx);
    Z3_params_inc_ref(z->ctx, prm);
    Z3_params_set_uint(z->ctx, prm, Z3_mk_string_symbol(z->ctx, "timeout"), (unsigned)ms);
    Z3_params_set_uint(z->ctx, prm, Z3_mk_string_symbol(z->ctx, "rlimit"), (unsigned)rlimit);
    Z3_solver_set_params(z->ctx, z->solver, prm);
    Z3_params_dec_ref(z->ctx, prm);
    long before = ts_exact_rcount(z);
    Z3_ast_vector av = Z3_solver_get_assertions(z->ctx, z->solver);
    Z3_ast_vector_inc_ref(z->ctx, av);
    Z3_lbool v = Z3_solver_check_assumptions(z->ctx, z->solver, 1, &lit);
    *by_time = false;
    if (v == Z3_L_UNDEF) {
        const char *why = Z3_solver_get_reason_unknown(z->ctx, z->solver);
        *by_time = (!why || !strstr(why, "resource")) && ts_exact_rcount(z) - before < rlimit;
    }
    /* a sat whose model breaks what was asserted proves nothing (ts_z3_model_holds): a call cut
     * by its effort, the same on every machine */
    if (v == Z3_L_TRUE) {
        Z3_model mdl = Z3_solver_get_model(z->ctx, z->solver);
        if (mdl)
            Z3_model_inc_ref(z->ctx, mdl);
        if (!mdl || !ts_z3_model_holds(z->ctx, mdl, av, 1, &lit))
            v = Z3_L_UNDEF;
        if (mdl)
            Z3_model_dec_ref(z->ctx, mdl);
    }
    Z3_ast_vector_dec_ref(z->ctx, av);
    return v;
}

/* Wall seconds one call may take: what is left of the meter's wall-clock cap (the safety net),
 * never the budget's effort read as seconds. Z3's units per second fall with the machine's load,
 * so a call timed by the effort left would end at a different place on a busy machine; its
 * effort is the rlimit alone. A large number without a cap. */
static double ts_exact_wall_left(const ts_budget *b)
{
    if (!b->m || b->m->wall <= 0)
        return 1e6;
    double left = b->m->wall - ts_clock_now();
    return left > 0 ? left : 0;
}

/* The bounded search on a built model: first whether anything beats the incumbent (hi - 1; a
 * refusal there is the proof), then the lower bound, then bisection. */
static int ts_exact_run(ts_imodel *m, const ts_exact_opts *o, long *start, ts_exact_res *r,
                        ts_err *e)
{
    ts_z3 *z = &m->z;
    long lo = o->lo, best = o->hi, base = ts_exact_rcount(z);
    bool first = true, cut = false;
    while (lo < best) {
        long spent = ts_exact_rcount(z) - base;
        if (spent >= o->effort || ts_budget_over(o->budget)) {
            cut = true;
            r->timed_out = r->timed_out || (o->budget->m && o->budget->m->wall_hit);
            break;
        }
        long v = first ? best - 1 : lo + (best - 1 - lo) / 2;
        first = false;
        Z3_ast lit = ts_z3_bound_lit(z, &m->hb, v);
        if (!lit)
            return ts_fail(e, TS_ESYS, "solver: out of memory");
        bool by_time;
        Z3_lbool res =
            ts_exact_check(z, lit, o->effort - spent, ts_exact_wall_left(o->budget), &by_time);
        if (res == Z3_L_UNDEF) {
            cut = true;
            /* the cap ended it: the record says timed_out (the answer depends on the machine) */
            r->timed_out = r->timed_out || by_time;
            if (by_time && o->budget->m)
                o->budget->m->wall_hit = true;
            break;
        }
        if (res == Z3_L_FALSE) {
            lo = v + 1;
            continue;
        }
        Z3_model mdl = ts_z3_model(z);
        long end = 0;
        for (int x = 0; x < m->s->n; x++) {
            start[x] = ts_z3_value(z, mdl, m->t[x]);
            long t = start[x] + m->s->p->blocks[m->s->inst[x].block].span;
            end = t > end ? t : end;
        }
        ts_z3_model_free(z, mdl);
        best = end;
        r->improved = true;
    }
    r->best = best;
    r->proven = !cut && lo >= best;
    r->effort = ts_exact_rcount(z) - base;
    return ts_z3_error(z, "the exact search", e);
}

bool ts_exact_affordable(const ts_placement *p, int n)
{
    return n >= 1 && n <= TS_EXACT_MAX_MICROS && p->ndevs <= TS_EXACT_MAX_DEVS &&
           (long)n * p->nblocks <= TS_EXACT_MAX_INSTANCES;
}

int ts_exact_search(const ts_placement *p, const ts_exact_opts *o, ts_schedule **better,
                    ts_exact_res *r, ts_err *e)
{
    *better = NULL;
    memset(r, 0, sizeof *r);
    r->best = o->hi;
    if (!ts_exact_affordable(p, o->n) || o->hi <= o->lo)
        return TS_OK;
    int nb = p->nblocks, n = o->n * nb;
    ts_inst *inst = malloc((size_t)n * sizeof *inst);
    long *start = malloc((size_t)n * sizeof *start);
    long *level = malloc((size_t)p->ndevs * sizeof *level + 1);
    ts_iset s = {0};
    int rc = TS_OK;
    if (!inst || !start || !level) {
        rc = ts_fail(e, TS_ESYS, "solver: out of memory");
        goto out;
    }
    for (int x = 0; x < n; x++)
        inst[x] = (ts_inst){x % nb, x / nb};
    if ((rc = ts_iset_build(p, n, inst, true, &s, e)))
        goto out;
    if (ts_imodel_size(&s) > TS_EXACT_MAX_TERMS)
        goto out;
    ts_memspec ms = ts_memspec_fill(o->cap, p->ndevs, NULL, level);
    ts_imodel m;
    if ((rc = ts_exact_model_build(&m, &s, &ms, e)))
        goto out;
    r->run = true;
    rc = ts_exact_run(&m, o, start, r, e);
    ts_imodel_free(&m);
    if (rc == TS_OK && r->improved && !(*better = ts_iset_schedule(&s, o->n, o->cap, start)))
        rc = ts_fail(e, TS_ESYS, "solver: out of memory");
out:
    ts_iset_free(&s);
    free(inst);
    free(start);
    free(level);
    return rc;
}
