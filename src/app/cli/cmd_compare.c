/* tessel compare: every hand-made baseline that fits a placement next to every search method,
 * all measured the same way at N micro-batches (unrolled, replayed as early as each device's
 * order allows), in one table. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "ts_baseline.h"
#include "ts_bound.h"
#include "ts_methods.h"
#include "ts_results.h"

#define TS_CMP_MAX_ROWS 32

/* The capacities: one number when every device has the same, else one per device, separated
 * by sep; "unlimited" (none) without. */
static void ts_cmp_print_memory(const ts_placement *p, const long *cap, const char *none,
                                char sep)
{
    bool uniform = true;
    for (int d = 1; cap && d < p->ndevs; d++)
        uniform = uniform && cap[d] == cap[0];
    if (!cap)
        printf("%s", none);
    for (int d = 0; cap && d < (uniform ? 1 : p->ndevs); d++) {
        if (d)
            putchar(sep);
        printf("%ld", cap[d]);
    }
}

/* Devices shown in the table's peak memory column, the first TS_CMP_PEAK_HEAD and the last
 * TS_CMP_PEAK_TAIL, when there are more than both: a row of 128 or 256 numbers is no table for
 * people (--csv and --json give every device). */
#define TS_CMP_PEAK_HEAD 8
#define TS_CMP_PEAK_TAIL 4

static bool ts_cmp_peak_cut(const ts_placement *p)
{
    return p->ndevs > TS_CMP_PEAK_HEAD + TS_CMP_PEAK_TAIL;
}

/* The row's peak memory column into buf: every device, or the first and last with ".." between
 * (ts_cmp_peak_cut). Returns its length. */
static int ts_cmp_peak_text(const ts_placement *p, const long *peak, char *buf, size_t nbuf)
{
    size_t off = 0;
    bool cut = ts_cmp_peak_cut(p);
    for (int d = 0; d < p->ndevs && off < nbuf; d++) {
        if (cut && d == TS_CMP_PEAK_HEAD) {
            off += (size_t)snprintf(buf + off, nbuf - off, " ..");
            d = p->ndevs - TS_CMP_PEAK_TAIL;
        }
        off += (size_t)snprintf(buf + off, nbuf - off, "%s%ld", d ? " " : "", peak[d]);
    }
    return off < nbuf ? (int)off : (int)nbuf - 1;
}

static void ts_cmp_print_table(const ts_placement *p, long n, const long *cap, const ts_bound *lb,
                               const ts_compare_row *rows, int nrows)
{
    bool has_memory = cap != NULL;
    printf("placement %s, %d devices, N = %ld micro-batches, memory ", p->name, p->ndevs, n);
    ts_cmp_print_memory(p, cap, "unlimited", ',');
    printf(", lower bound %ld (%s)\n\n", lb->value, ts_bound_term_name(lb->binding));
    int pw = 11;
    char peak[512];
    for (int i = 0; i < nrows; i++)
        if (rows[i].ok) {
            int w = ts_cmp_peak_text(p, rows[i].peak, peak, sizeof peak);
            if (w > pw)
                pw = w;
        }
    printf("  %-14s %4s %7s %9s %7s %7s  %-*s %4s %9s  %s\n", "method", "k", "period", "makespan",
           "/LB", "bubble", pw, "peak memory", "fits", "seconds", "status");
    for (int i = 0; i < nrows; i++) {
        const ts_compare_row *r = &rows[i];
        char k[16] = "-", per[24] = "-";
        if (r->k > 0)
            snprintf(k, sizeof k, "%ld", r->k);
        if (r->period > 0)
            snprintf(per, sizeof per, "%ld", r->period);
        if (!r->ok) {
            printf("  %-14s %4s %7s %9s %7s %7s  %-*s %4s %9.2f  %s\n", r->method, k, per, "-", "-",
                   "-", pw, "-", "-", r->seconds, r->status);
            continue;
        }
        ts_cmp_peak_text(p, r->peak, peak, sizeof peak);
        printf("%c %-14s %4s %7s %9ld %7.3f %6.2f%%  %-*s %4s %9.2f  %s\n", r->best ? '*' : ' ',
               r->method, k, per, r->makespan,
               r->lower_bound > 0 ? (double)r->makespan / r->lower_bound : 0.0,
               100.0 * r->bubble_rate, pw, peak, has_memory ? (r->fits ? "yes" : "no") : "-",
               r->seconds, r->status);
    }
    printf("\n* the shortest makespan at N among the rows that fit the memory\n");
    if (ts_cmp_peak_cut(p))
        printf("peak memory: devices 0-%d and %d-%d of %d (--csv gives every device)\n",
               TS_CMP_PEAK_HEAD - 1, p->ndevs - TS_CMP_PEAK_TAIL, p->ndevs - 1, p->ndevs);
}

