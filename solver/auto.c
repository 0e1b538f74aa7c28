/* auto: a portfolio for the makespan at the requested N within memory.
 *
 * Within its effort (a time limit's worth, ts_search_ctx.h: the same on every machine) it
 * measures every hand-made baseline that fits the placement, full's greedy start, the
 * memory-aware list schedule (ts_memlist.h), then
 * compare's search rows (rows.c: fast, modulo, lazy where compare's default table runs it, full,
 * each with the very request compare's row makes, its own effort and its own cap), each at N:
 * unrolled, or cut to the first N micro-batches when N is below the repetend's k, and replayed
 * as early as each device's order allows. What overflows the memory is dropped. So its
 * portfolio holds every row `tessel compare` prints, which is the rule that auto never loses to
 * them: the one place both commands take auto's answer from. The best few go through the improvement phase (local search on the order
 * of instances, ts_improve.h, a count of moves), and the best schedule found is returned, with
 * its repetend when it repeats in its steady state. It stops as soon as a schedule meets the
 * lower bound (ts_bound.h), or comes within --gap of it. Without a time limit it spends
 * TS_AUTO_DEFAULT_LIMIT seconds' worth of effort. Every candidate is listed in the record with
 * its makespan, effort and seconds (portfolio). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ts_baseline.h"
#include "ts_encode.h"
#include "ts_bframe.h"
#include "ts_bwave.h"
#include "ts_bound.h"
#include "ts_exact.h"
#include "ts_improve.h"
#include "ts_lns.h"
#include "ts_memlist.h"
#include "ts_rows.h"
#include "ts_shard.h"
#include "ts_search_ctx.h"

#define TS_AUTO_DEFAULT_LIMIT 60.0
#define TS_AUTO_POOL 3 /* candidates kept for the improvement phase */
#define TS_AUTO_UNSHARDED_SHARE 0.2 /* of the limit: auto on the reduced placement */
/* The improvement phase's effort per second of the time limit, in moves times instances (a
 * move's replay costs about the instance count): a count, not a clock, so that the phase does
 * the same work on a quiet machine and a busy one. Measured at 3e7 to 6e7 per second on one
 * busy core (nnshape, 8 devices, N 32 and 128), so the phase fits its share with room. */
#define TS_AUTO_IMPROVE_EFFORT 1.2e7
/* Effort units per instance that measuring a candidate at N costs (unroll, tighten, validate,
 * replay: 0.2-0.3 s for 133,000 instances, about 2 us an instance, at TS_EFFORT_PER_SECOND) */
#define TS_AUTO_MEASURE_EFFORT 0.2
/* Effort units per instance of scanning a baseline as built (its device orders, memory and
 * makespan), before any measurement */
#define TS_AUTO_SCAN_EFFORT 0.05
/* Instances (N x blocks) above which full's greedy start is skipped: its list scheduling grows
 * faster than the instances (0.1-0.25 s at 8,700-17,000 instances, 14 s at 133,000: nnshape on
 * 128 devices, N 512, where it took the whole limit from the searches) */
#define TS_AUTO_GREEDY_MAX_INSTANCES 32768L
/* The large-neighbourhood search (lns.c): at most this share of the limit's effort (never more
 * than is left), and this share of the limit for one window's solver calls */
#define TS_AUTO_LNS_SHARE 0.3
#define TS_AUTO_LNS_WINDOW 0.05

/* The searches are compare's rows (ts_rows.h): each runs with the very request compare's row for
 * its method makes, on a meter and under a wall-clock cap of its own, so the schedule auto
 * measures is the one compare prints. Their effort is counted on auto's meter, and auto's own
 * budget and cap move on by what each row took, so the rest of auto keeps its own time limit. */

/* Then modulo with r micro-batches per period (on the r-fold, ts_fold.h), for this share each,
 * while the best schedule is above the bound. */
static const struct {
    int r;
    const char *source;
    double share;
} ts_auto_folds[] = {
    {2, "modulo-x2", 0.20},
};

