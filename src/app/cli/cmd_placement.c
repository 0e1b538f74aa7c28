/* tessel placements (the list of built-ins) and tessel placement (a built-in, or a placement
 * derived from a model, written as a file). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "model_cli.h"
#include "ts_json.h"

int ts_cmd_placements(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int json = 0, c;
    while ((c = ts_cli_getopt("placements", argc, argv, "h", opts)) != -1) {
        if (c == -2)
            return 2;
        if (c == 'h') {
            printf(
                "usage: tessel placements [--json]\n\nLists the built-in placements and the device "
                "counts each allows.\nEvery built-in has a training and an inference (--infer) "
                "variant.\n");
            return 0;
        }
        json = 1;
    }
    if (optind < argc)
        return ts_cli_usage_error("placements", "unexpected argument '%s'", argv[optind]);
    json_t *arr = json_array();
    if (!json)
        printf("%-20s %-14s %s\n", "name", "devices", "description");
    for (int i = 0; i < ts_builtin_count(); i++) {
        const ts_builtin_info *b = ts_builtin_at(i);
        char devs[64];
        if (b->min_devs == b->max_devs)
            snprintf(devs, sizeof devs, "%d", b->min_devs);
        else
            snprintf(devs, sizeof devs, "%d..%d%s", b->min_devs, b->max_devs,
                     b->step_devs == 2 ? " even" : "");
        if (json)
            json_array_append_new(arr,
                                  json_pack("{ss ss si si si}", "name", b->name, "description",
                                            b->description, "min_devs", b->min_devs, "max_devs",
                                            b->max_devs, "step_devs", b->step_devs));
        else
            printf("%-20s %-14s %s\n", b->name, devs, b->description);
    }
    if (json)
        ts_cli_print_json(arr);
    else
        json_decref(arr);
    return 0;
}

int ts_cmd_placement(int argc, char **argv)
{
    static const struct option opts[] = {TS_CLI_PLACEMENT_OPTIONS,
                                         {"output", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "placement", *outp = "-";
    ts_cli_placement pl = {0};
    int c;
    if (ts_cli_has_model_flag(argc, argv))
        return ts_cmd_placement_model(argc, argv);
    while ((c = ts_cli_getopt(cmd, argc, argv, "o:h", opts)) != -1) {
        if (c == -2)
            return 2;
        if (c == 'h') {
            printf("usage: tessel placement NAME --ndevs D [--infer] [--chunks V] [-o FILE]\n"
                   "       tessel placement --model NAME --hardware H --gpus D --strategy S ...\n\n"
                   "Writes a built-in placement as a tessel-placement/1 file (stdout by default).\n"
                   "With --model, derives one from a model on GPUs (`tessel placement --model M\n"
                   "--help` for its options).\n"
                   "  --ndevs D        device count\n"
                   "  --infer          inference variant (no backward blocks, memory 0)\n"
                   "  --chunks V       model chunks per device (vshape_interleaved)\n"
                   "  -o, --output F   write to F instead of stdout\n");
            return 0;
        }
        if (c == 'o') {
            outp = optarg;
            continue;
        }
        int r = ts_cli_placement_option(cmd, c, optarg, &pl);
        if (r != 1)
            return 2;
    }
    if (optind >= argc)
        return ts_cli_usage_error(cmd, "missing the built-in name (see `tessel placements`)");
    if (optind + 1 < argc)
        return ts_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    if (pl.name)
        return ts_cli_usage_error(cmd, "give the name as the argument, not with --placement");
    pl.name = argv[optind];
    ts_placement *p;
    int rc = ts_cli_placement_load(cmd, &pl, &p);
    if (rc)
        return rc;
    ts_err e = {0};
    rc = ts_placement_save(p, outp, &e) ? ts_cli_report(cmd, &e) : 0;
    ts_placement_free(p);
    return rc;
}
