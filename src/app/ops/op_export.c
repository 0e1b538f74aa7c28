/* The export operation: its option table, its request and its run (ts_op_export.h), one way to
 * take a schedule to another tool, so that `tessel export` and Schedule.export (to_pytorch_csv,
 * to_python_tessel) refuse and write the same. */
#include <string.h>
#include "ts_op_export.h"
#include "ts_pytessel.h"
#include "ts_pytorch.h"

#define TS_OP_EXPORT_NO_SERVE                                                                      \
    "the explorer has no export route: the page saves the schedule (tessel-schedule/1), which "    \
    "`tessel export` converts"

static const ts_op_option ts_op_export_opts[] = {
    {"format", NULL, "format", 0, TS_OPV_TEXT, 0, 0, "FORMAT",
     "python (the Python Tessel's saved schedule: gids, repetend) or pytorch (PyTorch "
     "pipelining's action CSV, a row per rank)",
     TS_FRONT_CLI | TS_FRONT_PY, TS_OP_EXPORT_NO_SERVE},
    {"python", NULL, "python", 0, TS_OPV_FLAG, 0, 0, NULL, "--format python", TS_FRONT_CLI,
     "the command line's shorthand; Python says format=\"python\" (or to_python_tessel); "
     "the explorer has no export route"},
    {"pytorch", NULL, "pytorch", 0, TS_OPV_FLAG, 0, 0, NULL, "--format pytorch", TS_FRONT_CLI,
     "the command line's shorthand; Python says format=\"pytorch\" (or to_pytorch_csv); "
     "the explorer has no export route"},
    {"micro_batches", "n", "micro-batches", 'n', TS_OPV_INT, 1, 1000000, "N",
     "the first N micro-batches, unrolled when N is above the schedule's own (as every command "
     "takes N)",
     TS_FRONT_CLI | TS_FRONT_PY, TS_OP_EXPORT_NO_SERVE},
    {"output", "path", "output", 'o', TS_OPV_TEXT, 0, 0, "FILE",
     "write to FILE (default: stdout; Python returns the text, and writes FILE too when given)",
     TS_FRONT_CLI | TS_FRONT_PY, TS_OP_EXPORT_NO_SERVE},
};

const ts_op ts_op_export = {"export",
                            "a schedule in another tool's format: the Python Tessel's or "
                            "PyTorch pipelining's; an invalid schedule is refused",
                            TS_OP_ON_SCHEDULE,
                            "export",
                            "Schedule.export",
                            NULL,
                            NULL,
                            ts_op_export_opts,
                            (int)(sizeof ts_op_export_opts / sizeof ts_op_export_opts[0])};

ts_op_writer ts_op_export_writer(const char *format)
{
    if (format && !strcmp(format, "python"))
        return ts_pyexport_save;
    if (format && !strcmp(format, "pytorch"))
        return ts_pytorch_save;
    return NULL;
}

int ts_op_export_read(json_t *req, ts_front f, ts_op_export_req *r, ts_err *e)
{
    const ts_op_option *fo = ts_op_option_find(&ts_op_export, "format");
    bool given, python = false, pytorch = false;
    int n = 0;
    memset(r, 0, sizeof *r);
    if (ts_op_read_text(&ts_op_export, "format", req, f, &r->format, &given, e) ||
        ts_op_read_flag(&ts_op_export, "python", req, f, &python, e) ||
        ts_op_read_flag(&ts_op_export, "pytorch", req, f, &pytorch, e) ||
        ts_op_read_int(&ts_op_export, "micro_batches", req, f, &n, e) ||
        ts_op_read_text(&ts_op_export, "output", req, f, &r->path, &given, e))
        return TS_EINPUT;
    r->n = n;
    /* a shorthand is the format it names; two formats are one too many */
    const char *shorthand = python && pytorch ? "" : python ? "python" : pytorch ? "pytorch" : NULL;
    if (shorthand && (!*shorthand || (r->format && strcmp(r->format, shorthand))))
        return ts_op_refuse(fo, f, e, "and its shorthands: choose one format");
    if (shorthand)
        r->format = shorthand;
    if (!r->format)
        return ts_op_refuse(fo, f, e, "is missing: python or pytorch");
    if (!ts_op_export_writer(r->format))
        return ts_op_refuse(fo, f, e, "'%s' is not a format: python or pytorch", r->format);
    return TS_OK;
}

int ts_op_export_run(const ts_schedule *s, int n, const char *format, const char *path,
                     const char *where, ts_err *e)
{
    ts_op_writer write = ts_op_export_writer(format);
    if (!write)
        return ts_fail(e, TS_EINPUT, "export: unknown format '%s' (python or pytorch)",
                       format ? format : "");
    /* the Python format's cap, checked before unrolling so that a huge N costs nothing */
    long instances = (n > 0 ? n : s->nmicros) * (long)s->placement->nblocks;
    if (write == ts_pyexport_save && instances > TS_PYEXPORT_MAX_INSTANCES)
        return ts_fail(e, TS_EINPUT,
                       "%s: %ld instances, more than the limit of %ld (2^22) for the Python "
                       "Tessel's format: ask for fewer micro-batches",
                       where, instances, (long)TS_PYEXPORT_MAX_INSTANCES);
    ts_schedule *u = NULL;
    /* N as every other command takes it: unrolled above the file's micro-batches, the first N
     * below (the planned steps, not replayed) */
    if (n > 0 && n != s->nmicros && ts_schedule_at(s, n, false, &u, e))
        return e->code ? e->code : TS_EINPUT;
    /* a schedule another tool would run in an order that breaks a dependency, or with an action
     * twice or missing, is refused here, as `validate` refuses it */
    ts_validate_opts vo = {0};
    ts_err ve = {0};
    int rc = TS_OK;
    if (ts_schedule_validate(u ? u : s, &vo, &ve))
        rc = ts_fail(e, TS_ENOANSWER, "%s: invalid schedule, nothing written: %s", where, ve.msg);
    else
        rc = write(u ? u : s, path, e);
    ts_schedule_free(u);
    return rc;
}
