/* tessel validate: checks a schedule (unrolled to N when asked, or cut to its first N below the
 * file's count) through the validate operation (ts_op_views.h): exclusivity, dependencies,
 * memory, completeness; exit 1 with the first violation. */
#include <stdio.h>
#include "cli_ops.h"
#include "ts_op_views.h"

static const ts_cli_op_help ts_validate_help = {
    "SCHED [-n N] [--monotone] [--ignore-memory] [--quiet]",
    "Checks a schedule: exclusivity, dependencies (with delays and distances), memory against "
    "its capacities, and completeness. The options are those of Schedule.validate in Python, "
    "under the same names.",
    NULL,
    "Exit status: 0 valid, 1 with the first violation (device, step, instances),\n"
    "2 bad usage or input.\n"};

int ts_cmd_validate(int argc, char **argv)
{
    const char *cmd = "validate", *path = NULL;
    ts_cli_op_args a;
    int rc = ts_cli_op_parse(cmd, &ts_op_validate, &ts_validate_help, argc, argv, &a);
    bool quiet = rc == 0 && ts_cli_op_take_flag(&a, "quiet");
    ts_schedule *s = NULL;
    ts_op_validate_req r;
    ts_op_validate_res res = {0};
    ts_err e = {0};
    if (rc == 0 && ts_op_validate_read(a.req, TS_FRONT_CLI, &r, &e))
        rc = ts_cli_usage_error(cmd, "%s", e.msg);
    if (rc == 0)
        rc = ts_cli_schedule_arg(cmd, argc, argv, 0, &path, &s);
    if (rc == 0 && (rc = ts_op_validate_run(s, path, &r, &res, &e)))
        ts_cli_report(cmd, &e);
    if (rc == 0 && !quiet)
        printf("%s: valid (%d micro-batches of '%s' on %d devices, makespan %ld, lower bound "
               "%ld)\n",
               path, res.at->nmicros, s->placement->name, s->placement->ndevs, res.m.makespan,
               res.m.lower_bound);
    ts_op_validate_res_free(&res);
    ts_schedule_free(s);
    json_decref(a.req);
    return rc < 0 ? 0 : rc;
}
