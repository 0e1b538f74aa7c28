/* tessel trace: the planned timeline of a schedule as a Chrome trace (Perfetto, chrome://tracing),
 * written by the same code as the runtime's measured traces so the two open side by side. */
#include <getopt.h>
#include <stdio.h>
#include "cli.h"
#include "ts_trace.h"

int ts_cmd_trace(int argc, char **argv)
{
    static const struct option opts[] = {{"micro-batches", required_argument, 0, 'n'},
                                         {"unit-us", required_argument, 0, 'u'},
                                         {"output", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "trace";
    long n = 0;
    double unit = 1000.0;
    const char *out = "-";
    int c;
    while ((c = ts_cli_getopt(cmd, argc, argv, "n:u:o:h", opts)) != -1) {
        switch (c) {
        case -2: return 2;
        case 'h':
            printf("usage: tessel trace SCHED [--micro-batches N] [--unit-us U] [-o FILE.json]\n\n"
                   "Writes the schedule's planned timeline in the Chrome trace-event format: one\n"
                   "track per device, one slice per instance and device (named BLOCK mMICRO, with\n"
                   "block, micro, memory, step and span in its args), starting at time 0.\n"
                   "  -n, --micro-batches N  unroll the repetend to N micro-batches first\n"
                   "  -u, --unit-us U      microseconds per time unit (default 1000)\n"
                   "  -o, --output FILE    where to write (default stdout)\n\n"
                   "An invalid schedule is written too, with the reason on stderr, and exits 1.\n");
            return 0;
        case 'n':
            if (ts_cli_parse_long(cmd, "--micro-batches", optarg, 1, 1000000, &n))
                return 2;
            break;
        case 'u':
            if (ts_cli_parse_double(cmd, "--unit-us", optarg, 1e-6, 1e12, &unit))
                return 2;
            break;
        case 'o': out = optarg; break;
        }
    }
    ts_schedule *s;
    int rc = ts_cli_schedule_arg(cmd, argc, argv, n, NULL, &s);
    if (rc)
        return rc;
    int invalid = ts_cli_warn_invalid(cmd, s);
    ts_trace *t = ts_trace_from_schedule(s, unit);
    ts_err e = {0};
    if (!t) {
        fprintf(stderr, "tessel %s: out of memory\n", cmd);
        rc = 3;
    } else if (ts_trace_write(t, out, &e) != TS_OK) {
        rc = ts_cli_report(cmd, &e);
    }
    ts_trace_free(t);
    ts_schedule_free(s);
    return rc ? rc : invalid;
}
