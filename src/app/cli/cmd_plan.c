/* tessel plan: for a model on D GPUs, the plan space (T, sequence parallelism, P, strategy,
 * virtual stages, ZeRO, recomputation, micro-batch size) searched with the cost model and bound
 * pruning, then the best plans with a pipeline derived, searched with `auto` at N and simulated;
 * ranked by iteration time in real units. */
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
static int ts_plan_help(void)
{
    printf("usage: tessel plan --model NAME --hardware H --gpus D --global-batch G\n"
           "                   [--micro-batch-size b] [--tensor-parallel T] [--pipeline P]\n"
           "                   [--virtual-stages v] [--zero Z] [--recompute MODE]\n"
           "                   [--sequence-parallel on|off] [--tp-across-nodes]\n"
           "                   [--strategies LIST] [--precision bf16|fp8] [--infer]\n"
           "                   [--top K] [--search-top K] [--explain] [--time-limit S]\n"
           "                   [--efficiency f] [-o DIR] [--json] [--csv] [--progress]\n"
           "                   [--models-dir DIR]\n\n"
           "Searches the parallel plans of a model on D GPUs: tensor parallelism T (powers of\n"
           "two within a node), sequence parallelism, pipeline size P, the strategy and its\n"
           "virtual stages, D / (T P) data-parallel replicas with ZeRO stage 0-3, recomputation\n"
           "(none, selective, full, or adaptive: per stage, the least that fits) and the\n"
           "micro-batch size b (N = G / (b x replicas)). Each is auto unless fixed by its flag.\n"
           "The cost model (models/README.md) times every plan; a plan whose lower bound is not\n"
           "below the best kept is pruned. The best plans with a pipeline are then derived as\n"
           "placements and searched with `auto` at N; a searched schedule replaces the closed\n"
           "form when it is faster.\n\n"
           "  --recompute MODE    none, selective, full or adaptive (default: all three tried;\n"
           "                      --recompute alone: full)\n"
           "  --top K             plans shown and kept (default 10)\n"
           "  --search-top K      plans whose schedule is searched (default 3; 0: none)\n"
           "  --explain           the best plan's iteration time broken down\n"
           "  --time-limit S      seconds per schedule search (default 3)\n"
           "  --precision fp8     the profile's FP8 peak for compute (memory as bf16)\n"
           "  -o DIR              plans.json, breakdown.svg, and each searched plan's\n"
           "                      placement, schedule, SVG and Chrome trace\n"
           "  --json, --csv       the ranking for programs\n"
           "  --progress          progress on stderr even when it is not a terminal\n\n"
           "Exit status: 0 some plan fits, 1 none fits, 2 bad request.\n");
    return -1;
}

static int ts_plan_word(const char *flag, const char *arg, const char *const *words, int *out)
{
    for (int i = 0; words[i]; i++)
        if (!strcmp(arg, words[i])) {
            *out = i;
            return 0;
        }
    return ts_cli_usage_error("plan", "%s: unknown value '%s'", flag, arg);
}

/* Integer flags: where each goes and its range. */
static int ts_plan_int(ts_plan_args *a, int c, const char *arg)
{
    static const struct {
        int c;
        const char *flag;
        long lo, hi;
    } f[] = {{'g', "--gpus", 1, 65536},        {'b', "--micro-batch-size", 1, 4096},
             {'T', "--tensor-parallel", 1, 4096}, {'P', "--pipeline", 1, 1024},
             {'v', "--virtual-stages", 1, 64},  {'z', "--zero", 0, 3},
             {'k', "--top", 1, 1000},           {'K', "--search-top", 0, 100}};
    int *dst[] = {&a->r.gpus,  &a->sp.b,    &a->sp.T, &a->sp.P,
                  &a->sp.v,    &a->sp.zero, &a->top,  &a->search_top};
    long v;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].c == c) {
            if (ts_cli_parse_long("plan", f[i].flag, arg, f[i].lo, f[i].hi, &v))
                return 2;
            *dst[i] = (int)v;
            return 0;
        }
    return ts_cli_usage_error("plan", "unexpected option");
}

