/* The Tessel authors' evaluation setups (their evaluation scripts, HPCA 2024): full tensor
 * parallelism as a strategy (tp), one chain of stages behind sharded embeddings with the
 * decoder's embedding run right after the first stage (nnshape-eager; also mshape of a model
 * without an output layer, as their GPT), and communication overlap as a derive option. The
 * builders are rows of the registry in model_strategies.c; real units here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model_internal.h"

void ts_d_comm(ts_dctx *c)
{
    if (c->o->comm == TS_COMM_OVERLAP) {
        /* A sharded block's collective leaves its span and delays its consumers instead: the
         * devices may run other micro-batches' blocks meanwhile. */
        for (int i = 0; i < c->nb; i++) {
            double x = c->b[i].comm;
            if (x <= 0)
                continue;
            c->b[i].t -= x;
            c->b[i].comm = 0;
            for (int k = 0; k < c->ne; k++)
                if (c->ed[k].src == i)
                    c->ed[k].delay += x;
        }
    } else if (c->o->comm == TS_COMM_SYNC) {
        /* Blocking sends: the sender is busy until its outputs have arrived. */
        for (int k = 0; k < c->ne; k++) {
            c->b[c->ed[k].src].t += c->ed[k].delay;
            c->ed[k].delay = 0;
        }
    }
}

/* A tied layer (mT5's decoder embedding, a tied output layer) sharded over every device reads
 * the table of the layer it is tied to, sharded over the same devices: one copy, not two. */
static double ts_tied_static(const ts_dctx *c, int k)
{
    return c->m->layers[k].shared ? c->lsh[k].static_bytes : 0;
}

int ts_build_tp(ts_dctx *c, ts_derive_info *info, ts_err *e)
{
    int L = c->m->nlayers;
    c->R = c->m->recycles;
    int f = ts_d_sharded(c, "F", true, 0, L, -1);
    if (f < 0)
        return ts_fail(e, TS_ESYS, "out of memory");
    for (int k = 0; k < L; k++)
        ts_d_static(c, 0, c->D, -ts_tied_static(c, k));
    if (!c->o->infer) {
        int b = ts_d_sharded(c, "B", false, 0, L, f);
        if (b < 0 || ts_d_edge(c, f, b, 0))
            return ts_fail(e, TS_ESYS, "out of memory");
    }
    info->stages = 1;
    info->cuts = calloc(1, sizeof(int));
    return info->cuts ? TS_OK : ts_fail(e, TS_ESYS, "out of memory");
}

/* The layers of an eager chain: the embedding (0), a second embedding (k2, or -1) and an output
 * layer (hd, or -1) sharded; the others, in order, cut into stages. */
typedef struct {
    int k2, hd, n, s1;
    int *items, *cut, *fblk;
} ts_eager;

static int ts_eager_layers(ts_dctx *c, ts_eager *g, ts_err *e)
{
    const ts_model *m = c->m;
    int L = m->nlayers;
    bool nn = !strcmp(c->o->strategy, "nnshape-eager");
    g->k2 = g->hd = -1;
    for (int i = 1; i < L && g->k2 < 0; i++)
        if (!strcmp(m->layers[i].kind, "embedding"))
            g->k2 = i;
    if (L > 1 && !strcmp(m->layers[L - 1].kind, "head"))
        g->hd = L - 1;
    if (strcmp(m->layers[0].kind, "embedding") || (nn && g->k2 < 0))
        return ts_fail(e, TS_EINPUT, "%s needs a model that starts with an embedding%s ('%s' %s)",
                       c->o->strategy, nn ? " and has a second one (the decoder's)" : "", m->name,
                       nn ? "does not have them" : "does not");
    if (!nn)
        g->k2 = -1;
    if (nn && c->S < 2)
        return ts_fail(e, TS_EINPUT, "nnshape-eager needs at least 2 pipeline stages, got %d",
                       c->S);
    g->items = calloc((size_t)L, sizeof(int));
    g->cut = calloc((size_t)c->S, sizeof(int));
    g->fblk = calloc((size_t)c->S, sizeof(int));
    if (!g->items || !g->cut || !g->fblk)
        return ts_fail(e, TS_ESYS, "out of memory");
    for (int i = 1; i < L; i++)
        if (i != g->k2 && i != g->hd)
            g->items[g->n++] = i;
    if (g->n < c->S)
        return ts_fail(e, TS_EINPUT,
                       "%s: %d layers between the sharded blocks, fewer than %d stages",
                       c->o->strategy, g->n, c->S);
    return TS_OK;
}

static void ts_eager_sum(const ts_dctx *c, const ts_eager *g, int k, ts_stage_sum *s)
{
    int j = g->cut[k], i = k + 1 < c->S ? g->cut[k + 1] : g->n;
    ts_d_sum(c, c->lc, g->items, j, i, s);
}

