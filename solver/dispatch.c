/* ts_search: the input checks every method shares, and the dispatch to the method that the
 * registry (ts_methods.h) names. The methods run in the search context of search.c. */
#include <stdlib.h>
#include "ts_memory.h"
#include "ts_search_ctx.h"
#include "ts_solver.h"

/* A device that keeps memory from every micro-batch overflows any capacity. */
static int ts_check_memory_growth(const ts_placement *p, ts_err *e)
{
    long *net = calloc((size_t)p->ndevs + 1, sizeof *net);
    if (!net)
        return ts_fail(e, TS_ESYS, "solver: out of memory");
    ts_net_memory(p, net);
    for (int d = 0; d < p->ndevs; d++)
        if (net[d] > 0) {
            long v = net[d];
            free(net);
            return ts_fail(e, TS_ENOANSWER,
                           "no schedule of '%s' fits a memory limit: device %d keeps %ld units "
                           "from every micro-batch (its blocks' memory does not sum to 0 or "
                           "less), so memory grows without bound",
                           p->name, d, v);
        }
    free(net);
    return TS_OK;
}

static int ts_search_check(const ts_placement *p, const ts_search_opts *o, ts_err *e)
{
    if (ts_placement_check(p, p->name ? p->name : "placement", e))
        return e ? e->code : TS_EINPUT;
    if (p->nblocks == 0)
        return ts_fail(e, TS_EINPUT, "search: the placement '%s' has no blocks", p->name);
    for (int d = 0; o->has_memory && d < p->ndevs; d++)
        if (ts_search_cap(o, d) < 0)
            return ts_fail(e, TS_EINPUT,
                           "search: the memory capacity of device %d must be >= 0, not %ld", d,
                           ts_search_cap(o, d));
    if (o->k < 0 || o->micro_batches < 0)
        return ts_fail(e, TS_EINPUT, "search: k and N must not be negative");
    if (o->candidates && o->method != TS_METHOD_AUTO)
        return ts_fail(e, TS_EINPUT,
                       "search: candidates name rows of auto's portfolio: method %s has none",
                       ts_method_name(o->method));
    if (o->candidates && ts_portfolio_check(o->candidates, e))
        return TS_EINPUT;
    return o->has_memory ? ts_check_memory_growth(p, e) : TS_OK;
}

/* The function of each row of the methods' registry (ts_methods.h), by the same index. */
static const ts_search_fn ts_search_fns[TS_METHOD_COUNT] = {
    [TS_METHOD_LAZY] = ts_search_lazy, [TS_METHOD_FAST] = ts_search_fast,
    [TS_METHOD_FULL] = ts_search_full, [TS_METHOD_MODULO] = ts_search_modulo,
    [TS_METHOD_AUTO] = ts_search_auto,
};

int ts_search(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
              ts_search_stats *st, ts_err *e)
{
    *out = NULL;
    ts_search_stats local;
    if (!st)
        st = &local;
    ts_search_stats_reset(st);
    int rc = ts_search_check(p, o, e);
    if (rc)
        return rc;
    if ((int)o->method < 0 || o->method >= TS_METHOD_COUNT)
        return ts_fail(e, TS_EINPUT, "search: unknown method %d", (int)o->method);
    /* The effort, in seconds of effort, is what the methods read as their limit (--effort, or
     * --time-limit's seconds); the wall-clock cap is --time-limit from now less its finishing
     * share, on the one meter every part of the search spends on. */
    ts_search_opts so = *o;
    so.dispatch = ts_search;
    ts_meter m;
    if (!so.meter) {
        /* the deadline leaves what finishing will cost (the label, the caller's summary and file
         * at N), so that the whole request ends within about --time-limit */
        ts_meter_init(&m, o->time_limit > 0 ? o->time_limit * ts_finish_share(p, o) : 0);
        so.meter = &m;
    }
    if (o->effort > 0)
        so.time_limit = o->effort / TS_EFFORT_PER_SECOND;
    if (o->per_period > 1) {
        int rc = ts_search_folded(p, &so, ts_search_fns[o->method], out, st, e);
        /* its schedule comes at N: written with its repetend when its steady state repeats (R
         * or a few micro-batches per period), so that show, export and validate take it to any
         * N */
        if (rc == TS_OK && *out && ts_schedule_find_repetend(*out) < 0)
            rc = ts_fail(e, TS_ESYS, "search: out of memory");
        return rc;
    }
    /* The method runs in its own context, which records its seconds and attaches the record. */
    return ts_search_fns[o->method](p, &so, out, st, e);
}
