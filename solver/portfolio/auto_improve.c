/* auto's improvement rows, on the pool the other rows filled: the local search on the order of
 * instances (ts_improve.h), the exact search at N on small instance counts (ts_exact.h), and the
 * large-neighbourhood search on the best schedule (ts_lns.h). */
#include <math.h>
#include "ts_auto.h"
#include "ts_exact.h"
#include "ts_improve.h"
#include "ts_lns.h"

/* Keeps the pool best first (insertion sort of three), each candidate's stalled flag with it. */
static void ts_auto_pool_sort(ts_auto *a, bool *stalled)
{
    for (int i = 1; i < TS_AUTO_POOL; i++)
        for (int j = i; j > 0 && a->pool[j].at &&
                        (!a->pool[j - 1].at || a->pool[j].makespan < a->pool[j - 1].makespan);
             j--) {
            ts_auto_cand t = a->pool[j];
            a->pool[j] = a->pool[j - 1];
            a->pool[j - 1] = t;
            bool b = stalled[j];
            stalled[j] = stalled[j - 1];
            stalled[j - 1] = b;
        }
}

/* One slice of the improvement on candidate k of round `round`, for at most `moves` moves;
 * returns the effort it spent (moves times instances). */
static double ts_auto_improve_one(ts_auto *a, int k, int round, long moves, bool *stalled)
{
    ts_search_ctx *c = a->c;
    ts_auto_cand *x = &a->pool[k];
    double size = x->at->nentries > 0 ? (double)x->at->nentries : 1;
    /* the wall-clock cap stops a slice on a slow or busy machine (timed_out) */
    ts_improve_opts io = {c->meter->wall, moves, a->bound,
                          0x7E55E1ULL + (unsigned long long)(round * 7 + k) +
                              ((unsigned long long)c->o->seed << 32),
                          20000 + 4L * x->at->nentries};
    ts_improve_stats ist;
    ts_schedule *r = NULL;
    ts_err e = {0};
    int irc = ts_improve(x->at, &io, &r, &ist, &e);
    c->st->improve_moves += ist.moves;
    if (irc == TS_OK && ist.moves < moves && !ist.stalled && ist.after > a->bound) {
        a->improve_cut = true;
        c->meter->wall_hit = true;
    }
    if (irc != TS_OK || ist.after >= x->makespan) {
        ts_schedule_free(r);
        stalled[k] = true;
    } else {
        ts_schedule_free(x->at);
        x->at = r;
        x->makespan = ist.after;
        x->improved = true;
        stalled[k] = ist.stalled;
    }
    return (double)ist.moves * size;
}

/* The improvement row: rounds over the pool, each candidate improved for a slice of the effort
 * left (moves, TS_AUTO_IMPROVE_EFFORT times its share of the limit), until the effort is spent,
 * the bound is met, or no candidate improves any more. The same share of the time left caps
 * each slice; when the cap ends one before its effort, the result depends on the machine, and
 * timed_out says so. */
void ts_auto_improve(ts_auto *a, const ts_auto_row *r)
{
    ts_search_ctx *c = a->c;
    bool stalled[TS_AUTO_POOL] = {false};
    double effort = r->share * c->o->time_limit * TS_AUTO_IMPROVE_EFFORT;
    c->st->improve_moves = 0;
    for (int round = 0; !ts_auto_done(a) && effort >= 1; round++) {
        int live = 0;
        for (int k = 0; k < TS_AUTO_POOL; k++)
            live += a->pool[k].at && !stalled[k];
        if (live == 0)
            return;
        for (int k = 0; k < TS_AUTO_POOL && !ts_auto_done(a); k++) {
            ts_auto_cand *x = &a->pool[k];
            if (!x->at || stalled[k])
                continue;
            ts_ctx_progress(c, TS_PHASE_IMPROVE, round, 0, -1, true);
            double size = x->at->nentries > 0 ? (double)x->at->nentries : 1;
            double share = round == 0 && k == 0 ? 0.5 : 1 / (2.0 * live);
            long moves = (long)fmin(fmax(effort * share / size, 64), 1e12);
            effort -= ts_auto_improve_one(a, k, round, moves, stalled);
        }
        ts_auto_pool_sort(a, stalled);
    }
}

const char *ts_auto_exact_applies(ts_auto *a, const ts_auto_row *r, char *buf, size_t len)
{
    (void)r;
    (void)buf;
    (void)len;
    const ts_auto_cand *x = &a->pool[0];
    if (!x->at)
        return "no schedule to search below";
    if (x->makespan <= a->bound)
        return "the best schedule meets the lower bound";
    if (!ts_exact_affordable(a->c->p, a->n))
        return "too many instances, micro-batches or devices for the exact model";
    if (ts_ctx_over(a->c))
        return "the time limit is spent";
    return NULL;
}

