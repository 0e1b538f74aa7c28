/* tessel validate: checks a schedule (unrolled to N when asked, or cut to its first N below the
 * file's count): exclusivity, dependencies, memory, completeness; exit 1 with the first
 * violation. */
#include <getopt.h>
#include <stdio.h>
#include "cli.h"
#include "ts_bound.h"

int ts_cmd_validate(int argc, char **argv)
{
    static const struct option opts[] = {{"micro-batches", required_argument, 0, 'n'},
                                         {"monotone", no_argument, 0, 'm'},
                                         {"ignore-memory", no_argument, 0, 'i'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "validate";
    long n = 0;
    int quiet = 0, c;
    ts_validate_opts vo = {false, false};
    while ((c = ts_cli_getopt(cmd, argc, argv, "n:qh", opts)) != -1) {
        switch (c) {
        case -2: return 2;
        case 'h':
            printf(
                "usage: tessel validate SCHED [--micro-batches N] [--monotone] "
                "[--ignore-memory]\n\n"
                "Checks a schedule: exclusivity, dependencies (with delays and distances), memory\n"
                "against its capacities, and completeness. Exit 0 when valid, 1 with the first\n"
                "violation (device, step, instances) otherwise.\n"
                "  -n, --micro-batches N  unroll the repetend to N micro-batches first; below\n"
                "                       the file's count, only its first N are judged\n"
                "  --monotone           also require each block's instances in micro-batch order\n"
                "  --ignore-memory      skip the memory check\n"
                "  -q, --quiet          print nothing when valid\n");
            return 0;
        case 'n':
            if (ts_cli_parse_long(cmd, "--micro-batches", optarg, 1, 1000000, &n))
                return 2;
            break;
        case 'm': vo.monotone = true; break;
        case 'i': vo.ignore_memory = true; break;
        case 'q': quiet = 1; break;
        }
    }
    const char *path;
    ts_schedule *s;
    int rc = ts_cli_schedule_arg(cmd, argc, argv, 0, &path, &s);
    if (rc)
        return rc;
    ts_err e = {0};
    /* Below the file's count, only its first N micro-batches are judged (a run that stops
     * early), as the README says. Above it, the file's own micro-batches first: a fault there (a
     * moved entry breaking a dependency) shows up after unrolling only as its consequence (an
     * instance that appears twice). */
    bool cut = n > 0 && n < s->nmicros;
    rc = cut ? TS_OK : ts_schedule_validate(s, &vo, &e);
    if (!rc && n > 0 && n != s->nmicros) {
        ts_schedule *u;
        rc = ts_schedule_unroll(s, (int)n, &u, &e);
        if (rc) {
            fprintf(stderr, "tessel %s: %s: %s\n", cmd, path, e.msg);
            ts_schedule_free(s);
            return rc;
        }
        ts_schedule_free(s);
        s = u;
        rc = ts_schedule_validate(s, &vo, &e);
    }
    if (rc) {
        fprintf(stderr, "tessel validate: %s: invalid%s: %s\n", path,
                n > s->nmicros ? " (in the file's micro-batches)" : "", e.msg);
    } else if (!quiet) {
        ts_metrics m;
        if (ts_schedule_metrics(s, &m) == 0) {
            printf("%s: valid (%d micro-batches of '%s' on %d devices, makespan %ld, lower bound "
                   "%ld)\n",
                   path, s->nmicros, s->placement->name, s->placement->ndevs, m.makespan,
                   m.lower_bound);
            ts_metrics_free(&m);
        }
    }
    ts_schedule_free(s);
    return rc;
}
