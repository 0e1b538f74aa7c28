/* tessel search: find a schedule of a placement under a memory limit, write it, and summarise it
 * at N micro-batches (unrolled and replayed as early as each device's order allows). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

#ifdef TS_HAVE_SOLVER
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

static json_t *ts_search_seconds(const ts_search_stats *st)
{
    json_t *j = json_object();
    json_object_set_new(j, "total", json_real(st->seconds));
    for (int i = 0; i < st->nphases; i++)
        json_object_set_new(j, st->phases[i].name, json_real(st->phases[i].seconds));
    return j;
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
    static const struct option opts[] = {TS_CLI_PLACEMENT_OPTIONS,
                                         {"memory", required_argument, 0, 'm'},
                                         {"method", required_argument, 0, 'M'},
                                         {"nmicros", required_argument, 0, 'k'},
                                         {"micro-batches", required_argument, 0, 'n'},
                                         {"time-limit", required_argument, 0, 't'},
                                         {"accept", required_argument, 0, 'a'},
                                         {"output", required_argument, 0, 'o'},
                                         {"json", no_argument, 0, 'j'},
                                         {"progress", no_argument, 0, 'p'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    ts_cli_placement pl = {0};
    ts_search_opts so;
    ts_search_opts_init(&so);
    const char *output = NULL, *memory = NULL;
    int json = 0, progress = 0, c;
    long v;
    while ((c = ts_cli_getopt_placement(cmd, argc, argv, "m:M:k:n:t:o:jph", opts, &pl)) != -1) {
        switch (c) {
        case -2: return 2;
        case 'h':
            printf("usage: tessel search (PLACEMENT | --placement NAME --ndevs D [--infer])\n"
                   "                     --memory M|none [--method lazy|fast|full|modulo]\n"
                   "                     [--nmicros K] [--micro-batches N] [--time-limit S]\n"
                   "                     [-o SCHED] [--json] [--progress]\n\n"
                   "Searches a schedule of the placement whose memory stays within M units per\n"
                   "device, writes it (a tessel-schedule/1 file with its repetend, so that it\n"
                   "unrolls to any N >= k) and summarises it at N micro-batches.\n\n"
                   TS_CLI_PLACEMENT_HELP
                   "  --memory M|none      per-device memory capacity, or none (unconstrained)\n"
                   "  --method METHOD      lazy (default: offset enumeration, minimum bubbles),\n"
                   "                       fast (constructed repetend), full (all N micro-batches\n"
                   "                       in one problem, minimum makespan), modulo\n"
                   "  -k, --nmicros K      micro-batches per repetend (lazy; default: search 1..)\n"
                   "  -n, --micro-batches N  where the summary is taken, and full's size (128)\n"
                   "  -t, --time-limit S   seconds for the whole search; when hit, the best\n"
                   "                       schedule so far is returned with optimal: false\n"
                   "  --accept F           fast: accept a warm-up/cool-down within F of the run\n"
                   "                       (default 0.05)\n"
                   "  -o, --output SCHED   write the schedule\n"
                   "  --json               print one JSON object (method, k, period,\n"
                   "                       bubbles_per_repetend, micro_batches, makespan,\n"
                   "                       bubble_rate, lower_bound, peak_memory, load,\n"
                   "                       search_seconds, optimal, timed_out, placement, memory)\n"
                   "  --progress           progress on stderr even when it is not a terminal\n\n"
                   "Exit status: 0 found (also when the time limit cut the search), 1 no schedule\n"
                   "fits the memory, 2 bad usage or input.\n");
            return 0;
        case 'm': memory = optarg; break;
        case 'M':
            if (ts_method_parse(optarg, &so.method))
                return ts_cli_usage_error(cmd, "--method: unknown method '%s' (lazy, fast, full, "
                                               "modulo)", optarg);
            break;
        case 'k':
            if (ts_cli_parse_long(cmd, "--nmicros", optarg, 1, 64, &v))
                return 2;
            so.nmicros = (int)v;
            break;
        case 'n':
            if (ts_cli_parse_long(cmd, "--micro-batches", optarg, 1, 100000, &v))
                return 2;
            so.micro_batches = (int)v;
            break;
        case 't':
            if (ts_cli_parse_double(cmd, "--time-limit", optarg, 0.001, 1e7, &so.time_limit))
                return 2;
            break;
        case 'a':
            if (ts_cli_parse_double(cmd, "--accept", optarg, 0.0, 1.0, &so.accept))
                return 2;
            break;
        case 'o': output = optarg; break;
        case 'j': json = 1; break;
        case 'p': progress = 1; break;
        default: return ts_cli_usage_error(cmd, "unexpected option");
        }
    }
    if (ts_cli_placement_arg(cmd, argc, argv, &pl))
        return 2;
    if (!memory)
        return ts_cli_usage_error(cmd, "--memory is required: a per-device capacity, or none");
    if (ts_cli_parse_memory(cmd, memory, &so.has_memory, &so.memory))
        return 2;
    ts_placement *p;
    int rc = ts_cli_placement_load(cmd, &pl, &p);
    if (rc)
        return rc;
    ts_progress_state ps = {isatty(2) != 0, ts_method_name(so.method), false};
    if (ps.tty || progress) {
        so.progress = ts_search_print_progress;
        so.progress_ud = &ps;
    }
    ts_schedule *s = NULL, *at = NULL;
    ts_search_stats st;
    ts_metrics m = {0};
    ts_err e = {0};
    rc = ts_search(p, &so, &s, &st, &e);
    if (ps.printed && ps.tty)
        fprintf(stderr, "\n");
    if (rc) {
        if (rc == TS_ENOANSWER && json) {
            json_t *j = json_object();
            json_object_set_new(j, "method", json_string(ts_method_name(so.method)));
            json_object_set_new(j, "placement", json_string(p->name));
            json_object_set_new(j, "memory", so.has_memory ? json_integer(so.memory)
                                                          : json_string("none"));
            json_object_set_new(j, "feasible", json_false());
            json_object_set_new(j, "message", json_string(e.msg));
            json_object_set_new(j, "min_memory", st.min_memory >= 0 ? json_integer(st.min_memory)
                                                                    : json_null());
            json_object_set_new(j, "search_seconds", ts_search_seconds(&st));
            ts_cli_print_json(j);
        }
        rc = ts_cli_report(cmd, &e);
        goto out;
    }
    if (output) {
        if (ts_schedule_save(s, output, &e)) {
            rc = ts_cli_report(cmd, &e);
            goto out;
        }
    }
    if (ts_cli_schedule_at(s, so.micro_batches, &at, &m, &e)) {
        fprintf(stderr, "tessel search: cannot summarise the schedule at %d micro-batches\n",
                so.micro_batches);
        rc = 3;
        goto out;
    }
    if (json) {
        json_t *j = json_object();
        json_object_set_new(j, "method", json_string(ts_method_name(so.method)));
        json_object_set_new(j, "placement", json_string(p->name));
        json_object_set_new(j, "ndevs", json_integer(p->ndevs));
        json_object_set_new(j, "memory",
                            so.has_memory ? json_integer(so.memory) : json_string("none"));
        json_object_set_new(j, "feasible", json_true());
        json_object_set_new(j, "k", json_integer(st.k));
        json_object_set_new(j, "period", json_integer(st.period));
        json_object_set_new(j, "bubbles_per_repetend", json_integer(st.bubbles));
        ts_cli_json_metrics(j, &m, at->nmicros, p->ndevs);
        json_object_set_new(j, "search_seconds", ts_search_seconds(&st));
        json_object_set_new(j, "optimal", json_boolean(st.optimal));
        json_object_set_new(j, "timed_out", json_boolean(st.timed_out));
        json_object_set_new(j, "completion_optimal", json_boolean(st.completion_optimal));
        json_object_set_new(j, "candidates", json_integer(st.candidates));
        if (output)
            json_object_set_new(j, "output", json_string(output));
        ts_cli_print_json(j);
    } else {
        printf("%s search of '%s' on %d devices, memory ", ts_method_name(so.method), p->name,
               p->ndevs);
        if (so.has_memory)
            printf("%ld", so.memory);
        else
            printf("none");
        printf(": %.3f s%s\n", st.seconds, st.timed_out ? " (time limit hit)" : "");
        if (st.k > 0)
            printf("repetend: k = %d, period %ld, bubbles per repetend %ld (%s)\n", st.k,
                   st.period, st.bubbles, st.optimal ? "optimal" : "not proven optimal");
        else
            printf("makespan %s\n", st.optimal ? "optimal" : "not proven optimal");
        printf("at N = %d: makespan %ld, lower bound %ld, bubble rate %.2f%%\n", at->nmicros,
               m.makespan, m.lower_bound, 100.0 * m.bubble_rate);
        printf("peak memory:");
        for (int d = 0; d < p->ndevs; d++)
            printf(" %ld", m.peak[d]);
        printf("\n");
        if (output)
            printf("schedule written to %s\n", output);
    }
out:
    ts_metrics_free(&m);
    ts_schedule_free(at);
    ts_schedule_free(s);
    ts_placement_free(p);
    return rc;
#endif
}