typedef struct {
    ts_schedule *at; /* at N, replayed; owned */
    ts_schedule *orig; /* the schedule as the method returned it (repetend), owned, may be NULL */
    long makespan;
    const char *source; /* static: a baseline's or a method's name */
    bool improved;
    ts_search_stats sub; /* the search's statistics (repetend claims), when from a search */
    bool from_search;
} ts_auto_cand;

typedef struct {
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
    const ts_search_opts *req; /* the request as given: compare's rows are built from it */
    double rowcap; /* seconds of each row's wall-clock cap (<= 0: none) */
    double rows_spent; /* effort units the rows spent (theirs, outside auto's own budget) */
    ts_auto_cand held; /* a construction offered only if it leads when the searches are done */
} ts_auto;

static int ts_auto_run(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                       ts_search_stats *st, double *rows_spent, ts_err *e);

static void ts_auto_cand_free(ts_auto_cand *x)
{
    ts_schedule_free(x->at);
    ts_schedule_free(x->orig);
    memset(x, 0, sizeof *x);
}

/* s measured at N (unrolled or cut, replayed). Returns the makespan, or -1 when it cannot be
 * taken to N or overflows the memory. *at receives the replayed schedule with the capacities. */
static long ts_auto_measure(const ts_auto *a, const ts_schedule *s, ts_schedule **at)
{
    ts_err e = {0};
    ts_schedule *u = NULL;
    *at = NULL;
    if (s->nmicros == a->n)
        u = ts_schedule_clone(s);
    else if (ts_schedule_unroll(s, a->n, &u, &e) != TS_OK)
        return -1;
    if (!u)
        return -1;
    ts_schedule_clear_repetend(u);
    ts_schedule_set_memory(u, a->cap);
    /* solver-free work, counted by the instances measured */
    ts_meter_spend(a->c->meter, (double)u->nentries * TS_AUTO_MEASURE_EFFORT);
    ts_schedule *t = ts_schedule_clone(u);
    if (t && ts_schedule_tighten(t, &e) == TS_OK) {
        ts_schedule_free(u);
        u = t;
    } else {
        ts_schedule_free(t);
    }
    ts_validate_opts vo = {0};
    ts_metrics m;
    if (ts_schedule_validate(u, &vo, &e) != TS_OK || ts_schedule_metrics(u, &m)) {
        ts_schedule_free(u);
        return -1;
    }
    long mk = m.makespan;
    ts_metrics_free(&m);
    *at = u;
    return mk;
}

/* Offers a candidate (takes at and orig); the pool keeps the best TS_AUTO_POOL by makespan,
 * the earlier one on a tie. */
static void ts_auto_offer(ts_auto *a, ts_schedule *at, ts_schedule *orig, long mk,
                          const char *source, const ts_search_stats *sub)
{
    int k = 0;
    while (k < TS_AUTO_POOL && a->pool[k].at && a->pool[k].makespan <= mk)
        k++;
    if (k == TS_AUTO_POOL) {
        ts_schedule_free(at);
        ts_schedule_free(orig);
        return;
    }
    ts_auto_cand_free(&a->pool[TS_AUTO_POOL - 1]);
    memmove(&a->pool[k + 1], &a->pool[k], (size_t)(TS_AUTO_POOL - 1 - k) * sizeof a->pool[0]);
    ts_auto_cand *x = &a->pool[k];
    memset(x, 0, sizeof *x);
    x->at = at;
    x->orig = orig;
    x->makespan = mk;
    x->source = source;
    if (sub) {
        x->sub = *sub;
        x->from_search = true;
    }
}

/* The bound is met, or the gap to it is within --gap: nothing worth the rest of the effort. */
static bool ts_auto_close(const ts_auto *a)
{
    return a->pool[0].at && (double)a->pool[0].makespan <= (double)a->bound * (1 + a->c->o->gap);
}

/* Lists a candidate in the record: its source, makespan at N (-1: none that fits), and the wall
 * seconds and effort since t0 and e0 (ts_ctx_elapsed, the meter's units). */
