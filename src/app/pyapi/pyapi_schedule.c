/* Schedules for Python: their summary at N, `tessel validate`, `tessel simulate --json`, `tessel
 * export` (to a file) and `tessel render`, each on the schedule file's text that the request carries. */
#include <stdlib.h>
#include <string.h>
#include "pyapi_internal.h"
#include "ts_pytessel.h"
#include "ts_pytorch.h"
#include "ts_render.h"
#include "ts_results.h"

int ts_py_op_summary(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    ts_schedule *s;
    long n;
    if (ts_py_long(req, "at", "--micro-batches", 1, 1000000, 0, &n, e))
        return TS_EINPUT;
    int rc = ts_py_schedule(req, "--micro-batches", &s, e);
    if (rc)
        return rc;
    ts_err se = {0};
    int ncap = s->has_memory ? s->placement->ndevs : 0;
    *out = ts_results_summary(s, n > 0 ? (int)n : s->nmicros, s->memory, ncap, &se);
    if (!*out)
        rc = ts_py_fail(e, se.code ? se.code : TS_ESYS, "%s", se.msg[0] ? se.msg : "failed");
    ts_schedule_free(s);
    return rc;
}

int ts_py_op_validate(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    ts_validate_opts vo = {0};
    const char *where;
    long n;
    if (ts_py_bool(req, "monotone", &vo.monotone, e) ||
        ts_py_bool(req, "ignore_memory", &vo.ignore_memory, e) ||
        ts_py_string(req, "where", &where, e) ||
        ts_py_long(req, "n", "--micro-batches", 1, 1000000, 0, &n, e))
        return TS_EINPUT;
    where = where ? where : "schedule";
    json_object_del(req, "n"); /* unrolled below, after the file's own micro-batches are judged */
    ts_schedule *s;
    int rc = ts_py_schedule(req, "--micro-batches", &s, e);
    if (rc)
        return rc;
    ts_err ve = {0};
    /* As `tessel validate -n N`: below the file's count only its first N are judged; above it,
     * the file's own micro-batches first, then the unrolled schedule. */
    bool cut = n > 0 && n < s->nmicros;
    int file_n = s->nmicros;
    rc = cut ? TS_OK : ts_schedule_validate(s, &vo, &ve);
    if (!rc && n > 0 && n != s->nmicros) {
        ts_schedule *u;
        rc = ts_schedule_unroll(s, (int)n, &u, &ve);
        ts_schedule_free(s);
        if (rc)
            return ts_py_fail(e, rc, "%s: %s", where, ve.msg);
        s = u;
        rc = ts_schedule_validate(s, &vo, &ve);
    }
    ts_metrics m;
    if (rc) {
        ts_py_fail(e, rc, "%s: invalid%s: %s", where,
                   n > file_n ? " (in the file's micro-batches)" : "", ve.msg);
    } else if (ts_schedule_metrics(s, &m) == 0) {
        *out = json_pack("{sb si sI sI}", "valid", 1, "micro_batches", s->nmicros, "makespan",
                         (json_int_t)m.makespan, "lower_bound", (json_int_t)m.lower_bound);
        ts_metrics_free(&m);
    }
    ts_schedule_free(s);
    return rc;
}

/* Scale factors per block ({"BLOCK": F}), as --scale BLOCK=F; 1 where none is given. */
static int ts_py_scales(json_t *req, const ts_placement *p, double *scale, int *nscale, ts_err *e)
{
    json_t *obj = json_object_get(req, "scale");
    *nscale = 0;
    for (int b = 0; b < p->nblocks; b++)
        scale[b] = 1.0;
    if (!obj || json_is_null(obj))
        return 0;
    if (!json_is_object(obj))
        return ts_py_fail(e, TS_EINPUT, "--scale expects BLOCK=FACTOR pairs");
    const char *id;
    json_t *v;
    json_object_foreach(obj, id, v)
    {
        int b = ts_placement_find(p, id);
        if (b < 0)
            return ts_py_fail(e, TS_EINPUT, "--scale: unknown block '%s'", id);
        double f = json_number_value(v);
        if (!json_is_number(v) || !(f >= 0 && f <= 1e6))
            return ts_py_fail(e, TS_EINPUT, "--scale must be between 0 and 1e+06, got %s",
                              json_is_number(v) ? "a number outside it" : ts_jtype(v));
        scale[b] = f;
        (*nscale)++;
    }
    return 0;
}

/* The keys of `tessel simulate --json`, in its order. */
static json_t *ts_py_sim_json(const ts_schedule *s, const ts_sim_result *r, const ts_metrics *m,
                              double lb)
{
    const ts_placement *p = s->placement;
    double busy = 0;
    for (int i = 0; i < s->nentries; i++)
        busy += (r->finish[i] - r->start[i]) * p->blocks[s->entries[i].block].ndevices;
    double bubble = r->makespan > 0 ? 1.0 - busy / (p->ndevs * r->makespan) : 0.0;
    return json_pack("{ss si sf sI sf sf so so}", "placement", p->name, "micro_batches", s->nmicros,
                     "makespan", r->makespan, "planned_makespan", (json_int_t)m->makespan,
                     "bubble_rate", bubble, "lower_bound", lb, "peak_memory",
                     ts_py_long_array(m->peak, p->ndevs), "load",
                     ts_py_long_array(m->load, p->ndevs));
}

