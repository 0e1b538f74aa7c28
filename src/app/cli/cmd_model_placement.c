/* tessel placement --model: a placement derived from a model description, a GPU profile and a
 * strategy, with its time and memory units, the capacity per GPU, and the stage cuts. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "model_cli.h"
#include "ts_model.h"

typedef struct {
    const char *model, *hw, *dir, *out;
    long seq;
    double eff, ws;
    bool json;
    ts_derive_opts o;
} ts_mp_args;

static int ts_mp_help(void)
{
    printf(
        "usage: tessel placement --model NAME --hardware H --gpus D --strategy S\n"
        "                        [--micro-batch-size b] [--seq s] [--tensor-parallel T]\n"
        "                        [--chunks v] [--micro-batches N] [--slices K] [--max-span M]\n"
        "                        [--recompute] [--infer] [--efficiency f] [--workspace-gb g]\n"
        "                        [--param-bytes B] [--first-stage-param-cap-gb G]\n"
        "                        [--comm overlap|sync] [--models-dir DIR] [-o FILE] [--json]\n\n"
        "Derives a placement from a model (models/NAME.json) on D GPUs (models/hardware/H.json):\n"
        "the stage DP cuts the layers into stages of T GPUs each (D = T x stages), the strategy\n"
        "places them, spans are times and memory is activation bytes, both quantised to the\n"
        "units stated in the file, and the capacity per GPU (HBM less weights, optimizer state\n"
        "and workspace) is written for `tessel search`.\n\n"
        "  --strategy S         1f1b, interleaved, zb, chimera, mshape, nnshape, kshape, mllm,\n"
        "                       alphafold, terapipe, tp, nnshape-eager (the model lists those\n"
        "                       that apply)\n"
        "  --micro-batch-size b samples per micro-batch (default 1)\n"
        "  --tensor-parallel T  GPUs per stage (default 1)\n"
        "  --chunks v           interleaved: model chunks per GPU (default 2)\n"
        "  --micro-batches N    micro-batches the stage DP plans for (default 2 x stages)\n"
        "  --slices K           terapipe: at most K token slices (default 4)\n"
        "  --max-span M         largest span the time unit may give (default 64)\n"
        "  --recompute          full activation recomputation\n"
        "  --infer              inference: forward blocks only, no activations kept\n"
        "  --efficiency f       achievable fraction of peak FLOP/s (default: the profile's)\n"
        "  --workspace-gb g     memory kept free per GPU (default: the profile's)\n"
        "  --param-bytes B      training bytes per parameter (default 16: mixed-precision Adam;\n"
        "                       8: fp16 weights, gradients and Adam state)\n"
        "  --first-stage-param-cap-gb G  the first stage holds at most G GiB of weights and\n"
        "                       optimizer state per GPU (a parameter limit, as in the Tessel\n"
        "                       authors' 1F1B baseline)\n"
        "  --comm overlap|sync  overlap: sharded blocks' collectives and sends run beside other\n"
        "                       blocks; sync: both on the critical path (default: collectives in\n"
        "                       the block, sends as edge delays)\n"
        "  -o, --output FILE    write the placement there (default stdout)\n"
        "  --json               the derivation summary as JSON (on stdout; needs -o)\n");
    return 0;
}

static int ts_mp_parse(int argc, char **argv, ts_mp_args *a)
{
    static const struct option opts[] = {{"model", required_argument, 0, 'm'},
                                         {"hardware", required_argument, 0, 'H'},
                                         {"gpus", required_argument, 0, 'g'},
                                         {"strategy", required_argument, 0, 'S'},
                                         {"micro-batch-size", required_argument, 0, 'b'},
                                         {"seq", required_argument, 0, 's'},
                                         {"tensor-parallel", required_argument, 0, 'T'},
                                         {"chunks", required_argument, 0, 'v'},
                                         {"micro-batches", required_argument, 0, 'n'},
                                         {"slices", required_argument, 0, 'k'},
                                         {"max-span", required_argument, 0, 'M'},
                                         {"recompute", no_argument, 0, 'r'},
                                         {"infer", no_argument, 0, 'i'},
                                         {"efficiency", required_argument, 0, 'e'},
                                         {"workspace-gb", required_argument, 0, 'w'},
                                         {"param-bytes", required_argument, 0, 'P'},
                                         {"first-stage-param-cap-gb", required_argument, 0, 'C'},
                                         {"comm", required_argument, 0, 'c'},
                                         {"models-dir", required_argument, 0, 'd'},
                                         {"output", required_argument, 0, 'o'},
                                         {"json", no_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "placement";
    long v = 0;
    int c;
    while ((c = ts_cli_getopt(cmd, argc, argv, "o:h", opts)) != -1) {
        const char *flag = NULL;
        int *dst = NULL;
        long lo = 1, hi = 65536;
        switch (c) {
        case -2: return 2;
        case 'h': return ts_mp_help() - 1;
        case 'm': a->model = optarg; continue;
        case 'H': a->hw = optarg; continue;
        case 'S': a->o.strategy = optarg; continue;
        case 'd': a->dir = optarg; continue;
        case 'o': a->out = optarg; continue;
        case 'r': a->o.recompute = true; continue;
        case 'i': a->o.infer = true; continue;
        case 'j': a->json = true; continue;
        case 'e':
            if (ts_cli_parse_double(cmd, "--efficiency", optarg, 0.01, 1, &a->eff))
                return 2;
            continue;
        case 'w':
            if (ts_cli_parse_double(cmd, "--workspace-gb", optarg, 0, 1e4, &a->ws))
                return 2;
            continue;
        case 'P':
            if (ts_cli_parse_double(cmd, "--param-bytes", optarg, 0.5, 64, &a->o.param_bytes))
                return 2;
            continue;
        case 'C':
            if (ts_cli_parse_double(cmd, "--first-stage-param-cap-gb", optarg, 0.001, 1e6,
                                    &a->o.first_stage_param_cap))
                return 2;
            /* GiB, as the authors' limit (their planner compares with GB * 1024^3) */
            a->o.first_stage_param_cap *= 1073741824.0;
            continue;
        case 'c':
            if (!strcmp(optarg, "overlap"))
                a->o.comm = TS_COMM_OVERLAP;
            else if (!strcmp(optarg, "sync"))
                a->o.comm = TS_COMM_SYNC;
            else
                return ts_cli_usage_error(cmd, "--comm takes overlap or sync, not '%s'", optarg);
            continue;
        case 's':
            if (ts_cli_parse_long(cmd, "--seq", optarg, 1, 10000000, &a->seq))
                return 2;
            continue;
        case 'g': flag = "--gpus", dst = &a->o.gpus, hi = 4096; break;
        case 'b': flag = "--micro-batch-size", dst = &a->o.b; break;
        case 'T': flag = "--tensor-parallel", dst = &a->o.T, hi = 1024; break;
        case 'v': flag = "--chunks", dst = &a->o.chunks, hi = 64; break;
        case 'n': flag = "--micro-batches", dst = &a->o.nmicros, hi = 100000; break;
        case 'k': flag = "--slices", dst = &a->o.max_slices, hi = 64; break;
        case 'M': flag = "--max-span", dst = &a->o.max_span, lo = 4, hi = 100000; break;
        default: return ts_cli_usage_error(cmd, "unexpected option");
        }
        if (ts_cli_parse_long(cmd, flag, optarg, lo, hi, &v))
            return 2;
        *dst = (int)v;
    }
    if (optind < argc)
        return ts_cli_usage_error(cmd,
                                  "unexpected argument '%s' (a model placement takes no "
                                  "built-in name)",
                                  argv[optind]);
    if (!a->model || !a->hw || !a->o.gpus || !a->o.strategy)
        return ts_cli_usage_error(cmd, "--model, --hardware, --gpus and --strategy are all "
                                       "required with --model");
    if (a->json && !a->out)
        return ts_cli_usage_error(cmd, "--json prints the summary on stdout: give -o FILE for "
                                       "the placement");
    return 0;
}

