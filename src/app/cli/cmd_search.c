/* tessel search: find a schedule of a placement under a memory limit, write it, and summarise it
 * at N micro-batches (unrolled and replayed as early as each device's order allows). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

#ifdef TS_HAVE_SOLVER
#include "cli_ops.h"
#include "ts_op_search.h"

typedef struct {
    bool tty;
    const char *method;
    bool printed;
} ts_progress_state;

static void ts_search_print_progress(void *ud, const ts_search_progress *p)
{
    ts_progress_state *ps = ud;
    char total[32] = "";
    if (p->total > 0)
        snprintf(total, sizeof total, "/%ld", p->total);
    char best[32] = "none yet";
    if (p->best_bubbles >= 0)
        snprintf(best, sizeof best, "%ld", p->best_bubbles);
    fprintf(stderr, "%s[%s] %s: %ld%s tried, best bubbles %s, %.1f s%s", ps->tty ? "\r\033[K" : "",
            ps->method, p->phase, p->tried, total, best, p->elapsed, ps->tty ? "" : "\n");
    fflush(stderr);
    ps->printed = true;
}

/* The lists --method and --candidates name, under the options of --help. */
static void ts_search_help_lists(void)
{
    printf("\nmethods (--method):\n");
    for (int i = 0; i < TS_METHOD_COUNT; i++) {
        char head[32];
        snprintf(head, sizeof head, "  %s", ts_methods[i].name);
        ts_cli_help_item(head, ts_methods[i].doc);
    }
    printf("\nrows of auto's portfolio, in the order it runs them (--candidates):\n");
    for (int i = 0; i < ts_portfolio_count(); i++) {
        const char *doc, *name = ts_portfolio_name(i, &doc);
        char head[48];
        snprintf(head, sizeof head, "  %s", name);
        ts_cli_help_item(head, doc);
    }
}

static const ts_cli_op_help ts_search_help = {
    "PLACEMENT|--placement NAME --ndevs D --memory M [OPTIONS]",
    "Searches a schedule of the placement whose memory stays within each device's capacity, "
    "writes it (a tessel-schedule/1 file with its repetend, so that it unrolls to any N >= k; "
    "auto's improved schedule holds exactly N micro-batches) and summarises it at N "
    "micro-batches (cut to the first N below k). The options are those of tessel.search in "
    "Python and of the explorer's search, under the same names.",
    ts_search_help_lists,
    "The search spends a deterministic effort: the same request gives the same\n"
    "schedule on any machine, whatever its load. --time-limit sets that effort and\n"
    "caps the wall time; when the cap cuts the search, the record says timed_out\n"
    "true and the result may then differ from one machine to another.\n\n"
    "Exit status: 0 found (also when the time limit cut the search), 1 no schedule\n"
    "fits the memory, 2 bad usage or input.\n"};

/* What the command line asked for, beyond the request: how to print. */
typedef struct {
    ts_cli_op_args op;
    char output_buf[4096];
    const char *output;
    bool json, progress, verbose;
} ts_search_args;

/* The text for people: what was searched, the repetend, the figures at N. */
static void ts_search_print_text(const ts_search_args *a, const ts_op_search_req *r,
                                 const ts_op_search_res *res)
{
    const ts_placement *p = r->p;
    const ts_search_stats *st = &res->st;
    const ts_metrics *m = &res->m;
    char mem[128];
    printf("%s search of '%s' on %d devices, memory %s: %.3f s%s\n", ts_method_name(r->so.method),
           p->name, p->ndevs, ts_search_memory_text(&r->so, p->ndevs, mem, sizeof mem), st->seconds,
           st->timed_out ? " (time limit hit)" : "");
    if (st->k > 0 && st->per_period > 1)
        printf("repetend: k = %d, %d micro-batches per period %ld, bubbles per repetend %ld (%s)\n",
               st->k, st->per_period, st->period, st->bubbles,
               ts_results_period_claim(st));
    else if (st->k > 0)
        printf("repetend: k = %d, period %ld, bubbles per repetend %ld (%s)\n", st->k, st->period,
               st->bubbles,
               ts_results_period_claim(st));
    if (st->source)
        printf("kept: %s%s\n", st->source, st->improved ? ", improved" : "");
    const char *by = ts_results_optimal_by(st);
    printf("at N = %d: makespan %ld, lower bound %ld, bubble rate %.2f%%, %s%s%s\n",
           res->at->nmicros, m->makespan, m->lower_bound, 100.0 * m->bubble_rate,
           by ? "optimal (" : "not proven optimal", by ? by : "", by ? ")" : "");
    printf("peak memory:");
    for (int d = 0; d < p->ndevs; d++)
        printf(" %ld", m->peak[d]);
    printf("\n");
    if (a->output)
        printf("schedule written to %s\n", a->output);
}

