/* What the subcommands share: usage errors and reports, number, memory and option parsing, the
 * placement named on the command line, schedule loading and unrolling, and the metrics JSON. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "ts_json.h"

int ts_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "tessel %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'tessel %s --help'.\n", cmd);
    return 2;
}

int ts_cli_report(const char *cmd, const ts_err *e)
{
    fprintf(stderr, "tessel %s: %s\n", cmd, e->msg[0] ? e->msg : "failed");
    return e->code ? e->code : 3;
}

int ts_cli_parse_long(const char *cmd, const char *flag, const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno)
        return ts_cli_usage_error(cmd, "%s expects an integer, got '%s'", flag, s);
    if (v < lo || v > hi)
        return ts_cli_usage_error(cmd, "%s must be between %ld and %ld, got %ld", flag, lo, hi, v);
    *out = v;
    return 0;
}

int ts_cli_parse_double(const char *cmd, const char *flag, const char *s, double lo, double hi,
                        double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || v != v)
        return ts_cli_usage_error(cmd, "%s expects a number, got '%s'", flag, s);
    if (v < lo || v > hi)
        return ts_cli_usage_error(cmd, "%s must be between %g and %g, got %g", flag, lo, hi, v);
    *out = v;
    return 0;
}

int ts_cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
                  const struct option *longopts)
{
    int idx = -1, at = optind;
    opterr = 0;
    int c = getopt_long(argc, argv, shortopts, longopts, &idx);
    /* getopt_long takes an unambiguous prefix of a long option for the option: `--seq 8192`
     * became --sequence-parallel. A flag is taken only as written in full. */
    const char *tok = at < argc ? argv[at] : NULL;
    if (c != -1 && c != '?' && c != ':' && idx >= 0 && tok && tok[0] == '-' && tok[1] == '-') {
        size_t len = strcspn(tok + 2, "=");
        if (len != strlen(longopts[idx].name)) {
            ts_cli_usage_error(cmd,
                               "unknown option '%.*s' (options are written in full: did you "
                               "mean --%s?)",
                               (int)len + 2, tok, longopts[idx].name);
            return -2;
        }
    }
    if (c == '?') {
        const char *bad = argv[optind - 1];
        if (optopt && bad[0] == '-' && bad[1] == '-')
            ts_cli_usage_error(cmd, "option '%s' needs a value", bad);
        else if (optopt && !strchr(shortopts, optopt))
            ts_cli_usage_error(cmd, "unknown option '-%c'", optopt);
        else if (optopt)
            ts_cli_usage_error(cmd, "option '-%c' needs a value", optopt);
        else if (strchr(bad, '='))
            ts_cli_usage_error(cmd, "unknown option or unexpected value '%s'", bad);
        else {
            int needs = 0;
            for (const struct option *o = longopts; o->name; o++)
                if (!strcmp(bad + 2, o->name) && o->has_arg == required_argument)
                    needs = 1;
            if (needs)
                ts_cli_usage_error(cmd, "option '%s' needs a value", bad);
            else
                ts_cli_usage_error(cmd, "unknown option '%s'", bad);
        }
        return -2;
    }
    if (c == ':') {
        ts_cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
        return -2;
    }
    return c;
}

/* A capacity per device, "8,8,8,4" (as schedule files store them). The solver takes one capacity
 * for all devices, so a list stands for its smallest value: a schedule within it fits every
 * device. For `bound` the largest instead, since a lower bound must hold for the roomiest device
 * too. Said on stderr, since it is an approximation. */
static int ts_cli_parse_memory_list(const char *cmd, const char *arg, ts_cli_memory *m)
{
    char item[32];
    int n = 1;
    for (const char *s = arg; *s; s++)
        n += *s == ',';
    if (n > TS_MAX_DEVS)
        return ts_cli_usage_error(cmd, "--memory: %d capacities, more than %d devices", n,
                                  TS_MAX_DEVS);
    if (!(m->cap = calloc((size_t)n, sizeof *m->cap)))
        return ts_cli_usage_error(cmd, "--memory: out of memory");
    m->n = 0;
    for (const char *s = arg; *s; m->n++) {
        size_t len = strcspn(s, ",");
        if (len == 0 || len >= sizeof item)
            return ts_cli_usage_error(cmd, "--memory: '%s' is not a list of capacities", arg);
        memcpy(item, s, len);
        item[len] = '\0';
        if (ts_cli_parse_long(cmd, "--memory", item, 0, TS_MAX_MEMORY, &m->cap[m->n]))
            return 2;
        s += len;
        if (*s == ',' && !*++s)
            return ts_cli_usage_error(cmd, "--memory: '%s' ends with a comma", arg);
    }
    return 0;
}

int ts_cli_parse_memory(const char *cmd, const char *arg, ts_cli_memory *m)
{
    ts_cli_memory_free(m);
    m->arg = arg;
    if (!strcmp(arg, "none"))
        return 0;
    if (strchr(arg, ',')) {
        if (ts_cli_parse_memory_list(cmd, arg, m))
            return 2;
    } else {
        if (!(m->cap = calloc(1, sizeof *m->cap)))
            return ts_cli_usage_error(cmd, "--memory: out of memory");
        m->n = 1;
        if (ts_cli_parse_long(cmd, "--memory", arg, 0, TS_MAX_MEMORY, &m->cap[0]))
            return 2;
    }
    m->has_memory = true;
    return 0;
}

