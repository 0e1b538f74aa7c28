/* auto's portfolio as rows: every baseline of the registry, the solver-free constructions, the
 * placement without its blocks on every device, compare's search rows, modulo on the 2-fold, and
 * the improvement rows, each with its applicability test, its run function and its share of the
 * effort. auto.c runs them in this order, stage by stage; each stage ends with its hook. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_auto.h"
#include "ts_baseline.h"
#include "ts_bframe.h"
#include "ts_bwave.h"
#include "ts_construct.h"
#include "ts_memlist.h"
#include "ts_rows.h"
#include "ts_shard.h"

/* ---- baselines ----------------------------------------------------------------------------- */

static const char *ts_auto_baseline_applies(ts_auto *a, const ts_auto_row *r, char *buf, size_t len)
{
    ts_err e = {0};
    if (ts_baseline_fits(ts_baseline_at(r->arg)->name, a->c->p, a->n, &e) == TS_OK)
        return NULL;
    /* the registry's message names the baseline and the placement, then the reason, then what
     * it fits: the record keeps the reason */
    const char *why = strstr(e.msg, "': ");
    why = why ? why + 3 : e.msg;
    size_t n = strcspn(why, ";");
    snprintf(buf, len, "%.*s", (int)n, *why ? why : "does not fit the placement");
    return buf;
}

/* Whether s, as built, stays within every device's capacity (each device's memory taken in its
 * start order, which the replay keeps), with its makespan in *built. */
static bool ts_auto_fits_as_built(const ts_auto *a, const ts_schedule *s, long *built)
{
    ts_metrics m;
    *built = -1;
    if (ts_schedule_metrics(s, &m))
        return false;
    bool ok = true;
    for (int d = 0; a->cap && d < a->c->p->ndevs; d++)
        ok = ok && (a->cap[d] < 0 || m.peak[d] <= a->cap[d]);
    *built = m.makespan;
    ts_metrics_free(&m);
    return ok;
}

/* A baseline's row builds it and scans it as built; one that fits waits for the stage's end to be
 * measured (ts_auto_baselines_measure). */
static void ts_auto_baseline_scan(ts_auto *a, const ts_auto_row *r)
{
    ts_schedule *s = NULL;
    ts_err e = {0};
    double t0 = ts_ctx_elapsed(a->c), e0 = a->c->meter->spent;
    if (!a->built && !(a->built = calloc((size_t)ts_baseline_count() + 1, sizeof *a->built)))
        return;
    if (ts_baseline_make(r->name, a->c->p, a->n, &s, &e) != TS_OK)
        return;
    ts_meter_spend(a->c->meter, (double)s->nentries * TS_AUTO_SCAN_EFFORT);
    long built;
    if (ts_auto_fits_as_built(a, s, &built)) {
        a->built[a->nbuilt++] = (ts_auto_built){r->arg, built, s};
    } else {
        ts_auto_log(a, r->name, -1, t0, e0);
        ts_schedule_free(s);
    }
}

static int ts_auto_built_cmp(const void *x, const void *y)
{
    const ts_auto_built *u = x, *v = y;
    if (u->built != v->built)
        return u->built < v->built ? -1 : 1;
    return (u->i > v->i) - (u->i < v->i);
}

/* The baselines that fit are measured in the order of their makespan as built, so that on a
 * huge input, where one measurement costs a good share of the limit, the likely best comes first
 * (vshape_interleaved on 64 devices at 4 chunks, N 256, limit 1 s: `interleaved` at the bound,
 * not memlist's 1.30 x it). Past a third of the limit the rest is left to the searches, once
 * something fits: with nothing yet, measuring goes on, so that a small limit on a huge input
 * still answers. */
static void ts_auto_baselines_measure(ts_auto *a)
{
    double limit = a->c->o->time_limit;
    if (a->nbuilt > 0)
        qsort(a->built, (size_t)a->nbuilt, sizeof *a->built, ts_auto_built_cmp);
    for (int j = 0; j < a->nbuilt; j++) {
        bool any = a->pool[0].at != NULL;
        if (any && (ts_auto_done(a) || ts_ctx_spent(a->c) > limit / 3))
            break;
        double t0 = ts_ctx_elapsed(a->c), e0 = a->c->meter->spent;
        ts_auto_take(a, a->built[j].s, ts_baseline_at(a->built[j].i)->name, t0, e0);
        ts_ctx_progress(a->c, TS_PHASE_BASELINES, j + 1, a->nbuilt, -1, false);
    }
    for (int j = 0; j < a->nbuilt; j++)
        ts_schedule_free(a->built[j].s);
    free(a->built);
    a->built = NULL;
    a->nbuilt = 0;
}

