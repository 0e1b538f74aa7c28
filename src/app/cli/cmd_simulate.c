/* tessel simulate: replays each device's order (with --scale, --noise and --comm-delay) and
 * reports makespan, bubbles, lower bound, peak memory and load, as text or JSON. */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "ts_bound.h"
#include "ts_results.h"

/* --scale BLOCK=F, repeatable: slows or speeds one block in the replay. */
static int ts_parse_scale(const char *cmd, const char *arg, const ts_placement *p, double *scale)
{
    const char *eq = strrchr(arg, '=');
    if (!eq || eq == arg)
        return ts_cli_usage_error(cmd, "--scale expects BLOCK=FACTOR, got '%s'", arg);
    char id[256];
    size_t n = (size_t)(eq - arg);
    if (n >= sizeof id)
        return ts_cli_usage_error(cmd, "--scale: block id too long");
    memcpy(id, arg, n);
    id[n] = '\0';
    int b = ts_placement_find(p, id);
    if (b < 0)
        return ts_cli_usage_error(cmd, "--scale: unknown block '%s'", id);
    return ts_cli_parse_double(cmd, "--scale", eq + 1, 0.0, 1e6, &scale[b]);
}

/* What the command line asked for. */
typedef struct {
    long n, seed;
    int json, nscale;
    const char *scales[256];
    ts_sim_opts so;
} ts_sim_args;

static void ts_simulate_usage(void)
{
    printf("usage: tessel simulate SCHED [--micro-batches N] [--json] [--noise X] [--seed S]\n"
           "                        [--comm-delay T] [--scale BLOCK=F ...]\n\n"
           "Replays each device's order of the schedule with given block durations: an\n"
           "instance starts when its devices are free and its inputs are ready. Reports the\n"
           "makespan a runtime following that order reaches.\n"
           "  -n, --micro-batches N  unroll the repetend to N micro-batches first\n"
           "  --noise X            each duration times 1 + U(-X, X) (seeded)\n"
           "  --seed S             seed of the noise (default 1)\n"
           "  --comm-delay T       extra delay on every edge between different devices\n"
           "  --scale BLOCK=F      multiply BLOCK's duration by F (repeatable)\n"
           "The lower bound reported is the one of the replayed durations and delays.\n"
           "  --json               print one JSON object\n");
}

