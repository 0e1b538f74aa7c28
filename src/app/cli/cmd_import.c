/* `tessel import`: a schedule the Python Tessel saved (or a PyTorch action CSV) against a placement,
 * written as a tessel-schedule/1 file, through the import operation (ts_op_export.h), whose table
 * gives the flags and --help. */
#include <stdio.h>
#include "cli_ops.h"
#include "ts_op_export.h"

static const ts_cli_op_help ts_import_help = {
    "PY_SCHED (PLACEMENT | --placement NAME --ndevs D |\n"
    "                     --placement-file FILE) [--format F] [--memory M] [-n N]\n"
    "                     [-o SCHED]",
    "Converts PY_SCHED, a schedule another tool wrote, into a tessel-schedule/1 file. From the "
    "Python "
    "Tessel: the placement supplies the edges; each gid becomes the placement block with the "
    "same devices, kind, span and memory, look-alike gids the assignment under which every "
    "dependency holds. The repetend follows the reference's own unroll: its window may be longer "
    "than one period, and each further micro-batch is shifted by the largest per-device extent "
    "of the window (plus what the dependencies need). The result holds the fewest micro-batches "
    "for which one period of that unroll is a repetend. The options are those of "
    "tessel.import_schedule in Python, under the same names.",
    NULL, "The result is validated: exit 1 when no valid schedule results.\n"};

int ts_cmd_import(int argc, char **argv)
{
    const char *cmd = "import";
    ts_cli_op_args a;
    ts_op_import_req r;
    ts_placement *p = NULL;
    ts_schedule *s = NULL;
    ts_err e = {0};
    int rc = ts_cli_op_parse_arg(cmd, &ts_op_import, &ts_import_help, "input", argc, argv, &a);
    if (rc == 0 && ts_op_import_read(a.req, TS_FRONT_CLI, &r, &e))
        rc = ts_cli_usage_error(cmd, "%s", e.msg);
    if (rc == 0 && !r.file)
        rc = ts_cli_usage_error(cmd, "missing the schedule file to read (PY_SCHED)");
    if (rc == 0 && r.placement_file && a.pl.file)
        rc = ts_cli_usage_error(cmd, "give the placement file once: PLACEMENT or "
                                     "--placement-file");
    if (rc == 0 && r.placement_file)
        a.pl.file = r.placement_file;
    if (rc == 0)
        rc = ts_cli_placement_load(cmd, &a.pl, &p);
    if (rc == 0 && ts_op_import_run(&r, p, &s, &e))
        rc = ts_cli_report(cmd, &e);
    if (rc == 0 && ts_schedule_save(s, r.output ? r.output : "-", &e))
        rc = ts_cli_report(cmd, &e);
    ts_schedule_free(s);
    ts_placement_free(p);
    json_decref(a.req);
    return rc < 0 ? 0 : rc;
}