/* ---- constructions without a solver --------------------------------------------------------- */

typedef int (*ts_auto_construct_fn)(const ts_placement *, int, const long *, ts_schedule **,
                                    ts_err *);

/* Full's greedy start, the "full (greedy)" row of `tessel compare`: auto keeps nothing longer
 * than a row compare prints; above TS_AUTO_GREEDY_MAX_INSTANCES it is skipped (there the searches
 * and the pauses give far shorter schedules: 10784 against its 14988 on nnshape at 128 devices,
 * N 512). The memory-aware list schedule (ts_memlist.h): it reaches 1.04 x the bound on GPT-3
 * 175B's zero-bubble placement on 128 GPUs (N 1024), where the searches stay above 1.2. The
 * barrier-frame construction (ts_bframe.h): on nnshape at 32 devices and memory 34 it keeps 2
 * micro-batches per 18 steps, where the modulo constructions reach 19. The barrier-wave
 * construction (ts_bwave.h), where memory sets the pace: on nnshape at 128 devices and memory 40
 * it keeps 40 micro-batches per 676 steps, where the others reach 19 a micro-batch. It is held
 * until the searches are done and kept only if it leads: elsewhere it would crowd the pool the
 * improvement works on (nnshape on 32 devices at memory 2, N 32: 2204 with it in the pool, 2199
 * without). */
static const struct {
    ts_auto_construct_fn fn;
    long max_instances; /* 0: no limit */
    bool hold;
} ts_auto_constructions[] = {
    {ts_full_greedy, TS_AUTO_GREEDY_MAX_INSTANCES, false},
    {ts_memlist_schedule, 0, false},
    {ts_bframe_schedule, 0, false},
    {ts_bwave_schedule, 0, true},
};

static const char *ts_auto_construct_applies(ts_auto *a, const ts_auto_row *r, char *buf,
                                             size_t len)
{
    long max = ts_auto_constructions[r->arg].max_instances;
    /* with nothing in the pool yet, a construction runs whatever the budget says */
    if (ts_auto_done(a) && a->pool[0].at)
        return ts_auto_close(a) ? "the best schedule is within the gap to the lower bound"
                                : "the time limit is spent";
    if (max > 0 && (long)a->n * a->c->p->nblocks > max) {
        snprintf(buf, len, "more than %ld instances at N", max);
        return buf;
    }
    return NULL;
}

/* A schedule built without a solver, offered as the row's name; a construction with `hold`
 * waits in a->held for the searches' end unless it already meets the bound. */
static void ts_auto_construct(ts_auto *a, const ts_auto_row *r)
{
    ts_schedule *s = NULL, *at;
    ts_err e = {0};
    double t0 = ts_ctx_elapsed(a->c), e0 = a->c->meter->spent;
    if (ts_auto_constructions[r->arg].fn(a->c->p, a->n, a->cap, &s, &e) != TS_OK) {
        /* a construction that does not apply or finds nothing still says what it cost */
        ts_auto_log(a, r->name, -1, t0, e0);
        ts_schedule_free(s);
        return;
    }
    long mk = ts_auto_measure(a, s, &at);
    ts_auto_log(a, r->name, mk, t0, e0);
    if (mk >= 0 && ts_auto_constructions[r->arg].hold && mk > a->bound && !a->held.at) {
        a->held.at = at;
        a->held.makespan = mk;
        a->held.source = r->name;
    } else if (mk >= 0) {
        ts_auto_offer(a, at, NULL, mk, r->name, NULL);
    }
    ts_schedule_free(s);
}

/* The held construction joins the pool when it is shorter than every schedule so far; else the
 * pool, which the improvement works on, stays as it would be without it. */
static void ts_auto_release(ts_auto *a)
{
    ts_auto_cand *h = &a->held;
    if (h->at && (!a->pool[0].at || h->makespan < a->pool[0].makespan))
        ts_auto_offer(a, h->at, NULL, h->makespan, h->source, NULL);
    else
        ts_schedule_free(h->at);
    h->at = NULL;
}

