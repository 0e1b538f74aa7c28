/* The search machinery every method shares: the options table, the statistics and their JSON,
 * the clock and deadline, phases and progress (the search context). It calls no method: the
 * methods call it (ts_search's dispatch is in dispatch.c). */
#include <stdlib.h>
#include <string.h>
#include "ts_caps.h"
#include "ts_label.h"
#include "ts_search_ctx.h"
#include "ts_solver.h"

/* ---- options ------------------------------------------------------------------------------- */

const ts_search_option ts_search_options[TS_OPT_COUNT] = {
#define TS_X_OPT_ROW(f, t, def, lo, hi, sh, flag, py, help)                                            \
    [TS_OPT_##f] = {flag, def, lo, hi, help, sh, _Generic((t)0, int : true, default : false)},
    TS_SEARCH_OPTIONS(TS_X_OPT_ROW)
#undef TS_X_OPT_ROW
};

void ts_search_opts_init(ts_search_opts *o)
{
    memset(o, 0, sizeof *o);
    o->method = TS_METHOD_LAZY;
#define TS_X_OPT_INIT(f, t, def, lo, hi, sh, flag, py, help) o->f = (t)(def);
    TS_SEARCH_OPTIONS(TS_X_OPT_INIT)
#undef TS_X_OPT_INIT
}

int ts_search_opts_set(ts_search_opts *o, ts_search_option_id id, double v)
{
    if (id < 0 || id >= TS_OPT_COUNT || !(v >= ts_search_options[id].min) ||
        !(v <= ts_search_options[id].max))
        return -1;
    switch (id) {
#define TS_X_OPT_SET(f, t, def, lo, hi, sh, flag, py, help)                                            \
    case TS_OPT_##f: o->f = (t)v; break;
        TS_SEARCH_OPTIONS(TS_X_OPT_SET)
#undef TS_X_OPT_SET
    default: return -1;
    }
    return 0;
}

void ts_search_opts_memory(ts_search_opts *o, const long *cap, int ndevs)
{
    o->has_memory = true;
    o->memory_per_device = NULL;
    o->memory = ndevs > 0 ? cap[0] : 0;
    for (int d = 1; d < ndevs; d++) {
        if (cap[d] != cap[0])
            o->memory_per_device = cap;
        if (cap[d] > o->memory)
            o->memory = cap[d];
    }
}

const char *ts_search_memory_text(const ts_search_opts *o, int ndevs, char *buf, size_t len)
{
    if (!o->has_memory || !o->memory_per_device)
        return snprintf(buf, len, o->has_memory ? "%ld" : "none", o->memory), buf;
    return ts_caps_text(o->memory_per_device, ndevs, buf, len);
}

/* ---- statistics ---------------------------------------------------------------------------- */

static const char *const ts_phase_names[TS_PHASE_COUNT] = {
#define TS_X_PHASE_NAME(id, name) name,
    TS_SEARCH_PHASES(TS_X_PHASE_NAME)
#undef TS_X_PHASE_NAME
};

const char *ts_phase_name(ts_phase ph)
{
    return (int)ph >= 0 && ph < TS_PHASE_COUNT ? ts_phase_names[ph] : "unknown";
}

void ts_search_stats_reset(ts_search_stats *st)
{
    memset(st, 0, sizeof *st);
#define TS_X_STAT_INIT(f, t, key, kind, init, doc) st->f = init;
    TS_SEARCH_STATS(TS_X_STAT_INIT)
#undef TS_X_STAT_INIT
}

/* One JSON value per kind of TS_SEARCH_STATS. */
#define TS_STAT_JSON_INT(v) json_integer((json_int_t)(v))
#define TS_STAT_JSON_BOOL(v) json_boolean(v)
#define TS_STAT_JSON_REAL(v) json_real((double)(v))
#define TS_STAT_JSON_COUNT(v) ((v) >= 0 ? json_integer((json_int_t)(v)) : json_null())
#define TS_STAT_JSON_TEXT(v) ((v) ? json_string(v) : json_null())

void ts_search_stats_json(const ts_search_stats *st, json_t *j)
{
#define TS_X_STAT_JSON(f, t, key, kind, init, doc)                                                 \
    json_object_set_new(j, key, TS_STAT_JSON_##kind(st->f));
    TS_SEARCH_STATS(TS_X_STAT_JSON)
#undef TS_X_STAT_JSON
}

json_t *ts_search_seconds_json(const ts_search_stats *st)
{
    json_t *j = json_object();
    if (!j)
        return NULL;
    json_object_set_new(j, "total", json_real(st->seconds));
    for (int i = 0; i < st->nphases; i++)
        json_object_set_new(j, st->phases[i].name, json_real(st->phases[i].seconds));
    json_t *pf = json_array();
    for (int i = 0; i < st->nportfolio; i++)
        json_array_append_new(pf, json_real(st->portfolio[i].seconds));
    json_object_set_new(j, "portfolio", pf);
    return j;
}

json_t *ts_search_record(const ts_search_opts *o, const ts_search_stats *st)
{
    json_t *j = json_object();
    if (!j)
        return NULL;
    json_object_set_new(j, "method", json_string(ts_method_name(o->method)));
    ts_search_stats_json(st, j);
    /* auto's candidates: deterministic figures here, their wall seconds under search_seconds */
    json_t *pf = json_array();
    for (int i = 0; i < st->nportfolio; i++) {
        json_t *x = json_object();
        json_object_set_new(x, "source", json_string(st->portfolio[i].source));
        long mk = st->portfolio[i].makespan;
        json_object_set_new(x, "makespan", mk >= 0 ? json_integer(mk) : json_null());
        json_object_set_new(x, "effort", json_integer((json_int_t)st->portfolio[i].effort));
        json_array_append_new(pf, x);
    }
    json_object_set_new(j, "portfolio", pf);
    json_object_set_new(j, "portfolio_tried", json_integer(st->portfolio_tried));
    /* auto: every row of the portfolio, ran or skipped (and why); empty for the other methods */
    json_t *rows = json_array();
    for (int i = 0; i < st->nrows; i++)
        json_array_append_new(rows, st->rows[i].ran
                                        ? json_pack("{ss sb}", "row", st->rows[i].name, "ran", 1)
                                        : json_pack("{ss sb ss}", "row", st->rows[i].name, "ran",
                                                    0, "why", st->rows[i].why));
    json_object_set_new(j, "portfolio_rows", rows);
    json_object_set_new(j, "search_seconds", ts_search_seconds_json(st));
    return j;
}

json_t *ts_search_memory_json(const ts_search_opts *o, int ndevs)
{
    if (!o->has_memory)
        return json_string("none");
    if (!o->memory_per_device)
        return json_integer(o->memory);
    json_t *a = json_array();
    for (int d = 0; a && d < ndevs; d++)
        json_array_append_new(a, json_integer(o->memory_per_device[d]));
    return a;
}

/* The options as the schedule file records them (the command line prints its own). */
static json_t *ts_search_options_json(const ts_search_opts *o, int ndevs)
{
    json_t *opt = json_object();
    if (!opt)
        return NULL;
    json_object_set_new(opt, "memory", ts_search_memory_json(o, ndevs));
    /* auto's rows as the request named them (absent: every row), so that a file says how to
     * rerun the search that made it */
    if (o->candidates)
        json_object_set_new(opt, "candidates", json_string(o->candidates));
#define TS_X_OPT_JSON(f, t, def, lo, hi, sh, flag, py, help)                                           \
    json_object_set_new(opt, #f, _Generic(o->f, int : json_integer, default : json_real)(o->f));
    TS_SEARCH_OPTIONS(TS_X_OPT_JSON)
#undef TS_X_OPT_JSON
    return opt;
}

/* ---- time and effort ----------------------------------------------------------------------- */

void ts_meter_init(ts_meter *m, double seconds)
{
    m->spent = 0;
    m->wall = seconds > 0 ? ts_clock_now() + seconds : 0;
    m->wall_hit = false;
}

double ts_meter_now(const ts_meter *m)
{
    return m ? m->spent / TS_EFFORT_PER_SECOND : 0;
}

bool ts_meter_wall_over(ts_meter *m)
{
    if (!m)
        return false;
    if (m->wall_hit)
        return true;
    if (m->wall > 0 && ts_clock_now() >= m->wall)
        m->wall_hit = true;
    return m->wall_hit;
}

void ts_meter_spend(ts_meter *m, double units)
{
    if (m && units > 0)
        m->spent += units;
}

void ts_budget_init(ts_budget *b, ts_meter *m, double seconds)
{
    b->m = m;
    b->start = ts_meter_now(m);
    b->deadline = seconds > 0 ? b->start + seconds : 0;
    b->cancel = NULL;
}

/* The caller cancelled the search: like the wall-clock cap, a moment that differs from run to
 * run, so the meter marks it hit (the record says timed_out). */
static bool ts_budget_cancelled(const ts_budget *b)
{
    if (!b->cancel || !*b->cancel)
        return false;
    if (b->m)
        b->m->wall_hit = true;
    return true;
}

double ts_budget_left(const ts_budget *b)
{
    if (ts_budget_cancelled(b))
        return 0;
    double left = b->deadline > 0 ? b->deadline - ts_meter_now(b->m) : 1e9;
    /* the effort first: when it is spent, the answer is the same on every machine */
    if (left <= 0)
        return 0;
    return ts_meter_wall_over(b->m) ? 0 : left;
}

bool ts_budget_over(const ts_budget *b)
{
    if (ts_budget_cancelled(b))
        return true;
    ts_meter_spend(b->m, TS_EFFORT_TICK);
    if (b->deadline > 0 && ts_meter_now(b->m) >= b->deadline)
        return true;
    return ts_meter_wall_over(b->m);
}

double ts_budget_call(const ts_budget *b, double cap)
{
    double left = ts_budget_left(b);
    if (cap > 0 && cap < left)
        return cap;
    return left;
}

/* ---- the search context -------------------------------------------------------------------- */

int ts_ctx_begin(ts_search_ctx *c, const ts_placement *p, const ts_search_opts *o,
                 ts_search_stats *st, ts_err *e)
{
    memset(c, 0, sizeof *c);
    c->p = p;
    c->o = o;
    c->st = st ? st : &c->local;
    ts_search_stats_reset(c->st);
    c->meter = o->meter;
    if (!c->meter) {
        c->meter = &c->own;
        ts_meter_init(&c->own, o->time_limit);
    }
    c->spent0 = c->meter->spent;
    c->wall0 = ts_clock_now();
    ts_budget_init(&c->budget, c->meter, o->time_limit);
    c->budget.cancel = o->cancel;
    c->last_progress = -1;
    if (!o->has_memory)
        return TS_OK;
    if (!(c->cap = malloc((size_t)p->ndevs * sizeof *c->cap + 1)))
        return ts_fail(e, TS_ESYS, "solver: out of memory");
    for (int d = 0; d < p->ndevs; d++)
        c->cap[d] = ts_search_cap(o, d);
    return TS_OK;
}

int ts_ctx_end(ts_search_ctx *c, int rc, ts_schedule *s)
{
    if (rc == TS_OK && s)
        ts_search_label(c->p, c->o, s, c->st); /* before the clock stops: labelling is work */
    c->st->seconds = ts_ctx_elapsed(c);
    /* A method marks timed_out when a budget cut its search; the meter tells which cut it: the
     * effort (the same on every machine: effort_out) or the wall-clock cap (timed_out). */
    ts_search_stats *st = c->st;
    st->timed_out = st->timed_out || st->effort_out;
    st->effort_out = st->timed_out && !c->meter->wall_hit;
    st->timed_out = c->meter->wall_hit;
    st->effort = (long long)(c->meter->spent - c->spent0);
    free(c->cap);
    c->cap = NULL;
    if (rc != TS_OK || !s)
        return rc;
    json_t *info = ts_search_record(c->o, c->st);
    if (info) {
        json_object_set_new(info, "options", ts_search_options_json(c->o, c->p->ndevs));
        ts_schedule_set_search_info(s, info);
    }
    return rc;
}

double ts_ctx_elapsed(const ts_search_ctx *c)
{
    return ts_clock_now() - c->wall0;
}

double ts_ctx_spent(const ts_search_ctx *c)
{
    return ts_meter_now(c->meter) - c->budget.start;
}

double ts_finish_share(const ts_placement *p, const ts_search_opts *o)
{
    int n = o->micro_batches > 0 ? o->micro_batches : TS_DEFAULT_MICRO_BATCHES;
    if (o->time_limit <= 0)
        return 1;
    long slots = 0; /* a block on several devices is in each one's order */
    for (int b = 0; b < p->nblocks; b++)
        slots += p->blocks[b].ndevices;
    double share = 1 - (double)n * (double)slots * TS_FINISH_SECONDS / o->time_limit;
    return share < TS_LAZY_SHARE_MIN ? TS_LAZY_SHARE_MIN
           : share > TS_LAZY_SHARE   ? TS_LAZY_SHARE
                                     : share;
}

bool ts_ctx_over(const ts_search_ctx *c)
{
    return ts_budget_over(&c->budget);
}

bool ts_ctx_cut(ts_search_ctx *c)
{
    if (!ts_ctx_over(c))
        return false;
    c->st->timed_out = true;
    return true;
}

ts_budget ts_ctx_share(const ts_search_ctx *c, double fraction)
{
    ts_budget b = c->budget;
    if (b.deadline > 0)
        b.deadline = b.start + (b.deadline - b.start) * fraction;
    return b;
}

void ts_ctx_phase(ts_search_ctx *c, ts_phase ph, double seconds)
{
    ts_search_stats *st = c->st;
    const char *name = ts_phase_name(ph);
    for (int i = 0; i < st->nphases; i++)
        if (st->phases[i].name == name) {
            st->phases[i].seconds += seconds;
            return;
        }
    /* Each phase appears once, so the table (one slot per phase) never fills. */
    st->phases[st->nphases].name = name;
    st->phases[st->nphases].seconds = seconds;
    st->nphases++;
}

double ts_ctx_lap(ts_search_ctx *c, ts_phase ph, double t0)
{
    double now = ts_clock_now();
    ts_ctx_phase(c, ph, now - t0);
    return now;
}

void ts_ctx_progress(ts_search_ctx *c, ts_phase ph, long tried, long total, long best_bubbles,
                     bool force)
{
    if (!c->o->progress)
        return;
    double now = ts_clock_now();
    if (!force && c->last_progress >= 0 && now - c->last_progress < 0.2)
        return;
    c->last_progress = now;
    ts_search_progress pr = {ts_phase_name(ph), tried, total, best_bubbles, now - c->wall0};
    c->o->progress(c->o->progress_ud, &pr);
}
