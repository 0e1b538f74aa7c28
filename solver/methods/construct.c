/* A repetend built without a solver: modulo list scheduling of the blocks in chain order on a
 * circle of length P. It answers "yes" for most candidates of regular placements in
 * microseconds; a "no" proves nothing, and the caller then asks the repetend model. */
#include <stdlib.h>
#include <string.h>
#include "ts_construct.h"
#include "ts_memory.h"
#include "ts_search_ctx.h"

/* Do [a, a + la) and [b, b + lb) meet on the circle of length P (starts in [0, P))? */
static bool ts_circle_meet(long a, long la, long b, long lb, long P)
{
    bool ab = a + la <= b && b + lb <= a + P;
    bool ba = b + lb <= a && a + la <= b + P;
    return !(ab || ba);
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

/* The construction's state: in-edges of each block, and the placed blocks of each device (a
 * block on several devices is in each of their lists), so that placing a block looks only at its
 * own edges and at what its devices run: the scans of every edge and every block that it replaces
 * made one call quadratic or worse in the blocks (20,000 blocks: seconds, without a clock). */
typedef struct {
    int *ioff, *ilist; /* edges into b: ilist[ioff[b] .. ioff[b + 1]) */
    int *doff, *dlist, *dn; /* placed blocks of d: dlist[doff[d] .. doff[d] + dn[d]) */
} ts_cstate;

static void ts_cstate_free(ts_cstate *c)
{
    free(c->ioff);
    free(c->ilist);
    free(c->doff);
    free(c->dlist);
    free(c->dn);
}

/* -1 on allocation failure. */
static int ts_cstate_init(ts_cstate *c, const ts_placement *p)
{
    int n = p->nblocks, D = p->ndevs;
    memset(c, 0, sizeof *c);
    c->ioff = calloc((size_t)n + 2, sizeof *c->ioff);
    c->ilist = malloc((size_t)p->nedges * sizeof *c->ilist + 1);
    c->doff = calloc((size_t)D + 1, sizeof *c->doff);
    c->dn = calloc((size_t)D + 1, sizeof *c->dn);
    if (!c->ioff || !c->ilist || !c->doff || !c->dn)
        return -1;
    for (int ei = 0; ei < p->nedges; ei++)
        c->ioff[p->edges[ei].dst + 2]++;
    for (int b = 0; b < n; b++)
        c->ioff[b + 2] += c->ioff[b + 1];
    for (int ei = 0; ei < p->nedges; ei++) /* ioff[b + 1] runs ahead while filling */
        c->ilist[c->ioff[p->edges[ei].dst + 1]++] = ei;
    for (int b = 0; b < n; b++)
        for (int i = 0; i < p->blocks[b].ndevices; i++)
            c->doff[p->blocks[b].devices[i] + 1]++;
    for (int d = 0; d < D; d++)
        c->doff[d + 1] += c->doff[d];
    c->dlist = malloc((size_t)c->doff[D] * sizeof *c->dlist + 1);
    return c->dlist ? 0 : -1;
}

/* The earliest start >= lo in [0, P) where bl meets nothing its devices run, trying lo and the
 * ends of the placed blocks (first fit on the circle); -1 when none. cand has room for twice
 * the entries of bl's device lists, plus one. */
static long ts_construct_fit(const ts_placement *p, const ts_cstate *c, const ts_block *bl,
                             const long *start, long lo, long P, long *cand)
{
    int nc = 0;
    cand[nc++] = lo;
    for (int i = 0; i < bl->ndevices; i++) {
        int d = bl->devices[i];
        for (int k = c->doff[d]; k < c->doff[d] + c->dn[d]; k++) {
            int j = c->dlist[k];
            long e = start[j] + p->blocks[j].span;
            if (e >= lo && e < P)
                cand[nc++] = e;
            if (e - P >= lo && e - P < P)
                cand[nc++] = e - P;
        }
    }
    qsort(cand, (size_t)nc, sizeof *cand, ts_cmp_long);
    for (int ci = 0; ci < nc; ci++) {
        long s = cand[ci];
        bool fits = true;
        for (int i = 0; i < bl->ndevices && fits; i++) {
            int d = bl->devices[i];
            for (int k = c->doff[d]; k < c->doff[d] + c->dn[d] && fits; k++) {
                int j = c->dlist[k];
                fits = !ts_circle_meet(s, bl->span, start[j], p->blocks[j].span, P);
            }
        }
        if (fits)
            return s;
    }
    return -1;
}

bool ts_repetend_construct(const ts_placement *p, const int *chain, const int *mids, long P,
                           const long *cap, const ts_budget *budget, long *start)
{
    int n = p->nblocks;
    bool ok = false;
    ts_cstate c;
    int bad = ts_cstate_init(&c, p);
    char *placed = calloc((size_t)n + 1, 1);
    long *cand = bad ? NULL : malloc((size_t)(2 * c.doff[p->ndevs] + 2) * sizeof *cand);
    long *level = calloc((size_t)p->ndevs + 1, sizeof *level);
    if (bad || !placed || !cand || !level)
        goto out;
    for (int i = 0; i < n; i++) {
        /* The clock every 64 blocks: false (no answer) proves nothing, which is what a cut
         * construction knows. */
        if ((i & 63) == 63 && budget && ts_budget_over(budget))
            goto out;
        int b = chain[i];
        const ts_block *bl = &p->blocks[b];
        long lo = 0;
        for (int k = c.ioff[b]; k < c.ioff[b + 1]; k++) {
            const ts_edge *ed = &p->edges[c.ilist[k]];
            if (!placed[ed->src])
                continue;
            long delta = (long)mids[ed->src] + ed->distance - mids[b];
            long need = start[ed->src] + p->blocks[ed->src].span + ed->delay - delta * P;
            if (need > lo)
                lo = need;
        }
        if (lo >= P || (start[b] = ts_construct_fit(p, &c, bl, start, lo, P, cand)) < 0)
            goto out;
        placed[b] = 1;
        for (int k = 0; k < bl->ndevices; k++) {
            int d = bl->devices[k];
            c.dlist[c.doff[d] + c.dn[d]++] = b;
        }
    }
    /* Every edge, including those between micro-batches and backwards in the chain. */
    for (int ei = 0; ei < p->nedges; ei++) {
        const ts_edge *ed = &p->edges[ei];
        long delta = (long)mids[ed->src] + ed->distance - mids[ed->dst];
        if (delta < 0 ||
            start[ed->dst] + delta * P < start[ed->src] + p->blocks[ed->src].span + ed->delay)
            goto out;
    }
    if ((cap && !ts_window_memory_fits(p, mids, start, cap, level, false)) ||
        !ts_construct_covered(p, start, P))
        goto out;
    ok = true;
out:
    ts_cstate_free(&c);
    free(placed);
    free(cand);
    free(level);
    return ok;
}
