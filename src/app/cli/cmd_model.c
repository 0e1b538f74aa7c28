/* tessel model: a model description expanded into its per-layer table (and, on a GPU, its
 * per-layer times and memory); without a name, the models and GPUs available. */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "model_cli.h"
#include "ts_model.h"
#include "ts_results.h"

#ifndef TS_MODELS_DIR
#define TS_MODELS_DIR "models"
#endif

const char *ts_cli_models_dir(const char *dir)
{
    if (dir)
        return dir;
    const char *env = getenv("TESSEL_MODELS");
    return env && *env ? env : TS_MODELS_DIR;
}

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

static int ts_model_help(void)
{
    printf("usage: tessel model [NAME] [--hardware H [--micro-batch-size b] [--tensor-parallel T]\n"
           "                    [--recompute]] [--seq s] [--json] [--models-dir DIR]\n\n"
           "Expands a model description (tessel-model/1) into its per-layer table: forward\n"
           "FLOPs, parameters, stored activation bytes and bytes sent per sample, and the\n"
           "layer kind. Consecutive equal layers share a row; * marks tied parameters.\n"
           "Without NAME, lists the models and GPU profiles.\n\n"
           "  NAME                 a model of the models folder, or a file (tessel-model/1)\n"
           "  --hardware H         add per-layer times and memory on GPU H (models/hardware)\n"
           "  --micro-batch-size b samples per micro-batch for those columns (default 1)\n"
           "  --tensor-parallel T  split each layer over T GPUs (default 1)\n"
           "  --recompute          full activation recomputation\n"
           "  --seq s              override the model's sequence length\n"
           "  --json               print JSON instead of the table\n"
           "  --models-dir DIR     the models folder (default $TESSEL_MODELS or the project's)\n");
    return 0;
}

int ts_cmd_model(int argc, char **argv)
{
    static const struct option opts[] = {{"hardware", required_argument, 0, 'H'},
                                         {"micro-batch-size", required_argument, 0, 'b'},
                                         {"tensor-parallel", required_argument, 0, 'T'},
                                         {"recompute", no_argument, 0, 'r'},
                                         {"seq", required_argument, 0, 's'},
                                         {"json", no_argument, 0, 'j'},
                                         {"models-dir", required_argument, 0, 'd'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "model", *hw = NULL, *dir = NULL;
    long b = 1, T = 1, seq = 0;
    bool json = false, rec = false;
    int c;
    while ((c = ts_cli_getopt(cmd, argc, argv, "h", opts)) != -1) {
        switch (c) {
        case -2: return 2;
        case 'h': return ts_model_help();
        case 'H': hw = optarg; break;
        case 'b':
            if (ts_cli_parse_long(cmd, "--micro-batch-size", optarg, 1, 65536, &b))
                return 2;
            break;
        case 'T':
            if (ts_cli_parse_long(cmd, "--tensor-parallel", optarg, 1, 1024, &T))
                return 2;
            break;
        case 's':
            if (ts_cli_parse_long(cmd, "--seq", optarg, 1, 10000000, &seq))
                return 2;
            break;
        case 'r': rec = true; break;
        case 'j': json = true; break;
        case 'd': dir = optarg; break;
        default: return ts_cli_usage_error(cmd, "unexpected option");
        }
    }
    dir = ts_cli_models_dir(dir);
    if (optind + 1 < argc)
        return ts_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    if (optind == argc) {
        char hwdir[4200];
        snprintf(hwdir, sizeof hwdir, "%s/hardware", dir);
        ts_list_json(dir, "models");
        ts_list_json(hwdir, "hardware");
        return 0;
    }
    char path[4200];
    ts_err e = {0};
    ts_model *m = NULL;
    ts_hardware h = {0};
    int rc = 0;
    if (ts_model_path(dir, argv[optind], false, path, sizeof path, &e) ||
        ts_model_load(path, (int)seq, &m, &e))
        return ts_cli_report(cmd, &e);
    if (hw &&
        (ts_model_path(dir, hw, true, path, sizeof path, &e) || ts_hardware_load(path, &h, &e))) {
        ts_model_free(m);
        return ts_cli_report(cmd, &e);
    }
    ts_cost_opts co = {.b = (int)b, .T = (int)T, .recompute = rec};
    if (json) {
        ts_cli_print_json(ts_results_model_json(m, hw ? &h : NULL, &co));
    } else {
        ts_model_summary(m);
        if (hw)
            printf("on %s: micro-batch %ld, tensor parallelism %ld%s, %.0f TFLOP/s achievable\n",
                   h.name, b, T, rec ? ", recomputation" : "", ts_hw_flops(&h) / 1e12);
        ts_print_table(m, hw ? &h : NULL, &co);
    }
    ts_model_free(m);
    ts_hardware_clear(&h);
    return rc;
}
