/* The claims of a search record at the user's N and memory (see ts_label.h). */
#include <stdlib.h>
#include "ts_bound.h"
#include "ts_label.h"

/* The makespan of s at n micro-batches, replayed as early as each device's order allows; -1
 * when s cannot be taken to n. */
static long ts_label_makespan(const ts_schedule *s, int n)
{
    ts_err e = {0};
    ts_schedule *u = NULL;
    if (n == s->nmicros || (n > s->nmicros && !s->has_repetend))
        u = ts_schedule_clone(s);
    else if (ts_schedule_unroll(s, n, &u, &e) != TS_OK)
        return -1;
    if (!u)
        return -1;
    ts_schedule_tighten(u, &e); /* a failure keeps the planned steps, which are valid too */
    /* The makespan as ts_schedule_metrics measures it, without the rest of the metrics (device
     * orders, peaks, the bound): a million instances cost tenths of a second more. */
    long first, last, mk = -1;
    if (u->nmicros == n) {
        ts_schedule_span(u, &first, &last);
        mk = last - first;
    }
    ts_schedule_free(u);
    return mk;
}

void ts_search_label_at(const ts_placement *p, const ts_search_opts *o, const ts_schedule *s,
                        ts_search_stats *st)
{
    st->optimal = false;
    st->gap_to_bound = -1;
    int n = o->micro_batches > 0 ? o->micro_batches : TS_DEFAULT_MICRO_BATCHES;
    if ((long)n * p->nblocks > TS_LABEL_MAX_INSTANCES)
        return;
    long *cap = NULL;
    if (o->has_memory) {
        cap = malloc((size_t)p->ndevs * sizeof(long));
        if (!cap)
            return;
        for (int d = 0; d < p->ndevs; d++)
            cap[d] = ts_search_cap(o, d);
    }
    long mk = ts_label_makespan(s, n), lb = ts_bound_value(p, n, cap);
    free(cap);
    if (mk < 0 || lb <= 0)
        return;
    st->optimal = mk <= lb;
    st->gap_to_bound = (double)(mk - lb) / (double)lb;
}

void ts_search_label(const ts_placement *p, const ts_search_opts *o, const ts_schedule *s,
                     ts_search_stats *st)
{
    if (o->method == TS_METHOD_AUTO)
        return; /* auto measured its schedule at N against the same bound: its claims stand */
    st->period_optimal = st->optimal;
    ts_search_label_at(p, o, s, st);
}
