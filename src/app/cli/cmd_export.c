/* `tessel export`: one dispatcher for the formats other tools read; each format's writer lives in
 * its own file and takes its place in the table below. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "ts_op_export.h"
#include "ts_pytessel.h"
#include "ts_pytorch.h"

typedef struct {
    const char *flag; /* --FLAG selects the format */
    const char *summary;
    int (*write)(const ts_schedule *s, const char *path, ts_err *e);
} ts_export_format;

static const ts_export_format ts_export_formats[] = {
    {"python", "the Python Tessel's saved schedule (gids, repetend)",
     ts_pyexport_save},
    {"pytorch", "PyTorch pipelining's action CSV (a row per rank)",
     ts_pytorch_save},
};
#define TS_EXPORT_NFORMATS (int)(sizeof ts_export_formats / sizeof ts_export_formats[0])

static int ts_export_help(void)
{
    printf("usage: tessel export --FORMAT SCHED [-n N] [-o FILE]\n\n"
           "Writes a schedule in another tool's format; an invalid schedule is refused\n"
           "(exit 1, nothing written). Formats:\n");
    for (int i = 0; i < TS_EXPORT_NFORMATS; i++)
        printf("  --%-18s %s\n", ts_export_formats[i].flag, ts_export_formats[i].summary);
    printf("  -n, --micro-batches N  the first N micro-batches, unrolled when N is above the\n"
           "                       schedule's own (as every command takes N)\n"
           "  -o, --output FILE    write to FILE instead of stdout\n");
    return 0;
}

int ts_cmd_export(int argc, char **argv)
{
    struct option opts[TS_EXPORT_NFORMATS + 4];
    const char *cmd = "export", *outp = "-";
    int fmt = -1, c;
    long n = 0;
    for (int i = 0; i < TS_EXPORT_NFORMATS; i++)
        opts[i] = (struct option){ts_export_formats[i].flag, no_argument, 0, 1000 + i};
    opts[TS_EXPORT_NFORMATS] = (struct option){"micro-batches", required_argument, 0, 'n'};
    opts[TS_EXPORT_NFORMATS + 1] = (struct option){"output", required_argument, 0, 'o'};
    opts[TS_EXPORT_NFORMATS + 2] = (struct option){"help", no_argument, 0, 'h'};
    opts[TS_EXPORT_NFORMATS + 3] = (struct option){0, 0, 0, 0};
    while ((c = ts_cli_getopt(cmd, argc, argv, "n:o:h", opts)) != -1) {
        if (c == -2)
            return 2;
        if (c == 'h')
            return ts_export_help();
        if (c == 'o') {
            outp = optarg;
        } else if (c == 'n') {
            if (ts_cli_parse_long(cmd, "--micro-batches", optarg, 1, 1000000L, &n))
                return 2;
        } else if (c >= 1000 && c < 1000 + TS_EXPORT_NFORMATS) {
            if (fmt >= 0 && fmt != c - 1000)
                return ts_cli_usage_error(cmd, "choose one format");
            fmt = c - 1000;
        }
    }
    if (fmt < 0)
        return ts_cli_usage_error(cmd, "missing the format (--%s ...)", ts_export_formats[0].flag);
    ts_schedule *s;
    const char *path = NULL;
    int rc = ts_cli_schedule_arg(cmd, argc, argv, 0, &path, &s);
    if (rc)
        return rc;
    ts_err e = {0};
    rc = ts_op_export_run(s, (int)n, ts_export_formats[fmt].flag, outp, path, &e);
    ts_schedule_free(s);
    return rc ? ts_cli_report(cmd, &e) : 0;
}
