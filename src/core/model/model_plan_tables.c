/* The per-layer tables a plan's cost reads (ts_plan_tables of model_internal.h): one per
 * (T, b, sequence parallelism), shared by every plan of the search that has them. */
#include <stdlib.h>
#include <string.h>
#include "model_internal.h"

void ts_plan_tables_free(ts_plan_tables *t)
{
    for (int k = 0; k < 3; k++) {
        free(t->lc[k]);
        free(t->redo[k]);
    }
    free(t->tp);
    free(t->params);
    memset(t, 0, sizeof *t);
}

/* Megatron-LM's --tp-comm-overlap: Transformer Engine's userbuffers split each
 * sequence-parallel all-gather (before the QKV and first feed-forward GEMMs) and reduce-scatter
 * (after the attention projection and the second feed-forward GEMM) into T chunks and run them
 * beside the GEMM's chunks (ring exchange or pipelined split; in the backward the input-gradient
 * GEMMs likewise: transformer_engine/pytorch/module/base.py's initialize_ub, the layers'
 * ub_overlap_ag and ub_overlap_rs). One chunk has no GEMM to hide behind (the first gather or
 * the last reduction), so c / T stays exposed; the other T - 1 chunks run beside the layer's
 * linear GEMMs g as any communication beside compute (ts_plan_overlap): what g does not cover
 * is exposed, and what it covers slows the GEMMs by TS_OVERLAP_SLOWDOWN of it. Whenever the
 * GEMMs outlast the communication this is max(0, c - g) + c / T exposed. Returns the seconds
 * the pass's tensor-parallel communication adds. */
static double ts_plan_tp_overlap(double c, double g, int T)
{
    double one = c / T;
    return one + ts_plan_overlap(c - one, g);
}

int ts_plan_tables_make(const ts_plan_req *r, int T, int b, bool seqpar, int C, int E, int etp,
                        bool tpo, ts_plan_tables *t, ts_err *e)
{
    const ts_model *m = r->m;
    int n = m->nlayers;
    memset(t, 0, sizeof *t);
    t->n = n;
    t->T = T;
    t->b = b;
    t->seqpar = seqpar;
    t->tpo = tpo && seqpar && T > 1;
    t->C = C > 1 ? C : 1;
    t->E = E > 1 ? E : 1;
    t->etp = etp > 0 ? etp : 0;
    bool ok = true;
    for (int k = 0; k < 3; k++) {
        t->lc[k] = calloc((size_t)n, sizeof(ts_layer_cost));
        t->redo[k] = calloc((size_t)n, sizeof(double));
        ok = ok && t->lc[k] && t->redo[k];
    }
    t->tp = calloc((size_t)n, sizeof(double));
    t->params = calloc((size_t)n, sizeof(double));
    if (!ok || !t->tp || !t->params) {
        ts_plan_tables_free(t);
        return ts_fail(e, TS_ESYS, "plan: out of memory");
    }
    for (int k = 0; k < 3; k++) {
        ts_cost_opts o = {.b = b,
                          .T = T,
                          .recompute = k == TS_RC_FULL,
                          .infer = r->infer,
                          .selective = k == TS_RC_SELECTIVE,
                          .seqpar = seqpar,
                          .gemm_shape = true,
                          .fused = r->h->fused_attention,
                          .cp = t->C,
                          .cp_allgather = r->cp_allgather,
                          .fp8 = r->h->fp8,
                          .ep = t->E,
                          .etp = t->etp,
                          /* FSDP's selective is torchtitan's per-op policy */
                          .op_sac = k == TS_RC_SELECTIVE && r->framework == TS_FW_FSDP};
        for (int i = 0; i < n; i++)
            ts_layer_cost_of(&m->layers[i], r->h, &o, 0, &t->lc[k][i]);
    }
    /* each tensor-parallel all-reduce (with sequence parallelism a reduce-scatter and an
     * all-gather) also pays NCCL's fixed latency: in the forward, again in the input-gradient
     * half, and in the recomputed forward */
    double lat = seqpar ? 2 * ts_hw_collective_lat_s(r->h, TS_COLL_REDUCE_SCATTER, 1, T)
                        : ts_hw_collective_lat_s(r->h, TS_COLL_ALLREDUCE, 1, T);
    for (int i = 0; i < n; i++) {
        const ts_layer *l = &m->layers[i];
        double li = l->allreduces * lat;
        for (int k = 0; k < 3 && li > 0; k++) {
            t->lc[k][i].fwd_s += li;
            if (!r->infer)
                t->lc[k][i].bgrad_s += k == TS_RC_FULL ? 2 * li : li;
        }
        double bw = l->allreduces * ts_hw_allreduce_s(r->h, 0, T, l->ar_bytes * b / t->C);
        /* with --tp-comm-overlap each pass (the forward, the input-gradient half, the
         * recomputed forward) pays the overlapped cost instead of the whole transfer; NCCL's
         * fixed latency stays exposed. Only the transformer blocks' collectives: the
         * embedding's and the output layer's are Megatron's own, outside Transformer Engine */
        if (t->tpo && bw > 0 && l->gemm_tokens > 0) {
            double cut = bw - ts_plan_tp_overlap(bw, t->lc[TS_RC_NONE][i].gemm_s, T);
            for (int k = 0; k < 3; k++) {
                t->lc[k][i].fwd_s -= cut;
                if (!r->infer)
                    t->lc[k][i].bgrad_s -= k == TS_RC_FULL ? 2 * cut : cut;
            }
            bw -= cut;
        }
        t->tp[i] = bw + li;
        /* the routed experts split E x etp ways, the rest T ways */
        t->params[i] = ts_layer_held(l, T, t->E, t->etp);
        bool block = l->gemm_tokens > 0;
        t->redo[TS_RC_FULL][i] = block ? l->fwd_flops * b : 0;
        /* a fused attention kernel stores no scores: selective recomputation redoes nothing */
        t->redo[TS_RC_SELECTIVE][i] = block && !r->h->fused_attention ? l->attn_flops * b : 0;
        if (block && r->framework == TS_FW_FSDP)
            t->redo[TS_RC_SELECTIVE][i] =
                ts_layer_op_sac(l) * (l->fwd_flops - l->attn_flops) * b +
                (r->h->fused_attention ? 0 : l->attn_flops * b);
        const ts_layer_cost *c = &t->lc[TS_RC_NONE][i];
        t->work += c->fwd_s + c->bgrad_s + c->wgrad_s;
    }
    return TS_OK;
}