static void ts_mp_summary(FILE *f, const ts_model *m, const ts_hardware *h, const ts_mp_args *a,
                          const ts_placement *p, const ts_derive_info *in)
{
    const ts_derive_opts *o = &a->o;
    fprintf(f, "%s on %d x %s, %s%s: %d stages x tensor parallelism %d, micro-batch %d, seq %d\n",
            m->name, o->gpus, h->name, o->strategy, o->infer ? " (inference)" : "", in->stages,
            o->T, o->b, m->seq);
    fprintf(f, "stages start at layers:");
    for (int s = 0; s < in->stages && in->cuts; s++)
        fprintf(f, " %s", m->layers[in->cuts[s]].name);
    fprintf(f, "\n");
    if (in->nslices) {
        fprintf(f, "token slices:");
        for (int j = 0; j < in->nslices; j++)
            fprintf(f, " %d", in->slice_tokens[j]);
        fprintf(f, "\n");
    }
    fprintf(f, "time unit %.4g ms (rounding error %.2f %% of all block time)\n",
            in->time_unit_s * 1e3, in->time_error * 100);
    double umax = 0;
    for (int d = 0; d < o->gpus; d++)
        umax = umax > in->memory_unit_dev[d] ? umax : in->memory_unit_dev[d];
    fprintf(f, "weights%s on the fullest GPU %.2f GB; its capacity %.0f - %.0f - %.2f = %.2f GB\n",
            o->infer ? "" : " and optimizer state", in->static_bytes_max / 1e9, h->hbm_gb,
            h->workspace_gb, in->static_bytes_max / 1e9, in->capacity_bytes / 1e9);
    fprintf(f,
            "capacity %ld units on every GPU; a unit is each GPU's free memory / %ld: %.4g GB "
            "(fullest GPU) to %.4g GB (rounded up by %.2f %% of all activation bytes)\n",
            in->capacity, in->capacity, in->memory_unit_bytes / 1e9, umax / 1e9,
            in->memory_error * 100);
    fprintf(f, "%-10s %-9s %6s %10s %7s %9s\n", "block", "devices", "span", "ms", "memory", "GB");
    for (int i = 0; i < p->nblocks; i++) {
        const ts_block *b = &p->blocks[i];
        if (i == 24 && p->nblocks > 30) {
            fprintf(f, "... %d more blocks\n", p->nblocks - 24);
            break;
        }
        char devs[32];
        if (b->ndevices == 1)
            snprintf(devs, sizeof devs, "%d", b->devices[0]);
        else
            snprintf(devs, sizeof devs, "%d-%d", b->devices[0], b->devices[b->ndevices - 1]);
        fprintf(f, "%-10s %-9s %6d %10.3f %7d %9.3f\n", b->id, devs, b->span,
                b->span * in->time_unit_s * 1e3, b->memory,
                b->memory * in->memory_unit_dev[b->devices[0]] / 1e9);
    }
    fprintf(f, "search it: tessel search %s --memory %ld --method modulo\n",
            a->out ? a->out : "PLACEMENT", in->capacity);
}