/* ---- the placement without its blocks on every device -------------------------------------- */

static const char *ts_auto_done_why(const ts_auto *a)
{
    if (ts_auto_close(a))
        return "the best schedule is within the gap to the lower bound";
    return ts_auto_done(a) ? "the time limit is spent" : NULL;
}

static const char *ts_auto_unsharded_applies(ts_auto *a, const ts_auto_row *r, char *buf,
                                             size_t len)
{
    (void)r;
    (void)buf;
    (void)len;
    return ts_auto_done_why(a);
}

/* r, a schedule of the reduced placement at N, with the removed blocks put back as pauses one by
 * one and then in batches (ts_unshard_insert): each is offered. */
static void ts_auto_pauses(ts_auto *a, const ts_unshard *u, const ts_schedule *r)
{
    for (long q = 1; q <= 512 && !ts_auto_done(a); q *= 4) {
        ts_schedule *s = NULL;
        ts_err e = {0};
        double t0 = ts_ctx_elapsed(a->c), e0 = a->c->meter->spent;
        if (ts_unshard_insert(u, a->c->p, r, q, &s, &e) == TS_OK)
            ts_auto_take(a, s, "unsharded", t0, e0);
        ts_schedule_free(s);
    }
}

/* Auto's own answer on the reduced placement, for the row's share of the limit (its rows get as
 * much each), with the removed blocks put back as pauses. */
static void ts_auto_unsharded_inner(ts_auto *a, const ts_auto_row *row, const ts_unshard *u)
{
    ts_search_ctx *c = a->c;
    ts_search_opts so = *c->o;
    so.progress = NULL;
    so.micro_batches = a->n;
    so.time_limit = fmin(row->share * c->o->time_limit, ts_budget_left(&c->budget));
    so.meter = c->meter;
    /* its time limit is its effort */
    so.effort = 0;
    ts_schedule *s = NULL, *r = NULL;
    ts_search_stats st;
    ts_err e = {0};
    double rows_spent = 0;
    int rc = !ts_auto_done(a) && so.time_limit >= 0.05
                 ? a->rerun(u->reduced, &so, &s, &st, &rows_spent, &e)
                 : TS_ENOANSWER;
    /* its rows' effort is theirs, as auto's own rows' is (ts_auto_search) */
    if (c->budget.deadline > 0)
        c->budget.deadline += rows_spent / TS_EFFORT_PER_SECOND;
    a->rows_spent += rows_spent;
    if (rc == TS_OK && ts_schedule_at(s, a->n, true, &r, &e) == TS_OK)
        ts_auto_pauses(a, u, r);
    ts_schedule_free(s);
    ts_schedule_free(r);
}

/* The placement without its blocks on every device, which come back as pauses of the whole
 * machine (ts_shard.h): a pipeline's overlap survives them. Its schedules are every fitting
 * baseline and, for the row's share of the time, auto's own answer on it (which has no such
 * blocks, so this goes one level deep). */
static void ts_auto_unsharded(ts_auto *a, const ts_auto_row *row)
{
    ts_unshard u;
    ts_err e = {0};
    if (ts_unshard_make(a->c->p, &u, &e) != TS_OK || !u.reduced)
        return;
    for (int i = 0; i < ts_baseline_count() && !ts_auto_done(a); i++) {
        const char *kind = ts_baseline_at(i)->name;
        ts_schedule *r = NULL;
        if (ts_baseline_fits(kind, u.reduced, a->n, &e) == TS_OK &&
            ts_baseline_make(kind, u.reduced, a->n, &r, &e) == TS_OK)
            ts_auto_pauses(a, &u, r);
        ts_schedule_free(r);
    }
    ts_auto_unsharded_inner(a, row, &u);
    ts_unshard_free(&u);
}

/* ---- the default effort's answer ----------------------------------------------------------- */

/* The effort a request gives auto, in seconds of effort (dispatch turned --effort into them). */
static double ts_auto_req_limit(const ts_auto *a)
{
    return a->req->time_limit > 0 ? a->req->time_limit : TS_AUTO_DEFAULT_LIMIT;
}

/* The seconds a row's own meter may run until the request's one deadline (0: none); false, with
 * the wall marked hit, once the deadline has passed. */
