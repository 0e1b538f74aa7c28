/* Schedules for Python: their summary at N, `tessel validate`, `tessel simulate --json`, `tessel
 * show`, `tessel render` and `tessel trace` through the operations layer (ts_op_views.h: the
 * request's fields are the operation's table's, which schedule.py maps its keywords onto), and
 * `tessel export` (to a file), each on the schedule file's text that the request carries. */
#include <stdlib.h>
#include <string.h>
#include "pyapi_internal.h"
#include "ts_op_export.h"
#include "ts_op_views.h"
#include "ts_pytessel.h"
#include "ts_pytorch.h"
#include "ts_trace.h"

/* The fields of a request on a schedule besides its table's: the file's text and its name. */
static const char *const ts_py_schedule_extra[] = {"schedule", "where", NULL};

/* The schedule of a request for op: its fields checked against op's table, then the file's text
 * parsed (*where names it in messages). */
static int ts_py_op_schedule(const ts_op *op, json_t *req, ts_schedule **s, const char **where,
                             ts_err *e)
{
    if (ts_op_check_keys(op, req, TS_FRONT_PY, ts_py_schedule_extra, e) ||
        ts_py_string(req, "where", where, e))
        return TS_EINPUT;
    *where = *where ? *where : "schedule";
    return ts_py_schedule(req, "--micro-batches", s, e);
}

/* Schedule.summary(n): simulate's schedule at N (a count it cannot reach fails as simulate
 * does), measured as `tessel compare` measures. */
int ts_py_op_summary(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    const char *where;
    ts_schedule *s;
    int n;
    bool replayed;
    if (ts_op_read_at(&ts_op_simulate, req, TS_FRONT_PY, &n, &replayed, e))
        return TS_EINPUT;
    int rc = ts_py_op_schedule(&ts_op_simulate, req, &s, &where, e);
    if (rc)
        return rc;
    *out = ts_op_summary(s, where, n, e);
    ts_schedule_free(s);
    return *out ? TS_OK : e->code ? e->code : ts_py_fail(e, TS_ESYS, "out of memory");
}

int ts_py_op_validate(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    const char *where;
    ts_schedule *s;
    ts_op_validate_req r;
    ts_op_validate_res res = {0};
    if (ts_op_validate_read(req, TS_FRONT_PY, &r, e))
        return TS_EINPUT;
    int rc = ts_py_op_schedule(&ts_op_validate, req, &s, &where, e);
    if (rc)
        return rc;
    if ((rc = ts_op_validate_run(s, where, &r, &res, e)) == TS_OK)
        *out = json_incref(res.json);
    ts_op_validate_res_free(&res);
    ts_schedule_free(s);
    return rc;
}

int ts_py_op_simulate(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    const char *where;
    ts_schedule *s;
    ts_op_simulate_req r = {0};
    ts_op_simulate_res res = {0};
    int rc = ts_py_op_schedule(&ts_op_simulate, req, &s, &where, e);
    if (rc)
        return rc;
    if ((rc = ts_op_simulate_read(req, TS_FRONT_PY, s->placement, &r, e)) == TS_OK &&
        (rc = ts_op_simulate_run(s, where, &r, &res, e)) == TS_OK)
        *out = json_incref(res.json);
    ts_op_simulate_res_free(&res);
    ts_op_simulate_req_free(&r);
    ts_schedule_free(s);
    return rc;
}

/* A view's schedule at N (show, render, trace): read, loaded, run. */
static int ts_py_view(const ts_op *op, json_t *req, ts_op_view_req *r, ts_op_view_res *res,
                      ts_err *e)
{
    const char *where;
    ts_schedule *s;
    if (ts_op_view_read(op, req, TS_FRONT_PY, r, e))
        return TS_EINPUT;
    int rc = ts_py_op_schedule(op, req, &s, &where, e);
    if (rc == TS_OK)
        rc = ts_op_view_run(op, s, where, r, res, e);
    ts_schedule_free(s);
    return rc;
}

/* Schedule.show: `tessel show`'s text (an invalid schedule is shown too). */
int ts_py_op_show(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    ts_op_view_req r;
    ts_op_view_res res = {0};
    char *buf = NULL;
    size_t len = 0;
    int rc = ts_py_view(&ts_op_show, req, &r, &res, e);
    FILE *f = rc ? NULL : open_memstream(&buf, &len);
    if (!rc && !f)
        rc = ts_py_fail(e, TS_ESYS, "out of memory");
    if (f) {
        rc = ts_op_show_write(&res, &r, f, e);
        if (fclose(f) && !rc)
            rc = ts_py_fail(e, TS_ESYS, "out of memory");
    }
    if (!rc && !(*out = json_pack("{so sb}", "text", json_stringn(buf, len), "valid", res.valid)))
        rc = ts_py_fail(e, TS_ESYS, "out of memory");
    free(buf);
    ts_op_view_res_free(&res);
    return rc;
}

