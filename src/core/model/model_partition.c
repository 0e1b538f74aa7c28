/* The stage DP of a strategy's chain (ts_d_partition of model_internal.h): per-layer costs and
 * memory from the derivation state, the in-flight micro-batches of the schedule the strategy is
 * made for, then ts_stage_partition (model_stage.c). Below every strategy builder. */
#include <math.h>
#include <stdlib.h>
#include "model_internal.h"

/* Stage DP over a chain: S stages (or chunks), each may use its device's memory divided by
 * share, less cap_less (sharded blocks' weights). In-flight micro-batches follow the schedule the
 * strategy is made for; when even one in flight fails, the micro-batch is too large. */
int ts_d_partition(ts_dctx *c, const int *items, int n, int S, double cap_less, int share,
                   ts_inflight mode, int *cut, ts_err *e)
{
    const ts_hardware *h = c->h;
    double *buf = calloc((size_t)(4 * n + 3 * S), sizeof(double));
    if (!buf)
        return ts_fail(e, TS_ESYS, "out of memory");
    double *cost = buf, *stat = buf + n, *act = buf + 2 * n, *send = buf + 3 * n;
    double *cap = buf + 4 * n, *inf = cap + S, *scap = inf + S;
    double bw = (c->S * c->T > h->gpus_per_node ? h->internode_gbs : h->nvlink_gbs) * 1e9;
    for (int k = 0; k < n; k++) {
        const ts_layer_cost *x = &c->lc[items[k]];
        cost[k] = c->R * x->fwd_s + x->bgrad_s + x->wgrad_s;
        stat[k] = x->static_bytes;
        act[k] = x->act_bytes;
        send[k] = x->out_bytes * (c->o->infer ? 1 : 2) / bw;
    }
    int v = share, Sd = S / (share > 0 ? share : 1);
    for (int s = 0; s < S; s++) {
        cap[s] = (h->hbm_gb - h->workspace_gb) * 1e9 / share - cap_less;
        if (mode == TS_INFLIGHT_1F1B)
            inf[s] = S - s;
        else if (mode == TS_INFLIGHT_TWO_WAY)
            inf[s] = (S + 1) / 2.0;
        else /* Megatron's interleaved warm-up: (D - d - 1) * 2 + (v - 1) * D + 1 chunks */
            inf[s] = ceil(((Sd - s % Sd - 1) * 2.0 + (v - 1) * Sd + 1) / v);
    }
    int N = c->o->nmicros > 0 ? c->o->nmicros : 2 * S;
    /* A parameter limit on the first stage (the Tessel authors' 1F1B baseline): the others may
     * hold whatever fits. */
    for (int s = 0; s < S; s++)
        scap[s] =
            s == 0 && c->o->first_stage_param_cap > 0 ? c->o->first_stage_param_cap : HUGE_VAL;
    ts_stage_problem p = {n, S, N, cost, stat, act, send, cap, inf, scap};
    if (n > 0 && stat[0] > scap[0]) {
        int rc = ts_fail(e, TS_ENOANSWER,
                         "%s (%s): its first layer %s alone holds %.1f GB of weights and optimizer "
                         "state per GPU, over the first stage's parameter cap of %.1f GB; use more "
                         "tensor parallelism",
                         c->m->name, c->o->strategy, c->m->layers[items[0]].name, stat[0] / 1e9,
                         scap[0] / 1e9);
        free(buf);
        return rc;
    }
    ts_err e2 = {0};
    int rc = ts_stage_partition(&p, cut, NULL, &e2);
    if (rc == TS_ENOANSWER) {
        for (int s = 0; s < S; s++)
            inf[s] = 1;
        rc = ts_stage_partition(&p, cut, NULL, &e2);
        if (rc == TS_ENOANSWER) {
            double st = 0, ac = 0;
            for (int k = 0; k < n; k++) {
                st += stat[k];
                ac += act[k];
            }
            rc = ts_fail(e, TS_ENOANSWER,
                         "%s (%s, micro-batch size %d): no cut of %d layers into %d stages fits "
                         "%.1f GB per stage; the layers hold %.1f GB of weights%s and %.1f GB of "
                         "activations per micro-batch in all%s; use more GPUs, tensor "
                         "parallelism, a smaller micro-batch or --recompute",
                         c->m->name, c->o->strategy, c->o->b, n, S, cap[0] / 1e9, st / 1e9,
                         c->o->infer ? "" : " and optimizer state", ac / 1e9,
                         c->o->first_stage_param_cap > 0 ? ", the first stage's weights capped"
                                                         : "");
        }
    }
    if (rc && rc != TS_ENOANSWER)
        ts_fail(e, rc, "%s", e2.msg);
    free(buf);
    return rc;
}
