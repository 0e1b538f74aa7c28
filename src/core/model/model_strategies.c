/* The strategies: how a model's layers become blocks on devices, and their registry (one row per
 * strategy: name, builder, replicas). The chain builders are here, the two-chain ones in
 * model_two_chains.c, TeraPipe's in model_terapipe.c, and the stage DP below them all in
 * model_partition.c. Each chain of layers is cut into stages by the stage DP; a stage is T
 * devices (tensor parallelism inside the stage); a sharded block runs on every device. Real units
 * here; model_quant.c turns them into spans. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model_internal.h"

/* A chain cut into C chunks; chunk k runs on devices [first[k], first[k] + T). */
typedef struct {
    const int *items;
    int n, C;
    const int *cut;
    const int *first;
    char (*tag)[24]; /* id suffix per chunk */
    int *fblk; /* the forward block holding each chunk's activations */
} ts_chain;

static void ts_chunk_sum(const ts_dctx *c, const ts_chain *ch, int k, ts_stage_sum *s)
{
    int j = ch->cut[k], i = k + 1 < ch->C ? ch->cut[k + 1] : ch->n;
    ts_d_sum(c, c->lc, ch->items, j, i, s);
}

static void ts_chain_static(ts_dctx *c, const ts_chain *ch)
{
    for (int k = 0; k < ch->C; k++) {
        ts_stage_sum s;
        ts_chunk_sum(c, ch, k, &s);
        ts_d_static(c, ch->first[k], c->T, s.stat);
    }
}

/* Forward blocks, `rounds` times over the chain (recycling); only the last round stores
 * activations. prev (or -1) comes before the first block, with prev_bytes sent. */
static int ts_chain_forward(ts_dctx *c, ts_chain *ch, int rounds, int prev, double prev_bytes)
{
    for (int r = 1; r <= rounds; r++)
        for (int k = 0; k < ch->C; k++) {
            ts_stage_sum s;
            ts_chunk_sum(c, ch, k, &s);
            char id[48];
            if (rounds > 1)
                snprintf(id, sizeof id, "F%sr%d", ch->tag[k], r);
            else
                snprintf(id, sizeof id, "F%s", ch->tag[k]);
            int x = ts_d_block(c, id, TS_KIND_FORWARD, c->R * s.fwd, r == rounds ? s.act : 0,
                               ch->first[k], c->T, -1, 0);
            if (x < 0 || (prev >= 0 && ts_d_edge(c, prev, x, prev_bytes)))
                return -1;
            prev = x;
            prev_bytes = s.out;
            ch->fblk[k] = x;
        }
    return prev;
}

/* Backward blocks from the last chunk to the first; zb splits each into B (input gradient) and
 * W (weight gradient), each freeing half of the chunk's activations. */
static int ts_chain_backward(ts_dctx *c, const ts_chain *ch, bool zb, int prev, double prev_bytes)
{
    for (int k = ch->C - 1; k >= 0; k--) {
        ts_stage_sum s;
        ts_chunk_sum(c, ch, k, &s);
        char id[48];
        snprintf(id, sizeof id, "B%s", ch->tag[k]);
        double t = s.bgrad + (zb ? 0 : s.wgrad);
        int x = ts_d_block(c, id, TS_KIND_BACKWARD, t, 0, ch->first[k], c->T, ch->fblk[k],
                           zb ? 0.5 : 1);
        if (x < 0 || (prev >= 0 && ts_d_edge(c, prev, x, prev_bytes)))
            return -1;
        if (zb) {
            snprintf(id, sizeof id, "W%s", ch->tag[k]);
            int w = ts_d_block(c, id, TS_KIND_BACKWARD, s.wgrad, 0, ch->first[k], c->T, ch->fblk[k],
                               0.5);
            if (w < 0 || ts_d_edge(c, x, w, 0))
                return -1;
        }
        prev = x;
        /* The gradient of chunk k's input is the size of chunk k-1's output. */
        int j = ch->cut[k];
        prev_bytes = j > 0 ? c->lc[ch->items[j - 1]].out_bytes : 0;
    }
    return prev;
}

/* Storage for up to C chunks of one chain. */
typedef struct {
    ts_chain ch;
    int *cut, *first, *fblk;
    char (*tag)[24];
} ts_chain_mem;

static int ts_chain_alloc(ts_chain_mem *cm, const int *items, int n, int C)
{
    cm->cut = calloc((size_t)C, sizeof(int));
    cm->first = calloc((size_t)C, sizeof(int));
    cm->fblk = calloc((size_t)C, sizeof(int));
    cm->tag = calloc((size_t)C, sizeof *cm->tag);
    cm->ch = (ts_chain){items, n, C, cm->cut, cm->first, cm->tag, cm->fblk};
    return cm->cut && cm->first && cm->fblk && cm->tag ? 0 : -1;
}

static void ts_chain_release(ts_chain_mem *cm)
{
    free(cm->cut);
    free(cm->first);
    free(cm->fblk);
    free(cm->tag);
}

