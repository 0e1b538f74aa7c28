/* tessel search: find a schedule of a placement under a memory limit, write it, and summarise it
 * at N micro-batches (unrolled and replayed as early as each device's order allows). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

#ifdef TS_HAVE_SOLVER
#include "ts_results.h"
#include "ts_solver.h"

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

static void ts_search_help(void)
{
    printf("usage: tessel search (PLACEMENT | --placement NAME --ndevs D [--infer])\n"
           "                     --memory M|none [--method METHOD]\n"
           "                     [--nmicros K] [--micro-batches N] [--time-limit S]\n"
           "                     [-o SCHED] [--json] [--progress]\n\n"
           "Searches a schedule of the placement whose memory stays within M units per\n"
           "device, writes it (a tessel-schedule/1 file with its repetend, so that it\n"
           "unrolls to any N >= k; auto's improved schedule holds exactly N micro-batches)\n"
           "and summarises it at N micro-batches (cut to the first N below "
           "k).\n\n" TS_CLI_PLACEMENT_HELP
           "  --memory M|none      per-device memory capacity, or none (unconstrained); a\n"
           "                       list M0,M1,... (one per device) gives each its own;\n"
           "                       default: the capacity the placement file states\n"
           "  --method METHOD      one of:\n");
    for (int i = 0; i < TS_METHOD_COUNT; i++)
        printf("                         %-7s %s\n", ts_methods[i].name, ts_methods[i].doc);
    for (int i = 0; i < TS_OPT_COUNT; i++) {
        const ts_search_option *so = &ts_search_options[i];
        printf("  --%-18s %s", so->flag, so->help);
        if (so->def >= so->min)
            printf(" (default %g)", so->def);
        printf("\n");
    }
    printf("  -o, --output SCHED   write the schedule\n"
           "  --json               print one JSON object: the search record (method, k, period,\n"
           "                       bubbles_per_repetend, optimal, timed_out, ..., search_seconds;\n"
           "                       the same keys for every method), placement, ndevs, memory,\n"
           "                       feasible and the figures at N (micro_batches, makespan,\n"
           "                       bubble_rate, lower_bound, peak_memory, load)\n"
           "  --progress           progress on stderr even when it is not a terminal\n"
           "  --verbose            how the time went, on stderr: seconds and effort of the\n"
           "                       search, of each phase and (auto) of each candidate\n\n"
           "The search spends a deterministic effort: the same request gives the same\n"
           "schedule on any machine, whatever its load. --time-limit sets that effort and\n"
           "caps the wall time; when the cap cuts the search, the record says timed_out\n"
           "true and the result may then differ from one machine to another.\n\n"
           "Exit status: 0 found (also when the time limit cut the search), 1 no schedule\n"
           "fits the memory, 2 bad usage or input.\n");
}

/* What the command line asked for. */
typedef struct {
    ts_cli_placement pl;
    ts_search_opts so;
    const char *output, *memory;
    /* --memory as parsed, and each device's capacity that so points at */
    ts_cli_memory mem;
    long *cap;
    int json, progress, verbose;
} ts_search_args;

/* Sets the search option of the table from a flag's argument (ranges from the table). */
static int ts_search_set_option(const char *cmd, ts_search_opts *so, ts_search_option_id id,
                                const char *arg)
{
    const ts_search_option *o = &ts_search_options[id];
    char flag[48];
    snprintf(flag, sizeof flag, "--%s", o->flag);
    double v;
    if (ts_cli_parse_double(cmd, flag, arg, o->min, o->max, &v))
        return 2;
    if (ts_search_opts_set(so, id, v))
        return ts_cli_usage_error(cmd, "%s: %s is not a valid value", flag, arg);
    return 0;
}

/* The getopt values of the search options without a one-letter flag start here. */
#define TS_SEARCH_OPT_VAL 2000

/* The getopt value of search option i: its one-letter flag, or one past every character. */
static int ts_search_option_val(int i)
{
    int sh = ts_search_options[i].shortflag;
    return sh ? sh : TS_SEARCH_OPT_VAL + i;
}

/* The search option that getopt value c stands for, or -1. */
static int ts_search_option_of(int c)
{
    for (int i = 0; i < TS_OPT_COUNT; i++)
        if (c == ts_search_option_val(i))
            return i;
    return -1;
}

/* Parses the command line into a; 0, or the exit status (-1: --help printed, exit 0). The search
 * options' flags come from their table (TS_SEARCH_OPTIONS), between the command's own. */