/* Schedule.trace: the explorer's trace, as an object. */
int ts_py_op_trace(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    ts_op_view_req r;
    ts_op_view_res res = {0};
    int rc = ts_py_view(&ts_op_trace, req, &r, &res, e);
    if (rc == TS_OK) {
        ts_trace *t = ts_trace_from_schedule(res.at, r.unit_us);
        *out = t ? ts_trace_to_json(t) : NULL;
        ts_trace_free(t);
        rc = *out ? TS_OK : ts_py_fail(e, TS_ESYS, "out of memory");
    }
    ts_op_view_res_free(&res);
    return rc;
}

/* Schedule.to_pytorch_csv / to_python_tessel: the export operation's run (ts_op_export.h), as
 * `tessel export` runs it: n as every command takes it, an invalid schedule refused. */
int ts_py_op_export(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    const char *format, *path, *where;
    long n;
    if (ts_py_string(req, "format", &format, e) || ts_py_string(req, "path", &path, e) ||
        ts_py_string(req, "where", &where, e) || ts_py_long(req, "n", "n", 1, 1000000, 0, &n, e))
        return TS_EINPUT;
    if (!ts_op_export_writer(format))
        return ts_py_fail(e, TS_EINPUT, "missing the format (python or pytorch)");
    if (!path)
        return ts_py_fail(e, TS_EINPUT, "missing the output file");
    json_t *own = json_deep_copy(req);
    if (!own)
        return ts_py_fail(e, TS_ESYS, "out of memory");
    /* the schedule as the file has it: the operation takes it to n */
    json_object_del(own, "n");
    ts_schedule *s;
    int rc = ts_py_schedule(own, "n", &s, e);
    json_decref(own);
    if (rc)
        return rc;
    rc = ts_op_export_run(s, (int)n, format, path, where ? where : "schedule", e);
    if (rc == TS_OK && !(*out = json_pack("{ss}", "path", path)))
        rc = ts_py_fail(e, TS_ESYS, "out of memory");
    ts_schedule_free(s);
    return rc;
}

/* Schedule.from_pytorch_csv: `tessel import --pytorch` of the CSV at path for the request's
 * placement (each rank's actions in the file's order, each as early as its inputs allow), with
 * the capacity given as memory, as --memory records it. */
int ts_py_op_import_pytorch(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    const char *path;
    bool given, has_memory;
    long memory;
    if (ts_py_string(req, "path", &path, e) || ts_py_memory(req, &given, &has_memory, &memory, e))
        return TS_EINPUT;
    if (!path)
        return ts_py_fail(e, TS_EINPUT, "missing the CSV file");
    ts_placement *p;
    int rc = ts_py_placement(req, &p, NULL, 0, e);
    if (rc)
        return rc;
    ts_schedule *s = NULL;
    ts_err le = {0};
    rc = ts_pytorch_load(path, p, &s, &le);
    ts_placement_free(p);
    if (rc)
        return ts_py_fail(e, le.code ? le.code : rc, "%s", le.msg);
    if (given && has_memory)
        ts_schedule_set_uniform_memory(s, memory);
    *out = json_pack("{so}", "schedule", ts_py_schedule_text(s));
    ts_schedule_free(s);
    return *out ? TS_OK : ts_py_fail(e, TS_ESYS, "out of memory");
}

int ts_py_op_render(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e)
{
    (void)h;
    ts_op_view_req r;
    ts_op_view_res res = {0};
    int rc = ts_py_view(&ts_op_render, req, &r, &res, e);
    char *svg = rc ? NULL : ts_op_render_svg(&res, &r, e);
    if (!rc && !svg)
        rc = e->code ? e->code : ts_py_fail(e, TS_ESYS, "out of memory");
    if (svg) {
        *out = json_pack("{ss sb}", "svg", svg, "valid", res.valid);
        if (*out && !res.valid)
            json_object_set_new(*out, "invalid", json_string(res.why));
    }
    free(svg);
    ts_op_view_res_free(&res);
    return rc;
}
