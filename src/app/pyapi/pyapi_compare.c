/* `tessel compare` for Python: every baseline that fits next to every search method (or the
 * names asked for), run in this process one after the other and measured by the results module,
 * answered as one object per row with the columns of `tessel compare --csv`. */
#include <stdlib.h>
#include <string.h>
#include "pyapi_internal.h"
#include "ts_baseline.h"
#include "ts_bound.h"
#include "ts_methods.h"
#include "ts_results.h"

#define TS_PY_CMP_MAX 32

/* The names of the rows: the request's list (checked as --methods is), or every baseline kind
 * then every search method. Returns the count, or -1 with e set. */
static int ts_py_cmp_names(json_t *req, char names[][TS_COMPARE_NAME], bool *listed, ts_err *e)
{
    json_t *list = json_object_get(req, "methods");
    int n = 0;
    *listed = list && !json_is_null(list);
    if (!*listed) {
        for (int i = 0; i < ts_baseline_count(); i++)
            snprintf(names[n++], TS_COMPARE_NAME, "%s", ts_baseline_at(i)->name);
        for (int i = 0; i < TS_METHOD_COUNT && n < TS_PY_CMP_MAX; i++)
            snprintf(names[n++], TS_COMPARE_NAME, "%s", ts_methods[i].name);
        return n;
    }
    if (!json_is_array(list))
        return ts_py_fail(e, TS_EINPUT, "--methods: expected a list of names"), -1;
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v)
    {
        const char *s = json_string_value(v);
        if (!s || !*s || strlen(s) >= TS_COMPARE_NAME)
            return ts_py_fail(e, TS_EINPUT, "--methods: bad entry %zu", i), -1;
        if (n == TS_PY_CMP_MAX)
            return ts_py_fail(e, TS_EINPUT, "--methods: too many entries"), -1;
        if (!ts_baseline_find(s) && !ts_compare_is_search(s)) {
            char ml[128];
            ts_py_fail(e, TS_EINPUT,
                       "--methods: unknown method '%s' (baselines: see `tessel baseline "
                       "--list`; searches: %s)",
                       s, ts_method_list(ml, sizeof ml));
            return -1;
        }
        snprintf(names[n++], TS_COMPARE_NAME, "%s", s);
    }
    return n;
}

/* One row as the columns of `tessel compare --csv` (null where the CSV cell is empty). */
static json_t *ts_py_cmp_row(const ts_placement *p, long n, bool has_memory, long memory,
                             const ts_compare_row *r)
{
    const char *source = r->greedy   ? "greedy"
                         : r->search ? "search"
                         : r->file   ? "file"
                                     : "baseline";
    json_t *j =
        json_pack("{ss si si so ss ss}", "placement", p->name, "ndevs", p->ndevs, "micro_batches",
                  (int)n, "memory", has_memory ? json_integer(memory) : json_string("none"),
                  "method", r->method, "source", source);
    if (!j)
        return NULL;
    json_object_set_new(j, "k", r->k > 0 ? json_integer(r->k) : json_null());
    json_object_set_new(j, "period", r->period > 0 ? json_integer(r->period) : json_null());
    json_object_set_new(j, "makespan", r->ok ? json_integer(r->makespan) : json_null());
    json_object_set_new(j, "lower_bound", r->ok ? json_integer(r->lower_bound) : json_null());
    json_object_set_new(j, "makespan_over_lb",
                        r->ok && r->lower_bound > 0
                            ? json_real((double)r->makespan / (double)r->lower_bound)
                            : json_null());
    json_object_set_new(j, "bubble_rate", r->ok ? json_real(r->bubble_rate) : json_null());
    json_object_set_new(j, "peak_memory",
                        r->ok ? ts_py_long_array(r->peak, p->ndevs) : json_null());
    json_object_set_new(j, "fits", r->ok && has_memory ? json_boolean(r->fits) : json_null());
    json_object_set_new(j, "best", json_boolean(r->ok && r->best));
    json_object_set_new(j, "seconds", json_real(r->seconds));
    json_object_set_new(j, "status", json_string(r->status));
    return j;
}

/* Runs the rows (a baseline that does not fit is left out of the default list, as the command
 * line does), bounds them and marks the best. Returns the row count. */
static int ts_py_cmp_run(const ts_compare_opts *o, char names[][TS_COMPARE_NAME], int nnames,
                         bool listed, ts_compare_row *rows, ts_bound *lb)
{
    int nrows = 0;
    for (int i = 0; i < nnames; i++) {
        ts_err fe = {0};
        if (!listed && !ts_compare_is_search(names[i]) &&
            ts_baseline_fits(names[i], o->p, o->n, &fe) != TS_OK)
            continue;
        ts_compare_row_run(o, names[i], &rows[nrows++]);
    }
    long *cap = o->has_memory ? malloc((size_t)o->p->ndevs * sizeof(long)) : NULL;
    for (int d = 0; cap && d < o->p->ndevs; d++)
        cap[d] = o->memory;
    ts_bound_compute(o->p, o->n, cap, lb);
    free(cap);
    ts_compare_finish(rows, nrows, lb->value);
    return nrows;
}

int ts_py_op_compare(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    long n, memory;
    double limit;
    bool given, has_memory, listed;
    char names[TS_PY_CMP_MAX][TS_COMPARE_NAME];
    if (ts_py_long(req, "micro-batches", "--micro-batches", 1, 100000, TS_DEFAULT_MICRO_BATCHES, &n,
                   e) ||
        ts_py_double(req, "time-limit", "--time-limit", TS_TIME_LIMIT_MIN, TS_TIME_LIMIT_MAX, 60,
                     &limit, e) ||
        ts_py_memory(req, &given, &has_memory, &memory, e))
        return TS_EINPUT;
    if (!given)
        return ts_py_fail(e, TS_EINPUT, "--memory M (or --memory none) is required");
    int nnames = ts_py_cmp_names(req, names, &listed, e);
    if (nnames < 0)
        return TS_EINPUT;
    ts_placement *p;
    int rc = ts_py_placement(req, &p, NULL, 0, e);
    if (rc)
        return rc;
    ts_compare_opts o = {.p = p,
                         .n = (int)n,
                         .has_memory = has_memory,
                         .memory = memory,
                         .cap = &memory,
                         .ncap = has_memory ? 1 : 0,
                         .time_limit = limit,
                         .default_rows = !listed};
    ts_compare_row rows[TS_PY_CMP_MAX];
    ts_bound lb;
    int nrows = ts_py_cmp_run(&o, names, nnames, listed, rows, &lb);
    json_t *list = json_array();
    for (int i = 0; i < nrows; i++) {
        json_array_append_new(list, ts_py_cmp_row(p, n, has_memory, memory, &rows[i]));
        ts_compare_row_clear(&rows[i]);
    }
    *out = json_pack("{so sI ss}", "rows", list, "lower_bound", (json_int_t)lb.value, "binding",
                     ts_bound_term_name(lb.binding));
    ts_placement_free(p);
    return 0;
}