static void ts_info_cuts(ts_derive_info *info, const ts_chain *ch)
{
    free(info->cuts);
    info->cuts = malloc((size_t)ch->C * sizeof(int));
    info->stages = ch->C;
    if (info->cuts)
        for (int k = 0; k < ch->C; k++)
            info->cuts[k] = ch->items[ch->cut[k]];
}

/* How a chain strategy differs from 1F1B: backward split into B and W (zb), model chunks per
 * device (interleaved), recycling rounds as separate forward blocks (alphafold). A strategy row
 * with two replicas (chimera) runs the chain in two opposite directions over the same devices. */
typedef struct {
    bool zb, chunked, rounds;
} ts_chain_kind;

/* Chain strategies: the whole model as one chain, in one direction per replica. */
static int ts_build_v(ts_dctx *c, ts_derive_info *info, ts_chain_kind kind, ts_err *e)
{
    int L = c->m->nlayers, n = L;
    int v = kind.chunked ? (c->o->chunks > 0 ? c->o->chunks : 2) : 1;
    int C = c->S * v, rounds = kind.rounds ? c->m->recycles : 1;
    int dirs = c->st->replicas > 1 ? 2 : 1;
    if (dirs == 2 && c->S < 2)
        return ts_fail(e, TS_EINPUT, "%s needs at least 2 pipeline stages, got %d", c->st->name,
                       c->S);
    c->R = kind.rounds ? 1 : c->m->recycles;
    int *items = malloc((size_t)L * sizeof(int));
    if (!items)
        return ts_fail(e, TS_ESYS, "out of memory");
    for (int k = 0; k < L; k++)
        items[k] = k;
    ts_chain_mem cm;
    int rc = TS_OK;
    if (ts_chain_alloc(&cm, items, n, C)) {
        rc = ts_fail(e, TS_ESYS, "out of memory");
        goto done;
    }
    rc = ts_d_partition(c, items, n, C, 0, dirs == 2 ? 2 : v,
                        v > 1       ? TS_INFLIGHT_INTERLEAVED
                        : dirs == 2 ? TS_INFLIGHT_TWO_WAY
                                    : TS_INFLIGHT_1F1B,
                        cm.cut, e);
    if (rc)
        goto done;
    for (int dir = 0; dir < dirs; dir++) {
        for (int k = 0; k < C; k++) {
            int s = k % c->S;
            cm.first[k] = (dir ? c->S - 1 - s : s) * c->T;
            if (dirs == 2)
                snprintf(cm.tag[k], sizeof cm.tag[k], "%c%d", dir ? 'b' : 'a', k);
            else if (v > 1)
                snprintf(cm.tag[k], sizeof cm.tag[k], "%dc%d", s, k / c->S);
            else
                snprintf(cm.tag[k], sizeof cm.tag[k], "%d", k);
        }
        ts_chain_static(c, &cm.ch);
        int f = ts_chain_forward(c, &cm.ch, rounds, -1, 0);
        if (f < 0 || (!c->o->infer && ts_chain_backward(c, &cm.ch, kind.zb, f, 0) < 0)) {
            rc = ts_fail(e, TS_ESYS, "out of memory");
            goto done;
        }
    }
    ts_info_cuts(info, &cm.ch);
done:
    ts_chain_release(&cm);
    free(items);
    return rc;
}

/* One chain between sharded blocks: S1 = layers [0, f), chain = [f, L - 1), S2 = the head.
 * mshape (f = 1: the embedding) and mllm (f = the vision encoder). */
static int ts_build_m(ts_dctx *c, ts_derive_info *info, int f, ts_err *e)
{
    int L = c->m->nlayers, n = L - 1 - f;
    if (n < c->S)
        return ts_fail(e, TS_EINPUT,
                       "%s: %d layers between the sharded blocks, fewer than %d stages",
                       c->o->strategy, n < 0 ? 0 : n, c->S);
    int *items = calloc((size_t)n, sizeof(int));
    ts_chain_mem cm;
    int rc = TS_OK;
    if (ts_chain_alloc(&cm, items, n, c->S) || !items) {
        ts_chain_release(&cm);
        free(items);
        return ts_fail(e, TS_ESYS, "out of memory");
    }
    c->R = c->m->recycles;
    for (int k = 0; k < n; k++)
        items[k] = f + k;
    double less = ts_d_sharded_static(c, 0, f) + ts_d_sharded_static(c, L - 1, L);
    rc = ts_d_partition(c, items, n, c->S, less, 1, TS_INFLIGHT_1F1B, cm.cut, e);
    if (rc)
        goto done;
    for (int k = 0; k < c->S; k++) {
        cm.first[k] = k * c->T;
        snprintf(cm.tag[k], sizeof cm.tag[k], "%d", k);
    }
    ts_chain_static(c, &cm.ch);
    int s1 = ts_d_sharded(c, "S1", true, 0, f, -1);
    int x = ts_chain_forward(c, &cm.ch, 1, s1, 0);
    int s2 = ts_d_sharded(c, "S2", true, L - 1, L, -1);
    if (s1 < 0 || x < 0 || s2 < 0 || ts_d_edge(c, x, s2, c->lc[L - 2].out_bytes)) {
        rc = ts_fail(e, TS_ESYS, "out of memory");
        goto done;
    }
    if (!c->o->infer) {
        int s2b = ts_d_sharded(c, "S2'", false, L - 1, L, s2);
        int b =
            s2b < 0 || ts_d_edge(c, s2, s2b, 0) ? -1 : ts_chain_backward(c, &cm.ch, false, s2b, 0);
        int s1b = ts_d_sharded(c, "S1'", false, 0, f, s1);
        if (b < 0 || s1b < 0 || ts_d_edge(c, b, s1b, c->lc[f - 1].out_bytes))
            rc = ts_fail(e, TS_ESYS, "out of memory");
    }
    ts_info_cuts(info, &cm.ch);
done:
    ts_chain_release(&cm);
    free(items);
    return rc;
}

