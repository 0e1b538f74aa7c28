/* The search rows of `tessel compare`, and the rule that auto never loses to them.
 *
 * compare prints one row per search method; auto runs the same rows as candidates. Both take a
 * row's request from here (ts_search_row_opts), built from the same few fields of the user's
 * request: the memory, N, the time limit and the effort. A search spends a counted effort
 * (ts_search_ctx.h), so the same request gives the same schedule; auto runs each row on a meter
 * of its own, as compare's row runs, under a wall-clock cap of its own of the request's time
 * limit, and measures it at N the way compare measures it (unrolled or cut, replayed as early as
 * each device's order allows). Auto keeps the shortest schedule it measures, so it is never
 * longer than any row compare prints, but in two cases: auto met the lower bound (or came within
 * --gap of it) and stopped before the rest, where no row that fits can be shorter than the bound;
 * or a wall-clock cap cut a row, which the record says (timed_out). */
#include <string.h>
#include "ts_rows.h"
#include "ts_search_ctx.h"

/* The order auto runs them in: the quick ones first, since auto stops at the bound. fast first:
 * its refusal names the memory a schedule needs. */
static const ts_method ts_rows[] = {TS_METHOD_FAST, TS_METHOD_MODULO, TS_METHOD_LAZY,
                                    TS_METHOD_FULL};
/* every method but auto has a row */
_Static_assert(sizeof ts_rows / sizeof ts_rows[0] == TS_METHOD_COUNT - 1,
               "a search method without a compare row");

int ts_search_row_count(void)
{
    return (int)(sizeof ts_rows / sizeof ts_rows[0]);
}

ts_method ts_search_row_method(int i)
{
    return ts_rows[i];
}

const char *ts_search_row_skip(const ts_placement *p, ts_method m)
{
    /* lazy enumerates offsets: beyond this, one row of it takes minutes of wall time for its
     * effort (xshape on 32 devices: 87 s for 10 s of effort on a loaded machine) and gives the
     * longest schedule of the table (1302 against 344) */
    if (m == TS_METHOD_LAZY &&
        (p->ndevs > TS_SEARCH_ROW_LAZY_DEVS || p->nblocks > TS_SEARCH_ROW_LAZY_BLOCKS))
        return "not run by default on more than 8 devices or 24 blocks: lazy enumerates "
               "offsets (auto's rule; --methods lazy runs it)";
    return NULL;
}

void ts_search_row_opts(const ts_search_opts *req, ts_method m, ts_search_opts *row)
{
    ts_search_opts_init(row);
    row->method = m;
    row->has_memory = req->has_memory;
    row->memory = req->memory;
    /* ts_search_opts_memory keeps a uniform list by value, so a list and a number that give
     * every device the same capacity make the same request */
    row->memory_per_device = req->has_memory ? req->memory_per_device : NULL;
    row->micro_batches = req->micro_batches > 0 ? req->micro_batches : TS_DEFAULT_MICRO_BATCHES;
    row->time_limit = req->time_limit > 0 ? req->time_limit : TS_SEARCH_ROW_DEFAULT_LIMIT;
    row->effort = req->effort;
    row->cancel = req->cancel;
}

int ts_search_row_run(const ts_placement *p, const ts_search_opts *req, ts_method m, double cap,
                      ts_schedule **out, ts_search_stats *st, double *spent, ts_err *e)
{
    ts_search_opts so;
    ts_search_row_opts(req, m, &so);
    ts_meter own;
    /* compare's row: a fresh meter, capped at the time limit from its start */
    ts_meter_init(&own, cap > 0 ? cap : so.time_limit);
    so.meter = &own;
    /* the dispatcher that ran auto, which runs this row (ts_search_opts.dispatch) */
    if (!req->dispatch)
        return ts_fail(e, TS_ESYS, "search row %s: no dispatcher (run auto through ts_search)",
                       ts_method_name(m));
    int rc = req->dispatch(p, &so, out, st, e);
    *spent = own.spent;
    return rc;
}
