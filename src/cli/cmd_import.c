#include <getopt.h>
#include <stdio.h>
#include "cli.h"

int ts_cmd_import(int argc, char **argv)
{
    static const struct option opts[] = {TS_CLI_PLACEMENT_OPTIONS,
                                         {"placement-file", required_argument, 0, 'p'},
                                         {"memory", required_argument, 0, 'm'},
                                         {"output", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "import", *outp = "-";
    ts_cli_placement pl = {0};
    long memory = -1;
    int c;
    while ((c = ts_cli_getopt(cmd, argc, argv, "o:h", opts)) != -1) {
        if (c == -2)
            return 2;
        if (c == 'h') {
            printf("usage: tessel import PY_SCHED (--placement NAME --ndevs D [--infer] | "
                   "--placement-file FILE)\n                     [--memory M] [-o SCHED]\n\n"
                   "Converts a schedule written by the Python Tessel ({ndevs, blocks: [{mid, span,\n"
                   "memory, btype, gid, step, device}], repetend: [start, end]}) into a\n"
                   "tessel-schedule/1 file. The placement supplies the edges; each gid is matched\n"
                   "to the placement block with the same devices, kind, span and memory.\n"
                   "Validate, show or simulate the result like any schedule.\n"
                   "  --memory M           record a per-device capacity M in the schedule\n"
                   "  -o, --output SCHED   write to SCHED instead of stdout\n");
            return 0;
        }
        if (c == 'o') {
            outp = optarg;
        } else if (c == 'p') {
            pl.file = optarg;
        } else if (c == 'm') {
            if (ts_cli_parse_long(cmd, "--memory", optarg, 0, 1000000000L, &memory))
                return 2;
        } else if (ts_cli_placement_option(cmd, c, optarg, &pl) != 1) {
            return 2;
        }
    }
    if (optind >= argc)
        return ts_cli_usage_error(cmd, "missing the Python Tessel schedule file");
    if (optind + 1 < argc)
        return ts_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    ts_placement *p;
    int rc = ts_cli_placement_load(cmd, &pl, &p);
    if (rc)
        return rc;
    ts_schedule *s;
    ts_err e = {0};
    rc = ts_pyimport_load(argv[optind], p, &s, &e);
    ts_placement_free(p);
    if (rc)
        return ts_cli_report(cmd, &e);
    if (memory >= 0)
        ts_schedule_set_uniform_memory(s, memory);
    rc = ts_schedule_save(s, outp, &e) ? ts_cli_report(cmd, &e) : 0;
    ts_schedule_free(s);
    return rc;
}
