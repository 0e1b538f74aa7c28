/* tessel simulate: replays each device's order (with --scale, --noise and --comm-delay) through
 * the simulate operation (ts_op_views.h) and reports makespan, bubbles, lower bound, peak memory
 * and load, as text or JSON. */
#include <stdio.h>
#include "cli_ops.h"
#include "ts_op_views.h"

static const ts_cli_op_help ts_simulate_help = {
    "SCHED [--micro-batches N] [--json] [OPTIONS]",
    "Replays each device's order of the schedule with given block durations: an instance starts "
    "when its devices are free and its inputs are ready. Reports the makespan a runtime "
    "following that order reaches. The options are those of Schedule.simulate in Python, under "
    "the same names.",
    NULL, "Exit status: 0 replayed, 1 the schedule is invalid, 2 bad usage or input.\n"};

/* A few lines and a table per device. */
static void ts_simulate_print(const char *path, const ts_op_simulate_res *res)
{
    const ts_schedule *s = res->at;
    const ts_placement *p = s->placement;
    const ts_metrics *m = &res->m;
    double lb = res->lower_bound, makespan = res->sim.makespan;
    printf("%s: %d micro-batches of '%s' on %d devices\n", path, s->nmicros, p->name, p->ndevs);
    printf("simulated makespan %.6g (planned %ld, lower bound %.6g%s, ratio %.4f)\n", makespan,
           m->makespan, lb, lb != (double)m->lower_bound ? " with these durations" : "",
           lb > 0 ? makespan / lb : 0.0);
    printf("bubble rate %.2f%%\n", 100.0 * res->bubble_rate);
    printf("%-8s %8s %8s\n", "device", "load", "peak");
    for (int d = 0; d < p->ndevs; d++)
        printf("%-8d %8ld %8ld\n", d, m->load[d], m->peak[d]);
}

int ts_cmd_simulate(int argc, char **argv)
{
    const char *cmd = "simulate", *path = NULL;
    ts_cli_op_args a;
    int rc = ts_cli_op_parse(cmd, &ts_op_simulate, &ts_simulate_help, argc, argv, &a);
    bool json = rc == 0 && ts_cli_op_take_flag(&a, "json");
    ts_schedule *s = NULL;
    ts_op_simulate_req r = {0};
    ts_op_simulate_res res = {0};
    ts_err e = {0};
    if (rc == 0)
        rc = ts_cli_schedule_arg(cmd, argc, argv, 0, &path, &s);
    if (rc == 0 && ts_op_simulate_read(a.req, TS_FRONT_CLI, s->placement, &r, &e))
        rc = e.code == TS_ESYS ? ts_cli_report(cmd, &e) : ts_cli_usage_error(cmd, "%s", e.msg);
    if (rc == 0 && (rc = ts_op_simulate_run(s, path, &r, &res, &e)))
        ts_cli_report(cmd, &e);
    if (rc == 0 && json)
        ts_cli_print_json(json_incref(res.json));
    else if (rc == 0)
        ts_simulate_print(path, &res);
    ts_op_simulate_res_free(&res);
    ts_op_simulate_req_free(&r);
    ts_schedule_free(s);
    json_decref(a.req);
    return rc < 0 ? 0 : rc;
}
