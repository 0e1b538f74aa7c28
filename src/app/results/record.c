/* The search record: what `tessel search --json` prints of a search, and the explorer's summary
 * of one, built from the same function so that a new TS_SEARCH_STATS key reaches both. */
#ifdef TS_HAVE_SOLVER
#include "ts_results.h"

const char *ts_results_optimal_by(const ts_search_stats *st)
{
    if (!st->optimal)
        return NULL;
    /* label.c sets optimal above the bound (a gap above 0) only on the exact search's refusal
     * of every shorter makespan */
    return st->gap_to_bound > 0 ? "the exact search refuted every shorter schedule"
                                : "meets the lower bound";
}

const char *ts_results_period_claim(const ts_search_stats *st)
{
    /* a period without a bubble is the busiest device's load: no repetend's is smaller */
    if (st->bubbles == 0)
        return "no bubble in the period";
    return st->period_optimal ? "smallest period of its class" : "period not proven minimal";
}

json_t *ts_results_search_json(const ts_placement *p, const ts_search_opts *so,
                               const ts_search_stats *st, const ts_schedule *at,
                               const ts_metrics *m)
{
    json_t *j = json_object(), *rec = ts_search_record(so, st);
    if (!j || !rec) {
        json_decref(j);
        json_decref(rec);
        return NULL;
    }
    json_object_set_new(j, "placement", json_string(p->name));
    json_object_set_new(j, "ndevs", json_integer(p->ndevs));
    json_object_set_new(j, "memory", ts_search_memory_json(so, p->ndevs));
    json_object_set_new(j, "feasible", json_true());
    json_object_update(j, rec);
    json_decref(rec);
    ts_results_metrics_json(j, m, at->nmicros, p->ndevs);
    /* what proves `optimal`, so that a reader of the figures need not infer it from the gap */
    const char *by = ts_results_optimal_by(st);
    json_object_set_new(j, "optimal_by", by ? json_string(by) : json_null());
    return j;
}

json_t *ts_results_refusal_json(const ts_placement *p, const ts_search_opts *so,
                                const ts_search_stats *st, const ts_err *e)
{
    json_t *j = json_object();
    if (!j)
        return NULL;
    json_object_set_new(j, "method", json_string(ts_method_name(so->method)));
    json_object_set_new(j, "placement", json_string(p->name));
    json_object_set_new(j, "memory", ts_search_memory_json(so, p->ndevs));
    json_object_set_new(j, "feasible", json_false());
    json_object_set_new(j, "message", json_string(e->msg));
    json_object_set_new(j, "min_memory",
                        st->min_memory >= 0 ? json_integer(st->min_memory) : json_null());
    json_object_set_new(j, "search_seconds", ts_search_seconds_json(st));
    return j;
}

int ts_results_search(const ts_placement *p, const ts_search_opts *so, const long *cap, int ncap,
                      ts_schedule **out, json_t **summary, ts_err *e)
{
    ts_search_stats st;
    ts_schedule *at = NULL;
    ts_metrics m = {0};
    *out = NULL;
    *summary = NULL;
    int rc = ts_search(p, so, out, &st, e);
    if (rc)
        return rc;
    int at_rc = ts_results_at(*out, so->micro_batches, &at, &m, e);
    json_t *j = at_rc ? NULL : ts_results_search_json(p, so, &st, at, &m);
    if (j) {
        ts_results_fit_json(j, &m, p->ndevs, cap, ncap);
        json_object_set_new(j, "seconds", json_real(st.seconds));
        json_object_set_new(j, "memory_searched", ts_search_memory_json(so, p->ndevs));
    }
    ts_metrics_free(&m);
    ts_schedule_free(at);
    if (!j) {
        ts_schedule_free(*out);
        *out = NULL;
        if (at_rc > 0)
            return e->code ? e->code : TS_EINPUT;
        return ts_fail(e, TS_ESYS, "search: out of memory for its summary");
    }
    *summary = j;
    return TS_OK;
}
#endif
