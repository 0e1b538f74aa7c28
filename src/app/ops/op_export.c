/* The export operation's run (ts_op_export.h): one way to take a schedule to another tool, so
 * that `tessel export` and Schedule.to_pytorch_csv / to_python_tessel refuse and write the same. */
#include <string.h>
#include "ts_op_export.h"
#include "ts_pytessel.h"
#include "ts_pytorch.h"

ts_op_writer ts_op_export_writer(const char *format)
{
    if (format && !strcmp(format, "python"))
        return ts_pyexport_save;
    if (format && !strcmp(format, "pytorch"))
        return ts_pytorch_save;
    return NULL;
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