static void ts_auto_log(ts_auto *a, const char *source, long mk, double t0, double e0)
{
    ts_search_stats *st = a->c->st;
    st->portfolio_tried++;
    if (st->nportfolio == TS_PORTFOLIO_MAX)
        return;
    int i = st->nportfolio++;
    st->portfolio[i].source = source;
    st->portfolio[i].makespan = mk;
    st->portfolio[i].seconds = ts_ctx_elapsed(a->c) - t0;
    st->portfolio[i].effort = (long long)(a->c->meter->spent - e0);
}

static bool ts_auto_done(const ts_auto *a)
{
    return ts_auto_close(a) || ts_ctx_over(a->c);
}

/* A fitting baseline waiting for its measurement: its schedule as built, at N, and the makespan
 * there (the replay can only shorten it). */
typedef struct {
    int i;
    long built;
    ts_schedule *s;
} ts_auto_built;

static int ts_auto_built_cmp(const void *x, const void *y)
{
    const ts_auto_built *u = x, *v = y;
    if (u->built != v->built)
        return u->built < v->built ? -1 : 1;
    return (u->i > v->i) - (u->i < v->i);
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

/* Every baseline that fits is built and scanned first (its memory by device order, its makespan
 * as built), then measured in the order of that makespan, so that on a huge input, where one
 * measurement costs a good share of the limit, the likely best comes first (vshape_interleaved
 * on 64 devices at 4 chunks, N 256, limit 1 s: `interleaved` at the bound, not memlist's 1.30 x
 * it). Past a third of the limit the rest is left to the searches, once something fits: with
 * nothing yet, measuring goes on, so that a small limit on a huge input still answers. */
static void ts_auto_baselines(ts_auto *a)
{
    double limit = a->c->o->time_limit;
    int nb = ts_baseline_count(), nbuilt = 0;
    ts_auto_built *v = calloc((size_t)nb + 1, sizeof *v);
    if (!v)
        return;
    for (int i = 0; i < nb; i++) {
        const char *kind = ts_baseline_at(i)->name;
        ts_schedule *s = NULL;
        ts_err e = {0};
        double t0 = ts_ctx_elapsed(a->c), e0 = a->c->meter->spent;
        if (ts_baseline_fits(kind, a->c->p, a->n, &e) != TS_OK ||
            ts_baseline_make(kind, a->c->p, a->n, &s, &e) != TS_OK)
            continue;
        ts_meter_spend(a->c->meter, (double)s->nentries * TS_AUTO_SCAN_EFFORT);
        long built;
        if (ts_auto_fits_as_built(a, s, &built))
            v[nbuilt++] = (ts_auto_built){i, built, s};
        else {
            ts_auto_log(a, kind, -1, t0, e0);
            ts_schedule_free(s);
        }
    }
    qsort(v, (size_t)nbuilt, sizeof *v, ts_auto_built_cmp);
    for (int j = 0; j < nbuilt; j++) {
        bool any = a->pool[0].at != NULL;
        if (any && (ts_auto_done(a) || ts_ctx_spent(a->c) > limit / 3))
            break;
        const char *kind = ts_baseline_at(v[j].i)->name;
        ts_schedule *at;
        double t0 = ts_ctx_elapsed(a->c), e0 = a->c->meter->spent;
        long mk = ts_auto_measure(a, v[j].s, &at);
        ts_auto_log(a, kind, mk, t0, e0);
        if (mk >= 0)
            ts_auto_offer(a, at, NULL, mk, kind, NULL);
        ts_ctx_progress(a->c, TS_PHASE_BASELINES, j + 1, nbuilt, -1, false);
    }
    for (int j = 0; j < nbuilt; j++)
        ts_schedule_free(v[j].s);
    free(v);
}

/* A schedule built without a solver by fn (full's greedy start or the memory-aware list
 * schedule: one signature), offered as `name`; skipped above max_instances (0: never). With
 * `hold`, it waits in a->held for ts_auto_release unless it already meets the bound. */
static void ts_auto_constructed(ts_auto *a, const char *name,
                                int (*fn)(const ts_placement *, int, const long *, ts_schedule **,
                                          ts_err *),
                                long max_instances, bool hold)
{
    /* with nothing in the pool yet, a construction runs whatever the budget says (as above) */
    if ((ts_auto_done(a) && a->pool[0].at) ||
        (max_instances > 0 && (long)a->n * a->c->p->nblocks > max_instances))
        return;
    ts_schedule *s = NULL, *at;
    ts_err e = {0};
    double t0 = ts_ctx_elapsed(a->c), e0 = a->c->meter->spent;
    if (fn(a->c->p, a->n, a->cap, &s, &e) == TS_OK) {
        long mk = ts_auto_measure(a, s, &at);
        ts_auto_log(a, name, mk, t0, e0);
        if (mk >= 0 && hold && mk > a->bound && !a->held.at) {
            a->held.at = at;
            a->held.makespan = mk;
            a->held.source = name;
        } else if (mk >= 0)
            ts_auto_offer(a, at, NULL, mk, name, NULL);
    } else {
        /* a construction that does not apply or finds nothing still says what it cost */
        ts_auto_log(a, name, -1, t0, e0);
    }
    ts_schedule_free(s);
}

/* The held construction joins the pool when it is shorter than every schedule so far; else the
 * pool, which the improvement phase works on, stays as it would be without it. */
static void ts_auto_release(ts_auto *a)
{
    ts_auto_cand *h = &a->held;
    if (h->at && (!a->pool[0].at || h->makespan < a->pool[0].makespan))
        ts_auto_offer(a, h->at, NULL, h->makespan, h->source, NULL);
    else
        ts_schedule_free(h->at);
    h->at = NULL;
}

/* Full's greedy start, the "full (greedy)" row of `tessel compare` (no solver): auto keeps
 * nothing longer than a row compare prints. Above TS_AUTO_GREEDY_MAX_INSTANCES it is skipped
 * (there the searches and the pauses give far shorter schedules: 10784 against its 14988 on
 * nnshape at 128 devices, N 512). Then the memory-aware list schedule (ts_memlist.h): forwards
 * as far ahead as each device's memory allows, the critical backward passes first, weight
 * gradients last; it reaches 1.04 x the bound on GPT-3 175B's zero-bubble placement on 128 GPUs
 * (N 1024), where the searches stay above 1.2. Then the barrier-frame construction
 * (ts_bframe.h) for a V chain with barriers: on nnshape at 32 devices and memory 34 it keeps 2
 * micro-batches per 18 steps, where the modulo constructions reach 19. Then the barrier-wave
 * construction (ts_bwave.h) for the same chains where memory sets the pace: on nnshape at 128
 * devices and memory 40 it keeps 40 micro-batches per 676 steps, where the others reach 19 a
 * micro-batch. It is held until the searches are done and kept only if it leads: elsewhere it
 * would crowd the pool the improvement works on (nnshape on 32 devices at memory 2, N 32: 2204
 * with it in the pool, 2199 without). */
static void ts_auto_greedy_starts(ts_auto *a)
{
    ts_auto_constructed(a, "full-greedy", ts_full_greedy, TS_AUTO_GREEDY_MAX_INSTANCES, false);
    ts_auto_constructed(a, "memlist", ts_memlist_schedule, 0, false);
    ts_auto_constructed(a, "barrier-frames", ts_bframe_schedule, 0, false);
    ts_auto_constructed(a, "barrier-waves", ts_bwave_schedule, 0, true);
}

/* r, a schedule of the reduced placement at N, with the removed blocks put back as pauses one by
 * one and then in batches (ts_unshard_insert): each is offered. */
static void ts_auto_pauses(ts_auto *a, const ts_unshard *u, const ts_schedule *r)
{
    for (long q = 1; q <= 512 && !ts_auto_done(a); q *= 4) {
        ts_schedule *s = NULL, *at;
        ts_err e = {0};
        double t0 = ts_ctx_elapsed(a->c), e0 = a->c->meter->spent;
        if (ts_unshard_insert(u, a->c->p, r, q, &s, &e) == TS_OK) {
            long mk = ts_auto_measure(a, s, &at);
            ts_auto_log(a, "unsharded", mk, t0, e0);
            if (mk >= 0)
                ts_auto_offer(a, at, NULL, mk, "unsharded", NULL);
        }
        ts_schedule_free(s);
    }
}

/* The placement without its blocks on every device, which come back as pauses of the whole
 * machine (ts_shard.h): a pipeline's overlap survives them. Its schedules are every fitting
 * baseline and, for a share of the time, auto's own answer on it (which has no such blocks, so
 * this goes one level deep). */
static void ts_auto_unsharded(ts_auto *a)
{
    ts_unshard u;
    ts_err e = {0};
    if (ts_auto_done(a) || ts_unshard_make(a->c->p, &u, &e) != TS_OK || !u.reduced)
        return;
    for (int i = 0; i < ts_baseline_count() && !ts_auto_done(a); i++) {
        const char *kind = ts_baseline_at(i)->name;
        ts_schedule *r = NULL;
        if (ts_baseline_fits(kind, u.reduced, a->n, &e) == TS_OK &&
            ts_baseline_make(kind, u.reduced, a->n, &r, &e) == TS_OK)
            ts_auto_pauses(a, &u, r);
        ts_schedule_free(r);
    }
    ts_search_ctx *c = a->c;
    ts_search_opts so = *c->o;
    so.progress = NULL;
    so.micro_batches = a->n;
    so.time_limit = fmin(TS_AUTO_UNSHARDED_SHARE * c->o->time_limit, ts_budget_left(&c->budget));
    so.meter = c->meter;
    /* its time limit is its effort (its rows get as much each) */
    so.effort = 0;
    ts_schedule *s = NULL, *r = NULL;
    ts_search_stats st;
    double rows_spent = 0;
    int rc = !ts_auto_done(a) && so.time_limit >= 0.05
                 ? ts_auto_run(u.reduced, &so, &s, &st, &rows_spent, &e)
                 : TS_ENOANSWER;
    /* its rows' effort is theirs, as auto's own rows' is (ts_auto_searches_run) */
    if (c->budget.deadline > 0)
        c->budget.deadline += rows_spent / TS_EFFORT_PER_SECOND;
    a->rows_spent += rows_spent;
    if (rc == TS_OK && ts_schedule_at(s, a->n, true, &r, &e) == TS_OK)
        ts_auto_pauses(a, &u, r);
    ts_schedule_free(s);
    ts_schedule_free(r);
    ts_unshard_free(&u);
}

/* Compare's search rows, one after the other, each offered at N. A row that cannot take the
 * request says why (auto's own refusal when nothing fits), and a proof that no schedule fits the
 * memory ends the rows. */
static void ts_auto_searches_run(ts_auto *a)
{
    ts_search_ctx *c = a->c;
    for (int i = 0; i < ts_search_row_count() && !ts_auto_done(a); i++) {
        ts_method m = ts_search_row_method(i);
        /* a row compare's default table leaves out, unless nothing else has answered */
        if (a->pool[0].at && ts_search_row_skip(c->p, m))
            continue;
        ts_ctx_progress(c, TS_PHASE_SEARCHES, i, ts_search_row_count(), -1, true);
        ts_schedule *s = NULL, *at;
        ts_search_stats st;
        ts_err e = {0};
        double t0 = ts_ctx_elapsed(c), e0 = c->meter->spent, spent = 0;
        int rc = ts_search_row_run(c->p, a->req, m, a->rowcap, &s, &st, &spent, &e);
        /* the row's effort and wall time are its own: auto's budget and cap move on by them */
        ts_meter_spend(c->meter, spent);
        a->rows_spent += spent;
        if (c->budget.deadline > 0)
            c->budget.deadline += spent / TS_EFFORT_PER_SECOND;
        if (c->meter->wall > 0)
            c->meter->wall += ts_ctx_elapsed(c) - t0;
        c->meter->wall_hit = c->meter->wall_hit || st.timed_out;
        a->effort_cut = a->effort_cut || st.effort_out;
        long mk = rc == TS_OK && s ? ts_auto_measure(a, s, &at) : -1;
        ts_auto_log(a, ts_method_name(m), mk, t0, e0);
        if (mk >= 0) {
            ts_auto_offer(a, at, s, mk, ts_method_name(m), &st);
            continue;
        }
        ts_schedule_free(s);
        if (rc != TS_OK && !a->why.code)
            a->why = e;
        if (rc != TS_OK && st.min_memory >= 0 && a->min_memory < 0)
            a->min_memory = st.min_memory;
        if (rc == TS_ENOANSWER && st.min_memory >= 0)
            return; /* proven: no schedule fits the memory */
    }
}

/* Modulo with r micro-batches per period (ts_search_folded): its schedule comes at N. */
static void ts_auto_folds_run(ts_auto *a)
{
    ts_search_ctx *c = a->c;
    double limit = c->o->time_limit > 0 ? c->o->time_limit : TS_AUTO_DEFAULT_LIMIT;
    for (size_t i = 0; i < sizeof ts_auto_folds / sizeof ts_auto_folds[0]; i++) {
        if (ts_auto_done(a) || a->n < 2 * ts_auto_folds[i].r)
            return;
        ts_search_opts so = *c->o;
        so.method = TS_METHOD_MODULO;
        so.progress = NULL;
        so.k = 0;
        so.per_period = ts_auto_folds[i].r;
        so.meter = c->meter;
        so.micro_batches = a->n;
        so.time_limit = fmin(ts_auto_folds[i].share * limit, ts_budget_left(&c->budget));
        ts_schedule *s = NULL, *at;
        ts_search_stats st;
        ts_err e = {0};
        double t0 = ts_ctx_elapsed(c), e0 = c->meter->spent;
        if (so.time_limit >= 0.05 &&
            ts_search_folded(c->p, &so, ts_search_modulo, &s, &st, &e) == TS_OK) {
            a->effort_cut = a->effort_cut || st.effort_out;
            long mk = ts_auto_measure(a, s, &at);
            ts_auto_log(a, ts_auto_folds[i].source, mk, t0, e0);
            if (mk >= 0)
                ts_auto_offer(a, at, NULL, mk, ts_auto_folds[i].source, NULL);
        }
        ts_schedule_free(s);
    }
}

/* The improvement phase: rounds over the pool, each candidate improved for a slice of the effort
 * left (moves, TS_AUTO_IMPROVE_EFFORT), until the effort is spent, the bound is met, or no
 * candidate improves any more. The same share of the time left caps each slice; when the cap
 * ends one before its effort, the result depends on the machine, and timed_out says so. */
static void ts_auto_improve(ts_auto *a)
{
    ts_search_ctx *c = a->c;
    bool stalled[TS_AUTO_POOL] = {false};
    double effort = c->o->time_limit * TS_AUTO_IMPROVE_EFFORT;
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
            /* the wall-clock cap stops a slice on a slow or busy machine (timed_out) */
            ts_improve_opts io = {c->meter->wall, moves, a->bound,
                                  0x7E55E1ULL + (unsigned long long)(round * 7 + k) +
                                      ((unsigned long long)c->o->seed << 32),
                                  20000 + 4L * x->at->nentries};
            ts_improve_stats ist;
            ts_schedule *r = NULL;
            ts_err e = {0};
            int irc = ts_improve(x->at, &io, &r, &ist, &e);
            effort -= (double)ist.moves * size;
            c->st->improve_moves += ist.moves;
            if (irc == TS_OK && ist.moves < moves && !ist.stalled && ist.after > a->bound) {
                a->improve_cut = true;
                c->meter->wall_hit = true;
            }
            if (irc != TS_OK || ist.after >= x->makespan) {
                ts_schedule_free(r);
                stalled[k] = true;
                continue;
            }
            ts_schedule_free(x->at);
            x->at = r;
            x->makespan = ist.after;
            x->improved = true;
            stalled[k] = ist.stalled;
        }
        /* keep the pool best first (insertion sort of three) */
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
}

