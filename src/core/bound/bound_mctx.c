/* The dependency context of the memory terms (ts_mctx: bound_memory.c, bound_exclusive.c,
 * bound_cross.c and the per-device loop of bound_memdev.c): which blocks each block reaches
 * through distance-0 edges, a topological order, the longest start-to-start paths from one
 * block, and the least memory a micro-batch can hold on a device. It sits below the terms and
 * their loop so that their arrows point one way. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include "bound_internal.h"

#define TS_BIT(row, i) (((row)[(i) >> 6] >> ((i)&63)) & 1u)

bool ts_reaches(const ts_mctx *c, int x, int y)
{
    return TS_BIT(c->desc + (size_t)x * c->words, y);
}

int ts_mctx_make(ts_mctx *c, const ts_placement *p)
{
    c->p = p;
    c->nb = p->nblocks;
    c->words = (c->nb + 63) / 64;
    c->desc = calloc((size_t)c->nb * c->words, sizeof(uint64_t));
    c->topo = malloc((size_t)c->nb * sizeof(int));
    c->dist = malloc((size_t)c->nb * sizeof(long));
    if (!c->desc || !c->topo || !c->dist || ts_placement_out_edges(p, &c->off, &c->list) ||
        ts_placement_topo(p, c->topo))
        return -1;
    for (int i = c->nb - 1; i >= 0; i--) {
        int x = c->topo[i];
        uint64_t *row = c->desc + (size_t)x * c->words;
        for (int k = c->off[x]; k < c->off[x + 1]; k++) {
            const ts_edge *e = &p->edges[c->list[k]];
            if (e->distance)
                continue;
            const uint64_t *sub = c->desc + (size_t)e->dst * c->words;
            row[e->dst >> 6] |= (uint64_t)1 << (e->dst & 63);
            for (int w = 0; w < c->words; w++)
                row[w] |= sub[w];
        }
    }
    return 0;
}

void ts_mctx_free(ts_mctx *c)
{
    free(c->desc);
    free(c->topo);
    free(c->off);
    free(c->list);
    free(c->dist);
}

/* Longest start-to-start path from a to every block (LONG_MIN where unreachable). */
void ts_mctx_dist(ts_mctx *c, int a)
{
    for (int b = 0; b < c->nb; b++)
        c->dist[b] = LONG_MIN;
    c->dist[a] = 0;
    for (int i = 0; i < c->nb; i++) {
        int x = c->topo[i];
        if (c->dist[x] == LONG_MIN)
            continue;
        for (int k = c->off[x]; k < c->off[x + 1]; k++) {
            const ts_edge *e = &c->p->edges[c->list[k]];
            long t = c->dist[x] + c->p->blocks[x].span + e->delay;
            if (!e->distance && t > c->dist[e->dst])
                c->dist[e->dst] = t;
        }
    }
}

/* The least memory one micro-batch can hold on a device in a set of its blocks that is closed
 * under dependencies, counting only blocks with in[j] set (<= 0): each freeing block, in
 * topological order, is credited with what its allocating ancestors have not yet given. */
long ts_hold_min(const ts_mctx *c, const int *on, int non, const char *in, long *budget)
{
    long hold = 0;
    for (int i = 0; i < non; i++)
        budget[i] = in[i] && c->p->blocks[on[i]].memory > 0 ? c->p->blocks[on[i]].memory : 0;
    for (int i = 0; i < non; i++) {
        long need = in[i] ? -(long)c->p->blocks[on[i]].memory : 0;
        for (int j = 0; j < non && need > 0; j++)
            if (budget[j] > 0 && ts_reaches(c, on[j], on[i])) {
                long g = budget[j] < need ? budget[j] : need;
                budget[j] -= g;
                need -= g;
            }
        if (need > 0)
            hold -= need;
    }
    return hold;
}
