/* The search entry point: option defaults, method names, input checks shared by every method,
 * dispatch, and the record of how a schedule was found (stored in the schedule file). */
#include <stdlib.h>
#include <string.h>
#include "ts_encode.h"
#include "ts_solver.h"

static const char *const ts_method_names[] = {"lazy", "fast", "full", "modulo"};

const char *ts_method_name(ts_method m)
{
    if ((int)m < 0 || (int)m >= (int)(sizeof ts_method_names / sizeof ts_method_names[0]))
        return "unknown";
    return ts_method_names[m];
}

int ts_method_parse(const char *s, ts_method *out)
{
    for (int i = 0; i < (int)(sizeof ts_method_names / sizeof ts_method_names[0]); i++)
        if (s && !strcmp(s, ts_method_names[i])) {
            *out = (ts_method)i;
            return 0;
        }
    return -1;
}

void ts_search_opts_init(ts_search_opts *o)
{
    memset(o, 0, sizeof *o);
    o->method = TS_METHOD_LAZY;
    o->micro_batches = 128;
    o->accept = 0.05;
}

static json_t *ts_search_info(const ts_search_opts *o, const ts_search_stats *st)
{
    json_t *j = json_object();
    json_t *ph = json_object();
    if (!j || !ph) {
        json_decref(j);
        json_decref(ph);
        return NULL;
    }
    json_object_set_new(j, "method", json_string(ts_method_name(o->method)));
    json_object_set_new(j, "k", json_integer(st->k));
    json_object_set_new(j, "period", json_integer(st->period));
    json_object_set_new(j, "bubbles_per_repetend", json_integer(st->bubbles));
    json_object_set_new(j, "optimal", json_boolean(st->optimal));
    json_object_set_new(j, "timed_out", json_boolean(st->timed_out));
    json_object_set_new(j, "completion_optimal", json_boolean(st->completion_optimal));
    json_object_set_new(j, "candidates", json_integer(st->candidates));
    json_object_set_new(j, "seconds", json_real(st->seconds));
    for (int i = 0; i < st->nphases; i++)
        json_object_set_new(ph, st->phases[i].name, json_real(st->phases[i].seconds));
    json_object_set_new(j, "phases", ph);
    json_t *opt = json_object();
    if (opt) {
        json_object_set_new(opt, "memory",
                            o->has_memory ? json_integer(o->memory) : json_string("none"));
        json_object_set_new(opt, "nmicros", json_integer(o->nmicros));
        json_object_set_new(opt, "micro_batches", json_integer(o->micro_batches));
        json_object_set_new(opt, "time_limit", json_real(o->time_limit));
        if (o->method == TS_METHOD_FAST)
            json_object_set_new(opt, "accept", json_real(o->accept));
        json_object_set_new(j, "options", opt);
    }
    return j;
}

int ts_search(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
              ts_search_stats *st, ts_err *e)
{
    *out = NULL;
    ts_search_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    st->min_memory = -1;
    if (ts_placement_check(p, p->name ? p->name : "placement", e))
        return e ? e->code : TS_EINPUT;
    if (p->nblocks == 0)
        return ts_fail(e, TS_EINPUT, "search: the placement '%s' has no blocks", p->name);
    if (o->has_memory && o->memory < 0)
        return ts_fail(e, TS_EINPUT, "search: the memory capacity must be >= 0, not %ld",
                       o->memory);
    if (o->nmicros < 0 || o->micro_batches < 0)
        return ts_fail(e, TS_EINPUT, "search: k and N must not be negative");
    if (o->has_memory) {
        /* A device that keeps memory from every micro-batch overflows any capacity. */
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
    }
    double t0 = ts_now();
    int rc;
    switch (o->method) {
    case TS_METHOD_LAZY:
        rc = ts_search_lazy(p, o, out, st, e);
        break;
    case TS_METHOD_FAST:
        rc = ts_search_fast(p, o, out, st, e);
        break;
    case TS_METHOD_FULL:
        rc = ts_search_full(p, o, out, st, e);
        break;
    case TS_METHOD_MODULO:
        rc = ts_search_modulo(p, o, out, st, e);
        break;
    default:
        rc = ts_fail(e, TS_EINPUT, "search: unknown method %d", (int)o->method);
    }
    st->seconds = ts_now() - t0;
    if (rc == TS_OK && *out) {
        json_t *info = ts_search_info(o, st);
        /* Keep what the method recorded of its own (e.g. modulo's latency) beside the common keys. */
        if (info && (*out)->search)
            json_object_update_missing(info, (*out)->search);
        if (info)
            ts_schedule_set_search_info(*out, info);
    }
    return rc;
}