static int ts_plan_opt(ts_plan_args *a, int c)
{
    static const char *const rc[] = {"none", "selective", "full", "adaptive", NULL};
    static const char *const onoff[] = {"off", "on", NULL};
    static const char *const prec[] = {"bf16", "fp8", NULL};
    const char *cmd = "plan";
    switch (c) {
    case 'm': a->model = optarg; return 0;
    case 'H': a->hw = optarg; return 0;
    case 'S': a->strategies = optarg; return 0;
    case 'd': a->dir = optarg; return 0;
    case 'o': a->out = optarg; return 0;
    case 'i': a->r.infer = true; return 0;
    case 'j': a->json = true; return 0;
    case 'c': a->csv = true; return 0;
    case 'p': a->progress = true; return 0;
    case 'x': a->explain = true; return 0;
    case 'X': a->sp.tp_across_nodes = true; return 0;
    case 'r': return ts_plan_word("--recompute", optarg, rc, &a->sp.recompute) ? 2 : 0;
    case 'q': return ts_plan_word("--sequence-parallel", optarg, onoff, &a->sp.seqpar) ? 2 : 0;
    case 'F': return ts_plan_word("--precision", optarg, prec, &a->fp8) ? 2 : 0;
    case 't':
        return ts_cli_parse_double(cmd, "--time-limit", optarg, TS_TIME_LIMIT_MIN,
                                   TS_TIME_LIMIT_MAX, &a->r.time_limit)
                   ? 2
                   : 0;
    case 'e': return ts_cli_parse_double(cmd, "--efficiency", optarg, 0.01, 1, &a->eff) ? 2 : 0;
    case 'G':
        return ts_cli_parse_long(cmd, "--global-batch", optarg, 1, 100000000, &a->r.global) ? 2
                                                                                           : 0;
    default: return ts_plan_int(a, c, optarg);
    }
}

static int ts_plan_check_args(ts_plan_args *a)
{
    const char *cmd = "plan";
    if (!a->model || !a->hw || !a->r.gpus || !a->r.global)
        return ts_cli_usage_error(cmd, "--model, --hardware, --gpus and --global-batch are all "
                                       "required");
    if (a->sp.b && a->r.global % a->sp.b)
        return ts_cli_usage_error(cmd,
                                  "the global batch %ld is not a multiple of the micro-batch "
                                  "size %d",
                                  a->r.global, a->sp.b);
    if (a->sp.T && a->r.gpus % a->sp.T)
        return ts_cli_usage_error(cmd, "%d GPUs are not a multiple of tensor parallelism %d",
                                  a->r.gpus, a->sp.T);
    if (a->sp.P && a->r.gpus % (a->sp.P * (a->sp.T ? a->sp.T : 1)))
        return ts_cli_usage_error(cmd, "%d GPUs are not a multiple of pipeline %d x tensor "
                                  "parallelism %d", a->r.gpus, a->sp.P, a->sp.T ? a->sp.T : 1);
    if (a->json && a->csv)
        return ts_cli_usage_error(cmd, "--json and --csv exclude each other");
    return 0;
}

static int ts_plan_parse(int argc, char **argv, ts_plan_args *a)
{
    static const struct option opts[] = {
        {"model", required_argument, 0, 'm'},        {"hardware", required_argument, 0, 'H'},
        {"gpus", required_argument, 0, 'g'},         {"global-batch", required_argument, 0, 'G'},
        {"micro-batch-size", required_argument, 0, 'b'},
        {"tensor-parallel", required_argument, 0, 'T'},
        {"pipeline", required_argument, 0, 'P'},     {"virtual-stages", required_argument, 0, 'v'},
        {"zero", required_argument, 0, 'z'},         {"recompute", optional_argument, 0, 'r'},
        {"sequence-parallel", required_argument, 0, 'q'},
        {"tp-across-nodes", no_argument, 0, 'X'},    {"strategies", required_argument, 0, 'S'},
        {"precision", required_argument, 0, 'F'},    {"infer", no_argument, 0, 'i'},
        {"top", required_argument, 0, 'k'},          {"search-top", required_argument, 0, 'K'},
        {"explain", no_argument, 0, 'x'},            {"time-limit", required_argument, 0, 't'},
        {"efficiency", required_argument, 0, 'e'},   {"output", required_argument, 0, 'o'},
        {"json", no_argument, 0, 'j'},               {"csv", no_argument, 0, 'c'},
        {"progress", no_argument, 0, 'p'},           {"models-dir", required_argument, 0, 'd'},
        {"help", no_argument, 0, 'h'},               {0, 0, 0, 0}};
    int c;
    while ((c = ts_cli_getopt("plan", argc, argv, "o:h", opts)) != -1) {
        if (c == -2)
            return 2;
        if (c == 'h')
            return ts_plan_help();
        /* --recompute alone (as before: full), --recompute MODE or --recompute=MODE */
        if (c == 'r' && !optarg) {
            bool word = optind < argc && argv[optind][0] != '-';
            optarg = word ? argv[optind++] : "full";
        }
        int rc = ts_plan_opt(a, c);
        if (rc)
            return rc;
    }
    if (optind < argc)
        return ts_cli_usage_error("plan", "unexpected argument '%s'", argv[optind]);
    return ts_plan_check_args(a);
}

