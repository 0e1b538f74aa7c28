/* tessel plan: for a model on D GPUs, every strategy that applies at every pipeline size that
 * divides D (data-parallel replicas for the rest), each derived, searched with `auto` at
 * N = G / (b x replicas), simulated, and ranked by iteration time in real units. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "model_cli.h"
#include "plan.h"
#include "ts_json.h"
#include "ts_plan_eval.h"
#include "ts_results.h"

#ifdef TS_HAVE_SOLVER
typedef struct {
    const char *model, *hw, *dir, *out, *strategies;
    ts_plan_req r;
    double eff;
    bool json, csv, progress;
} ts_plan_args;

static int ts_plan_help(void)
{
    printf("usage: tessel plan --model NAME --hardware H --gpus D --global-batch G\n"
           "                   --micro-batch-size b [--tensor-parallel T] [--strategies LIST]\n"
           "                   [--infer] [--recompute] [--time-limit S] [--efficiency f]\n"
           "                   [-o DIR] [--json] [--csv] [--progress] [--models-dir DIR]\n\n"
           "Ranks parallel plans for a model on D GPUs: every strategy the model lists (or LIST,\n"
           "comma-separated) at every pipeline size P that divides D (P/T >= 2 stages), with D/P\n"
           "data-parallel replicas. Each plan's placement is derived (models/), searched with\n"
           "`auto` at N = G / (b x replicas) micro-batches within the derived memory, simulated,\n"
           "and converted to seconds, samples/s, model TFLOP/s per GPU and MFU, peak GB per GPU\n"
           "(activations, weights and optimizer state), bubble rate and the gap to the lower\n"
           "bound. The data-parallel gradient all-reduce is added to the iteration time.\n\n"
           "  --time-limit S      seconds per search (default 3)\n"
           "  --infer             inference: latency per micro-batch and throughput\n"
           "  -o DIR              each plan's placement, schedule, SVG and Chrome trace, and\n"
           "                      plans.json\n"
           "  --json, --csv       the ranking for programs\n"
           "  --progress          progress on stderr even when it is not a terminal\n\n"
           "Exit status: 0 some plan fits, 1 none fits, 2 bad request.\n");
    return -1;
}

static int ts_plan_parse(int argc, char **argv, ts_plan_args *a)
{
    static const struct option opts[] = {{"model", required_argument, 0, 'm'},
                                         {"hardware", required_argument, 0, 'H'},
                                         {"gpus", required_argument, 0, 'g'},
                                         {"global-batch", required_argument, 0, 'G'},
                                         {"micro-batch-size", required_argument, 0, 'b'},
                                         {"tensor-parallel", required_argument, 0, 'T'},
                                         {"strategies", required_argument, 0, 'S'},
                                         {"infer", no_argument, 0, 'i'},
                                         {"recompute", no_argument, 0, 'r'},
                                         {"time-limit", required_argument, 0, 't'},
                                         {"efficiency", required_argument, 0, 'e'},
                                         {"output", required_argument, 0, 'o'},
                                         {"json", no_argument, 0, 'j'},
                                         {"csv", no_argument, 0, 'c'},
                                         {"progress", no_argument, 0, 'p'},
                                         {"models-dir", required_argument, 0, 'd'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "plan";
    long v;
    int c;
    while ((c = ts_cli_getopt(cmd, argc, argv, "o:h", opts)) != -1) {
        switch (c) {
        case -2: return 2;
        case 'h': return ts_plan_help();
        case 'm': a->model = optarg; break;
        case 'H': a->hw = optarg; break;
        case 'S': a->strategies = optarg; break;
        case 'd': a->dir = optarg; break;
        case 'o': a->out = optarg; break;
        case 'i': a->r.infer = true; break;
        case 'r': a->r.recompute = true; break;
        case 'j': a->json = true; break;
        case 'c': a->csv = true; break;
        case 'p': a->progress = true; break;
        case 't':
            if (ts_cli_parse_double(cmd, "--time-limit", optarg, TS_TIME_LIMIT_MIN,
                                    TS_TIME_LIMIT_MAX, &a->r.time_limit))
                return 2;
            break;
        case 'e':
            if (ts_cli_parse_double(cmd, "--efficiency", optarg, 0.01, 1, &a->eff))
                return 2;
            break;
        case 'G':
            if (ts_cli_parse_long(cmd, "--global-batch", optarg, 1, 100000000, &a->r.global))
                return 2;
            break;
        default: {
            int *dst = c == 'g' ? &a->r.gpus : c == 'b' ? &a->r.b : c == 'T' ? &a->r.T : NULL;
            if (!dst)
                return ts_cli_usage_error(cmd, "unexpected option");
            if (ts_cli_parse_long(cmd,
                                  c == 'g'   ? "--gpus"
                                  : c == 'b' ? "--micro-batch-size"
                                             : "--tensor-parallel",
                                  optarg, 1, 4096, &v))
                return 2;
            *dst = (int)v;
        }
        }
    }
    if (optind < argc)
        return ts_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (!a->model || !a->hw || !a->r.gpus || !a->r.global || !a->r.b)
        return ts_cli_usage_error(cmd, "--model, --hardware, --gpus, --global-batch and "
                                       "--micro-batch-size are all required");
    if (a->r.global % a->r.b)
        return ts_cli_usage_error(cmd,
                                  "the global batch %ld is not a multiple of the micro-batch "
                                  "size %d",
                                  a->r.global, a->r.b);
    if (a->r.gpus % a->r.T)
        return ts_cli_usage_error(cmd, "%d GPUs are not a multiple of tensor parallelism %d",
                                  a->r.gpus, a->r.T);
    if ((a->json && a->csv))
        return ts_cli_usage_error(cmd, "--json and --csv exclude each other");
    return 0;
}

/* The plans to try: strategies x pipeline sizes, each with its N (ts_plan_list). */
static int ts_plan_plans(const ts_plan_args *a, ts_plan **out, int *count)
{
    char buf[512];
    const char *names[64];
    int ns = 0;
    if (a->strategies) {
        snprintf(buf, sizeof buf, "%s", a->strategies);
        for (char *t = strtok(buf, ","); t && ns < 64; t = strtok(NULL, ","))
            names[ns++] = t;
    }
    ts_err e = {0};
    int rc = ts_plan_list(&a->r, a->strategies ? names : NULL, ns, out, count, &e);
    if (rc == TS_EINPUT)
        return ts_cli_usage_error("plan", "%s", e.msg);
    return rc ? 3 : 0;
}