/* The exact search at N on small instance counts (exact.c), below the best so far, for an
 * effort in Z3 resource units that its share of the time limit sets: a shorter schedule joins
 * the pool, and a refusal of every shorter makespan proves the best optimal. It runs under
 * auto's budget less its deadline: its effort is its own (Z3 units, ts_exact_opts), and the
 * exact search reads what is left of a deadline as a wall-clock timeout of each Z3 call, which a
 * loaded machine reaches before the units run out (the same request then proved optimal quiet
 * and not loaded). Without the deadline, only the meter's wall-clock cap, between calls, stops
 * it early (timed_out). */
void ts_auto_exact(ts_auto *a, const ts_auto_row *r)
{
    ts_search_ctx *c = a->c;
    ts_auto_cand *x = &a->pool[0];
    ts_budget eb = c->budget;
    eb.deadline = 0;
    ts_exact_opts eo = {a->n,
                        a->cap,
                        a->bound,
                        x->makespan,
                        (long)(r->share * (double)TS_EXACT_EFFORT_PER_SECOND * c->o->time_limit),
                        &eb};
    ts_exact_res res;
    ts_schedule *s = NULL, *at;
    ts_err e = {0};
    if (ts_exact_search(c->p, &eo, &s, &res, &e) == TS_OK && res.run) {
        c->st->exact = res.proven ? "proven" : res.timed_out ? "timed out" : "cut";
        c->st->exact_effort = (c->st->exact_effort < 0 ? 0 : c->st->exact_effort) + res.effort;
        a->improve_cut = a->improve_cut || res.timed_out;
        long mk = s ? ts_auto_measure(a, s, &at) : -1;
        if (mk >= 0)
            ts_auto_offer(a, at, NULL, mk, "exact", NULL);
        a->exact_proven = res.proven && a->pool[0].makespan <= res.best;
    }
    ts_schedule_free(s);
}

const char *ts_auto_lns_applies(ts_auto *a, const ts_auto_row *r, char *buf, size_t len)
{
    (void)buf;
    (void)len;
    if (!a->pool[0].at)
        return "no schedule to improve";
    if (ts_auto_close(a))
        return "the best schedule is within the gap to the lower bound";
    if (ts_ctx_over(a->c))
        return "the time limit is spent";
    if (a->exact_proven)
        return "the exact search proved the best schedule minimal";
    /* (a budget of 0 seconds would have no deadline) */
    if (fmin(r->share * a->c->o->time_limit, ts_budget_left(&a->c->budget)) <= 0)
        return "no effort left";
    return NULL;
}

/* The large-neighbourhood search on the best schedule (ts_lns.h): windows of its instances (the
 * fill, the drain, then where idle time concentrates) freed and solved exactly with the rest
 * kept in its device orders, each kept when the makespan falls, on the meter (the same on every
 * machine), for its share of the limit (never more than is left). It runs after the exact
 * search, which needs auto's effort left to start and takes the whole instance set where it is
 * small. */
void ts_auto_lns(ts_auto *a, const ts_auto_row *r)
{
    ts_search_ctx *c = a->c;
    ts_auto_cand *x = &a->pool[0];
    double t0 = ts_ctx_elapsed(c), e0 = c->meter->spent;
    double seconds = fmin(r->share * c->o->time_limit, ts_budget_left(&c->budget));
    ts_budget b;
    ts_budget_init(&b, c->meter, seconds);
    b.cancel = c->budget.cancel;
    ts_lns_opts lo = {a->cap, a->bound, &b, TS_AUTO_LNS_WINDOW * c->o->time_limit};
    ts_lns_stats ls;
    ts_schedule *s = NULL, *at = NULL;
    ts_err e = {0};
    if (ts_lns(x->at, &lo, &s, &ls, &e) != TS_OK || !s) {
        ts_auto_log(a, "lns", -1, t0, e0);
        ts_schedule_free(s);
        return;
    }
    long mk = ts_auto_measure(a, s, &at);
    ts_schedule_free(s);
    ts_auto_log(a, "lns", mk, t0, e0);
    if (mk >= 0 && mk < x->makespan) {
        ts_schedule_free(x->at);
        x->at = at;
        x->makespan = mk;
        x->improved = true;
    } else {
        ts_schedule_free(at);
    }
}