static json_t *ts_mp_json(const ts_model *m, const ts_hardware *h, const ts_mp_args *a,
                          const ts_derive_info *in)
{
    json_t *cuts = json_array(), *sl = json_array();
    for (int s = 0; s < in->stages && in->cuts; s++)
        json_array_append_new(cuts, json_string(m->layers[in->cuts[s]].name));
    for (int j = 0; j < in->nslices; j++)
        json_array_append_new(sl, json_integer(in->slice_tokens[j]));
    json_t *units = json_array();
    for (int d = 0; d < a->o.gpus; d++)
        json_array_append_new(units, json_real(in->memory_unit_dev[d]));
    return json_pack("{ss ss ss si si si si sb sf sf so sf sf sf sI so so}", "model", m->name,
                     "hardware", h->name, "strategy", a->o.strategy, "gpus", a->o.gpus,
                     "tensor_parallel", a->o.T, "micro_batch_size", a->o.b, "stages", in->stages,
                     "infer", a->o.infer, "time_unit_s", in->time_unit_s, "time_error",
                     in->time_error, "memory_unit_bytes", units, "memory_error", in->memory_error,
                     "state_bytes_max", in->static_bytes_max, "capacity_bytes", in->capacity_bytes,
                     "capacity", (json_int_t)in->capacity, "stage_first_layers", cuts,
                     "slice_tokens", sl);
}

int ts_cmd_placement_model(int argc, char **argv)
{
    const char *cmd = "placement";
    ts_mp_args a = {0};
    a.o.b = 1;
    a.o.T = 1;
    a.eff = a.ws = -1;
    int rc = ts_mp_parse(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    const char *dir = ts_cli_models_dir(a.dir);
    char path[4200];
    ts_err e = {0};
    ts_model *m = NULL;
    ts_hardware h = {0};
    ts_placement *p = NULL;
    ts_derive_info in = {0};
    if (ts_model_path(dir, a.model, false, path, sizeof path, &e) ||
        ts_model_load(path, (int)a.seq, &m, &e) ||
        ts_model_path(dir, a.hw, true, path, sizeof path, &e) || ts_hardware_load(path, &h, &e)) {
        rc = ts_cli_report(cmd, &e);
        goto done;
    }
    if (a.eff > 0)
        h.efficiency = a.eff;
    if (a.ws >= h.hbm_gb) {
        rc = ts_cli_usage_error(cmd, "--workspace-gb %g leaves nothing of %s's %g GB", a.ws, h.name,
                                h.hbm_gb);
        goto done;
    }
    if (a.ws >= 0)
        h.workspace_gb = a.ws;
    if (ts_model_derive(m, &h, &a.o, &p, &in, &e) ||
        ts_placement_save(p, a.out ? a.out : "-", &e)) {
        rc = ts_cli_report(cmd, &e);
        goto done;
    }
    if (a.json)
        ts_cli_print_json(ts_mp_json(m, &h, &a, &in));
    else
        ts_mp_summary(a.out ? stdout : stderr, m, &h, &a, p, &in);
done:
    ts_placement_free(p);
    ts_derive_info_clear(&in);
    ts_model_free(m);
    ts_hardware_clear(&h);
    return rc;
}
