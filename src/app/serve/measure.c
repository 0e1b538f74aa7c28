/* Figures of a schedule as the page shows them, at N micro-batches: the results module's summary
 * (the one `tessel compare` and `search --json` measure by), with "fits" judged against the
 * request's capacities. */
#include "ts_results.h"
#include "ts_serve.h"

json_t *ts_serve_summary(const ts_schedule *s, int n, const ts_api_request *rq, ts_err *e)
{
    int ncap = rq && rq->has_memory ? rq->nmemory : 0;
    return ts_results_summary(s, n, ncap ? rq->memory : NULL, ncap, e);
}
