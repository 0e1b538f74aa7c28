/* tessel render: an SVG timeline of a schedule, optionally converted to PNG by an installed
 * converter (rsvg-convert, inkscape or ImageMagick's convert). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"
#include "ts_render.h"

/* Finds prog in PATH; full receives its path. */
static bool ts_find_program(const char *prog, char *full, size_t n)
{
    const char *path = getenv("PATH");
    if (!path)
        return false;
    while (*path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        if (len > 0 && (size_t)snprintf(full, n, "%.*s/%s", (int)len, path, prog) < n &&
            access(full, X_OK) == 0)
            return true;
        path += len + (end ? 1 : 0);
    }
    return false;
}

/* Runs argv (no shell, so file names need no quoting); 0 when it exits with status 0. */
static int ts_run(char *const argv[])
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int ts_to_png(const char *cmd, const char *svg, const char *png)
{
    static const char *const progs[] = {"rsvg-convert", "inkscape", "convert"};
    char full[4096];
    for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
        if (!ts_find_program(progs[i], full, sizeof full))
            continue;
        char exportarg[4200];
        snprintf(exportarg, sizeof exportarg, "--export-filename=%s", png);
        char *rsvg[] = {full, "-b", "white", "-o", (char *)png, (char *)svg, NULL};
        char *inkscape[] = {full, (char *)svg, "--export-type=png", exportarg, NULL};
        char *convert[] = {full, (char *)svg, (char *)png, NULL};
        char *const *argv = i == 0 ? rsvg : i == 1 ? inkscape : convert;
        struct stat st;
        if (ts_run(argv) == 0 && stat(png, &st) == 0 && st.st_size > 0) {
            printf("%s: PNG by %s\n", png, progs[i]);
            return 0;
        }
        fprintf(stderr, "tessel %s: %s failed to convert %s to %s\n", cmd, progs[i], svg, png);
        return 3;
    }
    fprintf(stderr,
            "tessel %s: --png needs an SVG converter and none is installed: install rsvg-convert "
            "(Debian package librsvg2-bin), inkscape or ImageMagick; the SVG is in %s\n",
            cmd, svg);
    return 3;
}

int ts_cmd_render(int argc, char **argv)
{
    static const struct option opts[] = {{"micro-batches", required_argument, 0, 'n'},
                                         {"output", required_argument, 0, 'o'},
                                         {"png", no_argument, 0, 'p'},
                                         {"scale", required_argument, 0, 's'},
                                         {"title", required_argument, 0, 't'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "render";
    long n = 0;
    const char *out = NULL;
    int png = 0, c;
    ts_render_opts ro = {0};
    while ((c = ts_cli_getopt(cmd, argc, argv, "n:o:h", opts)) != -1) {
        switch (c) {
        case -2: return 2;
        case 'h':
            printf(
                "usage: tessel render SCHED [--micro-batches N] -o FILE.svg [--png]\n"
                "                      [--scale PX] [--title TEXT]\n\n"
                "Draws the schedule as an SVG timeline, like the papers' figures: one row per\n"
                "device, one box per instance coloured by kind (darker: a block on several\n"
                "devices) and labelled with its micro-batch where the box is wide enough, the\n"
                "repetend window shaded, a step axis and a legend.\n"
                "  -n, --micro-batches N  unroll the repetend to N micro-batches first\n"
                "  -o, --output FILE    the SVG file (default stdout; required with --png)\n"
                "  --png                also write FILE.png through rsvg-convert, inkscape or\n"
                "                       ImageMagick, whichever is installed\n"
                "  --scale PX           pixels per time step (default: about 1600 px in all)\n"
                "  --title TEXT         title line (default: placement, method, sizes)\n\n"
                "An invalid schedule is drawn too, with the reason on stderr, and exits 1. The\n"
                "picture is at most 100000 px wide (a larger --scale is refused, exit 2). Exit 3:\n"
                "the SVG was written but --png found no converter that worked.\n");
            return 0;
        case 'n':
            if (ts_cli_parse_long(cmd, "--micro-batches", optarg, 1, 1000000, &n))
                return 2;
            break;
        case 'o': out = optarg; break;
        case 'p': png = 1; break;
        case 's':
            if (ts_cli_parse_double(cmd, "--scale", optarg, 0.01, 1000, &ro.px_per_step))
                return 2;
            break;
        case 't': ro.title = optarg; break;
        }
    }
    if (optind >= argc)
        return ts_cli_usage_error(cmd, "missing the schedule file");
    if (optind + 1 < argc)
        return ts_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    if (png && (!out || !strcmp(out, "-")))
        return ts_cli_usage_error(cmd, "--png needs -o FILE.svg");
    ts_schedule *s;
    int rc = ts_cli_schedule_load(cmd, argv[optind], n, &s);
    if (rc)
        return rc;
    ts_err e = {0};
    int invalid = ts_cli_warn_invalid(cmd, s);
    if (ts_render_svg_file(s, &ro, out ? out : "-", &e) != TS_OK) {
        rc = ts_cli_report(cmd, &e);
    } else if (png) {
        size_t len = strlen(out);
        char *pngpath = malloc(len + 5);
        if (!pngpath) {
            rc = 3;
        } else {
            memcpy(pngpath, out, len + 1);
            if (len >= 4 && !strcmp(out + len - 4, ".svg"))
                pngpath[len - 4] = '\0';
            strcat(pngpath, ".png");
            rc = ts_to_png(cmd, out, pngpath);
            free(pngpath);
        }
    }
    ts_schedule_free(s);
    return rc ? rc : invalid;
}
