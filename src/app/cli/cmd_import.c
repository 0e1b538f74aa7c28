/* tessel import: reads a schedule written by the Python Tessel (or, with --pytorch, a PyTorch
 * action CSV) against a placement and writes it as a tessel-schedule file. */
#include <getopt.h>
#include <stdio.h>
#include "cli.h"
#include "ts_pytessel.h"
#include "ts_pytorch.h"

static int ts_import_help(void)
{
    printf("usage: tessel import PY_SCHED (--placement NAME --ndevs D [--infer] |\n"
           "                     --placement-file FILE) [--pytorch] [--memory M] [-n N]\n"
           "                     [-o SCHED]\n\n"
           "Converts a schedule saved by the Python Tessel ({ndevs, blocks: [{mid, span,\n"
           "memory, btype, gid, step, device}], repetend: [start, end]}) into a\n"
           "tessel-schedule/1 file. The placement supplies the edges: each gid becomes the\n"
           "placement block with the same devices, kind, span and memory, look-alike gids\n"
           "the assignment under which every dependency holds. The repetend follows the\n"
           "reference's own unroll: its window may be longer than one period, and each\n"
           "further micro-batch is shifted by the largest per-device extent of the window\n"
           "(plus what the dependencies need). The result holds the fewest micro-batches\n"
           "for which one period of that unroll is a repetend, and is validated: exit 1\n"
           "when no valid schedule results.\n"
           "  --pytorch            PY_SCHED is instead torch.distributed.pipelining's\n"
           "                       compute-only CSV (`tessel export --pytorch`): each rank's\n"
           "                       actions run in the file's order, each as early as its\n"
           "                       inputs allow\n"
           "  --memory M           record (and check) a per-device capacity M\n"
           "  -n, --micro-batches N  the reference's unroll at exactly N micro-batches\n"
           "  -o, --output SCHED   write to SCHED instead of stdout\n");
    return 0;
}

int ts_cmd_import(int argc, char **argv)
{
    static const struct option opts[] = {TS_CLI_PLACEMENT_OPTIONS,
                                         {"placement-file", required_argument, 0, 'p'},
                                         {"memory", required_argument, 0, 'm'},
                                         {"micro-batches", required_argument, 0, 'n'},
                                         {"output", required_argument, 0, 'o'},
                                         {"pytorch", no_argument, 0, 'P'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "import", *outp = "-";
    ts_cli_placement pl = {0};
    ts_pyimport_opts io = {0};
    long n = 0;
    int c, pytorch = 0;
    while ((c = ts_cli_getopt(cmd, argc, argv, "n:o:h", opts)) != -1) {
        if (c == -2)
            return 2;
        if (c == 'h')
            return ts_import_help();
        if (c == 'o') {
            outp = optarg;
        } else if (c == 'P') {
            pytorch = 1;
        } else if (c == 'p') {
            pl.file = optarg;
        } else if (c == 'm') {
            if (ts_cli_parse_long(cmd, "--memory", optarg, 0, TS_MAX_MEMORY, &io.memory))
                return 2;
            io.has_memory = true;
        } else if (c == 'n') {
            if (ts_cli_parse_long(cmd, "--micro-batches", optarg, 1, 1000000L, &n))
                return 2;
            io.nmicros = (int)n;
        } else if (ts_cli_placement_option(cmd, c, optarg, &pl) != 1) {
            return 2;
        }
    }
    if (optind >= argc)
        return ts_cli_usage_error(cmd, "missing the Python Tessel schedule file");
    if (optind + 1 < argc)
        return ts_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    if (pytorch && io.nmicros)
        return ts_cli_usage_error(cmd, "-n does not apply to --pytorch (the file's micro-batch "
                                       "indices set it)");
    ts_placement *p;
    int rc = ts_cli_placement_load(cmd, &pl, &p);
    if (rc)
        return rc;
    ts_schedule *s;
    ts_err e = {0};
    rc = pytorch ? ts_pytorch_load(argv[optind], p, &s, &e)
                 : ts_pyimport_read(argv[optind], p, &io, &s, &e);
    if (!rc && pytorch && io.has_memory)
        ts_schedule_set_uniform_memory(s, io.memory);
    ts_placement_free(p);
    if (rc)
        return ts_cli_report(cmd, &e);
    rc = ts_schedule_save(s, outp, &e) ? ts_cli_report(cmd, &e) : 0;
    ts_schedule_free(s);
    return rc;
}
