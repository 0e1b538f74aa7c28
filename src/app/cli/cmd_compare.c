/* tessel compare: every hand-made baseline that fits a placement next to every search method,
 * all measured the same way at N micro-batches (unrolled, replayed as early as each device's
 * order allows), in one table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli_ops.h"
#include "ts_baseline.h"
#include "ts_methods.h"
#include "ts_op_compare.h"

/* The capacities: one number when every device has the same, else one per device, separated
 * by sep; "unlimited" (none) without. */
static void ts_cmp_print_memory(const ts_placement *p, const long *cap, const char *none, char sep)
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
    printf("  %-14s %4s %6s %2s %9s %7s %7s  %-*s %4s %9s  %s\n", "method", "k", "period", "R",
           "makespan", "/LB", "bubble", pw, "peak memory", "fits", "seconds", "status");
    for (int i = 0; i < nrows; i++) {
        const ts_compare_row *r = &rows[i];
        char k[16] = "-", per[24] = "-", R[16] = "-", ratio[16] = "-";
        if (r->k > 0)
            snprintf(k, sizeof k, "%ld", r->k);
        if (r->period > 0)
            snprintf(per, sizeof per, "%ld", r->period);
        if (r->per > 0 && r->period > 0)
            snprintf(R, sizeof R, "%d", r->per);
        if (!r->ok) {
            printf("  %-14s %4s %6s %2s %9s %7s %7s  %-*s %4s %9.2f  %s\n", r->method, k, per, R,
                   "-", "-", "-", pw, "-", "-", r->seconds, r->status);
            continue;
        }
        /* a row over the memory, or at another N, is not held to the table's bound: no ratio */
        if (r->lower_bound > 0 && r->at_n && (r->fits || !has_memory))
            snprintf(ratio, sizeof ratio, "%.3f", (double)r->makespan / r->lower_bound);
        ts_cmp_peak_text(p, r->peak, peak, sizeof peak);
        printf("%c %-14s %4s %6s %2s %9ld %7s %6.2f%%  %-*s %4s %9.2f  %s\n", r->best ? '*' : ' ',
               r->method, k, per, R, r->makespan, ratio, 100.0 * r->bubble_rate, pw, peak,
               has_memory ? (r->fits ? "yes" : "no") : "-", r->seconds, r->status);
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
    printf("placement,ndevs,micro_batches,memory,method,source,k,period,per_period,makespan,"
           "lower_bound,makespan_over_lb,bubble_rate,peak_memory,fits,best,seconds,status\n");
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
        printf(",");
        if (r->per > 0 && r->period > 0)
            printf("%d", r->per);
        if (r->ok) {
            printf(",%ld,%ld,", r->makespan, r->lower_bound);
            if (r->lower_bound > 0 && r->at_n && (r->fits || !has_memory))
                printf("%.4f", (double)r->makespan / r->lower_bound);
            printf(",%.4f,", r->bubble_rate);
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

/* The names --methods takes, under the options of --help. */
static void ts_cmp_help_lists(void)
{
    char kinds[1024] = "", methods[256];
    for (int i = 0; i < ts_baseline_count(); i++)
        snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%s%s", i ? ", " : "",
                 ts_baseline_at(i)->name);
    printf("\nrows (--methods):\n");
    ts_cli_help_item("  baselines", kinds);
    ts_cli_help_item("  searches", ts_method_list(methods, sizeof methods));
}

static const ts_cli_op_help ts_cmp_help = {
    "PLACEMENT|--placement NAME --ndevs D --memory M [OPTIONS]",
    "Runs every baseline that fits the placement and every search method, and prints one "
    "table: method, k and period of the repetend, makespan at N micro-batches and its ratio to "
    "the lower bound, bubble rate, peak memory per device and whether it fits M, seconds spent, "
    "status. Every schedule is measured the same way: unrolled to N (or cut to its first N "
    "micro-batches), replayed as early as each device's order allows. One lower bound, at N "
    "within M, for every row; * marks the shortest row that fits. A method without an answer "
    "shows why instead of numbers; full's greedy schedule for a problem too large for the "
    "solver shows as 'full (greedy)'. The options are those of tessel.compare in Python and of "
    "the explorer's compare, under the same names.",
    ts_cmp_help_lists,
    "Exit status: 0 the table was printed, 2 bad usage or input (a schedule file\n"
    "that cannot be read or is of another placement).\n"};

/* "compare: NAME ..." on a terminal as each row starts. */
static void ts_cmp_row_start(void *ud, const char *name, int i, int n)
{
    (void)ud;
    (void)i;
    (void)n;
    fprintf(stderr, "compare: %s ...\n", name);
}

/* Runs the rows (each search in a child under the watchdog), then prints them. Returns the exit
 * status. */
static int ts_cmp_table(const char *cmd, ts_op_compare_req *r, bool csv)
{
    ts_op_compare_res res;
    ts_err e = {0};
    r->guarded = true;
    if (isatty(STDERR_FILENO))
        r->row_start = ts_cmp_row_start;
    int rc = ts_op_compare_run(r, &res, &e);
    if (rc)
        rc = ts_cli_report(cmd, &e);
    else if (csv)
        ts_cmp_print_csv(r->p, r->n, r->cap, res.rows, res.nrows);
    else
        ts_cmp_print_table(r->p, r->n, r->cap, &res.lb, res.rows, res.nrows);
    ts_op_compare_res_free(&res);
    return rc;
}

int ts_cmd_compare(int argc, char **argv)
{
    const char *cmd = "compare";
    ts_cli_op_args a;
    int rc = ts_cli_op_parse(cmd, &ts_op_compare, &ts_cmp_help, argc, argv, &a);
    bool csv = false;
    ts_placement *p = NULL;
    ts_op_compare_req r = {0};
    ts_err e = {0};
    if (rc == 0) {
        csv = ts_cli_op_take_flag(&a, "csv");
        rc = ts_cli_placement_load(cmd, &a.pl, &p);
    }
    if (rc == 0 && ts_op_compare_read(a.req, TS_FRONT_CLI, p, &r, &e))
        rc = e.code == TS_ESYS ? ts_cli_report(cmd, &e) : ts_cli_usage_error(cmd, "%s", e.msg);
    if (rc == 0)
        rc = ts_cmp_table(cmd, &r, csv);
    ts_op_compare_req_free(&r);
    ts_placement_free(p);
    json_decref(a.req);
    return rc < 0 ? 0 : rc;
}
