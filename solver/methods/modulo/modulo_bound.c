/* A memory lower bound that proves periods infeasible without the solver.
 *
 * At the start of allocation p (micro-batch i), a pair (p, n, u) of the memory plan holds
 * u * ceil((t_n - t_p) / P) copies, and every other pair of the device holds >= 0 (each frees
 * after it allocates). So the device needs at least u * ceil(L / P) where L is any lower bound
 * on t_n - t_p. Along a dependency path p = v0 -> v1 -> ... -> n, each hop from v at residue r
 * to w at residue r' takes span + delay rounded up to the next time with residue r':
 *     hop = w0 + ((r' - r - w0) mod P),  w0 = span(v) + delay.
 * Which residues a block may take is limited by the blocks on several devices: on each device
 * they occupy fixed arcs (their residues are common to all their devices), and a single-device
 * block's arc must miss them. Minimising the path over residues (a small dynamic programme),
 * for every placement of the multi-device blocks (rotation fixed by the first), gives L. When
 * every placement leaves some device above capacity, the period is infeasible.
 *
 * This relaxes exclusivity between single-device blocks, so it proves only what it can; it is
 * what decides the 32-device mshape and nnshape periods the solver cannot. The enumeration
 * stops at the search's deadline, proving nothing then. */
#include <stdlib.h>
#include <string.h>
#include "modulo_internal.h"

typedef struct {
    int dev, p, n;
    long units;
    int len; /* path blocks */
    int *path; /* len blocks, p first, n last */
    long *w; /* len - 1 hop weights: span + delay */
    long free_len; /* resource-free path length, for ordering */
} ts_bpair;

typedef struct {
    const ts_placement *p;
    long P;
    const long *cap; /* per device */
    int nm; /* multi-device blocks */
    int *multi; /* their indices */
    long *res; /* residue per block (multi-device only), -1 otherwise */
    int npairs;
    ts_bpair *pairs;
    long *cost, *next; /* DP rows, P entries each */
    char *busy; /* per device, P cells: arcs of the multi-device blocks */
    long combos;
    /* calls of ts_enumerate: arcs that collide prune whole subtrees before any leaf, so the
     * leaves alone neither bound the effort nor reach the deadline check */
    long nodes;
    bool all_over; /* every placement so far exceeds capacity somewhere */
    const ts_budget *budget; /* the search's: past it, nothing is proven */
    bool cut;
} ts_bctx;

static bool ts_arc_clear(const ts_bctx *c, const ts_block *b, long r)
{
    for (int i = 0; i < b->ndevices; i++) {
        const char *row = c->busy + (long)b->devices[i] * c->P;
        for (long k = 0; k < b->span; k++)
            if (row[(r + k) % c->P])
                return false;
    }
    return true;
}

static void ts_arc_set(ts_bctx *c, const ts_block *b, long r, char v)
{
    for (int i = 0; i < b->ndevices; i++)
        for (long k = 0; k < b->span; k++)
            c->busy[(long)b->devices[i] * c->P + (r + k) % c->P] = v;
}

/* Whether residue r is possible for block v under the current multi-device placement. */
static bool ts_allowed(const ts_bctx *c, int v, long r)
{
    const ts_block *b = &c->p->blocks[v];
    if (b->ndevices > 1)
        return c->res[v] == r;
    return ts_arc_clear(c, b, r);
}

/* Shortest modulo length of a pair's path under the current placement; -1 when some block
 * has no possible residue. */
static long ts_path_min(ts_bctx *c, const ts_bpair *q)
{
    long P = c->P, INF = -1;
    for (long r = 0; r < P; r++)
        c->cost[r] = ts_allowed(c, q->path[0], r) ? 0 : INF;
    for (int i = 1; i < q->len; i++) {
        for (long r2 = 0; r2 < P; r2++) {
            c->next[r2] = INF;
            if (!ts_allowed(c, q->path[i], r2))
                continue;
            for (long r = 0; r < P; r++) {
                if (c->cost[r] < 0)
                    continue;
                long w0 = q->w[i - 1];
                long hop = w0 + (((r2 - r - w0) % P) + P) % P;
                if (c->next[r2] < 0 || c->cost[r] + hop < c->next[r2])
                    c->next[r2] = c->cost[r] + hop;
            }
        }
        long *t = c->cost;
        c->cost = c->next;
        c->next = t;
    }
    long best = INF;
    for (long r = 0; r < P; r++)
        if (c->cost[r] >= 0 && (best < 0 || c->cost[r] < best))
            best = c->cost[r];
    return best;
}

