/* tessel model: a model description expanded into its per-layer table (and, on a GPU, its
 * per-layer times and memory); without a name, the models and GPUs available. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_ops.h"
#include "model_cli.h"
#include "ts_op_model.h"

bool ts_cli_has_model_flag(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            return false;
        if (!strcmp(argv[i], "--model") || !strncmp(argv[i], "--model=", 8))
            return true;
    }
    return false;
}

static int ts_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names of the *.json files of a folder, sorted, one line. */
static void ts_list_json(const char *dir, const char *title)
{
    DIR *d = opendir(dir);
    char *names[256];
    int n = 0;
    struct dirent *de;
    while (d && n < 256 && (de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l > 5 && !strcmp(de->d_name + l - 5, ".json") && (names[n] = strdup(de->d_name)))
            names[n++][l - 5] = 0;
    }
    if (d)
        closedir(d);
    qsort(names, (size_t)n, sizeof names[0], ts_cmp_str);
    printf("%s (%s):", title, dir);
    for (int i = 0; i < n; i++) {
        printf(" %s", names[i]);
        free(names[i]);
    }
    printf("%s\n", n ? "" : " none");
}

static bool ts_same_layer(const ts_layer *a, const ts_layer *b)
{
    return !strcmp(a->kind, b->kind) && !strcmp(a->branch, b->branch) &&
           a->fwd_flops == b->fwd_flops && a->params == b->params && a->act_bytes == b->act_bytes &&
           a->out_bytes == b->out_bytes;
}

static void ts_print_table(const ts_model *m, const ts_hardware *h, const ts_cost_opts *co)
{
    printf("%-22s %-11s %-7s %11s %10s %10s %9s", "layers", "kind", "branch", "GFLOP/smp",
           "params(M)", "act MB/smp", "out MB");
    if (h)
        printf(" %9s %9s %9s %9s", "fwd ms", "bwd ms", "state GB", "act GB");
    printf("\n");
    for (int i = 0; i < m->nlayers;) {
        int j = i + 1;
        while (j < m->nlayers && ts_same_layer(&m->layers[i], &m->layers[j]))
            j++;
        const ts_layer *l = &m->layers[i];
        char name[64];
        if (j - i > 1)
            snprintf(name, sizeof name, "%s..%s x%d", l->name, m->layers[j - 1].name, j - i);
        else
            snprintf(name, sizeof name, "%s", l->name);
        printf("%-22s %-11s %-7s %11.2f %10.2f%s %10.2f %9.3f", name, l->kind,
               l->branch[0] ? l->branch : "-", l->fwd_flops / 1e9, l->params / 1e6,
               l->shared ? "*" : " ", l->act_bytes / 1e6, l->out_bytes / 1e6);
        if (h) {
            ts_layer_cost c;
            ts_layer_cost_of(l, h, co, 0, &c);
            printf(" %9.3f %9.3f %9.3f %9.3f", c.fwd_s * 1e3, (c.bgrad_s + c.wgrad_s) * 1e3,
                   c.static_bytes / 1e9, c.act_bytes / 1e9);
        }
        printf("\n");
        i = j;
    }
}

static void ts_model_summary(const ts_model *m)
{
    double P = ts_model_params(m), F = ts_model_fwd_flops(m);
    printf("%s: %s\nsource: %s\n", m->name, m->description, m->source);
    printf("parameters %.3fB (%.1f GB at 16 B/param for mixed-precision Adam); forward %.2f "
           "TFLOP per sample; training %.2f TFLOP per sample (forward x %d + backward 2x forward",
           P / 1e9, P * 16 / 1e9, F / 1e12, F * (m->recycles + 2) / 1e12, m->recycles);
    printf(")\nstrategies:");
    for (int i = 0; i < m->nstrategies; i++)
        printf(" %s", m->strategies[i]);
    printf("\n\n");
}

static const ts_cli_op_help ts_model_help = {
    "[NAME] [--hardware H] [OPTIONS]",
    "Expands a model description (tessel-model/1) into its per-layer table: forward FLOPs, "
    "parameters, stored activation bytes and bytes sent per sample, and the layer kind. "
    "Consecutive equal layers share a row; * marks tied parameters. NAME is a model of the "
    "models folder, or a file (tessel-model/1); without NAME, lists the models and GPU "
    "profiles. The options are those of tessel.model in Python, under the same names.",
    NULL, "Exit status: 0 done, 2 bad usage or input.\n"};

/* The models and GPU profiles of the folder (tessel model without a name). */
static void ts_model_list(ts_cli_op_args *a)
{
    char buf[4096], hwdir[4200], found[TS_PATH_MAX];
    const char *dir = ts_op_models_dir(ts_cli_op_take_text(a, "models_dir", buf, sizeof buf), found,
                                       sizeof found);
    snprintf(hwdir, sizeof hwdir, "%s/hardware", dir);
    ts_list_json(dir, "models");
    ts_list_json(hwdir, "hardware");
}

/* The text for people: the summary, the GPU's line, the table. */
static void ts_model_print(const ts_op_model_req *r, const ts_op_model_res *res)
{
    const ts_hardware *h = res->has_hw ? &res->h : NULL;
    ts_model_summary(res->m);
    if (h)
        printf("on %s: micro-batch %d, tensor parallelism %d%s, %.0f TFLOP/s achievable\n", h->name,
               r->co.b, r->co.T, r->co.recompute ? ", recomputation" : "", ts_hw_flops(h) / 1e12);
    ts_print_table(res->m, h, &r->co);
}

int ts_cmd_model(int argc, char **argv)
{
    const char *cmd = "model";
    ts_cli_op_args a;
    int rc = ts_cli_op_parse(cmd, &ts_op_model, &ts_model_help, argc, argv, &a);
    bool json = false;
    ts_op_model_req r = {0};
    ts_op_model_res res = {0};
    ts_err e = {0};
    if (rc == 0 && a.nargs > 1)
        rc = ts_cli_usage_error(cmd, "unexpected argument '%s'", a.args[1]);
    else if (rc == 0 && a.nargs == 0) {
        ts_model_list(&a);
        /* done: the list is the answer */
        rc = -1;
    }
    if (rc == 0) {
        json = ts_cli_op_take_flag(&a, "json");
        if (ts_op_model_read(a.req, TS_FRONT_CLI, a.args[0], &r, &e))
            rc = e.code == TS_ESYS ? ts_cli_report(cmd, &e) : ts_cli_usage_error(cmd, "%s", e.msg);
    }
    if (rc == 0 && ts_op_model_run(&r, &res, &e))
        rc = ts_cli_report(cmd, &e);
    else if (rc == 0 && json)
        ts_cli_print_json(json_incref(res.json));
    else if (rc == 0)
        ts_model_print(&r, &res);
    ts_op_model_res_free(&res);
    ts_op_model_req_free(&r);
    json_decref(a.req);
    return rc < 0 ? 0 : rc;
}