/* --verbose: how the time went, on stderr, and the rows of auto's portfolio it skipped. */
static void ts_search_print_verbose(const ts_search_stats *st)
{
    fprintf(stderr, "search: %.3f s, effort %lld%s%s\n", st->seconds, st->effort,
            st->timed_out ? ", cut by the wall-clock cap (timed_out)" : "",
            st->effort_out ? ", stopped on its effort" : "");
    for (int i = 0; i < st->nphases; i++)
        fprintf(stderr, "  phase %-12s %9.3f s\n", st->phases[i].name, st->phases[i].seconds);
    for (int i = 0; i < st->nportfolio; i++)
        fprintf(stderr, "  candidate %-14s makespan %-8ld effort %-10lld %9.3f s\n",
                st->portfolio[i].source, st->portfolio[i].makespan, st->portfolio[i].effort,
                st->portfolio[i].seconds);
    if (st->portfolio_tried > st->nportfolio)
        fprintf(stderr, "  and %d candidates more\n", st->portfolio_tried - st->nportfolio);
    for (int i = 0; i < st->nrows; i++)
        if (!st->rows[i].ran)
            fprintf(stderr, "  skipped %-16s %s\n", st->rows[i].name, st->rows[i].why);
}

/* Searches, then writes and summarises the schedule (or says why there is none). */
static int ts_search_run(const char *cmd, ts_search_args *a, ts_op_search_req *r)
{
    ts_progress_state ps = {isatty(2) != 0, ts_method_name(r->so.method), false};
    if (ps.tty || a->progress) {
        r->so.progress = ts_search_print_progress;
        r->so.progress_ud = &ps;
    }
    ts_op_search_res res;
    ts_err e = {0};
    int rc = ts_op_search_run(r, &res, &e);
    if (ps.printed && ps.tty)
        fprintf(stderr, "\n");
    if (a->verbose)
        ts_search_print_verbose(&res.st);
    if (rc) {
        if (rc == TS_ENOANSWER && a->json)
            ts_cli_print_json(ts_results_refusal_json(r->p, &r->so, &res.st, &e));
        rc = ts_cli_report(cmd, &e);
    } else if (a->output && ts_schedule_save(res.s, a->output, &e)) {
        rc = ts_cli_report(cmd, &e);
    } else if (a->json) {
        if (a->output)
            json_object_set_new(res.summary, "output", json_string(a->output));
        ts_cli_print_json(json_incref(res.summary));
    } else {
        ts_search_print_text(a, r, &res);
    }
    ts_op_search_res_free(&res);
    return rc;
}
#endif

int ts_cmd_search(int argc, char **argv)
{
#ifndef TS_HAVE_SOLVER
    (void)argc;
    (void)argv;
    fprintf(stderr, "tessel search: this build has no solver (Z3 was not found)\n");
    return 2;
#else
    const char *cmd = "search";
    ts_search_args a;
    memset(&a, 0, sizeof a);
    int rc = ts_cli_op_parse(cmd, &ts_op_search, &ts_search_help, argc, argv, &a.op);
    ts_placement *p = NULL;
    ts_op_search_req r = {0};
    ts_err e = {0};
    if (rc == 0) {
        a.output = ts_cli_op_take_text(&a.op, "output", a.output_buf, sizeof a.output_buf);
        a.json = ts_cli_op_take_flag(&a.op, "json");
        a.progress = ts_cli_op_take_flag(&a.op, "progress");
        a.verbose = ts_cli_op_take_flag(&a.op, "verbose");
        rc = ts_cli_placement_load(cmd, &a.op.pl, &p);
    }
    if (rc == 0 && ts_op_search_read(a.op.req, TS_FRONT_CLI, p, &r, &e))
        rc = e.code == TS_ESYS ? ts_cli_report(cmd, &e) : ts_cli_usage_error(cmd, "%s", e.msg);
    if (rc == 0)
        rc = ts_search_run(cmd, &a, &r);
    ts_op_search_req_free(&r);
    ts_placement_free(p);
    json_decref(a.op.req);
    return rc < 0 ? 0 : rc;
#endif
}