/* Whether the current placement forces some device above capacity. At the start of
 * allocation p the device holds at least p's units times the fewest copies its frees allow
 * (ceil(L / P)), plus, for every other allocation p' of the device, its units times
 * floor(L' / P): a pair whose free comes L' after its allocation always has that many copies
 * in flight. Pairs are sorted by device, then allocation. */
static bool ts_placement_over(ts_bctx *c)
{
    for (int i = 0; i < c->npairs;) {
        if (ts_budget_over(c->budget)) {
            c->cut = true;
            return true; /* not a proof: the caller discards the enumeration */
        }
        int dev = c->pairs[i].dev, end = i;
        while (end < c->npairs && c->pairs[end].dev == dev)
            end++;
        /* Per allocation of this device: fewest copies (ceil) and always-held copies (floor). */
        long floors = 0, best = 0;
        for (int pass = 0; pass < 2; pass++)
            for (int j = i; j < end;) {
                int k = j;
                long minL = -1;
                while (k < end && c->pairs[k].p == c->pairs[j].p) {
                    long L = ts_path_min(c, &c->pairs[k]);
                    if (L < 0)
                        return true; /* some block of the path has no possible residue */
                    if (minL < 0 || L < minL)
                        minL = L;
                    k++;
                }
                long u = c->pairs[j].units;
                long fl = u * (minL / c->P), ce = u * ((minL + c->P - 1) / c->P);
                if (pass == 0)
                    floors += fl;
                else if (floors - fl + ce > best)
                    best = floors - fl + ce;
                j = k;
            }
        if (best > c->cap[dev])
            return true;
        i = end;
    }
    return false;
}

/* Depth-first over residues of the multi-device blocks (the first fixed at 0). Stops as soon
 * as one placement fits (all_over false) or the enumeration grows too large. */
static void ts_enumerate(ts_bctx *c, int i)
{
    if (!c->all_over || c->combos > TS_BOUND_MAX_COMBOS || c->cut)
        return;
    /* an effort cap in nodes (deterministic) and the deadline every 4096 nodes: cut, nothing
     * proven */
    if (++c->nodes > 64 * TS_BOUND_MAX_COMBOS ||
        ((c->nodes & 4095) == 0 && ts_budget_over(c->budget))) {
        c->cut = true;
        return;
    }
    if (i == c->nm) {
        /* one placement's check costs far more than reading the clock */
        if (ts_budget_over(c->budget)) {
            c->cut = true;
            return;
        }
        c->combos++;
        if (!ts_placement_over(c))
            c->all_over = false;
        return;
    }
    int b = c->multi[i];
    const ts_block *blk = &c->p->blocks[b];
    for (long r = 0; r < (i == 0 ? 1 : c->P); r++) {
        if (!ts_arc_clear(c, blk, r))
            continue;
        ts_arc_set(c, blk, r, 1);
        c->res[b] = r;
        ts_enumerate(c, i + 1);
        c->res[b] = -1;
        ts_arc_set(c, blk, r, 0);
        if (!c->all_over || c->combos > TS_BOUND_MAX_COMBOS || c->cut)
            return;
    }
}

static int ts_cmp_bpair(const void *x, const void *y)
{
    const ts_bpair *a = x, *b = y;
    if (a->dev != b->dev)
        return (a->dev > b->dev) - (a->dev < b->dev);
    if (a->p != b->p)
        return (a->p > b->p) - (a->p < b->p);
    return (a->free_len < b->free_len) - (a->free_len > b->free_len);
}

/* The longest (span + delay) path from p to n over distance-0 edges, or len 0 when n is not
 * reachable. topo is a topological order. */
static int ts_longest_path(const ts_placement *p, const int *topo, const int *pos, const int *off,
                           const int *list, int src, int dst, long *dist, int *prev, ts_bpair *q)
{
    int nb = p->nblocks;
    for (int b = 0; b < nb; b++) {
        dist[b] = -1;
        prev[b] = -1;
    }
    dist[src] = 0;
    for (int i = pos[src]; i < nb; i++) {
        int u = topo[i];
        if (dist[u] < 0)
            continue;
        for (int x = off[u]; x < off[u + 1]; x++) {
            int k = list[x];
            const ts_edge *g = &p->edges[k];
            if (g->distance)
                continue;
            long d = dist[u] + p->blocks[u].span + g->delay;
            if (d > dist[g->dst]) {
                dist[g->dst] = d;
                prev[g->dst] = k;
            }
        }
    }
    q->len = 0;
    if (dist[dst] <= 0)
        return 0;
    int len = 1;
    for (int v = dst; v != src; v = p->edges[prev[v]].src)
        len++;
    q->path = malloc((size_t)len * sizeof(int));
    q->w = malloc((size_t)len * sizeof(long));
    if (!q->path || !q->w)
        return -1;
    int i = len - 1;
    for (int v = dst;; v = p->edges[prev[v]].src) {
        q->path[i] = v;
        if (i < len - 1) {
            const ts_edge *g = &p->edges[prev[q->path[i + 1]]];
            q->w[i] = p->blocks[v].span + (long)g->delay;
        }
        if (v == src)
            break;
        i--;
    }
    q->len = len;
    q->free_len = dist[dst];
    return 0;
}