static void ts_plan_print(const ts_plan_args *a, const ts_plan *pl, int n)
{
    const ts_plan_req *r = &a->r;
    printf("%s on %d x %s: global batch %ld, micro-batch %d, tensor parallelism %d, %s\n",
           r->m->name, r->gpus, r->h->name, r->global, r->b, r->T,
           r->infer       ? "inference"
           : r->recompute ? "training, recomputation"
                          : "training");
    printf("%-4s %-12s %-9s %5s %9s %10s %8s %6s %8s %7s %6s %s%s\n", "rank", "strategy",
           "pipe x dp", "N", "iter s", "samples/s", "TFLOP/s", "MFU", "peak GB", "bubble", "gap",
           r->infer ? "latency s " : "", "kept");
    for (int i = 0, k = 1; i < n; i++) {
        const ts_plan *x = &pl[i];
        if (!x->ok)
            continue;
        char shape[32], lat[32] = "";
        snprintf(shape, sizeof shape, "%dx%d", x->pipe, x->replicas);
        if (r->infer)
            snprintf(lat, sizeof lat, "%9.4f ", x->latency_s);
        printf("%-4d %-12s %-9s %5d %9.3f %10.2f %8.1f %5.1f%% %8.1f %6.1f%% %5.1f%% %s%s%s\n", k++,
               x->strategy, shape, x->N, x->iter_s, x->samples_s, x->tflops_gpu, 100 * x->mfu,
               x->peak_gb, 100 * x->bubble, 100 * x->gap, lat, x->source,
               x->timed_out ? " (time limit)" : "");
    }
    for (int i = 0; i < n; i++)
        if (!pl[i].ok)
            printf("does not fit: %s on %d GPU pipelines x %d: %s\n", pl[i].strategy, pl[i].pipe,
                   pl[i].replicas, pl[i].reason);
}

static json_t *ts_plans_json(const ts_plan_args *a, const ts_plan *pl, int n)
{
    const ts_plan_req *r = &a->r;
    json_t *arr = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(arr, ts_plan_json(&pl[i]));
    return json_pack("{ss ss si sI si si sb sb sf so}", "model", r->m->name, "hardware", r->h->name,
                     "gpus", r->gpus, "global_batch", (json_int_t)r->global, "micro_batch_size",
                     r->b, "tensor_parallel", r->T, "infer", r->infer, "recompute", r->recompute,
                     "time_limit_s", r->time_limit, "plans", arr);
}

