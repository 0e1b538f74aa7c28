/* The simulate operation (`tessel simulate`, Schedule.simulate; Schedule.summary shares its
 * schedule at N): its option table, its request and the replay of each device's order with the
 * spans as durations, scaled, noisy and delayed between devices as asked. */
#include <stdlib.h>
#include <string.h>
#include "ts_op_views.h"
#include "ts_results.h"

#define TS_OP_SIM_WHY "the explorer has no route for it"

static const ts_op_option ts_op_simulate_opts[] = {
    {"micro_batches", "n", "micro-batches", 'n', TS_OPV_INT, 1, 1000000, "N",
     "unroll the repetend to N micro-batches first (below its count: its first N)",
     TS_FRONT_CLI | TS_FRONT_PY, TS_OP_SIM_WHY},
    {"noise", NULL, "noise", 0, TS_OPV_NUM, 0, 0.99, "X", "each duration times 1 + U(-X, X)",
     TS_FRONT_CLI | TS_FRONT_PY, TS_OP_SIM_WHY},
    {"seed", NULL, "seed", 0, TS_OPV_INT, 0, 2147483647.0, "S", "seed of the noise (default 1)",
     TS_FRONT_CLI | TS_FRONT_PY, TS_OP_SIM_WHY},
    {"comm_delay", NULL, "comm-delay", 0, TS_OPV_NUM, 0, 1e9, "T",
     "extra delay on every edge between different devices", TS_FRONT_CLI | TS_FRONT_PY,
     TS_OP_SIM_WHY},
    {"scale", NULL, "scale", 0, TS_OPV_FACTORS, 0, 1e6, "BLOCK=FACTOR",
     "multiply BLOCK's duration by FACTOR (repeatable; Python: a dict {block: factor}); the lower "
     "bound reported is then that of the replayed durations and delays",
     TS_FRONT_CLI | TS_FRONT_PY, TS_OP_SIM_WHY},
    {"json", NULL, "json", 'j', TS_OPV_FLAG, 0, 0, NULL, "print one JSON object", TS_FRONT_CLI,
     "Python returns the object; the explorer has no route for it"},
};

const ts_op ts_op_simulate = {"simulate",
                              "replays each device's order of a schedule with given durations: "
                              "the makespan a runtime following that order reaches",
                              TS_OP_ON_SCHEDULE,
                              "simulate",
                              "Schedule.simulate",
                              NULL,
                              NULL,
                              ts_op_simulate_opts,
                              (int)(sizeof ts_op_simulate_opts / sizeof ts_op_simulate_opts[0])};

int ts_op_simulate_read(json_t *req, ts_front f, const ts_placement *p, ts_op_simulate_req *r,
                        ts_err *e)
{
    double v;
    bool given, replayed;
    memset(r, 0, sizeof *r);
    r->so.seed = 1;
    if (ts_op_read_at(&ts_op_simulate, req, f, &r->n, &replayed, e) ||
        ts_op_read_num(&ts_op_simulate, "noise", req, f, &r->so.noise, &given, e) ||
        ts_op_read_num(&ts_op_simulate, "comm_delay", req, f, &r->so.comm_delay, &given, e) ||
        ts_op_read_num(&ts_op_simulate, "seed", req, f, &v, &given, e))
        return TS_EINPUT;
    if (given)
        r->so.seed = (unsigned long long)v;
    if (!(r->scale = malloc(((size_t)p->nblocks + 1) * sizeof *r->scale)))
        return ts_fail(e, TS_ESYS, "out of memory");
    r->so.scale = r->scale;
    return ts_op_read_factors(&ts_op_simulate, "scale", req, f, p, r->scale, &r->nscale, e);
}

void ts_op_simulate_req_free(ts_op_simulate_req *r)
{
    free(r->scale);
    memset(r, 0, sizeof *r);
}

static json_t *ts_op_sim_longs(const long *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

/* The figures of the replay: the busy share of every device's time, the bound of the replayed
 * durations, and the keys of `tessel simulate --json` in its order. */
static json_t *ts_op_sim_json(const ts_op_simulate_req *r, ts_op_simulate_res *res)
{
    const ts_schedule *s = res->at;
    const ts_placement *p = s->placement;
    const ts_sim_result *x = &res->sim;
    double busy = 0;
    for (int i = 0; i < s->nentries; i++)
        busy += (x->finish[i] - x->start[i]) * p->blocks[s->entries[i].block].ndevices;
    res->bubble_rate = x->makespan > 0 ? 1.0 - busy / (p->ndevs * x->makespan) : 0.0;
    res->lower_bound = (double)res->m.lower_bound;
    if (r->nscale || r->so.comm_delay > 0)
        res->lower_bound = ts_results_sim_lower_bound(p, s->nmicros, r->scale, r->so.comm_delay);
    return json_pack("{ss si sf sI sf sf so so}", "placement", p->name, "micro_batches", s->nmicros,
                     "makespan", x->makespan, "planned_makespan", (json_int_t)res->m.makespan,
                     "bubble_rate", res->bubble_rate, "lower_bound", res->lower_bound,
                     "peak_memory", ts_op_sim_longs(res->m.peak, p->ndevs), "load",
                     ts_op_sim_longs(res->m.load, p->ndevs));
}

int ts_op_simulate_run(const ts_schedule *s, const char *where, const ts_op_simulate_req *r,
                       ts_op_simulate_res *res, ts_err *e)
{
    ts_err se = {0};
    int rc;
    memset(res, 0, sizeof *res);
    if (ts_op_schedule_at(s, r->n, false, where, &res->at, e))
        return e->code;
    if ((rc = ts_schedule_validate(res->at, NULL, &se)))
        return ts_fail(e, rc, "%s: invalid: %s", where, se.msg);
    if ((rc = ts_simulate(res->at, &r->so, &res->sim, &se)))
        return ts_fail(e, rc, "%s", se.msg);
    if (ts_schedule_metrics(res->at, &res->m))
        return ts_fail(e, TS_ESYS, "out of memory");
    res->json = ts_op_sim_json(r, res);
    return res->json ? TS_OK : ts_fail(e, TS_ESYS, "out of memory");
}

void ts_op_simulate_res_free(ts_op_simulate_res *res)
{
    ts_schedule_free(res->at);
    ts_sim_result_free(&res->sim);
    ts_metrics_free(&res->m);
    json_decref(res->json);
    memset(res, 0, sizeof *res);
}

json_t *ts_op_summary(const ts_schedule *s, const char *where, int n, ts_err *e)
{
    ts_schedule *at;
    if (ts_op_schedule_at(s, n, false, where, &at, e))
        return NULL;
    int ncap = s->has_memory ? s->placement->ndevs : 0;
    json_t *j = ts_results_summary(at, at->nmicros, s->memory, ncap, e);
    ts_schedule_free(at);
    return j;
}
