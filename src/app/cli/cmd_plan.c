/* tessel plan: for a model on D GPUs, the plan space (T, sequence parallelism, P, strategy,
 * virtual stages, ZeRO, recomputation, micro-batch size) searched with the cost model and bound
 * pruning, then the best plans with a pipeline derived, searched with `auto` at N and simulated;
 * ranked by iteration time in real units. The request and the run are the plan operation's
 * (ts_op_plan.h); here the command line's flags, its output and its files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "model_cli.h"

#ifdef TS_HAVE_SOLVER
#include "cli_ops.h"
#include "plan.h"
#include "ts_json.h"

static const ts_cli_op_help ts_plan_help = {
    "--model NAME --hardware H --gpus D --global-batch G [OPTIONS]",
    "Searches the parallel plans of a model on D GPUs: tensor parallelism T (powers of two "
    "within a node), sequence parallelism, pipeline size P, the strategy and its virtual stages, "
    "D / (T P) data-parallel replicas with ZeRO stage 0-3, recomputation (none, selective, full, "
    "or adaptive: per stage, the least that fits) and the micro-batch size b (N = G / (b x "
    "replicas)). Each is auto unless fixed by its flag. The cost model (models/README.md) times "
    "every plan; a plan whose lower bound is not below the best kept is pruned. The best plans "
    "with a pipeline are then derived as placements and searched with `auto` at N; a searched "
    "schedule replaces the closed form when it is faster. The options are those of tessel.plan "
    "in Python, under the same names.",
    NULL, "Exit status: 0 some plan fits, 1 none fits, 2 bad request.\n"};

/* What the command line asks beyond the request: how to print, and where the files go. */
typedef struct {
    ts_cli_op_args op;
    char out_buf[4096];
    const char *out;
    bool json, csv, progress, explain;
} ts_plan_args;

/* argv with a bare --recompute (no mode after it) as --recompute=full, as before the flag took
 * its mode from the table; the caller frees the array (not its strings). */
static char **ts_plan_argv(int argc, char **argv)
{
    char **v = calloc((size_t)argc + 1, sizeof *v);
    for (int i = 0; v && i < argc; i++) {
        bool bare = !strcmp(argv[i], "--recompute") && (i + 1 == argc || argv[i + 1][0] == '-');
        v[i] = bare ? "--recompute=full" : argv[i];
    }
    return v;
}

static int ts_plan_outdir(const char *dir, const ts_op_plan_res *res)
{
    ts_err e = {0};
    if (mkdir(dir, 0777) && errno != EEXIST) {
        fprintf(stderr, "tessel plan: %s: cannot create the folder\n", dir);
        return 3;
    }
    for (int i = 0; i < res->n; i++)
        if (res->pl[i].ok && res->pl[i].searched && ts_plan_write(&res->pl[i], dir, &e))
            return ts_cli_report("plan", &e);
    char path[4200];
    snprintf(path, sizeof path, "%s/breakdown.svg", dir);
    if (ts_plan_breakdown_svg(res->pl, res->n, path, &e))
        return ts_cli_report("plan", &e);
    snprintf(path, sizeof path, "%s/plans.json", dir);
    json_t *j = ts_op_plan_json(res);
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

/* The command line's own flags out of the request, and what they refuse. */
static int ts_plan_take(ts_plan_args *a)
{
    a->out = ts_cli_op_take_text(&a->op, "output", a->out_buf, sizeof a->out_buf);
    a->json = ts_cli_op_take_flag(&a->op, "json");
    a->csv = ts_cli_op_take_flag(&a->op, "csv");
    a->progress = ts_cli_op_take_flag(&a->op, "progress");
    a->explain = ts_cli_op_take_flag(&a->op, "explain");
    if (a->op.nargs > 0)
        return ts_cli_usage_error("plan", "unexpected argument '%s'", a->op.args[0]);
    if (a->json && a->csv)
        return ts_cli_usage_error("plan", "--json and --csv exclude each other");
    return 0;
}

/* A run that failed: what the loaded model refuses of the request (a strategy it does not list,
 * FP8 on a GPU without) is a usage error, as a flag's own; the rest is reported. */
static int ts_plan_failed(const ts_op_plan_res *res, const ts_err *e)
{
    if (e->code == TS_EINPUT && res->m)
        return ts_cli_usage_error("plan", "%s", e->msg);
    return ts_cli_report("plan", e);
}

/* The ranking as asked, the files, and the exit status: 0 when some plan fits. */
static int ts_plan_output(const ts_plan_args *a, const ts_op_plan_res *res)
{
    if (a->json)
        ts_cli_print_json(ts_op_plan_json(res));
    else if (a->csv)
        ts_plan_csv(res->pl, res->n);
    else
        ts_plan_print(res);
    if (a->explain && !a->json && !a->csv && res->fits)
        ts_plan_explain(&res->pl[0]);
    int rc = a->out ? ts_plan_outdir(a->out, res) : 0;
    if (rc)
        return rc;
    if (!res->fits)
        fprintf(stderr, "tessel plan: no plan fits %s on %d x %s (reasons above)\n", res->m->name,
                res->r.gpus, res->h.name);
    return res->fits ? 0 : 1;
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
    const char *cmd = "plan";
    ts_plan_args a;
    memset(&a, 0, sizeof a);
    char **args = ts_plan_argv(argc, argv);
    if (!args)
        return 3;
    int rc = ts_cli_op_parse(cmd, &ts_op_plan, &ts_plan_help, argc, args, &a.op);
    ts_op_plan_req r = {0};
    ts_op_plan_res res = {0};
    ts_err e = {0};
    if (rc == 0)
        rc = ts_plan_take(&a);
    if (rc == 0 && ts_op_plan_read(a.op.req, TS_FRONT_CLI, &r, &e))
        rc = e.code == TS_ESYS ? ts_cli_report(cmd, &e) : ts_cli_usage_error(cmd, "%s", e.msg);
    if (rc == 0) {
        r.show = a.progress || isatty(2);
        r.sp.progress = r.show ? ts_plan_progress : NULL;
        rc = ts_op_plan_run(&r, &res, &e) ? ts_plan_failed(&res, &e) : ts_plan_output(&a, &res);
    }
    ts_op_plan_res_free(&res);
    ts_op_plan_req_free(&r);
    json_decref(a.op.req);
    free(args);
    return rc < 0 ? 0 : rc;
#endif
}