int ts_modulo_memory_infeasible(const ts_placement *p, const ts_mplan *mp, long P,
                                const long *cap, const ts_budget *budget)
{
    int nb = p->nblocks, nd = p->ndevs;
    if (nb == 0 || (long)nd * P > 64L * 1024 * 1024)
        return 0;
    ts_bctx c = {0};
    c.p = p;
    c.P = P;
    c.cap = cap;
    c.budget = budget;
    int *topo = malloc((size_t)nb * sizeof(int)), *pos = malloc((size_t)nb * sizeof(int));
    int *prev = malloc((size_t)nb * sizeof(int));
    long *dist = malloc((size_t)nb * sizeof(long));
    c.multi = malloc((size_t)nb * sizeof(int));
    c.res = malloc((size_t)nb * sizeof(long));
    c.cost = malloc((size_t)P * sizeof(long));
    c.next = malloc((size_t)P * sizeof(long));
    c.busy = calloc((size_t)nd * (size_t)P, 1);
    int result = 0, npmax = 0, *off = NULL, *list = NULL;
    if (!mp->exact)
        goto done; /* the pairing is forced somewhere: no bound from dependency paths */
    for (int d = 0; d < mp->ndevs; d++) {
        int np = 0, nn = 0;
        for (int i = mp->off[d]; i < mp->off[d + 1]; i++)
            mp->coef[i] > 0 ? np++ : nn++;
        npmax += np * nn;
    }
    c.pairs = calloc((size_t)npmax + 1, sizeof(ts_bpair));
    if (!topo || !pos || !prev || !dist || !c.multi || !c.res || !c.cost || !c.next || !c.busy ||
        !c.pairs || ts_placement_topo(p, topo) || ts_placement_out_edges(p, &off, &list))
        goto done;
    for (int i = 0; i < nb; i++)
        pos[topo[i]] = i;
    for (int b = 0; b < nb; b++) {
        c.res[b] = -1;
        if (p->blocks[b].ndevices > 1)
            c.multi[c.nm++] = b;
    }
    /* Pairs: each allocation with every free of its device that it reaches. With an exact
     * plan all of an allocation's units go to such frees, so the allocation holds at least its
     * units times the fewest copies among them. */
    for (int d = 0; d < mp->ndevs; d++)
        for (int i = mp->off[d]; i < mp->off[d + 1]; i++) {
            if (mp->coef[i] <= 0)
                continue;
            for (int j = mp->off[d]; j < mp->off[d + 1]; j++) {
                if (mp->coef[j] >= 0)
                    continue;
                ts_bpair q = {0};
                q.dev = d;
                q.p = mp->block[i];
                q.n = mp->block[j];
                q.units = mp->coef[i];
                if (ts_budget_over(budget) ||
                    ts_longest_path(p, topo, pos, off, list, q.p, q.n, dist, prev, &q))
                    goto done; /* past the deadline: nothing proven */
                if (q.len)
                    c.pairs[c.npairs++] = q;
            }
        }
    qsort(c.pairs, (size_t)c.npairs, sizeof *c.pairs, ts_cmp_bpair);
    if (!c.npairs)
        goto done;
    c.all_over = true;
    ts_enumerate(&c, 0);
    result = c.all_over && !c.cut && c.combos > 0 && c.combos <= TS_BOUND_MAX_COMBOS;
done:
    for (int i = 0; i < c.npairs; i++) {
        free(c.pairs[i].path);
        free(c.pairs[i].w);
    }
    free(c.pairs);
    free(off);
    free(list);
    free(topo);
    free(pos);
    free(prev);
    free(dist);
    free(c.multi);
    free(c.res);
    free(c.cost);
    free(c.next);
    free(c.busy);
    return result;
}
