/* The compare row: a baseline built by its rule or a search, measured at N micro-batches the one
 * way every front end measures (ts_results_at), with its status text; and the table's best row.
 * `tessel compare` prints rows as a table or CSV, the explorer sends them as JSON. */
#include <stdlib.h>
#include <string.h>
#include "ts_baseline.h"
#include "ts_clock.h"
#include "ts_json.h"
#include "ts_methods.h"
#include "ts_results.h"
#ifdef TS_HAVE_SOLVER
#include "ts_rows.h"
#endif

bool ts_compare_is_search(const char *name)
{
    ts_method x;
    return ts_method_parse(name, &x) == 0;
}

void ts_compare_row_clear(ts_compare_row *r)
{
    free(r->peak);
    json_decref(r->summary);
    ts_schedule_free(r->schedule);
    r->peak = NULL;
    r->summary = NULL;
    r->schedule = NULL;
}

/* Measures s at n micro-batches into the row. Takes s (kept in the row when o->keep). */
static void ts_compare_measure(const ts_compare_opts *o, ts_schedule *s, ts_compare_row *r)
{
    ts_err e = {0};
    ts_schedule *u;
    ts_metrics m;
    if (s->has_repetend)
        r->per = s->rep.per > 0 ? s->rep.per : 1;
    int rc = ts_results_at(s, o->n, &u, &m, &e);
    if (rc > 0)
        snprintf(r->status, sizeof r->status, "unroll failed: %.120s", e.msg);
    if (rc) {
        ts_schedule_free(s);
        return;
    }
    /* a row is ranked only once it is known valid: a file may hold anything (an action twice,
     * one missing, a broken dependency), and every other row is checked the same way */
    ts_validate_opts vo = {0};
    if (ts_schedule_validate(u, &vo, &e)) {
        snprintf(r->status, sizeof r->status, "invalid: %.140s", e.msg);
        ts_metrics_free(&m);
        ts_schedule_free(u);
        ts_schedule_free(s);
        return;
    }
    int D = u->placement->ndevs;
    r->ndevs = D;
    r->makespan = m.makespan;
    r->lower_bound = m.lower_bound;
    r->bubble_rate = m.bubble_rate;
    r->peak = malloc((size_t)D * sizeof(long));
    r->fits = true;
    for (int d = 0; r->peak && d < D; d++) {
        r->peak[d] = m.peak[d];
        if (o->ncap > 0 && m.peak[d] > o->cap[o->ncap > 1 ? d : 0])
            r->fits = false;
    }
    r->at_n = u->nmicros == o->n;
    if (u->nmicros != o->n) {
        char at[40];
        snprintf(at, sizeof at, " (at N = %d)", u->nmicros);
        strncat(r->status, at, sizeof r->status - strlen(r->status) - 1);
    }
    if (o->keep && !r->summary)
        r->summary = json_object();
    if (o->keep && r->summary) {
        ts_results_metrics_json(r->summary, &m, u->nmicros, D);
        ts_results_fit_json(r->summary, &m, D, o->cap, o->ncap);
    }
    ts_metrics_free(&m);
    ts_schedule_free(u);
    r->ok = r->peak != NULL;
    if (o->keep)
        r->schedule = s;
    else
        ts_schedule_free(s);
}

void ts_compare_row_schedule(const ts_compare_opts *o, const char *name, ts_schedule *s,
                             ts_compare_row *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->method, sizeof r->method, "%s", name);
    r->file = true;
    r->k = r->period = -1;
    strcpy(r->status, "ok (file)");
    ts_compare_measure(o, s, r);
}

static void ts_compare_baseline(const ts_compare_opts *o, const char *kind, ts_compare_row *r)
{
    ts_err e = {0};
    ts_schedule *s = NULL;
    double t0 = ts_clock_now();
    int rc = ts_baseline_make(kind, o->p, o->n, &s, &e);
    r->seconds = ts_clock_now() - t0;
    if (rc != TS_OK) {
        /* The refusal's first clause says why; the list of what it fits is in `baseline --list`. */
        const char *why = strstr(e.msg, ": ");
        snprintf(r->status, sizeof r->status, "does not fit%.140s", why ? why : "");
        char *cut = strstr(r->status, "; it fits");
        if (cut)
            *cut = '\0';
        return;
    }
    strcpy(r->status, "ok");
    ts_compare_measure(o, s, r);
}

#ifdef TS_HAVE_SOLVER
/* The status of a search that found a schedule. */
static void ts_compare_search_status(const ts_search_stats *st, ts_compare_row *r)
{
    char kept[64] = "";
    if (st->source)
        snprintf(kept, sizeof kept, ", kept %s%s", st->source, st->improved ? " improved" : "");
    /* the words of the claim come from what proved it (ts_results_optimal_by) */
    const char *by = ts_results_optimal_by(st);
    char head[96] = "ok";
    if (st->timed_out)
        snprintf(head, sizeof head, "timed out (best found)");
    else if (r->greedy)
        snprintf(head, sizeof head, "not searched: too large for the solver, a greedy schedule");
    else if (by)
        snprintf(head, sizeof head, "ok (optimal: %s)", by);
    snprintf(r->status, sizeof r->status, "%s%s", head, kept);
}

