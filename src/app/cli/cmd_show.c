/* tessel show: a schedule as a text timeline, one row per device, with its makespan, bubbles and
 * peak memory, through the show operation (ts_op_views.h). */
#include <stdio.h>
#include "cli_ops.h"
#include "ts_op_views.h"

static const ts_cli_op_help ts_show_help = {
    "SCHED [--micro-batches N] [--timeline KIND] [--width W]",
    "Prints a schedule as a text timeline: one row per device, one cell per step. A cell 'F3' "
    "starts micro-batch 3 of a block whose id begins with F (a primed id such as S' prints lower "
    "case: s3); where two blocks of one device share a letter, a cell holds the block's id and "
    "micro-batch (F0c1:0). '-' continues it, '.' is idle, '~' stands for an idle stretch of more "
    "than 8 "
    "steps; the 'repeat' row marks the repetend. The options are those of Schedule.show in "
    "Python, under the same names.",
    NULL,
    "An invalid schedule is shown too, with the reason on stderr, and exits 1.\n"
    "A timeline of more than 2^26 cells is refused (exit 2).\n"};

int ts_cmd_show(int argc, char **argv)
{
    const char *cmd = "show", *path = NULL;
    ts_cli_op_args a;
    int rc = ts_cli_op_parse(cmd, &ts_op_show, &ts_show_help, argc, argv, &a);
    ts_schedule *s = NULL;
    ts_op_view_req r;
    ts_op_view_res res = {0};
    ts_err e = {0};
    if (rc == 0 && ts_op_view_read(&ts_op_show, a.req, TS_FRONT_CLI, &r, &e))
        rc = ts_cli_usage_error(cmd, "%s", e.msg);
    if (rc == 0)
        rc = ts_cli_schedule_arg(cmd, argc, argv, 0, &path, &s);
    if (rc == 0 && ts_op_view_run(&ts_op_show, s, path, &r, &res, &e))
        rc = ts_cli_report(cmd, &e);
    if (rc == 0 && !res.valid)
        fprintf(stderr, "tessel %s: invalid schedule: %s\n", cmd, res.why);
    if (rc == 0 && ts_op_show_write(&res, &r, stdout, &e))
        rc = ts_cli_report(cmd, &e);
    else if (rc == 0)
        rc = res.valid ? 0 : 1;
    ts_op_view_res_free(&res);
    ts_schedule_free(s);
    json_decref(a.req);
    return rc < 0 ? 0 : rc;
}
