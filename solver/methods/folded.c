/* --per-period R: a method searched on the R-fold placement (see ts_search_ctx.h). */
#include <stdlib.h>
#include "ts_label.h"
#include "ts_search_ctx.h"

int ts_search_folded(const ts_placement *p, const ts_search_opts *o, ts_search_fn fn,
                     ts_schedule **out, ts_search_stats *st, ts_err *e)
{
    *out = NULL;
    int r = o->per_period, n = o->micro_batches > 0 ? o->micro_batches : TS_DEFAULT_MICRO_BATCHES;
    if (o->method != TS_METHOD_LAZY && o->method != TS_METHOD_FAST && o->method != TS_METHOD_MODULO)
        return ts_fail(e, TS_EINPUT,
                       "search: --per-period takes lazy, fast or modulo, not %s (auto tries two "
                       "micro-batches per period itself; full has no repetend)",
                       ts_method_name(o->method));
    if (o->k > 0)
        return ts_fail(e, TS_EINPUT, "search: --nmicros cannot be combined with --per-period");
    ts_placement *q = NULL;
    int rc = ts_placement_fold(p, r, &q, e);
    if (rc)
        return rc;
    ts_search_opts so = *o;
    so.per_period = 1;
    so.micro_batches = (n + r - 1) / r;
    ts_schedule *f = NULL, *u = NULL, *w = NULL;
    rc = fn(q, &so, &f, st, e);
    if (rc == TS_OK && (rc = ts_schedule_at(f, so.micro_batches, false, &u, e)) == TS_OK &&
        (rc = ts_schedule_unfold(u, p, r, &w, e)) == TS_OK &&
        (rc = ts_schedule_at(w, n, true, out, e)) == TS_OK) {
        if (f->search)
            ts_schedule_set_search_info(*out, json_deep_copy(f->search));
        st->k *= r;
        st->per_period = r;
        ts_search_label_at(p, o, *out, st);
        /* the record carries the figures in p's micro-batches too */
        if (f->search)
            ts_search_stats_json(st, (*out)->search);
    }
    ts_schedule_free(f);
    ts_schedule_free(u);
    ts_schedule_free(w);
    ts_placement_free(q);
    return rc;
}
