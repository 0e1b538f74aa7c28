/* auto's pool: every candidate measured at N the same way (unrolled or cut, tightened,
 * validated, replayed within the memory), listed in the record, and the best TS_AUTO_POOL kept
 * for the improvement rows. */
#include <stdio.h>
#include <string.h>
#include "ts_auto.h"

void ts_auto_cand_free(ts_auto_cand *x)
{
    ts_schedule_free(x->at);
    ts_schedule_free(x->orig);
    memset(x, 0, sizeof *x);
}

long ts_auto_measure(const ts_auto *a, const ts_schedule *s, ts_schedule **at)
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

void ts_auto_offer(ts_auto *a, ts_schedule *at, ts_schedule *orig, long mk, const char *source,
                   const ts_search_stats *sub)
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

void ts_auto_take(ts_auto *a, const ts_schedule *s, const char *source, double t0, double e0)
{
    ts_schedule *at;
    long mk = ts_auto_measure(a, s, &at);
    ts_auto_log(a, source, mk, t0, e0);
    if (mk >= 0)
        ts_auto_offer(a, at, NULL, mk, source, NULL);
}

bool ts_auto_close(const ts_auto *a)
{
    return a->pool[0].at && (double)a->pool[0].makespan <= (double)a->bound * (1 + a->c->o->gap);
}

void ts_auto_log(ts_auto *a, const char *source, long mk, double t0, double e0)
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

bool ts_auto_done(const ts_auto *a)
{
    return ts_auto_close(a) || ts_ctx_over(a->c);
}

double ts_auto_limit(const ts_auto *a)
{
    return a->c->o->time_limit > 0 ? a->c->o->time_limit : TS_AUTO_DEFAULT_LIMIT;
}

/* Whether the comma-separated list names `name` (whole names only). */
bool ts_portfolio_lists(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *s = list; s && *s;) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        if (len == n && !strncmp(s, name, n))
            return true;
        s = end ? end + 1 : NULL;
    }
    return false;
}