static void ts_cmp_print_csv(const ts_placement *p, long n, const long *cap,
                             const ts_compare_row *rows, int nrows)
{
    bool has_memory = cap != NULL;
    printf("placement,ndevs,micro_batches,memory,method,source,k,period,makespan,lower_bound,"
           "makespan_over_lb,bubble_rate,peak_memory,fits,best,seconds,status\n");
    for (int i = 0; i < nrows; i++) {
        const ts_compare_row *r = &rows[i];
        printf("%s,%d,%ld,", p->name, p->ndevs, n);
        /* one per device: spaces, as in the peak memory */
        ts_cmp_print_memory(p, cap, "none", ' ');
        printf(",%s,%s,", r->method,
               r->greedy   ? "greedy"
               : r->search ? "search"
               : r->file   ? "file"
                           : "baseline");
        if (r->k > 0)
            printf("%ld", r->k);
        printf(",");
        if (r->period > 0)
            printf("%ld", r->period);
        if (r->ok) {
            printf(",%ld,%ld,%.4f,%.4f,", r->makespan, r->lower_bound,
                   r->lower_bound > 0 ? (double)r->makespan / r->lower_bound : 0.0, r->bubble_rate);
            /* spaces, as in the sweep's CSV */
            for (int d = 0; d < p->ndevs; d++)
                printf("%s%ld", d ? " " : "", r->peak[d]);
            printf(",%s,%s", has_memory ? (r->fits ? "yes" : "no") : "", r->best ? "yes" : "");
        } else {
            printf(",,,,,,,");
        }
        printf(",%.3f,\"", r->seconds);
        for (const char *c = r->status; *c; c++)
            putchar(*c == '"' ? '\'' : *c == '\n' ? ' ' : *c);
        printf("\"\n");
    }
}

/* One lower bound for every row (at N, within the memory), and the best row marked. */
static void ts_cmp_finish(const ts_placement *p, long n, const long *cap, ts_compare_row *rows,
                          int nrows, ts_bound *lb)
{
    ts_bound_compute(p, (int)n, cap, lb);
    ts_compare_finish(rows, nrows, lb->value);
}

/* What the command line asked for. */
typedef struct {
    ts_cli_placement pl;
    long n;
    bool memory_given;
    /* --memory as parsed, and each device's capacity (NULL: none) once the placement is known */
    ts_cli_memory mem;
    long *cap;
    double limit, effort;
    const char *methods;
    int csv;
    /* --schedule NAME=FILE: rows from schedule files (imported ones, say), after the methods */
    const char *files[TS_CMP_MAX_ROWS / 2];
    int nfiles;
} ts_cmp_args;

static void ts_cmp_usage(void)
{
    printf("usage: tessel compare (--placement NAME --ndevs D | PLACEMENT)\n"
           "                       --memory M|none [--micro-batches N] [--methods LIST]\n"
           "                       [--time-limit S] [--effort E] [--schedule NAME=FILE ...]\n"
           "                       [--csv]\n\n"
           "Runs every baseline that fits the placement and every search method, and\n"
           "prints one table: method, k and period of the repetend, makespan at N\n"
           "micro-batches and its ratio to the lower bound, bubble rate, peak memory per\n"
           "device and whether it fits M, seconds spent, status. Every schedule is\n"
           "measured the same way: unrolled to N (or cut to its first N micro-batches),\n"
           "replayed as early as each device's order allows. One lower bound, at N within\n"
           "M, for every row; * marks the shortest row that fits. A method without an\n"
           "answer shows why instead of numbers; full's greedy schedule for a problem too\n"
           "large for the solver shows as 'full (greedy)'.\n\n" TS_CLI_PLACEMENT_HELP
           "  -m, --memory M|none  per-device memory capacity for the searches; a list\n"
           "                       M0,M1,... (one per device) gives each its own\n"
           "  -n, --micro-batches N  micro-batches (default %d)\n"
           "  --methods LIST       comma-separated baseline kinds and search methods\n"
           "                       (default: every baseline that fits, then every search\n"
           "                       method)\n"
           "  -t, --time-limit S   seconds per search method (default 60): the effort of each\n"
           "                       (unless --effort) and a wall-clock cap (a row it cuts\n"
           "                       says timed out, and may differ from machine to machine);\n"
           "                       auto runs the other search rows itself, each with its\n"
           "                       own S, then its own phases: up to 5 S\n"
           "  --effort E           solver resource units per search method, the same on any\n"
           "                       machine (default: 1.2e5 per second of --time-limit)\n"
           "  --schedule NAME=FILE a row NAME for the schedule file FILE (of this placement;\n"
           "                       `tessel import --pytorch` writes one), measured the same\n"
           "                       way; repeatable, up to %d\n"
           "  --csv                one CSV row per method instead of the table\n",
           TS_DEFAULT_MICRO_BATCHES, TS_CMP_MAX_ROWS / 2);
}

