/* tessel bound: the lower bound LB(N) of a placement, within a memory capacity when given, as
 * text or JSON (every term and the one that binds). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"
#include "ts_bound.h"

/* The capacities as given: "none", one number, or one per device. */
static json_t *ts_bound_memory_json(const ts_cli_memory *m)
{
    if (!m->has_memory)
        return json_string("none");
    if (m->n == 1)
        return json_integer(m->cap[0]);
    return ts_cli_long_array(m->cap, m->n);
}

static void ts_bound_print_json(const ts_placement *p, long n, const ts_cli_memory *mem,
                                const ts_bound *b, const long *load)
{
    json_t *terms = json_object();
    for (int t = 0; t < TS_BOUND_NTERMS; t++)
        json_object_set_new(terms, ts_bound_term_name((ts_bound_term)t),
                            b->term[t] >= 0 ? json_integer(b->term[t]) : json_null());
    json_t *j =
        json_pack("{ss si so sI ss so so}", "placement", p->name, "micro_batches", (int)n, "memory",
                  ts_bound_memory_json(mem), "lower_bound",
                  (json_int_t)b->value, "binding", ts_bound_term_name(b->binding), "terms", terms,
                  "load", ts_cli_long_array(load, p->ndevs));
    json_object_set_new(j, "binding_device",
                        b->device[b->binding] >= 0 ? json_integer(b->device[b->binding])
                                                   : json_null());
    ts_cli_print_json(j);
}

static void ts_bound_print_text(const ts_placement *p, long n, const ts_bound *b, const long *load)
{
    printf("placement %s, %d devices, %d blocks\n", p->name, p->ndevs, p->nblocks);
    printf("load per device:");
    for (int d = 0; d < p->ndevs; d++)
        printf(" %ld", load[d]);
    printf("\nterms:");
    for (int t = 0; t < TS_BOUND_NTERMS; t++)
        if (b->term[t] >= 0)
            printf(" %s %ld%s", ts_bound_term_name((ts_bound_term)t), b->term[t],
                   t + 1 < TS_BOUND_NTERMS ? "," : "");
    printf("\nlower bound on the makespan of %ld micro-batches: %ld (%s", n, b->value,
           ts_bound_term_name(b->binding));
    if (b->device[b->binding] >= 0)
        printf(", device %d", b->device[b->binding]);
    printf(")\n");
}

static int ts_bound_end(ts_cli_memory *m, int rc)
{
    ts_cli_memory_free(m);
    return rc;
}

int ts_cmd_bound(int argc, char **argv)
{
    static const struct option opts[] = {TS_CLI_PLACEMENT_OPTIONS,
                                         {"micro-batches", required_argument, 0, 'n'},
                                         {"memory", required_argument, 0, 'm'},
                                         {"json", no_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "bound";
    ts_cli_placement pl = {0};
    long n = 0;
    ts_cli_memory mem = {0};
    int json = 0, c, rc;
    while ((c = ts_cli_getopt_placement(cmd, argc, argv, "n:m:h", opts, &pl)) != -1) {
        if (c == -2)
            return ts_bound_end(&mem, 2);
        if (c == 'h') {
            printf("usage: tessel bound (PLACEMENT | --placement NAME --ndevs D [--infer]) "
                   "--micro-batches N [--memory M|none] [--json]\n\n"
                   "Lower bound on the makespan of N micro-batches: no valid schedule is shorter.\n"
                   "It is the largest of these terms (each sound on its own):\n"
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
                   "The output names the term that binds (-1 / null: not computed).\n\n" TS_CLI_PLACEMENT_HELP
                   "  -n, --micro-batches N  number of micro-batches\n"
                   "  -m, --memory M|none  per-device memory capacity (default none); a list\n"
                   "                       M0,M1,... gives each device its own\n"
                   "  --json               print one JSON object\n");
            return ts_bound_end(&mem, 0);
        }
        if (c == 'n') {
            if (ts_cli_parse_long(cmd, "--micro-batches", optarg, 1, 1000000, &n))
                return ts_bound_end(&mem, 2);
        } else if (c == 'm') {
            if (ts_cli_parse_memory(cmd, optarg, &mem))
                return ts_bound_end(&mem, 2);
        } else if (c == 'j') {
            json = 1;
        }
    }
    if (ts_cli_placement_arg(cmd, argc, argv, &pl))
        return ts_bound_end(&mem, 2);
    if (!n)
        return ts_bound_end(&mem, ts_cli_usage_error(cmd, "--micro-batches N is required"));
    ts_placement *p;
    if ((rc = ts_cli_placement_load(cmd, &pl, &p)))
        return ts_bound_end(&mem, rc);
    long *load = malloc((size_t)p->ndevs * sizeof(long)), *cap = NULL;
    ts_bound b;
    if (!load) {
        fprintf(stderr, "tessel bound: out of memory\n");
        rc = 3;
    } else if (!(rc = ts_cli_memory_caps(cmd, &mem, p->ndevs, &cap))) {
        ts_placement_device_load(p, load);
        ts_bound_compute(p, (int)n, cap, &b);
        if (json)
            ts_bound_print_json(p, n, &mem, &b, load);
        else
            ts_bound_print_text(p, n, &b, load);
    }
    free(load);
    free(cap);
    ts_placement_free(p);
    return ts_bound_end(&mem, rc);
}