/* S1 F0 [S2] F1 .. F(S-1) [H H']; returns the last block, *bytes what it sends on. */
static int ts_eager_forward(ts_dctx *c, ts_eager *g, int *s2, double *bytes)
{
    int prev = g->s1 = ts_d_sharded(c, "S1", true, 0, 1, -1);
    *bytes = 0;
    for (int k = 0; k < c->S && prev >= 0; k++) {
        ts_stage_sum s;
        ts_eager_sum(c, g, k, &s);
        ts_d_static(c, k * c->T, c->T, s.stat);
        char id[24];
        snprintf(id, sizeof id, "F%d", k);
        int x = ts_d_block(c, id, TS_KIND_FORWARD, c->R * s.fwd, s.act, k * c->T, c->T, -1, 0);
        if (x < 0 || ts_d_edge(c, prev, x, *bytes))
            return -1;
        g->fblk[k] = prev = x;
        *bytes = s.out;
        if (k == 0 && g->k2 >= 0) {
            *s2 = prev = ts_d_sharded(c, "S2", true, g->k2, g->k2 + 1, -1);
            if (prev < 0 || ts_d_edge(c, x, prev, 0))
                return -1;
            ts_d_static(c, 0, c->D, -ts_tied_static(c, g->k2));
        }
    }
    if (prev >= 0 && g->hd >= 0) {
        int h = ts_d_sharded(c, "H", true, g->hd, g->hd + 1, -1);
        if (h < 0 || ts_d_edge(c, prev, h, *bytes))
            return -1;
        ts_d_static(c, 0, c->D, -ts_tied_static(c, g->hd));
        prev = h;
        *bytes = 0;
        if (!c->o->infer) {
            prev = ts_d_sharded(c, "H'", false, g->hd, g->hd + 1, h);
            if (prev < 0 || ts_d_edge(c, h, prev, 0))
                return -1;
        }
    }
    return prev;
}

/* B(S-1) .. B1 [S2'] B0 S1'. */
static int ts_eager_backward(ts_dctx *c, const ts_eager *g, int prev, double bytes, int s2)
{
    for (int k = c->S - 1; k >= 0 && prev >= 0; k--) {
        ts_stage_sum s;
        ts_eager_sum(c, g, k, &s);
        char id[24];
        snprintf(id, sizeof id, "B%d", k);
        int x = ts_d_block(c, id, TS_KIND_BACKWARD, s.bgrad + s.wgrad, 0, k * c->T, c->T,
                           g->fblk[k], 1);
        if (x < 0 || ts_d_edge(c, prev, x, bytes))
            return -1;
        prev = x;
        int j = g->cut[k];
        bytes = j > 0 ? c->lc[g->items[j - 1]].out_bytes : 0;
        if (k == 1 && g->k2 >= 0) {
            int y = ts_d_sharded(c, "S2'", false, g->k2, g->k2 + 1, s2);
            if (y < 0 || ts_d_edge(c, prev, y, 0))
                return -1;
            prev = y;
        }
    }
    int y = prev < 0 ? -1 : ts_d_sharded(c, "S1'", false, 0, 1, g->s1);
    return y < 0 || ts_d_edge(c, prev, y, c->lc[0].out_bytes) ? -1 : y;
}

int ts_build_eager(ts_dctx *c, ts_derive_info *info, ts_err *e)
{
    ts_eager g = {0};
    c->R = c->m->recycles;
    int rc = ts_eager_layers(c, &g, e);
    double less = ts_d_sharded_static(c, 0, 1);
    if (g.k2 >= 0)
        less += ts_d_sharded_static(c, g.k2, g.k2 + 1) - ts_tied_static(c, g.k2);
    if (g.hd >= 0)
        less += ts_d_sharded_static(c, g.hd, g.hd + 1) - ts_tied_static(c, g.hd);
    /* The sharded blocks' stored activations sit beside every stage's, one set per micro-batch
     * in flight (at most S under 1F1B's order). */
    double act = c->lsh[0].act_bytes + (g.k2 >= 0 ? c->lsh[g.k2].act_bytes : 0) +
                 (g.hd >= 0 ? c->lsh[g.hd].act_bytes : 0);
    less += c->S * act;
    if (!rc)
        rc = ts_d_partition(c, g.items, g.n, c->S, less, 1, TS_INFLIGHT_1F1B, g.cut, e);
    if (!rc) {
        int s2 = -1;
        double bytes = 0;
        int x = ts_eager_forward(c, &g, &s2, &bytes);
        if (x < 0 || (!c->o->infer && ts_eager_backward(c, &g, x, bytes, s2) < 0))
            rc = ts_fail(e, TS_ESYS, "out of memory");
    }
    if (!rc) {
        info->stages = c->S;
        info->cuts = malloc((size_t)c->S * sizeof(int));
        if (!info->cuts)
            rc = ts_fail(e, TS_ESYS, "out of memory");
        for (int k = 0; !rc && k < c->S; k++)
            info->cuts[k] = g.items[g.cut[k]];
    }
    free(g.items);
    free(g.cut);
    free(g.fblk);
    return rc;
}
