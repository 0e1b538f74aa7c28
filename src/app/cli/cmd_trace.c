/* tessel trace: the planned timeline of a schedule as a Chrome trace (Perfetto, chrome://tracing),
 * written by the same code as the runtime's measured traces so the two open side by side, and
 * streamed (ts_trace_write_schedule) below a cap checked before unrolling. */
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
                   "An invalid schedule is written too, with the reason on stderr, and exits 1.\n"
                   "A trace of more than 2^24 slices is refused (exit 2); the trace is written\n"
                   "as it is made, never held in memory whole.\n");
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
    const char *path;
    ts_schedule *s;
    int rc = ts_cli_schedule_arg(cmd, argc, argv, 0, &path, &s);
    if (rc)
        return rc;
    /* The cap is checked before unrolling, so that a huge -n costs nothing. */
    long slices = ts_trace_schedule_slices(s->placement, n > 0 ? n : s->nmicros);
    if (slices > TS_TRACE_MAX_SLICES) {
        fprintf(stderr,
                "tessel %s: %s: %ld micro-batches make %ld slices, more than the limit of %ld "
                "(2^24): ask for fewer micro-batches\n",
                cmd, path, n > 0 ? n : (long)s->nmicros, slices, (long)TS_TRACE_MAX_SLICES);
        ts_schedule_free(s);
        return 2;
    }
    ts_err e = {0};
    if (n > 0 && n != s->nmicros) {
        ts_schedule *u;
        rc = ts_schedule_unroll(s, (int)n, &u, &e);
        ts_schedule_free(s);
        if (rc) {
            fprintf(stderr, "tessel %s: %s: %s\n", cmd, path, e.msg);
            return rc;
        }
        s = u;
    }
    int invalid = ts_cli_warn_invalid(cmd, s);
    if (ts_trace_write_schedule(s, unit, out, &e) != TS_OK)
        rc = ts_cli_report(cmd, &e);
    ts_schedule_free(s);
    return rc ? rc : invalid;
}
