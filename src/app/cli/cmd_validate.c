/* tessel validate: checks a schedule (unrolled to N when asked, or cut to its first N below the
 * file's count) through the validate operation (ts_op_views.h): exclusivity, dependencies,
 * memory, completeness; exit 1 with the first violation. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_ops.h"
#include "ts_jsonutil.h"
#include "ts_json.h"
#include "ts_op_views.h"
#include "ts_placement_json.h"

static const ts_cli_op_help ts_validate_help = {
    "FILE [-n N] [--monotone] [--ignore-memory] [--quiet]",
    "Checks a schedule file: exclusivity, dependencies (with delays and distances), memory against "
    "its capacities, and completeness. Given a placement file instead (tessel-placement/1), "
    "checks it as every command reads it (ids, spans, devices, edges, cycles, memory) and prints "
    "its figures. The options are those of Schedule.validate in Python, "
    "under the same names.",
    NULL,
    "Exit status: 0 valid, 1 with the first violation (device, step, instances),\n"
    "2 bad usage or input (a placement file's problems too).\n"};

/* The file, read once: a placement when its "format" says tessel-placement (into *p), a schedule
 * otherwise (into *s). The exit status of a file that is neither, reported. */
static int ts_validate_load(const char *cmd, const char *path, ts_placement **p, ts_schedule **s)
{
    json_t *j = NULL;
    ts_err e = {0};
    *p = NULL;
    *s = NULL;
    if (ts_json_read_file(path, &j, &e))
        return ts_cli_report(cmd, &e);
    const char *f = json_string_value(json_object_get(j, "format"));
    int rc = f && !strncmp(f, "tessel-placement/", 17) ? ts_placement_from_json(j, path, p, &e)
                                                       : ts_schedule_from_json(j, path, s, &e);
    json_decref(j);
    if (rc)
        return ts_cli_report(cmd, &e);
    if (*s)
        ts_cli_warn_memory(cmd, (*s)->placement, path);
    return 0;
}

/* A placement file: every check the commands make when they read one (ids, spans, devices,
 * edges, cycles, memory), and its figures. Exit 0 valid, 2 with the first problem (as every
 * command refuses it). */
static int ts_validate_placement(const char *cmd, const char *path, ts_placement *p, bool quiet)
{
    ts_err e = {0};
    int rc = 0;
    if (ts_placement_check_memory(p, path, &e))
        rc = ts_cli_report(cmd, &e);
    long *load = calloc((size_t)p->ndevs + 1, sizeof *load);
    if (rc == 0 && load && !quiet) {
        ts_placement_device_load(p, load);
        printf("%s: a valid placement ('%s': %d devices, %d blocks, %d edges; load per device",
               path, p->name, p->ndevs, p->nblocks, p->nedges);
        for (int d = 0; d < p->ndevs && d < 16; d++)
            printf(" %ld", load[d]);
        printf("%s)\n", p->ndevs > 16 ? " ..." : "");
    }
    free(load);
    return rc;
}

int ts_cmd_validate(int argc, char **argv)
{
    const char *cmd = "validate", *path = NULL;
    ts_cli_op_args a;
    int rc = ts_cli_op_parse(cmd, &ts_op_validate, &ts_validate_help, argc, argv, &a);
    bool quiet = rc == 0 && ts_cli_op_take_flag(&a, "quiet");
    ts_schedule *s = NULL;
    ts_placement *p = NULL;
    ts_op_validate_req r;
    ts_op_validate_res res = {0};
    ts_err e = {0};
    if (rc == 0 && ts_op_validate_read(a.req, TS_FRONT_CLI, &r, &e))
        rc = ts_cli_usage_error(cmd, "%s", e.msg);
    if (rc == 0 && optind >= argc)
        rc = ts_cli_usage_error(cmd, "missing the schedule file");
    else if (rc == 0 && optind + 1 < argc)
        rc = ts_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    if (rc == 0)
        rc = ts_validate_load(cmd, path = argv[optind], &p, &s);
    if (rc == 0 && p)
        rc = ts_validate_placement(cmd, path, p, quiet);
    else if (rc == 0 && (rc = ts_op_validate_run(s, path, &r, &res, &e)))
        ts_cli_report(cmd, &e);
    if (rc == 0 && s && !quiet)
        printf("%s: valid (%d micro-batches of '%s' on %d devices, makespan %ld, lower bound "
               "%ld)\n",
               path, res.at->nmicros, s->placement->name, s->placement->ndevs, res.m.makespan,
               res.m.lower_bound);
    ts_op_validate_res_free(&res);
    ts_schedule_free(s);
    ts_placement_free(p);
    json_decref(a.req);
    return rc < 0 ? 0 : rc;
}
