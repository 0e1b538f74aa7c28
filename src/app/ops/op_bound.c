/* The bound operation (`tessel bound`, Placement.bound, the explorer's check): its option table,
 * its request and LB(N) of a placement within each device's capacity, every term and the one
 * that binds. */
#include <stdlib.h>
#include <string.h>
#include "ts_op_views.h"

static const ts_op_option ts_op_bound_opts[] = {
    {"micro_batches", "n", "micro-batches", 'n', TS_OPV_INT, 1, 1000000, "N",
     "number of micro-batches (required; the explorer's check: 128 when the page gives none)",
     TS_FRONT_ALL, NULL},
    {"memory", NULL, "memory", 'm', TS_OPV_MEMORY, 0, 0, "M|none|M0,M1,...",
     "each device's capacity: one for all, none (the default: no memory terms), or a list of one "
     "per device",
     TS_FRONT_ALL, NULL},
    {"json", NULL, "json", 0, TS_OPV_FLAG, 0, 0, NULL, "print one JSON object", TS_FRONT_CLI,
     "Python and the explorer always answer with an object"},
};

const ts_op ts_op_bound = {"bound",
                           "the lower bound LB(N) of a placement, within each device's memory "
                           "when given: every term and the one that binds",
                           TS_OP_ON_PLACEMENT,
                           "bound",
                           "Placement.bound",
                           "/api/check",
                           NULL,
                           ts_op_bound_opts,
                           (int)(sizeof ts_op_bound_opts / sizeof ts_op_bound_opts[0])};

int ts_op_bound_read(json_t *req, ts_front f, const ts_placement *p, ts_op_bound_req *r, ts_err *e)
{
    double n;
    bool given;
    char name[96];
    memset(r, 0, sizeof *r);
    if (ts_op_read_num(&ts_op_bound, "micro_batches", req, f, &n, &given, e))
        return TS_EINPUT;
    if (!given)
        return ts_fail(e, TS_EINPUT, "%s is required: the number of micro-batches",
                       ts_op_field(&ts_op_bound_opts[0], f, name, sizeof name));
    r->n = (int)n;
    if (ts_op_read_memory(&ts_op_bound, "memory", req, f, p->ndevs, &r->mem, e))
        return TS_EINPUT;
    /* absent: no memory terms (not the capacity a file states: the bound of the placement) */
    if (!r->mem.has_memory)
        return TS_OK;
    if (!(r->cap = malloc((size_t)p->ndevs * sizeof *r->cap)))
        return ts_fail(e, TS_ESYS, "out of memory");
    for (int d = 0; d < p->ndevs; d++)
        r->cap[d] = r->mem.cap[r->mem.n == 1 ? 0 : d];
    return TS_OK;
}

void ts_op_bound_req_free(ts_op_bound_req *r)
{
    ts_op_memory_free(&r->mem);
    free(r->cap);
    memset(r, 0, sizeof *r);
}

static json_t *ts_op_longs(const long *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

/* The keys of `tessel bound --json`, in its order; the memory as the request gave it. */
static json_t *ts_op_bound_json(const ts_placement *p, const ts_op_bound_req *r,
                                const ts_op_bound_res *res)
{
    const ts_bound *b = &res->b;
    json_t *terms = json_object();
    for (int t = 0; terms && t < TS_BOUND_NTERMS; t++)
        json_object_set_new(terms, ts_bound_term_name((ts_bound_term)t),
                            b->term[t] >= 0 ? json_integer(b->term[t]) : json_null());
    json_t *mem = !r->mem.has_memory ? json_string("none")
                  : r->mem.n == 1    ? json_integer(r->mem.cap[0])
                                     : ts_op_longs(r->mem.cap, r->mem.n);
    json_t *j = json_pack("{ss si so sI ss so so}", "placement", p->name, "micro_batches", r->n,
                          "memory", mem, "lower_bound", (json_int_t)b->value, "binding",
                          ts_bound_term_name(b->binding), "terms", terms, "load",
                          ts_op_longs(res->load, p->ndevs));
    if (j)
        json_object_set_new(j, "binding_device",
                            b->device[b->binding] >= 0 ? json_integer(b->device[b->binding])
                                                       : json_null());
    return j;
}

int ts_op_bound_run(const ts_placement *p, const ts_op_bound_req *r, ts_op_bound_res *res,
                    ts_err *e)
{
    memset(res, 0, sizeof *res);
    if (!(res->load = malloc((size_t)p->ndevs * sizeof *res->load)))
        return ts_fail(e, TS_ESYS, "out of memory");
    ts_placement_device_load(p, res->load);
    ts_bound_compute(p, r->n, r->cap, &res->b);
    res->json = ts_op_bound_json(p, r, res);
    return res->json ? TS_OK : ts_fail(e, TS_ESYS, "out of memory");
}

void ts_op_bound_res_free(ts_op_bound_res *res)
{
    free(res->load);
    json_decref(res->json);
    memset(res, 0, sizeof *res);
}
