/* A repetend built without a solver: modulo list scheduling of the blocks in chain order on a
 * circle of length P. It answers "yes" for most candidates of regular placements in
 * microseconds; a "no" proves nothing, and the caller then asks the repetend model. */
#include <stdlib.h>
#include <string.h>
#include "ts_encode.h"

/* Do [a, a + la) and [b, b + lb) meet on the circle of length P (starts in [0, P))? */
static bool ts_circle_meet(long a, long la, long b, long lb, long P)
{
    bool ab = a + la <= b && b + lb <= a + P;
    bool ba = b + lb <= a && a + la <= b + P;
    return !(ab || ba);
}

static bool ts_share(const ts_block *x, const ts_block *y)
{
    for (int i = 0; i < x->ndevices; i++)
        if (ts_block_on(y, x->devices[i]))
            return true;
    return false;
}

static int ts_cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

/* No fully idle step (only possible above the max load); false also when P is too large to
 * check. */
static bool ts_construct_covered(const ts_placement *p, const long *start, long P)
{
    if (P <= ts_placement_max_load(p))
        return true;
    if (P > 65536)
        return false;
    char *cov = calloc((size_t)P, 1);
    if (!cov)
        return false;
    for (int i = 0; i < p->nblocks; i++)
        for (long t = 0; t < p->blocks[i].span && t < P; t++)
            cov[(start[i] + t) % P] = 1;
    bool full = true;
    for (long t = 0; t < P; t++)
        full = full && cov[t];
    free(cov);
    return full;
}

bool ts_repetend_construct(const ts_placement *p, const int *chain, const int *mids, long P,
                           bool has_memory, long cap, long *start)
{
    int n = p->nblocks;
    bool ok = false;
    char *placed = calloc((size_t)n + 1, 1);
    long *cand = malloc((size_t)(2 * n + 2) * sizeof *cand);
    long *level = calloc((size_t)p->ndevs + 1, sizeof *level);
    if (!placed || !cand || !level)
        goto out;
    for (int i = 0; i < n; i++) {
        int b = chain[i];
        const ts_block *bl = &p->blocks[b];
        long lo = 0;
        for (int ei = 0; ei < p->nedges; ei++) {
            const ts_edge *ed = &p->edges[ei];
            if (ed->dst != b || !placed[ed->src])
                continue;
            long delta = (long)mids[ed->src] + ed->distance - mids[b];
            long need = start[ed->src] + p->blocks[ed->src].span + ed->delay - delta * P;
            if (need > lo)
                lo = need;
        }
        if (lo >= P)
            goto out;
        int nc = 0;
        cand[nc++] = lo;
        for (int j = 0; j < n; j++) {
            if (!placed[j] || !ts_share(bl, &p->blocks[j]))
                continue;
            long e = start[j] + p->blocks[j].span;
            if (e >= lo && e < P)
                cand[nc++] = e;
            if (e - P >= lo && e - P < P)
                cand[nc++] = e - P;
        }
        qsort(cand, (size_t)nc, sizeof *cand, ts_cmp_long);
        bool put = false;
        for (int c = 0; c < nc && !put; c++) {
            long s = cand[c];
            bool fits = true;
            for (int j = 0; j < n && fits; j++)
                if (placed[j] && ts_share(bl, &p->blocks[j]) &&
                    ts_circle_meet(s, bl->span, start[j], p->blocks[j].span, P))
                    fits = false;
            if (fits) {
                start[b] = s;
                placed[b] = 1;
                put = true;
            }
        }
        if (!put)
            goto out;
    }
    /* Every edge, including those between micro-batches and backwards in the chain. */
    for (int ei = 0; ei < p->nedges; ei++) {
        const ts_edge *ed = &p->edges[ei];
        long delta = (long)mids[ed->src] + ed->distance - mids[ed->dst];
        if (delta < 0 ||
            start[ed->dst] + delta * P < start[ed->src] + p->blocks[ed->src].span + ed->delay)
            goto out;
    }
    if ((has_memory && !ts_window_memory_fits(p, mids, start, cap, level, false)) ||
        !ts_construct_covered(p, start, P))
        goto out;
    ok = true;
out:
    free(placed);
    free(cand);
    free(level);
    return ok;
}