/* Returns -1 to go on, or the exit status (0 after --help, 2 on bad usage). */
static int ts_cmp_parse(int argc, char **argv, ts_cmp_args *a)
{
    static const struct option opts[] = {TS_CLI_PLACEMENT_OPTIONS,
                                         {"memory", required_argument, 0, 'm'},
                                         {"micro-batches", required_argument, 0, 'n'},
                                         {"methods", required_argument, 0, 'M'},
                                         {"time-limit", required_argument, 0, 't'},
                                         {"effort", required_argument, 0, 'E'},
                                         {"csv", no_argument, 0, 'c'},
                                         {"schedule", required_argument, 0, 'S'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "compare";
    int c;
    while ((c = ts_cli_getopt_placement(cmd, argc, argv, "m:n:t:h", opts, &a->pl)) != -1) {
        switch (c) {
        case -2: return 2;
        case 'h': ts_cmp_usage(); return 0;
        case 'm':
            a->memory_given = true;
            if (ts_cli_parse_memory(cmd, optarg, &a->mem))
                return 2;
            break;
        case 'n':
            if (ts_cli_parse_long(cmd, "--micro-batches", optarg, 1, 100000, &a->n))
                return 2;
            break;
        case 'M': a->methods = optarg; break;
        case 't':
            if (ts_cli_parse_double(cmd, "--time-limit", optarg, TS_TIME_LIMIT_MIN,
                                    TS_TIME_LIMIT_MAX, &a->limit))
                return 2;
            break;
        case 'E':
            if (ts_cli_parse_double(cmd, "--effort", optarg, 1, 1e15, &a->effort))
                return 2;
            break;
        case 'c': a->csv = 1; break;
        case 'S':
            if (!strchr(optarg, '=') || optarg[0] == '=' || strchr(optarg, '=') - optarg >= 24)
                return ts_cli_usage_error(cmd,
                                          "--schedule: '%s' is not NAME=FILE (NAME up to 23 "
                                          "characters)",
                                          optarg);
            if (a->nfiles == TS_CMP_MAX_ROWS / 2)
                return ts_cli_usage_error(cmd, "--schedule: at most %d", TS_CMP_MAX_ROWS / 2);
            a->files[a->nfiles++] = optarg;
            break;
        }
    }
    if (ts_cli_placement_arg(cmd, argc, argv, &a->pl))
        return 2;
    if (!a->memory_given)
        return ts_cli_usage_error(cmd, "--memory M (or --memory none) is required");
    return -1;
}

/* The rows to run, checked before any work starts: the user's list, or every baseline kind then
 * every search method. Returns the count, or -1 after a usage message. */
static int ts_cmp_names(const char *methods, char names[][24])
{
    int nnames = 0;
    if (!methods) {
        for (int i = 0; i < ts_baseline_count(); i++)
            strcpy(names[nnames++], ts_baseline_at(i)->name);
        for (int i = 0; i < TS_METHOD_COUNT && nnames < TS_CMP_MAX_ROWS; i++)
            strcpy(names[nnames++], ts_methods[i].name);
        return nnames;
    }
    for (const char *s = methods; *s;) {
        size_t len = strcspn(s, ",");
        if (len == 0 || len >= 24) {
            ts_cli_usage_error("compare", "--methods: bad entry in '%s'", methods);
            return -1;
        }
        if (nnames == TS_CMP_MAX_ROWS) {
            ts_cli_usage_error("compare", "--methods: too many entries");
            return -1;
        }
        memcpy(names[nnames], s, len);
        names[nnames][len] = '\0';
        if (!ts_baseline_find(names[nnames]) && !ts_compare_is_search(names[nnames])) {
            char list[128];
            ts_cli_usage_error("compare",
                               "--methods: unknown method '%s' (baselines: see `tessel baseline "
                               "--list`; searches: %s)",
                               names[nnames], ts_method_list(list, sizeof list));
            return -1;
        }
        nnames++;
        s += len + (s[len] == ',');
    }
    return nnames;
}

/* One row per name; the default list leaves out the baselines that do not fit. */
/* The measuring options of every row: the request's placement, N, each device's capacity and
 * the time limit. */
static ts_compare_opts ts_cmp_opts(const ts_cmp_args *a, const ts_placement *p)
{
    long largest = 0;
    for (int d = 0; a->cap && d < p->ndevs; d++)
        largest = a->cap[d] > largest ? a->cap[d] : largest;
    return (ts_compare_opts){.p = p,
                             .n = (int)a->n,
                             .has_memory = a->cap != NULL,
                             .memory = largest,
                             .cap = a->cap,
                             .ncap = a->cap ? p->ndevs : 0,
                             .time_limit = a->limit,
                             .effort = a->effort,
                             .default_rows = !a->methods};
}

static int ts_cmp_run(const ts_cmp_args *a, const ts_placement *p, char names[][24], int nnames,
                      ts_compare_row *rows)
{
    int nrows = 0;
    bool progress = isatty(STDERR_FILENO);
    ts_compare_opts o = ts_cmp_opts(a, p);
    for (int i = 0; i < nnames; i++) {
        const char *m = names[i];
        if (!ts_compare_is_search(m) && !a->methods) {
            ts_err fe = {0};
            if (ts_baseline_fits(m, p, (int)a->n, &fe) != TS_OK)
                continue;
        }
        if (progress)
            fprintf(stderr, "compare: %s ...\n", m);
        ts_compare_row_run_guarded(&o, m, &rows[nrows++]);
    }
    return nrows;
}

/* Clears the rows [first, nrows) a failed ts_cmp_files added and returns -rc. */
static int ts_cmp_files_fail(ts_compare_row *rows, int first, int nrows, int rc)
{
    for (int i = first; i < nrows; i++)
        ts_compare_row_clear(&rows[i]);
    return -rc;
}

/* The --schedule rows after the others. Returns the new row count, or -(exit code) when a file
 * cannot be read or holds a schedule of another placement. */
static int ts_cmp_files(const ts_cmp_args *a, const ts_placement *p, ts_compare_row *rows,
                        int nrows)
{
    ts_compare_opts o = ts_cmp_opts(a, p);
    int first = nrows;
    for (int i = 0; i < a->nfiles; i++) {
        const char *eq = strchr(a->files[i], '='), *path = eq + 1;
        ts_schedule *s;
        int rc = ts_cli_schedule_load("compare", path, 0, &s);
        if (rc)
            return ts_cmp_files_fail(rows, first, nrows, rc);
        const ts_placement *q = s->placement;
        bool same = q->ndevs == p->ndevs && q->nblocks == p->nblocks;
        for (int b = 0; same && b < p->nblocks; b++)
            same = !strcmp(q->blocks[b].id, p->blocks[b].id);
        if (!same) {
            fprintf(stderr,
                    "tessel compare: %s: its placement '%s' (%d devices, %d blocks) is not "
                    "the compared placement '%s' (%d devices, %d blocks)\n",
                    path, q->name, q->ndevs, q->nblocks, p->name, p->ndevs, p->nblocks);
            ts_schedule_free(s);
            return ts_cmp_files_fail(rows, first, nrows, 2);
        }
        char name[TS_COMPARE_NAME];
        snprintf(name, sizeof name, "%.*s", (int)(eq - a->files[i]), a->files[i]);
        ts_compare_row_schedule(&o, name, s, &rows[nrows++]);
    }
    return nrows;
}

/* Runs the rows, then prints them. Returns the exit status. */
static int ts_cmp_table(const ts_cmp_args *a0, const ts_placement *p, char names[][24],
                        int nnames)
{
    const ts_cmp_args a = *a0;
    ts_compare_row rows[TS_CMP_MAX_ROWS + TS_CMP_MAX_ROWS / 2];
    int nrows = ts_cmp_run(&a, p, names, nnames, rows);
    int nfile = ts_cmp_files(&a, p, rows, nrows);
    if (nfile < 0) {
        for (int i = 0; i < nrows; i++)
            ts_compare_row_clear(&rows[i]);
        return -nfile;
    }
    nrows = nfile;
    ts_bound lb;
    ts_cmp_finish(p, a.n, a.cap, rows, nrows, &lb);
    if (a.csv)
        ts_cmp_print_csv(p, a.n, a.cap, rows, nrows);
    else
        ts_cmp_print_table(p, a.n, a.cap, &lb, rows, nrows);
    for (int i = 0; i < nrows; i++)
        ts_compare_row_clear(&rows[i]);
    return 0;
}

int ts_cmd_compare(int argc, char **argv)
{
    ts_cmp_args a = {.n = TS_DEFAULT_MICRO_BATCHES, .limit = 60};
    int rc = ts_cmp_parse(argc, argv, &a);
    char names[TS_CMP_MAX_ROWS][24];
    int nnames = rc >= 0 ? 0 : ts_cmp_names(a.methods, names);
    ts_placement *p = NULL;
    if (rc < 0 && nnames < 0)
        rc = 2;
    if (rc < 0 && (rc = ts_cli_placement_load("compare", &a.pl, &p)) == 0 &&
        (rc = ts_cli_memory_caps("compare", &a.mem, p->ndevs, &a.cap)) == 0)
        rc = ts_cmp_table(&a, p, names, nnames);
    ts_placement_free(p);
    ts_cli_memory_free(&a.mem);
    free(a.cap);
    return rc;
}