/* Options up to the schedule argument. Returns 0, -1 after --help, or the exit code. */
static int ts_simulate_parse(const char *cmd, int argc, char **argv, ts_sim_args *a)
{
    static const struct option opts[] = {{"micro-batches", required_argument, 0, 'n'},
                                         {"json", no_argument, 0, 'j'},
                                         {"noise", required_argument, 0, 1},
                                         {"seed", required_argument, 0, 2},
                                         {"comm-delay", required_argument, 0, 3},
                                         {"scale", required_argument, 0, 4},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int c;
    while ((c = ts_cli_getopt(cmd, argc, argv, "n:jh", opts)) != -1) {
        switch (c) {
        case -2: return 2;
        case 'h': ts_simulate_usage(); return -1;
        case 'n':
            if (ts_cli_parse_long(cmd, "--micro-batches", optarg, 1, 1000000, &a->n))
                return 2;
            break;
        case 'j': a->json = 1; break;
        case 1:
            if (ts_cli_parse_double(cmd, "--noise", optarg, 0.0, 0.99, &a->so.noise))
                return 2;
            break;
        case 2:
            if (ts_cli_parse_long(cmd, "--seed", optarg, 0, 2147483647L, &a->seed))
                return 2;
            break;
        case 3:
            if (ts_cli_parse_double(cmd, "--comm-delay", optarg, 0.0, 1e9, &a->so.comm_delay))
                return 2;
            break;
        case 4:
            if (a->nscale == 256)
                return ts_cli_usage_error(cmd, "too many --scale options");
            a->scales[a->nscale++] = optarg;
            break;
        }
    }
    a->so.seed = (unsigned long long)a->seed;
    return 0;
}

/* The replay's figures: JSON, or a few lines and a table per device. */
static void ts_simulate_print(const char *path, const ts_schedule *s, const ts_sim_args *a,
                              const ts_sim_result *r, const ts_metrics *m, double lb)
{
    const ts_placement *p = s->placement;
    double busy = 0;
    for (int i = 0; i < s->nentries; i++)
        busy += (r->finish[i] - r->start[i]) * p->blocks[s->entries[i].block].ndevices;
    double bubble = r->makespan > 0 ? 1.0 - busy / (p->ndevs * r->makespan) : 0.0;
    if (a->json) {
        json_t *j = json_pack("{ss si sf sI sf sf so so}", "placement", p->name, "micro_batches",
                              s->nmicros, "makespan", r->makespan, "planned_makespan",
                              (json_int_t)m->makespan, "bubble_rate", bubble, "lower_bound", lb,
                              "peak_memory", ts_cli_long_array(m->peak, p->ndevs), "load",
                              ts_cli_long_array(m->load, p->ndevs));
        ts_cli_print_json(j);
        return;
    }
    printf("%s: %d micro-batches of '%s' on %d devices\n", path, s->nmicros, p->name, p->ndevs);
    printf("simulated makespan %.6g (planned %ld, lower bound %.6g%s, ratio %.4f)\n", r->makespan,
           m->makespan, lb, lb != (double)m->lower_bound ? " with these durations" : "",
           lb > 0 ? r->makespan / lb : 0.0);
    printf("bubble rate %.2f%%\n", 100.0 * bubble);
    printf("%-8s %8s %8s\n", "device", "load", "peak");
    for (int d = 0; d < p->ndevs; d++)
        printf("%-8d %8ld %8ld\n", d, m->load[d], m->peak[d]);
}

/* Per-block factors of --scale (1 where none is given). Returns 0, 2 (usage) or 3 (memory). */
static int ts_simulate_scales(const char *cmd, const ts_sim_args *a, const ts_placement *p,
                              double **out)
{
    double *scale = malloc((size_t)p->nblocks * sizeof(double));
    *out = scale;
    if (!scale)
        return 3;
    for (int b = 0; b < p->nblocks; b++)
        scale[b] = 1.0;
    for (int i = 0; i < a->nscale; i++)
        if (ts_parse_scale(cmd, a->scales[i], p, scale))
            return 2;
    return 0;
}

int ts_cmd_simulate(int argc, char **argv)
{
    const char *cmd = "simulate", *path;
    ts_sim_args a;
    memset(&a, 0, sizeof a);
    a.seed = 1;
    int rc = ts_simulate_parse(cmd, argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    ts_schedule *s;
    if ((rc = ts_cli_schedule_arg(cmd, argc, argv, a.n, &path, &s)))
        return rc;
    double *scale;
    ts_err e = {0};
    ts_metrics m = {0};
    ts_sim_result r = {0};
    if ((rc = ts_simulate_scales(cmd, &a, s->placement, &scale)))
        goto out;
    a.so.scale = scale;
    if (ts_schedule_validate(s, NULL, &e)) {
        fprintf(stderr, "tessel simulate: %s: invalid: %s\n", path, e.msg);
        rc = e.code;
    } else if (ts_simulate(s, &a.so, &r, &e)) {
        rc = ts_cli_report(cmd, &e);
    } else if (ts_schedule_metrics(s, &m)) {
        rc = 3;
    } else {
        double lb = (double)m.lower_bound;
        if (a.nscale || a.so.comm_delay > 0)
            lb = ts_results_sim_lower_bound(s->placement, s->nmicros, scale, a.so.comm_delay);
        ts_simulate_print(path, s, &a, &r, &m, lb);
    }
out:
    ts_sim_result_free(&r);
    ts_metrics_free(&m);
    free(scale);
    ts_schedule_free(s);
    return rc;
}
