/* tessel baseline: a hand-made schedule of a kind in the baseline registry (ts_baseline.h), built by
 * its published rule for a placement. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "ts_baseline.h"
#include "ts_bound.h"
#include "ts_methods.h"
#include "ts_results.h"

static void ts_baseline_help(void)
{
    printf("usage: tessel baseline KIND (--placement NAME --ndevs D | PLACEMENT)\n"
           "                        [--micro-batches N] [-o SCHED] [--json]\n"
           "       tessel baseline --list\n\n"
           "Builds a hand-made schedule by its published rule (not searched): a per-device\n"
           "order of instances, each instance as early as that order and its inputs allow.\n"
           "The schedule passes `tessel validate`; it ignores memory limits (compare its peak\n"
           "memory instead). A kind that does not fit the placement is refused (exit 2).\n\n"
           "Kinds:\n");
    for (int i = 0; i < ts_baseline_count(); i++) {
        const ts_baseline_info *b = ts_baseline_at(i);
        char fits[512];
        ts_baseline_fits_text(b, fits, sizeof fits);
        printf("  %-12s %s\n  %-12s fits: %s\n", b->name, b->description, "", fits);
    }
    printf("\nOptions:\n" TS_CLI_PLACEMENT_HELP
           "  -n, --micro-batches N  micro-batches (default %d)\n"
           "  -o, --output SCHED   write the schedule (tessel-schedule/1) there and print a\n"
           "                       summary; without -o the schedule goes to stdout\n"
           "  --json               with -o: print the summary as one JSON object\n"
           "  --list               list the kinds and the placements each fits\n",
           TS_DEFAULT_MICRO_BATCHES);
}

int ts_cmd_baseline(int argc, char **argv)
{
    static const struct option opts[] = {TS_CLI_PLACEMENT_OPTIONS,
                                         {"micro-batches", required_argument, 0, 'n'},
                                         {"output", required_argument, 0, 'o'},
                                         {"json", no_argument, 0, 'j'},
                                         {"list", no_argument, 0, 'l'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "baseline";
    ts_cli_placement pl = {0};
    long n = TS_DEFAULT_MICRO_BATCHES;
    const char *out = NULL;
    int json = 0, list = 0, c;
    while ((c = ts_cli_getopt_placement(cmd, argc, argv, "n:o:h", opts, &pl)) != -1) {
        switch (c) {
        case -2: return 2;
        case 'h': ts_baseline_help(); return 0;
        case 'n':
            if (ts_cli_parse_long(cmd, "--micro-batches", optarg, 1, 100000, &n))
                return 2;
            break;
        case 'o': out = optarg; break;
        case 'j': json = 1; break;
        case 'l': list = 1; break;
        }
    }
    if (list) {
        for (int i = 0; i < ts_baseline_count(); i++) {
            char fits[512];
            ts_baseline_fits_text(ts_baseline_at(i), fits, sizeof fits);
            printf("%-12s %s\n", ts_baseline_at(i)->name, fits);
        }
        return 0;
    }
    if (optind >= argc)
        return ts_cli_usage_error(cmd, "missing the baseline KIND (see --list)");
    const char *kind = argv[optind++];
    if (!ts_baseline_find(kind))
        return ts_cli_usage_error(cmd, "unknown baseline '%s' (see --list)", kind);
    if (ts_cli_placement_arg(cmd, argc, argv, &pl))
        return 2;
    if (json && !out)
        return ts_cli_usage_error(cmd, "--json needs -o SCHED (without -o the schedule itself is "
                                       "printed)");
    ts_placement *p;
    int rc = ts_cli_placement_load(cmd, &pl, &p);
    if (rc)
        return rc;
    ts_schedule *s = NULL;
    ts_err e = {0};
    if (ts_baseline_make(kind, p, (int)n, &s, &e) != TS_OK) {
        rc = ts_cli_report(cmd, &e);
        ts_placement_free(p);
        return rc;
    }
    if (ts_schedule_save(s, out ? out : "-", &e) != TS_OK) {
        rc = ts_cli_report(cmd, &e);
        goto done;
    }
    if (out) {
        ts_metrics m;
        if (ts_schedule_metrics(s, &m) != 0) {
            rc = 3;
            goto done;
        }
        if (json) {
            json_t *j = json_pack("{ss ss}", "baseline", kind, "placement", p->name);
            ts_results_metrics_json(j, &m, s->nmicros, p->ndevs);
            ts_cli_print_json(j);
        } else {
            printf("%s: %s on '%s', %d micro-batches, %d devices: makespan %ld (lower bound %ld), "
                   "bubble rate %.2f%%, peak memory",
                   out, kind, p->name, s->nmicros, p->ndevs, m.makespan, m.lower_bound,
                   100.0 * m.bubble_rate);
            for (int d = 0; d < p->ndevs; d++)
                printf(" %ld", m.peak[d]);
            printf("\n");
        }
        ts_metrics_free(&m);
    }
done:
    ts_schedule_free(s);
    ts_placement_free(p);
    return rc;
}