/* The large-neighbourhood search on the best schedule (ts_lns.h): windows of its instances (the
 * fill, the drain, then where idle time concentrates) freed and solved exactly with the rest
 * kept in its device orders, each kept when the makespan falls, on the meter (the same on every
 * machine); not once the bound is met or the exact search proved the best minimal. It runs
 * after the exact search, which needs auto's effort left to start and takes the whole instance
 * set where it is small. */
static void ts_auto_lns(ts_auto *a)
{
    ts_search_ctx *c = a->c;
    ts_auto_cand *x = &a->pool[0];
    if (!x->at || ts_auto_done(a) || a->exact_proven)
        return;
    double t0 = ts_ctx_elapsed(c), e0 = c->meter->spent;
    double seconds = fmin(TS_AUTO_LNS_SHARE * c->o->time_limit, ts_budget_left(&c->budget));
    /* (a budget of 0 seconds would have no deadline) */
    if (seconds <= 0)
        return;
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

/* The budget the exact search runs under: auto's, less its deadline. Its effort is its own (Z3
 * units, ts_exact_opts), and the exact search reads what is left of a deadline as a wall-clock
 * timeout of each Z3 call, which a loaded machine reaches before the units run out (the same
 * request then proved optimal quiet and not loaded). Without the deadline, only the meter's
 * wall-clock cap, between calls, stops it early (timed_out). */
static ts_budget ts_auto_exact_budget(const ts_auto *a)
{
    ts_budget b = a->c->budget;
    b.deadline = 0;
    return b;
}

/* The exact search at N on small instance counts (exact.c), below the best so far, for an
 * effort in Z3 resource units that the time limit sets: a shorter schedule joins the pool, and a
 * refusal of every shorter makespan proves the best optimal. */
static void ts_auto_exact(ts_auto *a)
{
    ts_search_ctx *c = a->c;
    ts_auto_cand *x = &a->pool[0];
    if (!x->at || x->makespan <= a->bound || !ts_exact_affordable(c->p, a->n) || ts_ctx_over(c))
        return;
    ts_budget eb = ts_auto_exact_budget(a);
    ts_exact_opts eo = {a->n, a->cap, a->bound, x->makespan,
                        (long)(TS_EXACT_EFFORT_PER_SECOND * c->o->time_limit), &eb};
    ts_exact_res r;
    ts_schedule *s = NULL, *at;
    ts_err e = {0};
    if (ts_exact_search(c->p, &eo, &s, &r, &e) == TS_OK && r.run) {
        c->st->exact = r.proven ? "proven" : r.timed_out ? "timed out" : "cut";
        c->st->exact_effort = (c->st->exact_effort < 0 ? 0 : c->st->exact_effort) + r.effort;
        a->improve_cut = a->improve_cut || r.timed_out;
        long mk = s ? ts_auto_measure(a, s, &at) : -1;
        if (mk >= 0)
            ts_auto_offer(a, at, NULL, mk, "exact", NULL);
        a->exact_proven = r.proven && a->pool[0].makespan <= r.best;
    }
    ts_schedule_free(s);
}

/* What auto returns: the repetend schedule as its method found it when that is the winner
 * unchanged and unrolls to N; the schedule at N otherwise. Fills the statistics. */
static ts_schedule *ts_auto_finish(ts_auto *a)
{
    ts_auto_cand *x = &a->pool[0];
    ts_search_stats *st = a->c->st;
    ts_schedule *out;
    bool keep_rep = x->from_search && !x->improved && x->orig && x->orig->nmicros <= a->n;
    if (keep_rep) {
        out = x->orig;
        x->orig = NULL;
        st->k = x->sub.k;
        st->period = x->sub.period;
        st->bubbles = x->sub.bubbles;
        st->period_optimal = x->sub.optimal;
        st->completion_optimal = x->sub.completion_optimal;
    } else {
        out = x->at;
        x->at = NULL;
        /* a schedule at N that repeats in its steady state (one or a few micro-batches per
         * period) is written with its repetend, so that show, export and validate take it to
         * any N */
        if (ts_schedule_find_repetend(out) == 1) {
            st->k = out->rep.k;
            st->per_period = out->rep.per;
            st->period = out->rep.period;
            st->bubbles = out->rep.period - out->rep.per * ts_placement_max_load(a->c->p);
        }
    }
    st->source = x->source;
    st->improved = x->improved;
    /* proven for this N and memory only when the bound is met */
    st->optimal = x->makespan <= a->bound || a->exact_proven;
    st->gap_to_bound = a->bound > 0 ? (double)(x->makespan - a->bound) / (double)a->bound : 0;
    return out;
}

/* ts_search_auto; *rows_spent receives the effort its rows spent (ts_auto_unsharded's inner
 * auto: the outer one's budget moves on by it, as by its own rows'). */
static int ts_auto_run(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                       ts_search_stats *st, double *rows_spent, ts_err *e)
{
    ts_search_ctx c;
    *rows_spent = 0;
    ts_search_opts local = *o;
    char mem[64] = "without a memory limit";
    if (local.time_limit <= 0)
        local.time_limit = TS_AUTO_DEFAULT_LIMIT;
    /* the caller's summary and file at N come after: auto searches for its share */
    local.time_limit *= ts_finish_share(p, &local);
    int rc = ts_ctx_begin(&c, p, &local, st, e);
    *out = NULL;
    if (rc)
        return ts_ctx_end(&c, rc, NULL);
    ts_auto a = {0};
    a.c = &c;
    a.min_memory = -1;
    a.n = o->micro_batches > 0 ? o->micro_batches : TS_DEFAULT_MICRO_BATCHES;
    a.cap = c.cap;
    a.req = o;
    a.rowcap = c.meter->wall > 0 ? c.meter->wall - ts_clock_now() : 0;
    double t0 = ts_clock_now();
    a.bound = ts_bound_value(p, a.n, a.cap);
    t0 = ts_ctx_lap(&c, TS_PHASE_BOUNDS, t0);
    ts_auto_baselines(&a);
    ts_auto_greedy_starts(&a);
    ts_auto_unsharded(&a);
    t0 = ts_ctx_lap(&c, TS_PHASE_BASELINES, t0);
    ts_auto_searches_run(&a);
    ts_auto_folds_run(&a);
    ts_auto_release(&a);
    t0 = ts_ctx_lap(&c, TS_PHASE_SEARCHES, t0);
    ts_auto_improve(&a);
    t0 = ts_ctx_lap(&c, TS_PHASE_IMPROVE, t0);
    ts_auto_exact(&a);
    ts_auto_lns(&a);
    ts_ctx_lap(&c, TS_PHASE_EXACT, t0);
    if (o->has_memory) {
        char caps[48];
        snprintf(mem, sizeof mem, "within memory %s",
                 ts_search_memory_text(o, p->ndevs, caps, sizeof caps));
    }
    c.st->min_memory = a.min_memory;
    if (!a.pool[0].at && a.why.code)
        rc = ts_fail(e, a.why.code, "%s", a.why.msg);
    else if (!a.pool[0].at)
        rc = ts_fail(e, TS_ENOANSWER,
                     "auto: no baseline or search found a schedule of '%s' at N = %d %s in %.3g s",
                     p->name, a.n, mem, o->time_limit > 0 ? o->time_limit : TS_AUTO_DEFAULT_LIMIT);
    else
        *out = ts_auto_finish(&a);
    c.st->timed_out = (ts_ctx_over(&c) || a.improve_cut) && !c.st->optimal;
    c.st->effort_out = a.effort_cut && !c.st->optimal;
    for (int k = 0; k < TS_AUTO_POOL; k++)
        ts_auto_cand_free(&a.pool[k]);
    ts_auto_cand_free(&a.held);
    *rows_spent = a.rows_spent;
    return ts_ctx_end(&c, rc, *out);
}

int ts_search_auto(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                   ts_search_stats *st, ts_err *e)
{
    double rows_spent;
    return ts_auto_run(p, o, out, st, &rows_spent, e);
}
