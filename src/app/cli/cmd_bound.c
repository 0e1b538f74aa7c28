/* tessel bound: the lower bound LB(N) of a placement, within a memory capacity when given, as
 * text or JSON (every term and the one that binds), through the bound operation (ts_op_views.h). */
#include <stdio.h>
#include <stdlib.h>
#include "cli_ops.h"
#include "ts_op_views.h"

static const ts_cli_op_help ts_bound_help = {
    "PLACEMENT|--placement NAME --ndevs D -n N [OPTIONS]",
    "Lower bound on the makespan of N micro-batches: no valid schedule is shorter. The options "
    "are those of Placement.bound in Python and of the explorer's check, under the same names.",
    NULL,
    "The bound is the largest of these terms (each sound on its own):\n"
    "  load           max over devices d of head(d) + N*load(d) + tail(d)\n"
    "  critical_path  the longest dependency path of one micro-batch\n"
    "  recurrence     the longest path of N micro-batches through distance edges\n"
    "  one_machine    each device alone, with every instance's earliest start and\n"
    "                 tail, preemption allowed (Jackson's schedule)\n"
    "  memory         with memory M: the micro-batches a device can hold at once\n"
    "                 within its own capacity, each held from an allocating\n"
    "                 block to a later block\n"
    "  pauses         blocks on every device: N times their spans plus the bound\n"
    "                 of the rest\n"
    "  exclusive      with memory M: windows of micro-batches on one device that\n"
    "                 the capacity keeps from overlapping, laid end to end (with\n"
    "                 the time one micro-batch needs to free enough for the next)\n"
    "  cross          with memory M: such windows on two devices, each holding a\n"
    "                 window of the other device that the other's keep away\n"
    "                 from, so they overlap only at their ends\n"
    "  warmup         with memory M: before a device's first freeing block can\n"
    "                 start, only what its capacity lets it allocate runs there,\n"
    "                 and after its last allocating block only what that leaves\n"
    "                 to free; the rest of those stretches is idle, added to\n"
    "                 load's bound\n"
    "The output names the term that binds (-1 / null: not computed).\n"};

static void ts_bound_print_text(const ts_placement *p, const ts_op_bound_req *r,
                                const ts_op_bound_res *res)
{
    const ts_bound *b = &res->b;
    printf("placement %s, %d devices, %d blocks\n", p->name, p->ndevs, p->nblocks);
    printf("load per device:");
    for (int d = 0; d < p->ndevs; d++)
        printf(" %ld", res->load[d]);
    printf("\nterms:");
    for (int t = 0; t < TS_BOUND_NTERMS; t++)
        if (b->term[t] >= 0)
            printf(" %s %ld%s", ts_bound_term_name((ts_bound_term)t), b->term[t],
                   t + 1 < TS_BOUND_NTERMS ? "," : "");
    printf("\nlower bound on the makespan of %d micro-batches: %ld (%s", r->n, b->value,
           ts_bound_term_name(b->binding));
    if (b->device[b->binding] >= 0)
        printf(", device %d", b->device[b->binding]);
    printf(")\n");
}

int ts_cmd_bound(int argc, char **argv)
{
    const char *cmd = "bound";
    ts_cli_op_args a;
    int rc = ts_cli_op_parse(cmd, &ts_op_bound, &ts_bound_help, argc, argv, &a);
    bool json = rc == 0 && ts_cli_op_take_flag(&a, "json");
    ts_placement *p = NULL;
    ts_op_bound_req r = {0};
    ts_op_bound_res res = {0};
    ts_err e = {0};
    /* the count is checked before the placement is loaded, as it always was */
    if (rc == 0 && !json_object_get(a.req, "micro_batches"))
        rc = ts_cli_usage_error(cmd, "--micro-batches N is required");
    if (rc == 0)
        rc = ts_cli_placement_load(cmd, &a.pl, &p);
    if (rc == 0 && ts_op_bound_read(a.req, TS_FRONT_CLI, p, &r, &e))
        rc = e.code == TS_ESYS ? ts_cli_report(cmd, &e) : ts_cli_usage_error(cmd, "%s", e.msg);
    if (rc == 0 && ts_op_bound_run(p, &r, &res, &e))
        rc = ts_cli_report(cmd, &e);
    if (rc == 0 && json)
        ts_cli_print_json(json_incref(res.json));
    else if (rc == 0)
        ts_bound_print_text(p, &r, &res);
    ts_op_bound_res_free(&res);
    ts_op_bound_req_free(&r);
    ts_placement_free(p);
    json_decref(a.req);
    return rc < 0 ? 0 : rc;
}
