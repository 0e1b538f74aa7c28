/* The builders' primitives in real units (seconds, bytes): blocks and edges of a derived
 * placement (an edge's delay from the link between its ends), a stage's sums over layers, weights
 * and optimizer state per device, and blocks sharded over every device with their collectives.
 * Below the builders (model_strategies.c, model_two_chains.c, model_terapipe.c, model_paper.c)
 * and apart from the quantisation (model_quant.c) that turns them into a placement. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model_internal.h"

int ts_d_block(ts_dctx *c, const char *id, ts_kind kind, double t, double mem, int first, int ndev,
               int owner, double frac)
{
    if (c->nb == c->capb) {
        int cap = c->capb ? 2 * c->capb : 64;
        ts_rblock *nb = realloc(c->b, (size_t)cap * sizeof *nb);
        if (!nb)
            return -1;
        c->b = nb;
        c->capb = cap;
    }
    ts_rblock *b = &c->b[c->nb];
    snprintf(b->id, sizeof b->id, "%s", id);
    b->kind = kind;
    b->t = t;
    b->mem = c->o->infer ? 0 : mem;
    b->first = first;
    b->ndev = ndev;
    b->owner = owner;
    b->frac = frac;
    b->comm = 0;
    return c->nb++;
}

/* Bandwidth between two device ranges: NVLink when both lie in one node. */
static double ts_range_bw(const ts_hardware *h, const ts_rblock *a, const ts_rblock *b)
{
    int lo = a->first < b->first ? a->first : b->first;
    int ea = a->first + a->ndev, eb = b->first + b->ndev;
    int hi = (ea > eb ? ea : eb) - 1;
    return ts_hw_link_bw(h, lo, hi);
}

int ts_d_edge(ts_dctx *c, int src, int dst, double bytes)
{
    if (src < 0 || dst < 0)
        return -1;
    if (c->ne == c->cape) {
        int cap = c->cape ? 2 * c->cape : 64;
        ts_redge *ne = realloc(c->ed, (size_t)cap * sizeof *ne);
        if (!ne)
            return -1;
        c->ed = ne;
        c->cape = cap;
    }
    const ts_rblock *a = &c->b[src], *b = &c->b[dst];
    bool same = a->first == b->first && a->ndev == b->ndev;
    c->ed[c->ne++] = (ts_redge){src, dst, same ? 0 : bytes / ts_range_bw(c->h, a, b)};
    return 0;
}

void ts_d_sum(const ts_dctx *c, const ts_layer_cost *lc, const int *items, int j, int i,
              ts_stage_sum *s)
{
    memset(s, 0, sizeof *s);
    (void)c;
    for (int k = j; k < i; k++) {
        const ts_layer_cost *x = &lc[items[k]];
        s->fwd += x->fwd_s;
        s->bgrad += x->bgrad_s;
        s->wgrad += x->wgrad_s;
        s->act += x->act_bytes;
        s->stat += x->static_bytes;
        s->out = x->out_bytes;
    }
}

void ts_d_static(ts_dctx *c, int first, int ndev, double bytes)
{
    for (int d = first; d < first + ndev && d < c->D; d++)
        c->stat[d] += bytes;
}

double ts_d_collective_s(const ts_dctx *c, bool fwd, int j, int i)
{
    if (!fwd && c->o->infer)
        return 0;
    double s = 0;
    for (int k = j; k < i; k++) {
        const ts_layer *l = &c->m->layers[k];
        double ar = l->allreduces * ts_hw_allreduce_s(c->h, 0, c->D, l->ar_bytes * c->o->b);
        /* as ts_layer_cost_of: the forward's all-reduces recur in the backward, twice with
         * recomputation */
        s += fwd ? c->R * ar : ar * (c->o->recompute ? 2 : 1);
    }
    return s;
}

int ts_d_sharded(ts_dctx *c, const char *id, bool fwd, int j, int i, int owner)
{
    double t = 0, act = 0, stat = 0;
    for (int k = j; k < i; k++) {
        const ts_layer_cost *x = &c->lsh[k];
        t += fwd ? c->R * x->fwd_s : x->bgrad_s + x->wgrad_s;
        act += x->act_bytes;
        stat += x->static_bytes;
    }
    if (fwd)
        ts_d_static(c, 0, c->D, stat);
    int x = ts_d_block(c, id, fwd ? TS_KIND_FORWARD : TS_KIND_BACKWARD, t, fwd ? act : 0, 0, c->D,
                       fwd ? -1 : owner, 1);
    if (x >= 0)
        c->b[x].comm = ts_d_collective_s(c, fwd, j, i);
    return x;
}

double ts_d_sharded_static(const ts_dctx *c, int j, int i)
{
    double s = 0;
    for (int k = j; k < i; k++)
        s += c->lsh[k].static_bytes;
    return s;
}
