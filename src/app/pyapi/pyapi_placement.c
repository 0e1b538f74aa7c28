/* Placements for Python: one from a built-in, a file or an object (as `tessel placement`), the
 * list of built-ins (`tessel placements`), and the lower bound (`tessel bound --json`). */
#include <stdlib.h>
#include "pyapi_internal.h"
#include "ts_bound.h"

int ts_py_op_placement(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    ts_placement *p;
    char warning[TS_ERRLEN];
    int rc = ts_py_placement(req, &p, warning, sizeof warning, e);
    if (rc)
        return rc;
    *out = json_pack("{so}", "placement", ts_placement_to_json(p));
    if (*out && warning[0])
        json_object_set_new(*out, "warning", json_string(warning));
    ts_placement_free(p);
    return 0;
}

int ts_py_op_placements(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)req;
    (void)h;
    (void)e;
    json_t *list = json_array();
    for (int i = 0; list && i < ts_builtin_count(); i++) {
        const ts_builtin_info *b = ts_builtin_at(i);
        json_array_append_new(list, json_pack("{ss ss si si si sb}", "name", b->name, "description",
                                              b->description, "min_devs", b->min_devs, "max_devs",
                                              b->max_devs, "step_devs", b->step_devs, "chunks",
                                              b->chunks));
    }
    *out = json_pack("{so}", "placements", list);
    return 0;
}

/* The keys of `tessel bound --json`, in its order. */
static json_t *ts_py_bound_json(const ts_placement *p, long n, bool has_memory, long memory,
                                const ts_bound *b, const long *load)
{
    json_t *terms = json_object();
    for (int t = 0; terms && t < TS_BOUND_NTERMS; t++)
        json_object_set_new(terms, ts_bound_term_name((ts_bound_term)t),
                            b->term[t] >= 0 ? json_integer(b->term[t]) : json_null());
    json_t *j =
        json_pack("{ss si so sI ss so so}", "placement", p->name, "micro_batches", (int)n, "memory",
                  has_memory ? json_integer(memory) : json_string("none"), "lower_bound",
                  (json_int_t)b->value, "binding", ts_bound_term_name(b->binding), "terms", terms,
                  "load", ts_py_long_array(load, p->ndevs));
    if (j)
        json_object_set_new(j, "binding_device",
                            b->device[b->binding] >= 0 ? json_integer(b->device[b->binding])
                                                       : json_null());
    return j;
}

int ts_py_op_bound(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    long n, memory;
    bool given, has_memory;
    if (ts_py_long(req, "n", "--micro-batches", 1, 1000000, 0, &n, e) ||
        ts_py_memory(req, &given, &has_memory, &memory, e))
        return TS_EINPUT;
    if (!n)
        return ts_py_fail(e, TS_EINPUT, "--micro-batches N is required");
    ts_placement *p;
    int rc = ts_py_placement(req, &p, NULL, 0, e);
    if (rc)
        return rc;
    long *load = malloc((size_t)p->ndevs * sizeof(long));
    long *cap = malloc((size_t)p->ndevs * sizeof(long));
    if (load && cap) {
        ts_bound b;
        for (int d = 0; d < p->ndevs; d++)
            cap[d] = memory;
        ts_placement_device_load(p, load);
        ts_bound_compute(p, (int)n, has_memory ? cap : NULL, &b);
        *out = ts_py_bound_json(p, n, has_memory, memory, &b, load);
    }
    free(load);
    free(cap);
    ts_placement_free(p);
    return *out ? 0 : ts_py_fail(e, TS_ESYS, "out of memory");
}