static int ts_plan_outdir(const ts_plan_args *a, const ts_plan *pl, int n)
{
    ts_err e = {0};
    if (mkdir(a->out, 0777) && errno != EEXIST) {
        fprintf(stderr, "tessel plan: %s: cannot create the folder\n", a->out);
        return 3;
    }
    for (int i = 0; i < n; i++)
        if (pl[i].ok && pl[i].searched && ts_plan_write(&pl[i], a->out, &e))
            return ts_cli_report("plan", &e);
    char path[4200];
    snprintf(path, sizeof path, "%s/breakdown.svg", a->out);
    if (ts_plan_breakdown_svg(pl, n, path, &e))
        return ts_cli_report("plan", &e);
    snprintf(path, sizeof path, "%s/plans.json", a->out);
    json_t *j = ts_plans_json(a, pl, n);
    int rc = ts_json_write_file(j, path, &e) ? ts_cli_report("plan", &e) : 0;
    json_decref(j);
    return rc;
}

static void ts_plan_progress(void *ud, long done, long total, double best)
{
    (void)total;
    (void)ud;
    fprintf(stderr, "[plan] %ld plans costed, best %.3f s\n", done, best);
}

/* The space search, then the schedule search of the best plans with a pipeline, each skipped
 * when its lower bound is not below the best iteration time found (bound pruning). */
static int ts_plan_run(ts_plan_args *a, ts_plan **out, int *count)
{
    bool show = a->progress || isatty(2);
    ts_err e = {0};
    ts_plan_found *f = NULL;
    int nf = 0;
    char buf[512];
    const char *names[64];
    if (a->strategies) {
        snprintf(buf, sizeof buf, "%s", a->strategies);
        for (char *t = strtok(buf, ","); t && a->sp.nstrategies < 64; t = strtok(NULL, ","))
            names[a->sp.nstrategies++] = t;
        a->sp.strategies = names;
    }
    a->sp.keep = a->top;
    a->sp.progress = show ? ts_plan_progress : NULL;
    int rc = ts_plan_space_search(&a->r, &a->sp, &f, &nf, &a->st, &e);
    if (rc)
        return rc == TS_EINPUT ? ts_cli_usage_error("plan", "%s", e.msg) : 3;
    ts_plan *pl = calloc((size_t)nf + 1, sizeof *pl);
    if (!pl) {
        free(f);
        return 3;
    }
    for (int i = 0; i < nf; i++)
        ts_plan_from_found(&a->r, &f[i], &pl[i]);
    free(f);
    *out = pl;
    *count = nf;
    if (ts_plan_search_best(&a->r, pl, nf, a->search_top, show, &a->searched,
                            &a->search_pruned) < 0)
        return 3;
    return 0;
}

static int ts_plan_load(ts_plan_args *a, const char *dir, ts_model **m, ts_hardware *h)
{
    char path[4200];
    ts_err e = {0};
    if (ts_model_path(dir, a->model, false, path, sizeof path, &e) ||
        ts_model_load(path, 0, m, &e) || ts_model_path(dir, a->hw, true, path, sizeof path, &e) ||
        ts_hardware_load(path, h, &e))
        return ts_cli_report("plan", &e);
    if (a->fp8) {
        if (h->peak_fp8_tflops <= 0)
            return ts_cli_usage_error("plan", "--precision fp8: %s gives no peak_fp8_tflops",
                                      h->name);
        h->peak_tflops = h->peak_fp8_tflops;
    }
    if (a->eff > 0)
        h->efficiency = a->eff;
    return 0;
}

static int ts_plan_main(ts_plan_args *a)
{
    ts_model *m = NULL;
    ts_hardware h = {0};
    ts_plan *pl = NULL;
    int n = 0, rc;
    if ((rc = ts_plan_load(a, ts_cli_models_dir(a->dir), &m, &h)))
        goto done;
    a->r.m = m;
    a->r.h = &h;
    if ((rc = ts_plan_run(a, &pl, &n)))
        goto done;
    ts_plan_rank(pl, n);
    if (a->json)
        ts_cli_print_json(ts_plans_json(a, pl, n));
    else if (a->csv)
        ts_plan_csv(pl, n);
    else
        ts_plan_print(a, pl, n);
    if (a->explain && !a->json && !a->csv && n > 0 && pl[0].ok)
        ts_plan_explain(&pl[0]);
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
    a.r.time_limit = 3;
    a.sp.zero = a.sp.recompute = a.sp.seqpar = -1;
    a.top = 10;
    a.search_top = 3;
    int rc = ts_plan_parse(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    return ts_plan_main(&a);
#endif
}