int ts_cli_memory_caps(const char *cmd, const ts_cli_memory *m, int ndevs, long **out)
{
    *out = NULL;
    if (!m->has_memory)
        return 0;
    if (m->n != 1 && m->n != ndevs)
        return ts_cli_usage_error(cmd,
                                  "--memory %s: %d capacities for %d devices (give one for "
                                  "every device, or one per device)",
                                  m->arg, m->n, ndevs);
    if (!(*out = malloc((size_t)ndevs * sizeof **out + 1))) {
        fprintf(stderr, "tessel %s: out of memory\n", cmd);
        return 3;
    }
    for (int d = 0; d < ndevs; d++)
        (*out)[d] = m->cap[m->n == 1 ? 0 : d];
    return 0;
}

void ts_cli_memory_free(ts_cli_memory *m)
{
    free(m->cap);
    m->cap = NULL;
    m->n = 0;
    m->has_memory = false;
}

int ts_cli_placement_option(const char *cmd, int opt, const char *arg, ts_cli_placement *pl)
{
    switch (opt) {
    case 1000: pl->name = arg; return 1;
    case 1001: return ts_cli_parse_long(cmd, "--ndevs", arg, 1, TS_MAX_DEVS, &pl->ndevs) ? 2 : 1;
    case 1002: pl->infer = true; return 1;
    case 1003: return ts_cli_parse_long(cmd, "--chunks", arg, 1, 64, &pl->chunks) ? 2 : 1;
    default: return 0;
    }
}

int ts_cli_getopt_placement(const char *cmd, int argc, char **argv, const char *shortopts,
                            const struct option *longopts, ts_cli_placement *pl)
{
    for (;;) {
        int c = ts_cli_getopt(cmd, argc, argv, shortopts, longopts);
        if (c == -1 || c == -2)
            return c;
        switch (ts_cli_placement_option(cmd, c, optarg, pl)) {
        case 0: return c;
        case 2: return -2;
        default: break; /* one of the shared options: on to the next */
        }
    }
}

int ts_cli_placement_arg(const char *cmd, int argc, char **argv, ts_cli_placement *pl)
{
    if (optind < argc)
        pl->file = argv[optind++];
    if (optind < argc)
        return ts_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    return 0;
}

/* The library accepts a device whose blocks free more memory than they allocate per micro-batch;
 * in a file that is most likely a typo, so the command line says so. */
void ts_cli_warn_memory(const char *cmd, const ts_placement *p, const char *where)
{
    ts_err e = {0};
    if (ts_placement_check_memory(p, where, &e))
        fprintf(stderr, "tessel %s: warning: %s\n", cmd, e.msg);
}

int ts_cli_placement_load(const char *cmd, ts_cli_placement *pl, ts_placement **out)
{
    ts_err e = {0};
    *out = NULL;
    if (pl->file && pl->name)
        return ts_cli_usage_error(cmd,
                                  "give either a placement file or --placement NAME, not both");
    if (!pl->file && !pl->name)
        return ts_cli_usage_error(cmd, "no placement: give a placement file or --placement NAME "
                                       "--ndevs D");
    if (pl->file) {
        if (pl->ndevs || pl->infer || pl->chunks)
            return ts_cli_usage_error(cmd, "--ndevs, --infer and --chunks apply to built-in "
                                           "placements (--placement NAME) only");
        if (ts_placement_load(pl->file, out, &e))
            return ts_cli_report(cmd, &e);
        ts_cli_warn_memory(cmd, *out, pl->file);
        return 0;
    }
    /* a file where a built-in's name goes: say what takes it */
    if (!ts_builtin_find(pl->name) && (strchr(pl->name, '/') || strstr(pl->name, ".json")))
        return ts_cli_usage_error(cmd,
                                  "'%s' is a file's name, not a built-in placement's (a "
                                  "placement file is the command's argument where it takes one; "
                                  "`tessel validate %s` checks it)",
                                  pl->name, pl->name);
    if (!pl->ndevs)
        return ts_cli_usage_error(cmd, "--placement %s needs --ndevs D", pl->name);
    ts_builtin_opts o = {(int)pl->ndevs, pl->infer, (int)pl->chunks};
    if (ts_builtin_make(pl->name, &o, out, &e)) {
        fprintf(stderr, "tessel %s: %s\n", cmd, e.msg);
        return 2;
    }
    return 0;
}

int ts_cli_schedule_load(const char *cmd, const char *path, long n, ts_schedule **out)
{
    ts_err e = {0};
    ts_schedule *s;
    *out = NULL;
    if (ts_schedule_load(path, &s, &e))
        return ts_cli_report(cmd, &e);
    ts_cli_warn_memory(cmd, s->placement, path);
    if (n > 0 && n != s->nmicros) {
        ts_schedule *u;
        int rc = ts_schedule_unroll(s, (int)n, &u, &e);
        ts_schedule_free(s);
        if (rc) {
            fprintf(stderr, "tessel %s: %s: %s\n", cmd, path, e.msg);
            return rc;
        }
        s = u;
    }
    *out = s;
    return 0;
}

int ts_cli_schedule_arg(const char *cmd, int argc, char **argv, long n, const char **path,
                        ts_schedule **out)
{
    *out = NULL;
    if (optind >= argc)
        return ts_cli_usage_error(cmd, "missing the schedule file");
    if (optind + 1 < argc)
        return ts_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    if (path)
        *path = argv[optind];
    return ts_cli_schedule_load(cmd, argv[optind], n, out);
}

void ts_cli_print_json(json_t *j)
{
    json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(j);
}

json_t *ts_cli_long_array(const long *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}
