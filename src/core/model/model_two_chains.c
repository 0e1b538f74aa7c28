/* Two-chain strategies (nnshape: encoder and decoder each behind a sharded embedding; kshape: two
 * branches meeting in a sharded fusion): their builders for the registry in model_strategies.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model_internal.h"

/* One half-pipeline: layers items[0..n) on stages [s0, s0 + half). */
typedef struct {
    int *items, n;
    int *cut, *first, *fblk;
    char (*tag)[24];
} ts_half;

static int ts_half_alloc(ts_half *hh, int n, int C)
{
    hh->items = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
    hh->cut = calloc((size_t)C, sizeof(int));
    hh->first = calloc((size_t)C, sizeof(int));
    hh->fblk = calloc((size_t)C, sizeof(int));
    hh->tag = calloc((size_t)C, sizeof *hh->tag);
    hh->n = 0;
    return hh->items && hh->cut && hh->first && hh->fblk && hh->tag ? 0 : -1;
}

static void ts_half_free(ts_half *hh)
{
    free(hh->items);
    free(hh->cut);
    free(hh->first);
    free(hh->fblk);
    free(hh->tag);
}

static void ts_half_sum(const ts_dctx *c, const ts_half *hh, int C, int k, ts_stage_sum *s)
{
    int j = hh->cut[k], i = k + 1 < C ? hh->cut[k + 1] : hh->n;
    ts_d_sum(c, c->lc, hh->items, j, i, s);
}

static int ts_half_forward(ts_dctx *c, ts_half *hh, int C, int prev, double bytes)
{
    for (int k = 0; k < C; k++) {
        ts_stage_sum s;
        ts_half_sum(c, hh, C, k, &s);
        ts_d_static(c, hh->first[k], c->T, s.stat);
        char id[48];
        snprintf(id, sizeof id, "F%s", hh->tag[k]);
        int x = ts_d_block(c, id, TS_KIND_FORWARD, c->R * s.fwd, s.act, hh->first[k], c->T, -1, 0);
        if (x < 0 || (prev >= 0 && ts_d_edge(c, prev, x, bytes)))
            return -1;
        hh->fblk[k] = x;
        prev = x;
        bytes = s.out;
    }
    return prev;
}

static int ts_half_backward(ts_dctx *c, const ts_half *hh, int C, int prev, double bytes)
{
    for (int k = C - 1; k >= 0; k--) {
        ts_stage_sum s;
        ts_half_sum(c, hh, C, k, &s);
        char id[48];
        snprintf(id, sizeof id, "B%s", hh->tag[k]);
        int x = ts_d_block(c, id, TS_KIND_BACKWARD, s.bgrad + s.wgrad, 0, hh->first[k], c->T,
                           hh->fblk[k], 1);
        if (x < 0 || (prev >= 0 && ts_d_edge(c, prev, x, bytes)))
            return -1;
        prev = x;
        int j = hh->cut[k];
        bytes = j > 0 ? c->lc[hh->items[j - 1]].out_bytes : 0;
    }
    return prev;
}

/* Cuts both halves and names their stages; the second half's stages follow the first's. */
static int ts_halves(ts_dctx *c, ts_half *a, ts_half *b, double less, ts_err *e)
{
    int half = c->S / 2;
    if (a->n < half || b->n < half)
        return ts_fail(e, TS_EINPUT,
                       "%s: %d and %d layers in the two halves, fewer than %d stages "
                       "each",
                       c->o->strategy, a->n, b->n, half);
    int rc = ts_d_partition(c, a->items, a->n, half, less, 1, TS_INFLIGHT_1F1B, a->cut, e);
    if (!rc)
        rc = ts_d_partition(c, b->items, b->n, half, less, 1, TS_INFLIGHT_1F1B, b->cut, e);
    for (int k = 0; k < half; k++) {
        a->first[k] = k * c->T;
        b->first[k] = (half + k) * c->T;
        snprintf(a->tag[k], sizeof a->tag[k], "%d", k);
        snprintf(b->tag[k], sizeof b->tag[k], "%d", half + k);
    }
    return rc;
}

static void ts_two_info(ts_derive_info *info, const ts_half *a, const ts_half *b, int half)
{
    info->stages = 2 * half;
    info->cuts = malloc((size_t)(2 * half) * sizeof(int));
    if (info->cuts)
        for (int k = 0; k < half; k++) {
            info->cuts[k] = a->items[a->cut[k]];
            info->cuts[half + k] = b->items[b->cut[k]];
        }
}