static void ts_plan_csv(const ts_plan *pl, int n)
{
    printf("strategy,pipeline_gpus,replicas,micro_batches,fits,iteration_s,samples_per_s,"
           "tflops_per_gpu,mfu,peak_memory_gb,bubble_rate,gap_to_lower_bound,latency_s,kept\n");
    for (int i = 0; i < n; i++) {
        const ts_plan *x = &pl[i];
        if (x->ok)
            printf("%s,%d,%d,%d,1,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s\n", x->strategy,
                   x->pipe, x->replicas, x->N, x->iter_s, x->samples_s, x->tflops_gpu, x->mfu,
                   x->peak_gb, x->bubble, x->gap, x->latency_s, x->source);
        else
            printf("%s,%d,%d,%d,0,,,,,,,,,\n", x->strategy, x->pipe, x->replicas, x->N);
    }
}

static int ts_plan_outdir(const ts_plan_args *a, const ts_plan *pl, int n)
{
    ts_err e = {0};
    if (mkdir(a->out, 0777) && errno != EEXIST) {
        fprintf(stderr, "tessel plan: %s: cannot create the folder\n", a->out);
        return 3;
    }
    for (int i = 0; i < n; i++)
        if (pl[i].ok && ts_plan_write(&pl[i], a->out, &e))
            return ts_cli_report("plan", &e);
    char path[4200];
    snprintf(path, sizeof path, "%s/plans.json", a->out);
    json_t *j = ts_plans_json(a, pl, n);
    int rc = ts_json_write_file(j, path, &e) ? ts_cli_report("plan", &e) : 0;
    json_decref(j);
    return rc;
}

/* Evaluates every plan, with progress on stderr: plans done / total and the best so far. */
static int ts_plan_run(const ts_plan_args *a, ts_plan *pl, int n)
{
    bool show = a->progress || isatty(2);
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (pl[i].N && ts_plan_eval(&a->r, &pl[i]) < 0)
            return 3;
        if (pl[i].ok && (best < 0 || pl[i].iter_s < pl[best].iter_s))
            best = i;
        if (!show)
            continue;
        fprintf(stderr, "[plan] %d/%d done", i + 1, n);
        if (best >= 0)
            fprintf(stderr, ", best %.3f s (%s, %d GPU pipelines)", pl[best].iter_s,
                    pl[best].strategy, pl[best].pipe);
        fprintf(stderr, "\n");
    }
    return 0;
}

static int ts_plan_main(ts_plan_args *a)
{
    const char *dir = ts_cli_models_dir(a->dir);
    char path[4200];
    ts_err e = {0};
    ts_model *m = NULL;
    ts_hardware h = {0};
    ts_plan *pl = NULL;
    int n = 0, rc;
    if (ts_model_path(dir, a->model, false, path, sizeof path, &e) ||
        ts_model_load(path, 0, &m, &e) || ts_model_path(dir, a->hw, true, path, sizeof path, &e) ||
        ts_hardware_load(path, &h, &e)) {
        rc = ts_cli_report("plan", &e);
        goto done;
    }
    if (a->eff > 0)
        h.efficiency = a->eff;
    a->r.m = m;
    a->r.h = &h;
    if ((rc = ts_plan_plans(a, &pl, &n)) || (rc = ts_plan_run(a, pl, n)))
        goto done;
    ts_plan_rank(pl, n);
    if (a->json)
        ts_cli_print_json(ts_plans_json(a, pl, n));
    else if (a->csv)
        ts_plan_csv(pl, n);
    else
        ts_plan_print(a, pl, n);
    if (a->out && (rc = ts_plan_outdir(a, pl, n)))
        goto done;
    rc = n > 0 && pl[0].ok ? 0 : 1;
    if (rc)
        fprintf(stderr, "tessel plan: no plan fits %s on %d x %s (reasons above)\n", m->name,
                a->r.gpus, h.name);
done:
    for (int i = 0; i < n; i++)
        ts_plan_clear(&pl[i]);
    free(pl);
    ts_model_free(m);
    ts_hardware_clear(&h);
    return rc;
}
#endif

int ts_cmd_plan(int argc, char **argv)
{
#ifndef TS_HAVE_SOLVER
    (void)argc;
    (void)argv;
    fprintf(stderr, "tessel plan: this build has no solver (Z3 was not found)\n");
    return 2;
#else
    ts_plan_args a = {0};
    a.r.T = 1;
    a.r.time_limit = 3;
    int rc = ts_plan_parse(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    return ts_plan_main(&a);
#endif
}