static bool ts_auto_row_left(ts_search_ctx *c, double *left)
{
    *left = c->meter->wall > 0 ? c->meter->wall - ts_clock_now() : 0;
    if (c->meter->wall > 0 && *left <= 0) {
        c->meter->wall_hit = true;
        return false;
    }
    return true;
}

static const char *ts_auto_seed_applies(ts_auto *a, const ts_auto_row *r, char *buf, size_t len)
{
    (void)r;
    const char *why = ts_auto_done_why(a);
    if (why)
        return why;
    if (ts_auto_req_limit(a) <= TS_AUTO_DEFAULT_LIMIT) {
        snprintf(buf, len, "the request's effort is not above the default's (%g s)",
                 TS_AUTO_DEFAULT_LIMIT);
        return buf;
    }
    return NULL;
}

/* Auto at the default effort, on a meter of its own (a search row's terms: its effort is counted
 * on auto's meter and auto's own budget moves on by it; the request's deadline does not),
 * offered to the pool: more effort
 * than the default never gives a longer schedule than the default's, whatever the larger
 * effort's rows and improvement do (their order of work changes with the effort). The inner run
 * is at the default effort, so it runs no such row itself. */
static void ts_auto_seed(ts_auto *a, const ts_auto_row *r)
{
    ts_search_ctx *c = a->c;
    ts_search_opts so = *a->req;
    so.progress = NULL;
    so.micro_batches = a->n;
    /* the very request without a limit (auto's default), under the request's wall-clock cap */
    so.time_limit = 0;
    so.effort = 0;
    ts_meter own;
    double left;
    /* the request's one wall-clock deadline holds the inner run too */
    if (!ts_auto_row_left(c, &left))
        return;
    ts_meter_init(&own, left);
    so.meter = &own;
    ts_schedule *s = NULL;
    ts_search_stats st;
    ts_err e = {0};
    double t0 = ts_ctx_elapsed(c), e0 = c->meter->spent, rows_spent = 0;
    int rc = a->rerun(c->p, &so, &s, &st, &rows_spent, &e);
    ts_meter_spend(c->meter, own.spent);
    a->rows_spent += own.spent;
    if (c->budget.deadline > 0)
        c->budget.deadline += own.spent / TS_EFFORT_PER_SECOND;
    c->meter->wall_hit = c->meter->wall_hit || st.timed_out;
    if (rc == TS_OK && s)
        ts_auto_take(a, s, r->name, t0, e0);
    ts_schedule_free(s);
}

/* ---- searches ------------------------------------------------------------------------------ */

/* Whether the request names row `name` among its candidates (not merely allows every row). */
static bool ts_auto_named(const ts_auto *a, const char *name)
{
    return a->req->candidates && ts_portfolio_lists(a->req->candidates, name);
}

static const char *ts_auto_search_applies(ts_auto *a, const ts_auto_row *r, char *buf, size_t len)
{
    (void)buf;
    (void)len;
    /* the search rows stop together, at the first that finds auto done or the memory proven too
     * small: one check of the limit a row, as many as a loop over them makes */
    if (a->searches_end)
        return a->searches_end;
    const char *why = ts_auto_done_why(a);
    if (why)
        return a->searches_end = why;
    /* a row compare's default table leaves out, unless nothing else has answered or the request
     * names it */
    why = ts_search_row_skip(a->c->p, ts_search_row_method(r->arg));
    return a->pool[0].at && why && !ts_auto_named(a, r->name) ? why : NULL;
}

/* Compare's search row for the method: it runs with the very request compare's row makes, on a
 * meter of its own (its effort is the row's: the whole time limit), so the schedule auto measures
 * is the one compare prints, under the request's one wall-clock deadline. Its effort is counted
 * on auto's meter, and auto's own budget moves on by what it took, so the rest of auto keeps its
 * own effort; the deadline does not move: --time-limit bounds the whole request. A row that cannot take the request says why (auto's own refusal when nothing fits), and
 * a proof that no schedule fits the memory ends the search rows. */
