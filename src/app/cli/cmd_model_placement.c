/* tessel placement --model: a placement derived from a model description, a GPU profile and a
 * strategy, with its time and memory units, the capacity per GPU, and the stage cuts. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "cli_ops.h"
#include "model_cli.h"
#include "ts_op_model.h"

static const ts_cli_op_help ts_mp_help = {
    "--model M --hardware H --gpus D --strategy S [OPTIONS]",
    "Derives a placement from a model (models/NAME.json) on D GPUs (models/hardware/H.json): "
    "the stage DP cuts the layers into stages of T GPUs each (D = T x stages), the strategy "
    "places them, spans are times and memory is activation bytes, both quantised to the units "
    "stated in the file, and the capacity per GPU (HBM less weights, optimizer state and "
    "workspace) is written for `tessel search`. The options are those of "
    "tessel.placement_from_model in Python and of the explorer's model placement, under the "
    "same names.",
    NULL, "Exit status: 0 derived, 1 the model does not fit, 2 bad usage or input.\n"};

static void ts_mp_summary(FILE *f, const ts_op_model_placement_req *r,
                          const ts_op_model_placement_res *res, const char *out)
{
    const ts_derive_opts *o = &r->o;
    const ts_model *m = res->m;
    const ts_hardware *h = &res->h;
    const ts_placement *p = res->p;
    const ts_derive_info *in = &res->in;
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
            out ? out : "PLACEMENT", in->capacity);
}

/* tessel placement --model --help, also when --model takes "--help" for its name. */
static bool ts_mp_wants_help(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--model") &&
            (!strcmp(argv[i + 1], "--help") || !strcmp(argv[i + 1], "-h")))
            return true;
    return false;
}

/* What the command line asks beyond the request: where the placement goes, and the summary as
 * JSON; the arguments it refuses. */
static int ts_mp_args(const char *cmd, ts_cli_op_args *a, char *buf, size_t len, const char **out,
                      bool *json)
{
    *out = ts_cli_op_take_text(a, "output", buf, len);
    *json = ts_cli_op_take_flag(a, "json");
    if (a->nargs > 0)
        return ts_cli_usage_error(cmd,
                                  "unexpected argument '%s' (a model placement takes no "
                                  "built-in name)",
                                  a->args[0]);
    if (*json && !*out)
        return ts_cli_usage_error(cmd, "--json prints the summary on stdout: give -o FILE for "
                                       "the placement");
    return 0;
}

int ts_cmd_placement_model(int argc, char **argv)
{
    const char *cmd = "placement";
    char *help[] = {argv[0], "--help", NULL};
    bool json = false;
    char buf[4096];
    const char *out = NULL;
    ts_cli_op_args a;
    ts_op_model_placement_req r = {0};
    ts_op_model_placement_res res = {0};
    ts_err e = {0};
    int rc = ts_mp_wants_help(argc, argv)
                 ? ts_cli_op_parse(cmd, &ts_op_model_placement, &ts_mp_help, 2, help, &a)
                 : ts_cli_op_parse(cmd, &ts_op_model_placement, &ts_mp_help, argc, argv, &a);
    if (rc == 0)
        rc = ts_mp_args(cmd, &a, buf, sizeof buf, &out, &json);
    if (rc == 0 && ts_op_model_placement_read(a.req, TS_FRONT_CLI, &r, &e))
        rc = e.code == TS_ESYS ? ts_cli_report(cmd, &e) : ts_cli_usage_error(cmd, "%s", e.msg);
    if (rc == 0 &&
        (ts_op_model_placement_run(&r, &res, &e) || ts_placement_save(res.p, out ? out : "-", &e)))
        rc = ts_cli_report(cmd, &e);
    else if (rc == 0 && json)
        ts_cli_print_json(json_incref(res.summary));
    else if (rc == 0)
        ts_mp_summary(out ? stdout : stderr, &r, &res, out);
    ts_op_model_placement_res_free(&res);
    ts_op_model_placement_req_free(&r);
    json_decref(a.req);
    return rc < 0 ? 0 : rc;
}
