#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"

int ts_cmd_bound(int argc, char **argv)
{
    static const struct option opts[] = {TS_CLI_PLACEMENT_OPTIONS,
                                         {"micro-batches", required_argument, 0, 'n'},
                                         {"json", no_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "bound";
    ts_cli_placement pl = {0};
    long n = 0;
    int json = 0, c;
    while ((c = ts_cli_getopt_placement(cmd, argc, argv, "n:h", opts, &pl)) != -1) {
        if (c == -2)
            return 2;
        if (c == 'h') {
            printf("usage: tessel bound (PLACEMENT | --placement NAME --ndevs D [--infer]) "
                   "--micro-batches N [--json]\n\n"
                   "Lower bound on the makespan of N micro-batches: max over devices d of\n"
                   "head(d) + N*load(d) + tail(d).\n\n" TS_CLI_PLACEMENT_HELP
                   "  -n, --micro-batches N  number of micro-batches\n"
                   "  --json               print one JSON object\n");
            return 0;
        }
        if (c == 'n') {
            if (ts_cli_parse_long(cmd, "--micro-batches", optarg, 1, 1000000, &n))
                return 2;
        } else if (c == 'j') {
            json = 1;
        }
    }
    if (ts_cli_placement_arg(cmd, argc, argv, &pl))
        return 2;
    if (!n)
        return ts_cli_usage_error(cmd, "--micro-batches N is required");
    ts_placement *p;
    int rc = ts_cli_placement_load(cmd, &pl, &p);
    if (rc)
        return rc;
    long lb = ts_lower_bound(p, (int)n);
    long *load = malloc((size_t)p->ndevs * sizeof(long));
    if (!load) {
        ts_placement_free(p);
        return 3;
    }
    ts_placement_device_load(p, load);
    if (json) {
        ts_cli_print_json(json_pack("{ss si sI so}", "placement", p->name, "micro_batches", (int)n,
                                    "lower_bound", (json_int_t)lb, "load",
                                    ts_cli_long_array(load, p->ndevs)));
    } else {
        printf("placement %s, %d devices, %d blocks\n", p->name, p->ndevs, p->nblocks);
        printf("load per device:");
        for (int d = 0; d < p->ndevs; d++)
            printf(" %ld", load[d]);
        printf("\nlower bound on the makespan of %ld micro-batches: %ld\n", n, lb);
    }
    free(load);
    ts_placement_free(p);
    return 0;
}
