/* Figures of a schedule as the page shows them: at N micro-batches, planned or replayed. The
 * command line's `compare` and `search --json` measure the same way (unrolled, then replayed as
 * early as each device's order allows), so the page and the command line agree. */
#include <stdlib.h>
#include "ts_serve.h"

static json_t *ts_long_array(const long *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

json_t *ts_serve_summary(const ts_schedule *s, int n, const ts_api_request *rq, ts_err *e)
{
    ts_schedule *u;
    ts_metrics m;
    if (ts_schedule_at(s, n, true, &u, e))
        return NULL;
    if (ts_schedule_metrics(u, &m)) {
        ts_schedule_free(u);
        ts_fail(e, TS_ESYS, "schedule: out of memory");
        return NULL;
    }
    int D = u->placement->ndevs;
    bool fits = true;
    for (int d = 0; rq && rq->has_memory && d < D; d++)
        if (m.peak[d] > rq->memory[rq->nmemory > 1 ? d : 0])
            fits = false;
    json_t *j =
        json_pack("{s:i, s:I, s:I, s:f, s:f, s:o, s:o, s:b}", "micro_batches", u->nmicros,
                  "makespan", (json_int_t)m.makespan, "lower_bound", (json_int_t)m.lower_bound,
                  "ratio", m.lower_bound > 0 ? (double)m.makespan / (double)m.lower_bound : 0.0,
                  "bubble_rate", m.bubble_rate, "peak_memory", ts_long_array(m.peak, D), "load",
                  ts_long_array(m.load, D), "fits", fits);
    ts_metrics_free(&m);
    ts_schedule_free(u);
    if (!j)
        ts_fail(e, TS_ESYS, "schedule: out of memory");
    return j;
}
