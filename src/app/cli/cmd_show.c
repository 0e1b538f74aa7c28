/* tessel show: a schedule as a text timeline, one row per device, with its makespan, bubbles and
 * peak memory. */
#include <getopt.h>
#include <stdio.h>
#include "cli.h"
#include "ts_bound.h"

int ts_cmd_show(int argc, char **argv)
{
    static const struct option opts[] = {{"micro-batches", required_argument, 0, 'n'},
                                         {"width", required_argument, 0, 'w'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "show";
    long n = 0, width = 120;
    int c;
    while ((c = ts_cli_getopt(cmd, argc, argv, "n:w:h", opts)) != -1) {
        switch (c) {
        case -2: return 2;
        case 'h':
            printf(
                "usage: tessel show SCHED [--micro-batches N] [--width W]\n\n"
                "Prints a schedule as a text timeline: one row per device, one cell per step.\n"
                "A cell 'F3' starts micro-batch 3 of a block whose id begins with F (a primed\n"
                "id such as S' prints lower case: s3), '-' continues it, '.' is idle, '~' stands\n"
                "for an idle stretch of more than 8 steps; the 'repeat' row marks the repetend.\n"
                "A timeline of more than 2^26 cells is refused (exit 2).\n"
                "  -n, --micro-batches N  unroll the repetend to N micro-batches first\n"
                "  -w, --width W        characters per row before wrapping (default 120)\n");
            return 0;
        case 'n':
            if (ts_cli_parse_long(cmd, "--micro-batches", optarg, 1, 100000, &n))
                return 2;
            break;
        case 'w':
            if (ts_cli_parse_long(cmd, "--width", optarg, 20, 100000, &width))
                return 2;
            break;
        }
    }
    ts_schedule *s;
    int rc = ts_cli_schedule_arg(cmd, argc, argv, n, NULL, &s);
    if (rc)
        return rc;
    ts_metrics m;
    ts_err e = {0};
    int valid = !ts_cli_warn_invalid(cmd, s);
    printf("schedule of '%s': %d devices, %d blocks, %d micro-batches%s\n", s->placement->name,
           s->placement->ndevs, s->placement->nblocks, s->nmicros, valid ? "" : " (INVALID)");
    if (ts_schedule_metrics(s, &m) == 0) {
        printf("makespan %ld (lower bound %ld), bubble rate %.1f%%", m.makespan, m.lower_bound,
               100.0 * m.bubble_rate);
        if (s->has_repetend)
            printf(", repetend [%ld, %ld) period %ld k %d", s->rep.start, s->rep.end, s->rep.period,
                   s->rep.k);
        if (s->has_repetend && s->rep.per > 1)
            printf(", %d micro-batches per period", s->rep.per);
        printf("\npeak memory:");
        for (int d = 0; d < s->placement->ndevs; d++)
            printf(" %ld", m.peak[d]);
        if (s->has_memory) {
            printf(" (capacity");
            for (int d = 0; d < s->placement->ndevs; d++)
                printf(" %ld", s->memory[d]);
            printf(")");
        }
        printf("\n\n");
        ts_metrics_free(&m);
    }
    ts_err_clear(&e);
    rc = ts_show_text(s, stdout, (int)width, &e);
    ts_schedule_free(s);
    if (rc)
        return ts_cli_report(cmd, &e);
    return valid ? 0 : 1;
}
