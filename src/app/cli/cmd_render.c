/* tessel render: an SVG timeline of a schedule (the render operation, ts_op_views.h), optionally
 * converted to PNG by an installed converter (rsvg-convert, inkscape or ImageMagick's convert). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli_ops.h"
#include "ts_op_views.h"

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

static const ts_cli_op_help ts_render_help = {
    "SCHED [--micro-batches N] -o FILE.svg [--png] [OPTIONS]",
    "Draws the schedule as an SVG timeline, like the papers' figures: one row per device, one "
    "box per instance coloured by kind (darker: a block on several devices) and labelled with "
    "its micro-batch where the box is wide enough, the repetend window shaded, a step axis and a "
    "legend. The options are those of Schedule.svg in Python and of the explorer's view, under "
    "the same names.",
    NULL,
    "An invalid schedule is drawn too, with the reason on stderr, and exits 1. The\n"
    "picture is at most 100000 px wide (a larger --scale is refused, exit 2). Exit 3:\n"
    "the SVG was written but --png found no converter that worked.\n"};

/* FILE.png beside FILE.svg, converted by whichever converter is installed. */
static int ts_render_png(const char *cmd, const char *out)
{
    size_t len = strlen(out);
    char *pngpath = malloc(len + 5);
    if (!pngpath)
        return 3;
    memcpy(pngpath, out, len + 1);
    if (len >= 4 && !strcmp(out + len - 4, ".svg"))
        pngpath[len - 4] = '\0';
    strcat(pngpath, ".png");
    int rc = ts_to_png(cmd, out, pngpath);
    free(pngpath);
    return rc;
}

int ts_cmd_render(int argc, char **argv)
{
    const char *cmd = "render", *path = NULL, *out;
    char outbuf[4096];
    ts_cli_op_args a;
    int rc = ts_cli_op_parse(cmd, &ts_op_render, &ts_render_help, argc, argv, &a);
    out = rc == 0 ? ts_cli_op_take_text(&a, "output", outbuf, sizeof outbuf) : NULL;
    bool png = rc == 0 && ts_cli_op_take_flag(&a, "png");
    ts_schedule *s = NULL;
    ts_op_view_req r;
    ts_op_view_res res = {0};
    ts_err e = {0};
    if (rc == 0 && ts_op_view_read(&ts_op_render, a.req, TS_FRONT_CLI, &r, &e))
        rc = ts_cli_usage_error(cmd, "%s", e.msg);
    if (rc == 0 && optind >= argc)
        rc = ts_cli_usage_error(cmd, "missing the schedule file");
    if (rc == 0 && optind + 1 < argc)
        rc = ts_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    if (rc == 0 && png && (!out || !strcmp(out, "-")))
        rc = ts_cli_usage_error(cmd, "--png needs -o FILE.svg");
    if (rc == 0)
        rc = ts_cli_schedule_arg(cmd, argc, argv, 0, &path, &s);
    if (rc == 0 && ts_op_view_run(&ts_op_render, s, path, &r, &res, &e))
        rc = ts_cli_report(cmd, &e);
    if (rc == 0 && !res.valid)
        fprintf(stderr, "tessel %s: invalid schedule: %s\n", cmd, res.why);
    if (rc == 0 && ts_render_svg_file(res.at, &r.ro, out ? out : "-", &e) != TS_OK)
        rc = ts_cli_report(cmd, &e);
    else if (rc == 0 && png)
        rc = ts_render_png(cmd, out);
    if (rc == 0 && !res.valid)
        rc = 1;
    ts_op_view_res_free(&res);
    ts_schedule_free(s);
    json_decref(a.req);
    return rc < 0 ? 0 : rc;
}
