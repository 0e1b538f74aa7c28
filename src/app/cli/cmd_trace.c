/* tessel trace: the planned timeline of a schedule as a Chrome trace (Perfetto, chrome://tracing),
 * written by the same code as the runtime's measured traces so the two open side by side, and
 * streamed (ts_trace_write_schedule); the trace operation (ts_op_views.h) checks its cap before
 * unrolling. */
#include <stdio.h>
#include "cli_ops.h"
#include "ts_op_views.h"
#include "ts_trace.h"

static const ts_cli_op_help ts_trace_help = {
    "SCHED [--micro-batches N] [--unit-us U] [-o FILE.json]",
    "Writes the schedule's timeline in the Chrome trace-event format: one track per device, one "
    "slice per instance and device (named BLOCK mMICRO, with block, micro, memory, step and span "
    "in its args), starting at time 0. The options are those of Schedule.trace in Python and of "
    "the explorer's trace, under the same names.",
    NULL,
    "An invalid schedule is written too, with the reason on stderr, and exits 1.\n"
    "A trace of more than 2^24 slices is refused (exit 2); the trace is written\n"
    "as it is made, never held in memory whole.\n"};

int ts_cmd_trace(int argc, char **argv)
{
    const char *cmd = "trace", *path = NULL, *out;
    char outbuf[4096];
    ts_cli_op_args a;
    int rc = ts_cli_op_parse(cmd, &ts_op_trace, &ts_trace_help, argc, argv, &a);
    ts_schedule *s = NULL;
    ts_op_view_req r;
    ts_op_view_res res = {0};
    ts_err e = {0};
    out = rc == 0 ? ts_cli_op_take_text(&a, "output", outbuf, sizeof outbuf) : NULL;
    if (rc == 0 && ts_op_view_read(&ts_op_trace, a.req, TS_FRONT_CLI, &r, &e))
        rc = ts_cli_usage_error(cmd, "%s", e.msg);
    if (rc == 0)
        rc = ts_cli_schedule_arg(cmd, argc, argv, 0, &path, &s);
    if (rc == 0 && ts_op_view_run(&ts_op_trace, s, path, &r, &res, &e))
        rc = ts_cli_report(cmd, &e);
    if (rc == 0 && !res.valid)
        fprintf(stderr, "tessel %s: invalid schedule: %s\n", cmd, res.why);
    if (rc == 0 && ts_trace_write_schedule(res.at, r.unit_us, out ? out : "-", &e) != TS_OK)
        rc = ts_cli_report(cmd, &e);
    else if (rc == 0)
        rc = res.valid ? 0 : 1;
    ts_op_view_res_free(&res);
    ts_schedule_free(s);
    json_decref(a.req);
    return rc < 0 ? 0 : rc;
}
