/* auto: a portfolio for the makespan at the requested N within memory.
 *
 * Within its effort (a time limit's worth, ts_search_ctx.h: the same on every machine) it runs
 * the rows of its portfolio (auto_rows.c), stage by stage: every hand-made baseline that fits,
 * the constructions without a solver, compare's search rows (rows.c: fast, modulo, lazy where
 * compare's default table runs it, full, each with the very request compare's row makes, its own
 * effort and its own cap), modulo on the 2-fold placement, each measured at N (unrolled, or cut to
 * the first N micro-batches when N is below the repetend's k, and replayed as early as each
 * device's order allows); what overflows the memory is dropped. So its portfolio holds every row
 * `tessel compare` prints, which is the rule that auto never loses to them. The best few go
 * through the improvement rows (local search, the exact search, the large-neighbourhood search),
 * and the best schedule found is returned, with its repetend when it repeats in its steady
 * state. A row runs only when its test says it applies now (the lower bound met or within --gap
 * of it ends most) and, when the request names candidates, only when it is named. The record
 * lists every row (ran, or skipped and why) and every candidate measured with its makespan,
 * effort and seconds. Without a time limit it spends TS_AUTO_DEFAULT_LIMIT seconds' worth of
 * effort. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_auto.h"
#include "ts_bound.h"

int ts_portfolio_count(void)
{
    ts_auto_row rows[TS_AUTO_ROWS_MAX];
    return ts_auto_rows(rows, TS_AUTO_ROWS_MAX);
}

const char *ts_portfolio_name(int i, const char **doc)
{
    ts_auto_row rows[TS_AUTO_ROWS_MAX];
    int n = ts_auto_rows(rows, TS_AUTO_ROWS_MAX);
    if (i < 0 || i >= n)
        return NULL;
    if (doc)
        *doc = rows[i].doc;
    return rows[i].name;
}

int ts_portfolio_check(const char *list, ts_err *e)
{
    ts_auto_row rows[TS_AUTO_ROWS_MAX];
    int n = ts_auto_rows(rows, TS_AUTO_ROWS_MAX);
    if (!*list)
        return ts_fail(e, TS_EINPUT,
                       "candidates: the list is empty (give row names, e.g. "
                       "memlist,modulo)");
    for (const char *s = list; s;) {
        const char *end = strchr(s, ',');
        int len = (int)(end ? (size_t)(end - s) : strlen(s));
        bool known = false;
        for (int i = 0; i < n && !known; i++)
            known = (int)strlen(rows[i].name) == len && !strncmp(s, rows[i].name, (size_t)len);
        if (!known)
            return ts_fail(e, TS_EINPUT,
                           "candidates: unknown row '%.*s' (tessel search --help lists the rows "
                           "of auto's portfolio)",
                           len, s);
        s = end ? end + 1 : NULL;
    }
    return TS_OK;
}

/* Lists row r in the record: ran (why NULL), or skipped and why. */
static void ts_auto_note(ts_auto *a, const ts_auto_row *r, const char *why)
{
    ts_search_stats *st = a->c->st;
    if (st->nrows == TS_PORTFOLIO_ROWS_MAX)
        return;
    int i = st->nrows++;
    st->rows[i].name = r->name;
    st->rows[i].ran = why == NULL;
    snprintf(st->rows[i].why, sizeof st->rows[i].why, "%s", why ? why : "");
}

/* Row r, when the request allows it and its test says it applies now. */
static void ts_auto_row_try(ts_auto *a, const ts_auto_row *r)
{
    char buf[sizeof a->c->st->rows[0].why];
    const char *why = NULL;
    if (a->req->candidates && !ts_portfolio_lists(a->req->candidates, r->name))
        why = "not among the candidates the request names";
    else if (r->applies)
        why = r->applies(a, r, buf, sizeof buf);
    ts_auto_note(a, r, why);
    if (!why)
        r->run(a, r);
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

/* Every row, stage by stage; each stage ends with its hook and adds its seconds to its phase. */
static void ts_auto_rows_run(ts_auto *a, double t0)
{
    ts_auto_row rows[TS_AUTO_ROWS_MAX];
    int nrows = ts_auto_rows(rows, TS_AUTO_ROWS_MAX);
    for (int s = 0; s < TS_AUTO_STAGE_COUNT; s++) {
        for (int i = 0; i < nrows; i++)
            if (rows[i].stage == (ts_auto_stage)s)
                ts_auto_row_try(a, &rows[i]);
        ts_auto_stage_close(a, (ts_auto_stage)s);
        t0 = ts_ctx_lap(a->c, ts_auto_stage_phase((ts_auto_stage)s), t0);
    }
}

/* The answer, or auto's refusal when nothing fits: the first search's, or its own. */
static int ts_auto_answer(ts_auto *a, const ts_placement *p, const ts_search_opts *o,
                          ts_schedule **out, ts_err *e)
{
    char mem[64] = "without a memory limit";
    if (o->has_memory) {
        char caps[48];
        snprintf(mem, sizeof mem, "within memory %s",
                 ts_search_memory_text(o, p->ndevs, caps, sizeof caps));
    }
    a->c->st->min_memory = a->min_memory;
    if (!a->pool[0].at && a->why.code)
        return ts_fail(e, a->why.code, "%s", a->why.msg);
    if (!a->pool[0].at)
        return ts_fail(e, TS_ENOANSWER,
                       "auto: no baseline or search found a schedule of '%s' at N = %d %s in "
                       "%.3g s",
                       p->name, a->n, mem,
                       o->time_limit > 0 ? o->time_limit : TS_AUTO_DEFAULT_LIMIT);
    *out = ts_auto_finish(a);
    return TS_OK;
}

int ts_auto_run(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                ts_search_stats *st, double *rows_spent, ts_err *e)
{
    ts_search_ctx c;
    *rows_spent = 0;
    ts_search_opts local = *o;
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
    a.rerun = ts_auto_run;
    double t0 = ts_clock_now();
    a.bound = ts_bound_value(p, a.n, a.cap);
    t0 = ts_ctx_lap(&c, TS_PHASE_BOUNDS, t0);
    ts_auto_rows_run(&a, t0);
    rc = ts_auto_answer(&a, p, o, out, e);
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