/* nnshape: S1 (encoder embedding) F.. S2 (decoder embedding) F.. B.. S2' B.. S1'. */
static int ts_nn(ts_dctx *c, ts_half *a, ts_half *b, ts_err *e)
{
    const ts_model *m = c->m;
    int L = m->nlayers, k2 = 0, half = c->S / 2;
    for (int i = 1; i < L && !k2; i++)
        if (!strcmp(m->layers[i].kind, "embedding"))
            k2 = i;
    if (strcmp(m->layers[0].kind, "embedding") || !k2)
        return ts_fail(e, TS_EINPUT,
                       "nnshape needs two embeddings (encoder and decoder); '%s' "
                       "does not have them",
                       m->name);
    for (int i = 1; i < k2; i++)
        a->items[a->n++] = i;
    for (int i = k2 + 1; i < L; i++)
        b->items[b->n++] = i;
    if (ts_halves(c, a, b, ts_d_sharded_static(c, 0, 1) + ts_d_sharded_static(c, k2, k2 + 1), e))
        return e ? e->code : TS_ENOANSWER;
    double enc = c->lc[a->items[a->n - 1]].out_bytes;
    int s1 = ts_d_sharded(c, "S1", true, 0, 1, -1);
    int fa = ts_half_forward(c, a, half, s1, 0);
    int s2 = ts_d_sharded(c, "S2", true, k2, k2 + 1, -1);
    if (s2 < 0 || fa < 0 || ts_d_edge(c, fa, s2, enc))
        return -1;
    int fb = ts_half_forward(c, b, half, s2, 0);
    if (fb < 0 || ts_d_edge(c, fa, b->fblk[0], enc))
        return -1;
    if (c->o->infer)
        return TS_OK;
    int bb = ts_half_backward(c, b, half, fb, 0);
    int s2b = ts_d_sharded(c, "S2'", false, k2, k2 + 1, s2);
    if (bb < 0 || s2b < 0 || ts_d_edge(c, bb, s2b, c->lc[k2].out_bytes))
        return -1;
    int first_ba = c->nb; /* the encoder's last stage needs the decoder's gradient */
    int ba = ts_half_backward(c, a, half, s2b, 0);
    int s1b = ts_d_sharded(c, "S1'", false, 0, 1, s1);
    if (ba < 0 || s1b < 0 || ts_d_edge(c, bb, first_ba, enc) ||
        ts_d_edge(c, ba, s1b, c->lc[0].out_bytes))
        return -1;
    return TS_OK;
}

/* kshape: branch A on the first half, branch B on the second, meeting in M (the fused layers,
 * sharded over every device). */
static int ts_k(ts_dctx *c, ts_half *a, ts_half *b, ts_err *e)
{
    const ts_model *m = c->m;
    int L = m->nlayers, half = c->S / 2, fs = L;
    const char *ba = NULL, *bb = NULL;
    for (int i = 0; i < L; i++) {
        const char *br = m->layers[i].branch;
        if (!br[0]) {
            fs = fs == L ? i : fs;
            continue;
        }
        if (fs < L)
            return ts_fail(e, TS_EINPUT,
                           "kshape: layer %s of a branch comes after the fused "
                           "layers",
                           m->layers[i].name);
        if (!ba || !strcmp(br, ba))
            ba = br, a->items[a->n++] = i;
        else if (!bb || !strcmp(br, bb))
            bb = br, b->items[b->n++] = i;
        else
            return ts_fail(e, TS_EINPUT, "kshape: more than two branches in '%s'", m->name);
    }
    if (!ba || !bb || fs == L)
        return ts_fail(e, TS_EINPUT,
                       "kshape needs two branches and fused layers after them; '%s' "
                       "does not have them",
                       m->name);
    if (ts_halves(c, a, b, ts_d_sharded_static(c, fs, L), e))
        return e ? e->code : TS_ENOANSWER;
    double oa = c->lc[a->items[a->n - 1]].out_bytes, ob = c->lc[b->items[b->n - 1]].out_bytes;
    int xa = ts_half_forward(c, a, half, -1, 0), xb = ts_half_forward(c, b, half, -1, 0);
    int M = ts_d_sharded(c, "M", true, fs, L, -1);
    if (xa < 0 || xb < 0 || M < 0 || ts_d_edge(c, xa, M, oa) || ts_d_edge(c, xb, M, ob))
        return -1;
    if (c->o->infer)
        return TS_OK;
    int Mb = ts_d_sharded(c, "M'", false, fs, L, M);
    if (Mb < 0 || ts_d_edge(c, M, Mb, 0) || ts_half_backward(c, a, half, Mb, oa) < 0 ||
        ts_half_backward(c, b, half, Mb, ob) < 0)
        return -1;
    return TS_OK;
}

static int ts_build_two(ts_dctx *c, ts_derive_info *info, bool nn, ts_err *e)
{
    if (c->S < 2 || c->S % 2)
        return ts_fail(e, TS_EINPUT,
                       "%s needs an even number of pipeline stages (GPUs / tensor "
                       "parallelism), got %d",
                       c->o->strategy, c->S);
    c->R = c->m->recycles;
    int L = c->m->nlayers, half = c->S / 2, rc;
    ts_half a, b;
    if (ts_half_alloc(&a, L, half) | ts_half_alloc(&b, L, half))
        rc = ts_fail(e, TS_ESYS, "out of memory");
    else
        rc = nn ? ts_nn(c, &a, &b, e) : ts_k(c, &a, &b, e);
    if (rc < 0)
        rc = ts_fail(e, TS_ESYS, "out of memory");
    if (!rc)
        ts_two_info(info, &a, &b, half);
    ts_half_free(&a);
    ts_half_free(&b);
    return rc;
}

int ts_build_nnshape(ts_dctx *c, ts_derive_info *info, ts_err *e)
{
    return ts_build_two(c, info, true, e);
}

int ts_build_kshape(ts_dctx *c, ts_derive_info *info, ts_err *e)
{
    return ts_build_two(c, info, false, e);
}