int ts_py_op_simulate(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    ts_sim_opts so = {0};
    long seed;
    const char *where;
    if (ts_py_double(req, "noise", "--noise", 0.0, 0.99, 0, &so.noise, e) ||
        ts_py_long(req, "seed", "--seed", 0, 2147483647L, 1, &seed, e) ||
        ts_py_double(req, "comm-delay", "--comm-delay", 0.0, 1e9, 0, &so.comm_delay, e) ||
        ts_py_string(req, "where", &where, e))
        return TS_EINPUT;
    so.seed = (unsigned long long)seed;
    ts_schedule *s;
    int rc = ts_py_schedule(req, "--micro-batches", &s, e), nscale;
    if (rc)
        return rc;
    double *scale = malloc((size_t)s->placement->nblocks * sizeof(double));
    ts_metrics m = {0};
    ts_sim_result r = {0};
    ts_err se = {0};
    if (!scale) {
        rc = ts_py_fail(e, TS_ESYS, "out of memory");
    } else if ((rc = ts_py_scales(req, s->placement, scale, &nscale, e))) {
    } else if ((so.scale = scale, ts_schedule_validate(s, NULL, &se))) {
        rc = ts_py_fail(e, se.code, "%s: invalid: %s", where ? where : "schedule", se.msg);
    } else if ((rc = ts_simulate(s, &so, &r, &se))) {
        ts_py_fail(e, rc, "%s", se.msg);
    } else if (ts_schedule_metrics(s, &m)) {
        rc = ts_py_fail(e, TS_ESYS, "out of memory");
    } else {
        double lb = (double)m.lower_bound;
        if (nscale || so.comm_delay > 0)
            lb = ts_results_sim_lower_bound(s->placement, s->nmicros, scale, so.comm_delay);
        *out = ts_py_sim_json(s, &r, &m, lb);
    }
    ts_sim_result_free(&r);
    ts_metrics_free(&m);
    free(scale);
    ts_schedule_free(s);
    return rc;
}

/* The writers of `tessel export`, by format name. */
static int (*ts_py_writer(const char *format))(const ts_schedule *, const char *, ts_err *)
{
    if (format && !strcmp(format, "python"))
        return ts_pyexport_save;
    if (format && !strcmp(format, "pytorch"))
        return ts_pytorch_save;
    return NULL;
}

int ts_py_op_export(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    const char *format, *path;
    if (ts_py_string(req, "format", &format, e) || ts_py_string(req, "path", &path, e))
        return TS_EINPUT;
    int (*write)(const ts_schedule *, const char *, ts_err *) = ts_py_writer(format);
    if (!write)
        return ts_py_fail(e, TS_EINPUT, "missing the format (--python or --pytorch)");
    if (!path)
        return ts_py_fail(e, TS_EINPUT, "missing the output file");
    ts_schedule *s;
    int rc = ts_py_schedule(req, "--micro-batches", &s, e);
    if (rc)
        return rc;
    long instances = (long)s->nmicros * s->placement->nblocks;
    ts_err we = {0};
    if (write == ts_pyexport_save && instances > TS_PYEXPORT_MAX_INSTANCES)
        rc = ts_py_fail(e, TS_EINPUT,
                        "%ld instances, more than the limit of %ld (2^22) for the Python "
                        "Tessel's format: ask for fewer micro-batches",
                        instances, (long)TS_PYEXPORT_MAX_INSTANCES);
    else if ((rc = write(s, path, &we)))
        ts_py_fail(e, rc, "%s", we.msg);
    else
        *out = json_pack("{ss}", "path", path);
    ts_schedule_free(s);
    return rc;
}

/* ts_render_svg into a string (open_memstream). */
static int ts_py_svg(const ts_schedule *s, const ts_render_opts *ro, json_t **svg, ts_err *e)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return ts_py_fail(e, TS_ESYS, "out of memory");
    ts_err re = {0};
    int rc = ts_render_svg(s, ro, f, &re);
    if (fclose(f) && !rc)
        rc = ts_py_fail(e, TS_ESYS, "out of memory");
    else if (rc)
        ts_py_fail(e, rc, "%s", re.msg);
    else if (!(*svg = json_stringn(buf, len)))
        rc = ts_py_fail(e, TS_ESYS, "out of memory");
    free(buf);
    return rc;
}

int ts_py_op_render(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    ts_render_opts ro = {0};
    if (ts_py_double(req, "scale", "--scale", 0.01, 1000, 0, &ro.px_per_step, e) ||
        ts_py_string(req, "title", &ro.title, e))
        return TS_EINPUT;
    ts_schedule *s;
    int rc = ts_py_schedule(req, "--micro-batches", &s, e);
    if (rc)
        return rc;
    ts_err ve = {0};
    bool valid = ts_schedule_validate(s, NULL, &ve) == TS_OK;
    json_t *svg = NULL;
    if (!(rc = ts_py_svg(s, &ro, &svg, e))) {
        *out = json_pack("{so sb}", "svg", svg, "valid", valid);
        if (*out && !valid)
            json_object_set_new(*out, "invalid", json_string(ve.msg));
    }
    ts_schedule_free(s);
    return rc;
}