static void ts_compare_search(const ts_compare_opts *o, const char *name, ts_compare_row *r)
{
    /* the request the table was asked for; each row's own is built from it the one way auto
     * builds its candidates (ts_search_row_opts), which is why auto never loses to a row */
    ts_search_opts req, so;
    ts_search_opts_init(&req);
    req.has_memory = o->has_memory;
    req.memory = o->memory;
    if (o->has_memory && o->ncap == o->p->ndevs && o->ncap > 1)
        ts_search_opts_memory(&req, o->cap, o->ncap);
    req.micro_batches = o->n;
    req.time_limit = o->time_limit;
    req.effort = o->effort;
    ts_method m = TS_METHOD_AUTO;
    ts_method_parse(name, &m);
    ts_search_row_opts(&req, m, &so);
    /* the options only auto's portfolio takes */
    if (m == TS_METHOD_AUTO) {
        so.gap = o->gap;
        if (o->seed > 0)
            so.seed = o->seed;
    }
    so.progress = o->progress;
    so.progress_ud = o->progress_ud;
    ts_search_stats st;
    ts_schedule *s = NULL;
    ts_err e = {0};
    double t0 = ts_clock_now();
    int rc = ts_search(o->p, &so, &s, &st, &e);
    r->seconds = ts_clock_now() - t0;
    if (rc != TS_OK || !s) {
        snprintf(r->status, sizeof r->status, "%s: %.130s",
                 rc == TS_ENOANSWER ? (st.timed_out ? "timed out" : "no answer") : "refused",
                 e.msg);
        ts_schedule_free(s);
        return;
    }
    r->k = st.k > 0 ? st.k : -1;
    r->period = st.period > 0 ? st.period : -1;
    for (int i = 0; i < st.nphases; i++)
        r->greedy |= !strcmp(st.phases[i].name, "too_large");
    if (r->greedy)
        snprintf(r->method, sizeof r->method, "%s (greedy)", name);
    ts_compare_search_status(&st, r);
    if (o->keep && (r->summary = ts_search_record(&so, &st))) {
        const char *by = ts_results_optimal_by(&st);
        json_object_set_new(r->summary, "memory_searched", ts_search_memory_json(&so, o->p->ndevs));
        json_object_set_new(r->summary, "optimal_by", by ? json_string(by) : json_null());
    }
    ts_compare_measure(o, s, r);
}
#endif

void ts_compare_row_run(const ts_compare_opts *o, const char *name, ts_compare_row *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->method, sizeof r->method, "%s", name);
    r->search = ts_compare_is_search(name);
    r->k = r->period = -1;
    if (!r->search) {
        ts_compare_baseline(o, name, r);
        return;
    }
#ifdef TS_HAVE_SOLVER
    ts_method m;
    const char *skip =
        o->default_rows && ts_method_parse(name, &m) == 0 ? ts_search_row_skip(o->p, m) : NULL;
    if (skip) {
        snprintf(r->status, sizeof r->status, "%s", skip);
        return;
    }
    ts_compare_search(o, name, r);
#else
    strcpy(r->status, "unavailable: this build has no solver (Z3 was not found)");
#endif
}

int ts_compare_finish(ts_compare_row *rows, int nrows, long lb)
{
    long best = -1;
    int first = -1;
    for (int i = 0; i < nrows; i++) {
        rows[i].lower_bound = lb;
        if (rows[i].ok && rows[i].fits && rows[i].at_n && (best < 0 || rows[i].makespan < best))
            best = rows[i].makespan;
    }
    for (int i = 0; i < nrows; i++) {
        rows[i].best = rows[i].ok && rows[i].fits && rows[i].at_n && rows[i].makespan == best;
        if (rows[i].best && first < 0)
            first = i;
    }
    return first;
}

json_t *ts_compare_row_json(const ts_compare_row *r)
{
    json_t *row = json_pack("{s:s, s:s, s:s}", "method", r->method, "kind",
                            r->search ? "search" : "baseline", "status", r->status);
    if (!row)
        return NULL;
    if (r->k > 0)
        json_object_set_new(row, "k", json_integer(r->k));
    if (r->period > 0)
        json_object_set_new(row, "period", json_integer(r->period));
    if (r->per > 0)
        json_object_set_new(row, "per_period", json_integer(r->per));
    if (r->ok && r->summary) {
        json_t *sum = json_deep_copy(r->summary);
        /* The row's own name (e.g. "full (greedy)") stays. */
        json_object_del(sum, "method");
        json_object_update(row, sum);
        json_decref(sum);
    }
    json_object_set_new(row, "seconds", json_real(r->seconds));
    if (r->ok && r->schedule)
        json_object_set_new(row, "schedule", ts_schedule_to_json(r->schedule));
    return row;
}
