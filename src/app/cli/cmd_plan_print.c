/* tessel plan's output: the ranked table with the search's counts and the refusals by reason,
 * --explain's breakdown of one plan, and the CSV (the JSON is the operation's, ts_op_plan_json). */
#ifdef TS_HAVE_SOLVER
#include <stdio.h>
#include "plan.h"

static void ts_plan_counts(const ts_op_plan_res *a)
{
    const ts_plan_stats *st = &a->st;
    printf("plans: %ld in the space, %ld evaluated, %ld pruned by bound, %ld refused; schedule "
           "search: %d searched, %d pruned by bound\n",
           st->total, st->evaluated, st->pruned, st->refused, a->searched, a->search_pruned);
    for (int k = 0; k < TS_REFUSE_KINDS; k++)
        if (st->refused_by[k])
            printf("  refused, %s: %ld (e.g. %s)\n", ts_refuse_name(k), st->refused_by[k],
                   st->example[k]);
}

/* How Megatron-LM and torchtitan launch the best plan. */
static void ts_plan_print_launch(const ts_plan_req *r, const ts_plan *best)
{
    char line[2048], name[96];
    ts_plan_name(&best->cfg, name, sizeof name);
    printf("launch %s (%s framework):\n", name, ts_framework_name(r->framework));
    bool ok = ts_plan_megatron_line(r, best, line, sizeof line);
    printf("  Megatron-LM: %s%s\n", ok ? "" : "none: ", line);
    json_t *j = ts_plan_launch_json(r, best), *t = json_object_get(j, "torchtitan");
    if (!json_is_object(t)) {
        printf("  torchtitan: none: %s\n", json_string_value(json_object_get(j, "torchtitan_why")));
        json_decref(j);
        return;
    }
    const char *key;
    json_t *tab;
    printf("  torchtitan:\n");
    json_object_foreach(t, key, tab)
    {
        printf("    [%s]\n", key);
        const char *k;
        json_t *v;
        json_object_foreach(tab, k, v)
        {
            if (json_is_string(v))
                printf("    %s = \"%s\"\n", k, json_string_value(v));
            else
                printf("    %s = %" JSON_INTEGER_FORMAT "\n", k, json_integer_value(v));
        }
    }
    json_decref(j);
}

static void ts_plan_print_table(const ts_plan *pl, int n)
{
    /* C and E: context and expert parallelism (E/ET with an expert tensor parallelism apart
     * from T), which the name of the launched plan carries as -c, -e and -et */
    printf("%-4s %-12s %3s %3s %2s %3s %6s %4s %2s %-9s %3s %2s %5s %9s %10s %8s %6s %8s %s\n",
           "rank", "strategy", "T", "P", "v", "C", "E", "dp", "Z", "recompute", "b", "sp", "N",
           "iter s", "samples/s", "TFLOP/s", "MFU", "peak GB", "kept");
    for (int i = 0, k = 1; i < n; i++) {
        const ts_plan *x = &pl[i];
        const ts_plan_cfg *c = &x->cfg;
        if (!x->ok)
            continue;
        char ep[16];
        if (c->etp > 0 && c->etp != c->T)
            snprintf(ep, sizeof ep, "%d/%d", c->E > 1 ? c->E : 1, c->etp);
        else
            snprintf(ep, sizeof ep, "%d", c->E > 1 ? c->E : 1);
        printf("%-4d %-12s %3d %3d %2d %3d %6s %4d %2d %-9s %3d %2s %5d %9.3f %10.2f %8.1f %5.1f%% "
               "%8.1f %s%s\n",
               k++, c->strategy, c->T, c->P, c->v, c->C > 1 ? c->C : 1, ep, c->dp, c->zero,
               ts_recompute_name(c->recompute),
               c->b, c->seqpar ? "on" : "-", c->N, x->iter_s, x->samples_s, x->tflops_gpu,
               100 * x->mfu, x->peak_gb, x->source, x->timed_out ? " (time limit)" : "");
    }
}

void ts_plan_print(const ts_op_plan_res *a)
{
    const ts_plan_req *r = &a->r;
    const ts_plan *pl = a->pl;
    int n = a->n;
    printf("%s on %d x %s: global batch %ld, %s\n", r->m->name, r->gpus, r->h->name, r->global,
           r->infer ? "inference" : "training");
    ts_plan_counts(a);
    bool any = false;
    for (int i = 0; i < n; i++)
        any = any || pl[i].ok;
    /* no table when no plan fits: the counts above say why */
    if (any)
        ts_plan_print_table(pl, n);
    for (int i = 0; i < n; i++)
        if (!pl[i].ok) {
            char name[96];
            ts_plan_name(&pl[i].cfg, name, sizeof name);
            printf("not ranked: %s: %s\n", name, pl[i].reason);
        }
    if (n > 0 && pl[0].ok)
        ts_plan_print_launch(r, &pl[0]);
}

void ts_plan_explain(const ts_plan *pl)
{
    const ts_plan_cost *c = &pl->cost;
    char name[96];
    ts_plan_name(&pl->cfg, name, sizeof name);
    const struct {
        const char *what;
        double s;
    } part[] = {{"compute (critical stage, N micro-batches)", c->compute_s},
                {"tensor-parallel collectives", c->tp_s},
                {"pipeline point-to-point sends", c->p2p_s},
                {"bubble", c->bubble_s},
                {"data-parallel gradient reduction (exposed)", c->dp_s},
                {"ZeRO gathers (exposed)", c->zero_s},
                {"optimizer step", c->optimizer_s}};
    printf("\n%s: %.4f s per iteration (%s)\n", name, pl->iter_s, pl->source);
    for (size_t i = 0; i < sizeof part / sizeof part[0]; i++)
        printf("  %-44s %9.4f s %6.1f%%\n", part[i].what, part[i].s,
               pl->iter_s > 0 ? 100 * part[i].s / pl->iter_s : 0);
    printf("  stages recomputing: %d none, %d selective, %d full; peak %.1f GB per GPU\n",
           c->stages_rc[0], c->stages_rc[1], c->stages_rc[2], pl->peak_gb);
}

void ts_plan_csv(const ts_plan *pl, int n)
{
    printf("strategy,tensor_parallel,pipeline,virtual_stages,replicas,zero,recompute,"
           "micro_batch_size,sequence_parallel,micro_batches,fits,iteration_s,samples_per_s,"
           "tflops_per_gpu,mfu,peak_memory_gb,kept\n");
    for (int i = 0; i < n; i++) {
        const ts_plan *x = &pl[i];
        const ts_plan_cfg *c = &x->cfg;
        printf("%s,%d,%d,%d,%d,%d,%s,%d,%d,%d,", c->strategy, c->T, c->P, c->v, c->dp, c->zero,
               ts_recompute_name(c->recompute), c->b, c->seqpar, c->N);
        if (x->ok)
            printf("1,%.6g,%.6g,%.6g,%.6g,%.6g,%s\n", x->iter_s, x->samples_s, x->tflops_gpu,
                   x->mfu, x->peak_gb, x->source);
        else
            printf("0,,,,,,\n");
    }
}
#endif
