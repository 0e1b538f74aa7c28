/* tessel baseline: a hand-made schedule of a kind in the baseline registry (ts_baseline.h), built by
 * its published rule for a placement, through the baseline operation (ts_op_baseline.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_ops.h"
#include "ts_baseline.h"
#include "ts_op_baseline.h"

/* The kinds and the placements each fits, under the options of --help. */
static void ts_baseline_help_lists(void)
{
    printf("\nkinds (KIND):\n");
    for (int i = 0; i < ts_baseline_count(); i++) {
        const ts_baseline_info *b = ts_baseline_at(i);
        char head[48], fits[512], text[1024];
        ts_baseline_fits_text(b, fits, sizeof fits);
        snprintf(head, sizeof head, "  %s", b->name);
        snprintf(text, sizeof text, "%s; fits: %s", b->description, fits);
        ts_cli_help_item(head, text);
    }
}

static const ts_cli_op_help ts_baseline_help = {
    "KIND PLACEMENT|--placement NAME --ndevs D [OPTIONS]\n"
    "       tessel baseline --list",
    "Builds a hand-made schedule by its published rule (not searched): a per-device order of "
    "instances, each instance as early as that order and its inputs allow. The schedule passes "
    "`tessel validate`; it ignores memory limits (compare its peak memory instead). A kind that "
    "does not fit the placement is refused (exit 2). The options are those of tessel.baseline "
    "in Python and of the explorer's baseline, under the same names.",
    ts_baseline_help_lists, "Exit status: 0 built, 2 bad usage or a kind that does not fit.\n"};

/* --list: every kind and the placements it fits. */
static void ts_baseline_list(void)
{
    for (int i = 0; i < ts_baseline_count(); i++) {
        char fits[512];
        ts_baseline_fits_text(ts_baseline_at(i), fits, sizeof fits);
        printf("%-12s %s\n", ts_baseline_at(i)->name, fits);
    }
}

/* Writes the schedule (to stdout without -o) and, with -o, its summary. */
static int ts_baseline_print(const char *cmd, const char *out, bool json,
                             const ts_op_baseline_req *r, const ts_placement *p,
                             ts_op_baseline_res *res)
{
    ts_err e = {0};
    if (ts_schedule_save(res->s, out ? out : "-", &e) != TS_OK)
        return ts_cli_report(cmd, &e);
    if (out && json) {
        ts_cli_print_json(json_incref(res->summary));
    } else if (out) {
        const ts_metrics *m = &res->m;
        printf("%s: %s on '%s', %d micro-batches, %d devices: makespan %ld (lower bound %ld), "
               "bubble rate %.2f%%, peak memory",
               out, r->kind, p->name, res->s->nmicros, p->ndevs, m->makespan, m->lower_bound,
               100.0 * m->bubble_rate);
        for (int d = 0; d < p->ndevs; d++)
            printf(" %ld", m->peak[d]);
        printf("\n");
    }
    return 0;
}

/* After the options: the kind, then the placement; builds and prints. */
static int ts_baseline_run(const char *cmd, ts_cli_op_args *a, const char *out, bool json)
{
    ts_op_baseline_req r;
    ts_op_baseline_res res = {0};
    ts_placement *p = NULL;
    ts_err e = {0};
    if (!json_object_get(a->req, "kind"))
        return ts_cli_usage_error(cmd, "missing the baseline KIND (see --list)");
    if (ts_op_baseline_read(a->req, TS_FRONT_CLI, &r, &e))
        return ts_cli_usage_error(cmd, "%s", e.msg);
    if (json && !out)
        return ts_cli_usage_error(cmd, "--json needs -o SCHED (without -o the schedule itself is "
                                       "printed)");
    int rc = ts_cli_placement_load(cmd, &a->pl, &p);
    if (rc == 0 && ts_op_baseline_run(&r, p, &res, &e))
        rc = ts_cli_report(cmd, &e);
    else if (rc == 0)
        rc = ts_baseline_print(cmd, out, json, &r, p, &res);
    ts_op_baseline_res_free(&res);
    ts_placement_free(p);
    return rc;
}

int ts_cmd_baseline(int argc, char **argv)
{
    const char *cmd = "baseline";
    ts_cli_op_args a;
    char outbuf[4096];
    int rc = ts_cli_op_parse_arg(cmd, &ts_op_baseline, &ts_baseline_help, "kind", argc, argv, &a);
    if (rc == 0) {
        const char *out = ts_cli_op_take_text(&a, "output", outbuf, sizeof outbuf);
        bool json = ts_cli_op_take_flag(&a, "json");
        if (ts_cli_op_take_flag(&a, "list"))
            ts_baseline_list();
        else
            rc = ts_baseline_run(cmd, &a, out, json);
    }
    json_decref(a.req);
    return rc < 0 ? 0 : rc;
}