static void ts_auto_search(ts_auto *a, const ts_auto_row *r)
{
    ts_search_ctx *c = a->c;
    ts_method m = ts_search_row_method(r->arg);
    ts_ctx_progress(c, TS_PHASE_SEARCHES, r->arg, ts_search_row_count(), -1, true);
    ts_schedule *s = NULL, *at;
    ts_search_stats st;
    ts_err e = {0};
    double t0 = ts_ctx_elapsed(c), e0 = c->meter->spent, spent = 0;
    /* the request's one wall-clock deadline: the row runs until it at most (its effort is its
     * own; the cap only cuts where the machine is slower than the effort assumes) */
    double left;
    if (!ts_auto_row_left(c, &left))
        return;
    int rc = ts_search_row_run(c->p, a->req, m, left, &s, &st, &spent, &e);
    ts_meter_spend(c->meter, spent);
    a->rows_spent += spent;
    if (c->budget.deadline > 0)
        c->budget.deadline += spent / TS_EFFORT_PER_SECOND;
    c->meter->wall_hit = c->meter->wall_hit || st.timed_out;
    a->effort_cut = a->effort_cut || st.effort_out;
    long mk = rc == TS_OK && s ? ts_auto_measure(a, s, &at) : -1;
    ts_auto_log(a, ts_method_name(m), mk, t0, e0);
    if (mk >= 0) {
        ts_auto_offer(a, at, s, mk, ts_method_name(m), &st);
        return;
    }
    ts_schedule_free(s);
    if (rc != TS_OK && !a->why.code)
        a->why = e;
    if (rc != TS_OK && st.min_memory >= 0 && a->min_memory < 0)
        a->min_memory = st.min_memory;
    if (rc == TS_ENOANSWER && st.min_memory >= 0)
        a->searches_end = "a search proved that no schedule fits the memory";
}

static const char *ts_auto_fold_applies(ts_auto *a, const ts_auto_row *r, char *buf, size_t len)
{
    const char *why = ts_auto_done_why(a);
    if (why)
        return why;
    if (a->n < 2 * r->arg) {
        snprintf(buf, len, "N is below twice its %d micro-batches per period", r->arg);
        return buf;
    }
    return NULL;
}

/* Modulo with r->arg micro-batches per period (on the r-fold, ts_fold.h; ts_search_folded) for
 * its share of the limit: its schedule comes at N. */
static void ts_auto_fold(ts_auto *a, const ts_auto_row *r)
{
    ts_search_ctx *c = a->c;
    ts_search_opts so = *c->o;
    so.method = TS_METHOD_MODULO;
    so.progress = NULL;
    so.k = 0;
    so.per_period = r->arg;
    so.meter = c->meter;
    so.micro_batches = a->n;
    so.time_limit = fmin(r->share * ts_auto_limit(a), ts_budget_left(&c->budget));
    ts_schedule *s = NULL;
    ts_search_stats st;
    ts_err e = {0};
    double t0 = ts_ctx_elapsed(c), e0 = c->meter->spent;
    if (so.time_limit >= 0.05 &&
        ts_search_folded(c->p, &so, ts_search_modulo, &s, &st, &e) == TS_OK) {
        a->effort_cut = a->effort_cut || st.effort_out;
        ts_auto_take(a, s, r->name, t0, e0);
    }
    ts_schedule_free(s);
}

static const char *ts_auto_improve_applies(ts_auto *a, const ts_auto_row *r, char *buf, size_t len)
{
    (void)r;
    (void)buf;
    (void)len;
    /* the time limit is the row's own loop's first check (one check, as before it was a row) */
    if (!a->pool[0].at)
        return "no schedule to improve";
    return ts_auto_close(a) ? "the best schedule is within the gap to the lower bound" : NULL;
}

/* ---- the table ----------------------------------------------------------------------------- */

