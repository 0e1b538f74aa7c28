/* `tessel export`: a schedule in another tool's format, through the export operation
 * (ts_op_export.h), whose table gives the flags and --help. */
#include <stdio.h>
#include "cli_ops.h"
#include "ts_op_export.h"

static const ts_cli_op_help ts_export_help = {
    "SCHED (--format F | --python | --pytorch) [-n N] [-o FILE]",
    "Writes a schedule in another tool's format: the Python Tessel's saved schedule or PyTorch "
    "pipelining's action CSV. The options are those of Schedule.export in Python, under the same "
    "names.",
    NULL, "An invalid schedule is refused (exit 1, nothing written).\n"};

int ts_cmd_export(int argc, char **argv)
{
    const char *cmd = "export", *path = NULL;
    ts_cli_op_args a;
    ts_op_export_req r;
    ts_schedule *s = NULL;
    ts_err e = {0};
    int rc = ts_cli_op_parse(cmd, &ts_op_export, &ts_export_help, argc, argv, &a);
    if (rc == 0 && ts_op_export_read(a.req, TS_FRONT_CLI, &r, &e))
        rc = ts_cli_usage_error(cmd, "%s", e.msg);
    if (rc == 0)
        rc = ts_cli_schedule_arg(cmd, argc, argv, 0, &path, &s);
    if (rc == 0 && ts_op_export_run(s, r.n, r.format, r.path ? r.path : "-", path, &e))
        rc = ts_cli_report(cmd, &e);
    ts_schedule_free(s);
    json_decref(a.req);
    return rc < 0 ? 0 : rc;
}
