/* TeraPipe (Li et al., ICML 2021): each sequence is one micro-batch; its token slices are blocks,
 * one per stage and slice. Slice j on a stage waits for slice j-1 there (its attention reads the
 * earlier tokens' keys and values); in backward, slice j's gradient flows into slice j-1. The
 * slice lengths come from TeraPipe's DP (model_slice.c) over the bottleneck stage's slice time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model_internal.h"

typedef struct {
    const ts_dctx *c;
    const int *cut;
    int S;
} ts_tp_ud;

/* Forward seconds of a slice on stage s. */
static double ts_tp_stage(const ts_tp_ud *u, int s, int prefix, int len)
{
    const ts_dctx *c = u->c;
    int j = u->cut[s], i = s + 1 < u->S ? u->cut[s + 1] : c->m->nlayers;
    double t = 0;
    for (int k = j; k < i; k++)
        t += ts_layer_slice_fwd_s(&c->m->layers[k], c->h, &c->co, s * c->T, c->m->seq, prefix, len);
    return t;
}

static double ts_tp_mult(const ts_dctx *c)
{
    return c->o->infer ? 1 : 3 + (c->o->recompute ? 1 : 0);
}

static double ts_tp_cost(void *ud, int prefix, int len)
{
    const ts_tp_ud *u = ud;
    double mx = 0;
    for (int s = 0; s < u->S; s++)
        mx = fmax(mx, ts_tp_stage(u, s, prefix, len));
    return mx * ts_tp_mult(u->c);
}

static int ts_tp_blocks(ts_dctx *c, const ts_tp_ud *u, int K, const int *tok, int *fi, ts_err *e)
{
    int S = c->S, seq = c->m->seq;
    for (int j = 0, p = 0; j < K; p += tok[j++])
        for (int s = 0; s < S; s++) {
            int a = u->cut[s], b = s + 1 < S ? u->cut[s + 1] : c->m->nlayers;
            double act = 0, frac = (double)tok[j] / seq;
            for (int k = a; k < b; k++)
                act += c->lc[k].act_bytes;
            char id[48];
            snprintf(id, sizeof id, "F%dt%d", s, j);
            int x = ts_d_block(c, id, TS_KIND_FORWARD, ts_tp_stage(u, s, p, tok[j]), act * frac,
                               s * c->T, c->T, -1, 0);
            fi[s * K + j] = x;
            /* from the stage before: its output for this slice; from the slice before: nothing
             * to send (same devices) */
            double in = s > 0 ? c->lc[a - 1].out_bytes * frac : 0;
            if (x < 0 || (s > 0 && ts_d_edge(c, fi[(s - 1) * K + j], x, in)) ||
                (j > 0 && ts_d_edge(c, fi[s * K + j - 1], x, 0)))
                return ts_fail(e, TS_ESYS, "out of memory");
        }
    return TS_OK;
}

static int ts_tp_backward(ts_dctx *c, const ts_tp_ud *u, int K, const int *tok, const int *fi,
                          int *bi, ts_err *e)
{
    int S = c->S, seq = c->m->seq;
    int *start = malloc((size_t)K * sizeof(int));
    if (!start)
        return ts_fail(e, TS_ESYS, "out of memory");
    for (int j = 0, p = 0; j < K; p += tok[j++])
        start[j] = p;
    for (int j = K - 1; j >= 0; j--)
        for (int s = S - 1; s >= 0; s--) {
            char id[48];
            snprintf(id, sizeof id, "B%dt%d", s, j);
            double t = ts_tp_stage(u, s, start[j], tok[j]) * (ts_tp_mult(c) - 1);
            int x = ts_d_block(c, id, TS_KIND_BACKWARD, t, 0, s * c->T, c->T, fi[s * K + j], 1);
            bi[s * K + j] = x;
            double bytes = s + 1 < S ? c->lc[u->cut[s + 1] - 1].out_bytes * tok[j] / seq : 0;
            if (x < 0 || (s == S - 1 && ts_d_edge(c, fi[s * K + j], x, 0)) ||
                (s + 1 < S && ts_d_edge(c, bi[(s + 1) * K + j], x, bytes)) ||
                (j + 1 < K && ts_d_edge(c, bi[s * K + j + 1], x, 0))) {
                free(start);
                return ts_fail(e, TS_ESYS, "out of memory");
            }
        }
    free(start);
    return TS_OK;
}

int ts_build_terapipe(ts_dctx *c, ts_derive_info *info, ts_err *e)
{
    const ts_model *m = c->m;
    int L = m->nlayers, S = c->S, seq = m->seq;
    for (int k = 0; k < L; k++)
        if (m->layers[k].slice_lin <= 0)
            return ts_fail(e, TS_EINPUT,
                           "terapipe needs a token sequence in every layer; layer %s "
                           "(%s) has none",
                           m->layers[k].name, m->layers[k].kind);
    if (seq < 1)
        return ts_fail(e, TS_EINPUT, "terapipe needs the model's sequence length ('seq')");
    int *items = malloc((size_t)L * sizeof(int)), *cut = calloc((size_t)S, sizeof(int));
    int g = (seq + 31) / 32, maxk = c->o->max_slices > 0 ? c->o->max_slices : 4, rc;
    while (seq % g)
        g++;
    int G = seq / g, *len = calloc((size_t)G, sizeof(int)), *fi = NULL, *bi = NULL;
    if (!items || !cut || !len) {
        rc = ts_fail(e, TS_ESYS, "out of memory");
        goto done;
    }
    for (int k = 0; k < L; k++)
        items[k] = k;
    rc = ts_d_partition(c, items, L, S, 0, 1, TS_INFLIGHT_1F1B, cut, e);
    if (rc)
        goto done;
    for (int s = 0; s < S; s++) {
        ts_stage_sum sum;
        ts_d_sum(c, c->lc, items, cut[s], s + 1 < S ? cut[s + 1] : L, &sum);
        ts_d_static(c, s * c->T, c->T, sum.stat);
    }
    ts_tp_ud u = {c, cut, S};
    double obj;
    int K = ts_slice_tokens(G, g, maxk, S, ts_tp_cost, &u, len, &obj);
    fi = calloc((size_t)(S * K + 1), sizeof(int));
    bi = calloc((size_t)(S * K + 1), sizeof(int));
    info->slice_tokens = calloc((size_t)K + 1, sizeof(int));
    if (K < 1 || !fi || !bi || !info->slice_tokens) {
        rc = ts_fail(e, TS_ESYS, "out of memory");
        goto done;
    }
    for (int j = 0; j < K; j++)
        info->slice_tokens[j] = len[j] * g;
    info->nslices = K;
    rc = ts_tp_blocks(c, &u, K, info->slice_tokens, fi, e);
    if (!rc && !c->o->infer)
        rc = ts_tp_backward(c, &u, K, info->slice_tokens, fi, bi, e);
    info->stages = S;
    info->cuts = malloc((size_t)S * sizeof(int));
    if (info->cuts)
        memcpy(info->cuts, cut, (size_t)S * sizeof(int));
done:
    free(items);
    free(cut);
    free(len);
    free(fi);
    free(bi);
    return rc;
}