static int ts_search_parse(const char *cmd, int argc, char **argv, ts_search_args *a)
{
    static const struct option head[] = {TS_CLI_PLACEMENT_OPTIONS,
                                         {"memory", required_argument, 0, 'm'},
                                         {"method", required_argument, 0, 'M'}};
    static const struct option tail[] = {{"output", required_argument, 0, 'o'},
                                         {"json", no_argument, 0, 'j'},
                                         {"progress", no_argument, 0, 'p'},
                                         {"verbose", no_argument, 0, 'V'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    enum { NHEAD = sizeof head / sizeof head[0], NTAIL = sizeof tail / sizeof tail[0] };
    struct option opts[NHEAD + TS_OPT_COUNT + NTAIL];
    char shortopts[16 + 2 * TS_OPT_COUNT] = "m:M:o:jph";
    memcpy(opts, head, sizeof head);
    for (int i = 0; i < TS_OPT_COUNT; i++) {
        const ts_search_option *so = &ts_search_options[i];
        opts[NHEAD + i] = (struct option){so->flag, required_argument, 0, ts_search_option_val(i)};
        if (so->shortflag)
            snprintf(shortopts + strlen(shortopts), sizeof shortopts - strlen(shortopts),
                     "%c:", so->shortflag);
    }
    memcpy(opts + NHEAD + TS_OPT_COUNT, tail, sizeof tail);
    char names[96];
    long v;
    int c;
    ts_search_opts_init(&a->so);
    a->so.method = TS_METHOD_AUTO; /* the command's default: the user's makespan at N */
    while ((c = ts_cli_getopt_placement(cmd, argc, argv, shortopts, opts, &a->pl)) != -1) {
        int id = ts_search_option_of(c);
        if (id >= 0) {
            const ts_search_option *so = &ts_search_options[id];
            char flag[48];
            snprintf(flag, sizeof flag, "--%s", so->flag);
            /* an integer option takes a whole number, not a fraction */
            if (so->integer &&
                ts_cli_parse_long(cmd, flag, optarg, (long)so->min, (long)so->max, &v))
                return 2;
            int rc = ts_search_set_option(cmd, &a->so, (ts_search_option_id)id, optarg);
            if (rc)
                return rc;
            continue;
        }
        switch (c) {
        case -2: return 2;
        case 'h': ts_search_help(); return -1;
        case 'm': a->memory = optarg; break;
        case 'M':
            if (ts_method_parse(optarg, &a->so.method))
                return ts_cli_usage_error(cmd, "--method: unknown method '%s' (%s)", optarg,
                                          ts_method_list(names, sizeof names));
            break;
        case 'o': a->output = optarg; break;
        case 'j': a->json = 1; break;
        case 'p': a->progress = 1; break;
        case 'V': a->verbose = 1; break;
        default: return ts_cli_usage_error(cmd, "unexpected option");
        }
    }
    if (ts_cli_placement_arg(cmd, argc, argv, &a->pl))
        return 2;
    if (a->memory && ts_cli_parse_memory(cmd, a->memory, &a->mem))
        return 2;
    return 0;
}

/* --json when no schedule fits: why, and the smallest memory when the search knows it. */
static void ts_search_print_refusal(const ts_search_args *a, const ts_placement *p,
                                    const ts_search_stats *st, const ts_err *e)
{
    ts_cli_print_json(ts_results_refusal_json(p, &a->so, st, e));
}

/* --json for a schedule: the search record (the same keys for every method) and the figures at
 * N, as the results module builds them for every front end. */
static void ts_search_print_json(const ts_search_args *a, const ts_placement *p,
                                 const ts_search_stats *st, const ts_schedule *at,
                                 const ts_metrics *m)
{
    json_t *j = ts_results_search_json(p, &a->so, st, at, m);
    if (j && a->output)
        json_object_set_new(j, "output", json_string(a->output));
    ts_cli_print_json(j);
}

static void ts_search_print_text(const ts_search_args *a, const ts_placement *p,
                                 const ts_search_stats *st, const ts_schedule *at,
                                 const ts_metrics *m)
{
    char mem[128];
    printf("%s search of '%s' on %d devices, memory %s: %.3f s%s\n", ts_method_name(a->so.method),
           p->name, p->ndevs, ts_search_memory_text(&a->so, p->ndevs, mem, sizeof mem),
           st->seconds, st->timed_out ? " (time limit hit)" : "");
    if (st->k > 0 && st->per_period > 1)
        printf("repetend: k = %d, %d micro-batches per period %ld, bubbles per repetend %ld (%s)\n",
               st->k, st->per_period, st->period, st->bubbles,
               st->period_optimal ? "smallest period of its class" : "period not proven minimal");
    else if (st->k > 0)
        printf("repetend: k = %d, period %ld, bubbles per repetend %ld (%s)\n", st->k, st->period,
               st->bubbles,
               st->period_optimal ? "smallest period of its class" : "period not proven minimal");
    if (st->source)
        printf("kept: %s%s\n", st->source, st->improved ? ", improved" : "");
    printf("at N = %d: makespan %ld, lower bound %ld, bubble rate %.2f%%, %s\n", at->nmicros,
           m->makespan, m->lower_bound, 100.0 * m->bubble_rate,
           st->optimal ? "optimal (meets the lower bound)" : "not proven optimal");
    printf("peak memory:");
    for (int d = 0; d < p->ndevs; d++)
        printf(" %ld", m->peak[d]);
    printf("\n");
    if (a->output)
        printf("schedule written to %s\n", a->output);
}

/* --verbose: how the time went, on stderr. */
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
}

/* Searches, then writes and summarises the schedule (or says why there is none). */
static int ts_search_run(const char *cmd, ts_search_args *a, const ts_placement *p)
{
    ts_progress_state ps = {isatty(2) != 0, ts_method_name(a->so.method), false};
    if (ps.tty || a->progress) {
        a->so.progress = ts_search_print_progress;
        a->so.progress_ud = &ps;
    }
    ts_schedule *s = NULL, *at = NULL;
    ts_search_stats st;
    ts_metrics m = {0};
    ts_err e = {0};
    int rc = ts_search(p, &a->so, &s, &st, &e);
    if (ps.printed && ps.tty)
        fprintf(stderr, "\n");
    if (a->verbose)
        ts_search_print_verbose(&st);
    if (rc) {
        if (rc == TS_ENOANSWER && a->json)
            ts_search_print_refusal(a, p, &st, &e);
        rc = ts_cli_report(cmd, &e);
    } else if (a->output && ts_schedule_save(s, a->output, &e)) {
        rc = ts_cli_report(cmd, &e);
    } else if (ts_results_at(s, a->so.micro_batches, &at, &m, &e)) {
        fprintf(stderr, "tessel search: cannot summarise the schedule at %d micro-batches\n",
                a->so.micro_batches);
        rc = 3;
    } else if (a->json) {
        ts_search_print_json(a, p, &st, at, &m);
    } else {
        ts_search_print_text(a, p, &st, at, &m);
    }
    ts_metrics_free(&m);
    ts_schedule_free(at);
    ts_schedule_free(s);
    return rc;
}
#endif

#ifdef TS_HAVE_SOLVER
/* Each device's capacity: --memory (one for all, or a list of one per device), or the capacity
 * the placement file states (tessel placement --model). Returns 0 or the exit status. */
static int ts_search_memory(const char *cmd, ts_search_args *a, const ts_placement *p)
{
    if (a->memory) {
        int rc = ts_cli_memory_caps(cmd, &a->mem, p->ndevs, &a->cap);
        if (rc == 0 && a->cap)
            ts_search_opts_memory(&a->so, a->cap, p->ndevs);
        return rc;
    }
    if (!(a->cap = malloc((size_t)p->ndevs * sizeof *a->cap + 1))) {
        fprintf(stderr, "tessel %s: out of memory\n", cmd);
        return 3;
    }
    for (int d = 0; d < p->ndevs; d++)
        a->cap[d] = p->capacity_per_device ? p->capacity_per_device[d] : p->capacity;
    ts_search_opts_memory(&a->so, a->cap, p->ndevs);
    return 0;
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
    int rc = ts_search_parse(cmd, argc, argv, &a);
    ts_placement *p = NULL;
    if (rc == 0)
        rc = ts_cli_placement_load(cmd, &a.pl, &p);
    if (rc == 0 && !a.memory && !p->has_capacity)
        rc = ts_cli_usage_error(cmd, "--memory is required: a per-device capacity, or none "
                                     "(a placement file may state its own capacity)");
    if (rc == 0)
        rc = ts_search_memory(cmd, &a, p);
    if (rc == 0)
        rc = ts_search_run(cmd, &a, p);
    ts_placement_free(p);
    ts_cli_memory_free(&a.mem);
    free(a.cap);
    return rc < 0 ? 0 : rc;
#endif
}