static int ts_build_1f1b(ts_dctx *c, ts_derive_info *info, ts_err *e)
{
    return ts_build_v(c, info, (ts_chain_kind){0}, e);
}

static int ts_build_zb(ts_dctx *c, ts_derive_info *info, ts_err *e)
{
    return ts_build_v(c, info, (ts_chain_kind){.zb = true}, e);
}

static int ts_build_interleaved(ts_dctx *c, ts_derive_info *info, ts_err *e)
{
    return ts_build_v(c, info, (ts_chain_kind){.chunked = true}, e);
}

static int ts_build_alphafold(ts_dctx *c, ts_derive_info *info, ts_err *e)
{
    return ts_build_v(c, info, (ts_chain_kind){.rounds = true}, e);
}

static int ts_build_mshape(ts_dctx *c, ts_derive_info *info, ts_err *e)
{
    const ts_model *m = c->m;
    int L = m->nlayers;
    /* Without an output layer (the Tessel authors' GPT) only the embedding is sharded. */
    if (L >= 2 && !strcmp(m->layers[0].kind, "embedding") && strcmp(m->layers[L - 1].kind, "head"))
        return ts_build_eager(c, info, e);
    if (L < 3 || strcmp(m->layers[0].kind, "embedding") || strcmp(m->layers[L - 1].kind, "head"))
        return ts_fail(e, TS_EINPUT,
                       "mshape needs a model that starts with an embedding and "
                       "ends with a head ('%s' does not)",
                       m->name);
    return ts_build_m(c, info, 1, e);
}

static int ts_build_mllm(ts_dctx *c, ts_derive_info *info, ts_err *e)
{
    const ts_model *m = c->m;
    int L = m->nlayers, f = 0;
    while (f < L && m->layers[f].branch[0] && !strcmp(m->layers[f].branch, m->layers[0].branch))
        f++;
    if (f == 0 || f >= L - 1 || strcmp(m->layers[L - 1].kind, "head"))
        return ts_fail(e, TS_EINPUT,
                       "mllm needs a model that starts with a branch (the "
                       "encoder) and ends with a head ('%s' does not)",
                       m->name);
    return ts_build_m(c, info, f, e);
}

/* The registry of strategies: one row each, in the order of the messages that list them. */
static const ts_strategy_info ts_strategies[] = {
    {.name = "1f1b", .build = ts_build_1f1b, .replicas = 1},
    {.name = "interleaved", .build = ts_build_interleaved, .replicas = 1},
    {.name = "zb", .build = ts_build_zb, .replicas = 1},
    {.name = "chimera", .build = ts_build_1f1b, .replicas = 2},
    {.name = "mshape", .build = ts_build_mshape, .replicas = 1},
    {.name = "nnshape", .build = ts_build_nnshape, .replicas = 1},
    {.name = "kshape", .build = ts_build_kshape, .replicas = 1},
    {.name = "mllm", .build = ts_build_mllm, .replicas = 1},
    {.name = "alphafold", .build = ts_build_alphafold, .replicas = 1},
    {.name = "terapipe", .build = ts_build_terapipe, .replicas = 1},
    {.name = "tp", .build = ts_build_tp, .replicas = 1},
    {.name = "nnshape-eager", .build = ts_build_eager, .replicas = 1},
};

int ts_strategy_count(void)
{
    return (int)(sizeof ts_strategies / sizeof ts_strategies[0]);
}

const ts_strategy_info *ts_strategy_at(int i)
{
    return i >= 0 && i < ts_strategy_count() ? &ts_strategies[i] : NULL;
}

const ts_strategy_info *ts_strategy_find(const char *name)
{
    for (int i = 0; name && i < ts_strategy_count(); i++)
        if (!strcmp(ts_strategies[i].name, name))
            return &ts_strategies[i];
    return NULL;
}