/* The static rows, after the baselines; arg: the construction, the search row, the fold's R. */
static const ts_auto_row ts_auto_static_rows[] = {
    {"full-greedy", TS_AUTO_STAGE_CONSTRUCTIONS, ts_auto_construct_applies, ts_auto_construct, 0, 0,
     "full's greedy list schedule at N (compare's \"full (greedy)\" row), without a solver"},
    {"memlist", TS_AUTO_STAGE_CONSTRUCTIONS, ts_auto_construct_applies, ts_auto_construct, 0, 1,
     "the memory-aware list schedule at N: critical backwards first, forwards while memory "
     "holds, weight gradients last; without a solver"},
    {"barrier-frames", TS_AUTO_STAGE_CONSTRUCTIONS, ts_auto_construct_applies, ts_auto_construct, 0,
     2,
     "the barrier-frame construction for V chains with barriers (nnshape, mshape); without a "
     "solver"},
    {"barrier-waves", TS_AUTO_STAGE_CONSTRUCTIONS, ts_auto_construct_applies, ts_auto_construct, 0,
     3, "the barrier-wave construction, where memory sets the pace; kept only if it leads"},
    {"unsharded", TS_AUTO_STAGE_CONSTRUCTIONS, ts_auto_unsharded_applies, ts_auto_unsharded, 0.2, 0,
     "the placement without its blocks on every device (baselines and auto on it), those "
     "blocks put back as pauses; 0.2 of the limit"},
    {"default-effort", TS_AUTO_STAGE_SEARCHES, ts_auto_seed_applies, ts_auto_seed, 0, 0,
     "auto itself at the default effort, when the request gives more: more effort never gives a "
     "longer schedule than the default's"},
    {"fast", TS_AUTO_STAGE_SEARCHES, ts_auto_search_applies, ts_auto_search, 1, 0,
     "compare's fast row (Tessel-fast), on a meter of its own: the whole limit"},
    {"modulo", TS_AUTO_STAGE_SEARCHES, ts_auto_search_applies, ts_auto_search, 1, 1,
     "compare's modulo row, on a meter of its own: the whole limit"},
    {"lazy", TS_AUTO_STAGE_SEARCHES, ts_auto_search_applies, ts_auto_search, 1, 2,
     "compare's lazy row (not beyond 8 devices or 24 blocks unless named), on a meter of its own"},
    {"full", TS_AUTO_STAGE_SEARCHES, ts_auto_search_applies, ts_auto_search, 1, 3,
     "compare's full row, on a meter of its own: the whole limit"},
    {"modulo-x2", TS_AUTO_STAGE_SEARCHES, ts_auto_fold_applies, ts_auto_fold, 0.2, 2,
     "modulo with 2 micro-batches per period (on the 2-fold placement); 0.2 of the limit"},
    {"improve", TS_AUTO_STAGE_IMPROVE, ts_auto_improve_applies, ts_auto_improve, 1, 0,
     "local search on the order of instances of the best three, a count of moves per second "
     "of the limit"},
    {"exact", TS_AUTO_STAGE_EXACT, ts_auto_exact_applies, ts_auto_exact, 1, 0,
     "the exact search at N below the best, small instance counts; Z3 units per second of the "
     "limit"},
    {"lns", TS_AUTO_STAGE_EXACT, ts_auto_lns_applies, ts_auto_lns, 0.3, 0,
     "the large-neighbourhood search on the best schedule; 0.3 of the limit"},
};

int ts_auto_rows(ts_auto_row *rows, int max)
{
    int n = 0;
    for (int i = 0; i < ts_baseline_count() && n < max; i++)
        rows[n++] = (ts_auto_row){ts_baseline_at(i)->name,
                                  TS_AUTO_STAGE_BASELINES,
                                  ts_auto_baseline_applies,
                                  ts_auto_baseline_scan,
                                  0,
                                  i,
                                  ts_baseline_at(i)->description};
    for (size_t i = 0; i < sizeof ts_auto_static_rows / sizeof ts_auto_static_rows[0] && n < max;
         i++)
        rows[n++] = ts_auto_static_rows[i];
    return n;
}

ts_phase ts_auto_stage_phase(ts_auto_stage s)
{
    static const ts_phase phases[TS_AUTO_STAGE_COUNT] = {
        [TS_AUTO_STAGE_BASELINES] = TS_PHASE_BASELINES,
        [TS_AUTO_STAGE_CONSTRUCTIONS] = TS_PHASE_BASELINES,
        [TS_AUTO_STAGE_SEARCHES] = TS_PHASE_SEARCHES,
        [TS_AUTO_STAGE_IMPROVE] = TS_PHASE_IMPROVE,
        [TS_AUTO_STAGE_EXACT] = TS_PHASE_EXACT,
    };
    return phases[s];
}

void ts_auto_stage_close(ts_auto *a, ts_auto_stage s)
{
    if (s == TS_AUTO_STAGE_BASELINES)
        ts_auto_baselines_measure(a);
    else if (s == TS_AUTO_STAGE_SEARCHES)
        ts_auto_release(a);
}
