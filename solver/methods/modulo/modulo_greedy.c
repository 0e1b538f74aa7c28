
/* Constructed modulo timetables (iterative modulo scheduling without backtracking): each block,
 * in the order given, starts as early as its placed predecessors allow at a time whose arc is
 * free on every device it occupies. Two variants:
 *   ts_modulo_greedy         plain, in chain order;
 *   ts_modulo_greedy_packed  the blocks on several devices first get consecutive residues (so
 *                            every device keeps one long free arc), and a single-device block
 *                            takes a residue only where the rest of its device still packs.
 *                            Without the look-ahead, nnshape at 4 devices fragments device 3 and
 *                            kshape at 32 devices leaves no common residue for M.
 *   ts_modulo_greedy_clustered  the packed variant with the blocks on several devices split into
 *                            two clusters (every split, every opening of the second), and for
 *                            the reservations nearest to fitting memory, the allocating blocks
 *                            delayed by a free start or two: when two micro-batches share a
 *                            period, each needs its own free arc between shard steps.
 * Cheap (milliseconds at 32 devices; the clustered variant at most TS_CLUSTER_MAX_TRIES tries); for the paper's placements the packed variant is already
 * the answer at the smallest feasible period, and otherwise its residues seed the solver. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "modulo_plan.h"
#include "ts_search_ctx.h"

/* Every this many residues tried, the greedy reads the search's deadline: one try costs O(P) in
 * the packed variant, and at a period of 65,536 steps a single construction would otherwise run
 * for seconds past the time limit. */
#define TS_GREEDY_CLOCK_EVERY 64

static bool ts_greedy_over(const ts_budget *budget, long tries)
{
    return budget && tries % TS_GREEDY_CLOCK_EVERY == 0 && ts_budget_over(budget);
}

/* Every this many constructions, the clustered variant reads the deadline (and charges one tick
 * of effort, 50 units): one construction of nnshape's 2-fold at 16 devices takes about 25 us on
 * 2 cores, 16 of them about a tick's worth at TS_EFFORT_PER_SECOND. */
#define TS_CLUSTER_CLOCK_EVERY 16

static bool ts_arc_free(const ts_block *b, const char *busy, long P, long r)
{
    for (int i = 0; i < b->ndevices; i++) {
        const char *row = busy + (long)b->devices[i] * P;
        for (long k = 0; k < b->span; k++)
            if (row[(r + k) % P])
                return false;
    }
    return true;
}

/* What every construction does first: no hint yet (-1 each); false when there is nothing to
 * place or the reservation table would be over TS_GREEDY_MAX_CELLS. */
static bool ts_greedy_start(const ts_placement *p, long P, long *hint_r)
{
    if (hint_r)
        for (int b = 0; b < p->nblocks; b++)
            hint_r[b] = -1;
    return (long)p->ndevs * P <= TS_GREEDY_MAX_CELLS && p->nblocks > 0;
}

/* ts_fits_rest's tables: the single-device blocks of each device, blk[off[d] .. off[d + 1]), so
 * that a test costs the device's blocks and not the placement's; and scratch. */
typedef struct {
    int *off, *blk;
    long *runs, *spans;
} ts_rest;

static void ts_rest_free(ts_rest *r)
{
    free(r->off);
    free(r->blk);
    free(r->runs);
    free(r->spans);
    *r = (ts_rest){0};
}

static bool ts_rest_init(ts_rest *r, const ts_placement *p, long P)
{
    int nb = p->nblocks, nd = p->ndevs;
    r->off = calloc((size_t)nd + 1, sizeof(int));
    r->blk = malloc((size_t)(nb ? nb : 1) * sizeof(int));
    r->runs = malloc((size_t)(P + 1) * sizeof(long));
    r->spans = malloc((size_t)(nb ? nb : 1) * sizeof(long));
    if (!r->off || !r->blk || !r->runs || !r->spans) {
        ts_rest_free(r);
        return false;
    }
    for (int b = 0; b < nb; b++)
        if (p->blocks[b].ndevices == 1)
            r->off[p->blocks[b].devices[0] + 1]++;
    for (int d = 0; d < nd; d++)
        r->off[d + 1] += r->off[d];
    int *fill = r->blk; /* filled in block order: a device's list keeps it */
    int *at = calloc((size_t)nd, sizeof(int));
    if (!at) {
        ts_rest_free(r);
        return false;
    }
    for (int b = 0; b < nb; b++)
        if (p->blocks[b].ndevices == 1) {
            int d = p->blocks[b].devices[0];
            fill[r->off[d] + at[d]++] = b;
        }
    free(at);
    return true;
}

/* Whether the single-device blocks still to place on device d fit the free arcs of its circle
 * (first-fit decreasing: a quick sufficient test, so it may refuse a packable state). skip is
 * a block to count as placed. */
static bool ts_fits_rest(const ts_placement *p, const char *busy, long P, int d, const char *placed,
                         int skip, const ts_rest *rest)
{
    long *runs = rest->runs, *spans = rest->spans;
    const char *row = busy + (long)d * P;
    int nr = 0, ns = 0;
    long start = -1;
    for (long i = 0; i < P; i++)
        if (row[i]) {
            start = i;
            break;
        }
    if (start < 0) {
        runs[nr++] = P;
    } else {
        long len = 0;
        for (long k = 1; k <= P; k++) {
            long i = (start + k) % P;
            if (!row[i]) {
                len++;
            } else {
                if (len)
                    runs[nr++] = len;
                len = 0;
            }
        }
    }
    for (int i = rest->off[d]; i < rest->off[d + 1]; i++) {
        int b = rest->blk[i];
        if (!placed[b] && b != skip)
            spans[ns++] = p->blocks[b].span;
    }
    /* Insertion sort, decreasing (per-device block counts are small). */
    for (int i = 1; i < ns; i++)
        for (int j = i; j > 0 && spans[j] > spans[j - 1]; j--) {
            long x = spans[j];
            spans[j] = spans[j - 1];
            spans[j - 1] = x;
        }
    for (int i = 0; i < ns; i++) {
        int k = 0;
        while (k < nr && runs[k] < spans[i])
            k++;
        if (k == nr)
            return false;
        runs[k] -= spans[i];
    }
    return true;
}

static void ts_mark(const ts_block *b, char *busy, long P, long r)
{
    for (int j = 0; j < b->ndevices; j++)
        for (long k = 0; k < b->span; k++)
            busy[(long)b->devices[j] * P + (r + k) % P] = 1;
}

static void ts_unmark(const ts_block *b, char *busy, long P, long r)
{
    for (int j = 0; j < b->ndevices; j++)
        for (long k = 0; k < b->span; k++)
            busy[(long)b->devices[j] * P + (r + k) % P] = 0;
}

/* Incoming edges of each block: iedge[ioff[b] .. ioff[b + 1]) are the edges into b. Both are the
 * caller's to free, also on failure (false: out of memory). */
static bool ts_in_edges(const ts_placement *p, int **ioff_out, int **iedge_out)
{
    int nb = p->nblocks;
    int *ioff = *ioff_out = calloc((size_t)nb + 1, sizeof(int));
    int *iedge = *iedge_out = malloc((size_t)(p->nedges ? p->nedges : 1) * sizeof(int));
    int *fill = malloc((size_t)nb * sizeof(int));
    bool ok = ioff && iedge && fill;
    if (ok) {
        for (int i = 0; i < p->nedges; i++)
            ioff[p->edges[i].dst + 1]++;
        for (int b = 0; b < nb; b++)
            ioff[b + 1] += ioff[b];
        memcpy(fill, ioff, (size_t)nb * sizeof(int));
        for (int i = 0; i < p->nedges; i++)
            iedge[fill[p->edges[i].dst]++] = i;
    }
    free(fill);
    return ok;
}

/* The earliest start of block b that its placed predecessors allow at period P (0 when none is
 * placed). */
static long ts_placed_est(const ts_placement *p, const int *ioff, const int *iedge,
                          const char *placed, const long *t, long P, int b)
{
    long est = 0;
    bool any = false;
    for (int k = ioff[b]; k < ioff[b + 1]; k++) {
        const ts_edge *x = &p->edges[iedge[k]];
        if (!placed[x->src])
            continue;
        long c = t[x->src] + p->blocks[x->src].span + (long)x->delay - (long)x->distance * P;
        if (!any || c > est)
            est = c;
        any = true;
    }
    return est;
}

/* Places single-device block b at the first start from est on whose residue arc is free and,
 * when rest is given (the packed variant), still leaves room for the rest of its device; with
 * skip > 0, the first skip such starts are passed over (a delay, which shortens the lifetime of
 * what b allocates). */
static int ts_place_first_free(const ts_placement *p, int b, long est, long P, char *busy,
                               char *placed, const ts_rest *rest, long *t, long *hint_r,
                               const ts_budget *budget, int skip)
{
    const ts_block *blk = &p->blocks[b];
    for (long s = est; s < est + P; s++) {
        if (ts_greedy_over(budget, s - est + 1))
            return 0;
        long r = s - ts_mod_floordiv(s, P) * P;
        if (!ts_arc_free(blk, busy, P, r))
            continue;
        ts_mark(blk, busy, P, r);
        if (rest && !ts_fits_rest(p, busy, P, blk->devices[0], placed, b, rest)) {
            ts_unmark(blk, busy, P, r);
            continue;
        }
        if (skip > 0) {
            skip--;
            ts_unmark(blk, busy, P, r);
            continue;
        }
        t[b] = s;
        placed[b] = 1;
        if (hint_r)
            hint_r[b] = r;
        return 1;
    }
    return 0;
}

/* The packed construction's working state, reused across the tries of one call. */
typedef struct {
    const ts_placement *p;
    long P;
    char *busy; /* ndevs x P: residues taken on each device */
    char *reserved; /* busy after the multi-device blocks' reservation */
    char *placed;
    long *res; /* reserved residue of each multi-device block, -1: none */
    int *delay; /* free starts each single-device block passes over (ts_place_first_free) */
    int *ioff, *iedge;
    ts_rest rest;
} ts_packing;

static void ts_packing_free(ts_packing *w)
{
    free(w->busy);
    free(w->reserved);
    free(w->placed);
    free(w->res);
    free(w->delay);
    free(w->ioff);
    free(w->iedge);
    ts_rest_free(&w->rest);
}

static bool ts_packing_init(ts_packing *w, const ts_placement *p, long P)
{
    int nb = p->nblocks;
    size_t cells = (size_t)p->ndevs * (size_t)P;
    memset(w, 0, sizeof *w);
    w->p = p;
    w->P = P;
    w->busy = calloc(cells, 1);
    w->reserved = calloc(cells, 1);
    w->placed = calloc((size_t)nb, 1);
    w->res = malloc((size_t)nb * sizeof(long));
    w->delay = calloc((size_t)nb, sizeof(int));
    bool edges_ok = ts_in_edges(p, &w->ioff, &w->iedge);
    bool rest_ok = ts_rest_init(&w->rest, p, P);
    if (w->busy && w->reserved && w->placed && w->res && w->delay && edges_ok && rest_ok)
        return true;
    ts_packing_free(w);
    return false;
}

/* Forgets every reservation and placement. */
static void ts_packing_reset(ts_packing *w)
{
    memset(w->busy, 0, (size_t)w->p->ndevs * (size_t)w->P);
    memset(w->placed, 0, (size_t)w->p->nblocks);
    for (int b = 0; b < w->p->nblocks; b++)
        w->res[b] = -1;
}

/* Back to the state right after the reservation (ts_packing_keep): the single-device blocks
 * unplaced. */
static void ts_packing_restore(ts_packing *w)
{
    memcpy(w->busy, w->reserved, (size_t)w->p->ndevs * (size_t)w->P);
    memset(w->placed, 0, (size_t)w->p->nblocks);
}

static void ts_packing_keep(ts_packing *w)
{
    memcpy(w->reserved, w->busy, (size_t)w->p->ndevs * (size_t)w->P);
}

/* Reserves for multi-device block b the first residue from *next on (circularly) whose arc is
 * free on its devices and leaves room for the rest of each of them; *next moves past it.
 * 0 when none does (or the deadline passed). */
static int ts_reserve(ts_packing *w, int b, long *next, const ts_budget *budget)
{
    const ts_block *blk = &w->p->blocks[b];
    long P = w->P;
    for (long k = 0; k < P; k++) {
        if (ts_greedy_over(budget, k + 1))
            return 0;
        long r = (*next + k) % P;
        if (!ts_arc_free(blk, w->busy, P, r))
            continue;
        ts_mark(blk, w->busy, P, r);
        bool fits = true;
        for (int j = 0; j < blk->ndevices && fits; j++)
            fits = ts_fits_rest(w->p, w->busy, P, blk->devices[j], w->placed, -1, &w->rest);
        if (!fits) {
            ts_unmark(blk, w->busy, P, r);
            continue;
        }
        w->res[b] = r;
        *next = r + blk->span;
        return 1;
    }
    return 0;
}

/* Phase 2 of the packed construction: chain order; each block at the earliest start its placed
 * predecessors allow that (multi-device) has its reserved residue or (single-device) leaves
 * room for the rest of its device, less w->delay. Returns 1 when the timetable verifies, 0 when
 * it fails on memory alone (*excess: the units over capacity, summed over devices) and -1 when
 * it fails otherwise. */
static int ts_packing_place(ts_packing *w, const ts_mplan *mp, const int *order, const long *cap,
                            long *t, long *hint_r, const ts_budget *budget, long *excess)
{
    const ts_placement *p = w->p;
    long P = w->P;
    for (int i = 0; i < p->nblocks; i++) {
        int b = order[i];
        const ts_block *blk = &p->blocks[b];
        long est = ts_placed_est(p, w->ioff, w->iedge, w->placed, t, P, b);
        if (blk->ndevices > 1) {
            long r0 = est - ts_mod_floordiv(est, P) * P;
            t[b] = est + ((w->res[b] - r0) % P + P) % P;
            w->placed[b] = 1;
            if (hint_r)
                hint_r[b] = w->res[b];
        } else if (!ts_place_first_free(p, b, est, P, w->busy, w->placed, &w->rest, t, hint_r,
                                        budget, w->delay[b])) {
            return -1;
        }
    }
    ts_err e = {0};
    if (ts_modulo_verify(p, mp, P, t, NULL, &e) != TS_OK)
        return -1;
    *excess = 0;
    for (int d = 0; cap && d < mp->ndevs; d++) {
        long peak = ts_mplan_peak_on(mp, P, t, d);
        if (peak != LONG_MIN && peak > cap[d])
            *excess += peak - cap[d];
    }
    return *excess == 0;
}

int ts_modulo_greedy_packed(const ts_placement *p, const ts_mplan *mp, long P, const int *order,
                            const long *cap, long *t, long *hint_r, const ts_budget *budget)
{
    int nb = p->nblocks;
    if (!ts_greedy_start(p, P, hint_r))
        return 0;
    ts_packing w;
    if (!ts_packing_init(&w, p, P))
        return 0;
    ts_packing_reset(&w);
    /* Phase 1: blocks on several devices get consecutive residues, in chain order, so that
     * every device keeps one long free arc for its own blocks. */
    long next = 0, excess;
    int ok = 1;
    for (int i = 0; i < nb && ok; i++)
        if (p->blocks[order[i]].ndevices > 1)
            ok = ts_reserve(&w, order[i], &next, budget);
    if (ok)
        ok = ts_packing_place(&w, mp, order, cap, t, hint_r, budget, &excess) == 1;
    ts_packing_free(&w);
    return ok;
}

/* One way to reserve the multi-device blocks: those whose bit is set in mask form a second
 * cluster of consecutive residues opened at g, the others the first, opened at 0. */
typedef struct {
    unsigned mask;
    long g;
    long excess; /* over capacity, with no delay */
} ts_cluster_try;

/* Reserves the clusters of try x for the m multi-device blocks multi[] (chain order within
 * each cluster). 0 when a block finds no residue, or the second cluster does not open at g
 * itself (that opening is another try's). */
static int ts_reserve_clusters(ts_packing *w, const int *multi, int m, const ts_cluster_try *x,
                               const ts_budget *budget)
{
    ts_packing_reset(w);
    long next[2] = {0, x->g};
    bool opened = false;
    for (int i = 0; i < m; i++) {
        int c = (x->mask >> i) & 1;
        if (!ts_reserve(w, multi[i], &next[c], budget))
            return 0;
        if (c == 1 && !opened && w->res[multi[i]] != x->g)
            return 0;
        opened = opened || c == 1;
    }
    ts_packing_keep(w);
    return 1;
}

/* Delays for a reservation that fails on memory alone: the allocating single-device blocks
 * (memory > 0) may pass over free starts: each one alone by 1 or 2, then each pair by 1 or 2
 * each, at most *tries constructions in all (counted down). Returns 1 when one verifies. */
static int ts_packing_delays(ts_packing *w, const ts_mplan *mp, const int *order, const long *cap,
                             long *t, long *hint_r, const ts_budget *budget, long *tries)
{
    const ts_placement *p = w->p;
    int nb = p->nblocks, na = 0;
    int *alloc = malloc((size_t)nb * sizeof(int));
    if (!alloc)
        return 0;
    for (int i = 0; i < nb; i++) {
        const ts_block *blk = &p->blocks[order[i]];
        if (blk->ndevices == 1 && blk->memory > 0)
            alloc[na++] = order[i];
    }
    int ok = 0;
    long excess;
    /* i == j: one block delayed by u; i < j: two blocks, by u and v. */
    for (int i = 0; i < na && !ok; i++)
        for (int j = i; j < na && !ok; j++)
            for (int u = 1; u <= 2 && !ok; u++)
                for (int v = i == j ? 0 : 1; v <= (i == j ? 0 : 2) && !ok; v++) {
                    if (*tries <= 0 ||
                        (budget && *tries % TS_CLUSTER_CLOCK_EVERY == 0 && ts_budget_over(budget)))
                        goto done;
                    (*tries)--;
                    ts_packing_restore(w);
                    w->delay[alloc[i]] += u;
                    w->delay[alloc[j]] += v;
                    ok = ts_packing_place(w, mp, order, cap, t, hint_r, budget, &excess) == 1;
                    w->delay[alloc[i]] -= u;
                    w->delay[alloc[j]] -= v;
                }
done:
    free(alloc);
    return ok;
}

/* Order of the reservations: one cluster first; then the most even splits, the second cluster
 * opening nearest half a period away (two micro-batches a period want two equal halves);
 * mask and g break ties. */
static long ts_try_key(const ts_cluster_try *x, int m, long P)
{
    if (!x->mask)
        return -1;
    int ones = 0;
    for (unsigned v = x->mask; v; v &= v - 1)
        ones++;
    long uneven = labs(2L * ones - m), off = labs(2 * x->g - P);
    return uneven * (2 * P + 1) + off;
}

static int ts_cmp_long(long a, long b)
{
    return (a > b) - (a < b);
}

/* qsort has no context argument: m and P travel in each element's copy of them. */
typedef struct {
    ts_cluster_try x;
    long key;
} ts_keyed_try;

static int ts_cmp_keyed(const void *a, const void *b)
{
    const ts_keyed_try *x = a, *y = b;
    int c = ts_cmp_long(x->key, y->key);
    if (!c)
        c = ts_cmp_long((long)x->x.mask, (long)y->x.mask);
    return c ? c : ts_cmp_long(x->x.g, y->x.g);
}

static int ts_cmp_excess(const void *a, const void *b)
{
    const ts_keyed_try *x = a, *y = b;
    int c = ts_cmp_long(x->x.excess, y->x.excess);
    return c ? c : ts_cmp_keyed(a, b);
}

/* order regrouped by connected component (in the order of each component's first block), chain
 * order within: on an r-fold, one micro-batch's blocks all before the next one's. Returns the
 * number of components, 0 on allocation failure. */
static int ts_component_order(const ts_placement *p, const int *order, int *out)
{
    int nb = p->nblocks, ncomp = 0;
    int *root = malloc((size_t)nb * sizeof(int)), *rank = malloc((size_t)nb * sizeof(int));
    if (!root || !rank) {
        free(root);
        free(rank);
        return 0;
    }
    for (int b = 0; b < nb; b++)
        root[b] = b;
    for (int i = 0; i < p->nedges; i++) {
        int x = p->edges[i].src, y = p->edges[i].dst;
        while (root[x] != x)
            x = root[x] = root[root[x]];
        while (root[y] != y)
            y = root[y] = root[root[y]];
        root[x > y ? x : y] = x < y ? x : y;
    }
    /* rank[r]: the component of root r, numbered by first appearance in order. */
    for (int b = 0; b < nb; b++)
        rank[b] = -1;
    for (int i = 0; i < nb; i++) {
        int x = order[i];
        while (root[x] != x)
            x = root[x];
        if (rank[x] < 0)
            rank[x] = ncomp++;
    }
    int k = 0;
    for (int c = 0; c < ncomp; c++)
        for (int i = 0; i < nb; i++) {
            int x = order[i];
            while (root[x] != x)
                x = root[x];
            if (rank[x] == c)
                out[k++] = order[i];
        }
    free(root);
    free(rank);
    return ncomp;
}

/* One pass of the clustered construction, the single-device blocks placed in `order`: the
 * reservations all[0..ntry) in their order, then delays for those nearest to fitting memory
 * (near: scratch for ntry tries). At most TS_CLUSTER_MAX_TRIES constructions. */
static int ts_clustered_pass(ts_packing *w, const ts_mplan *mp, const int *order, const int *multi,
                             int m, const ts_keyed_try *all, long ntry, ts_keyed_try *near,
                             const long *cap, long *t, long *hint_r, const ts_budget *budget)
{
    int ok = 0, nnear = 0;
    long tries = TS_CLUSTER_MAX_TRIES, excess;
    /* Half the constructions for the reservations, the rest for the delays. */
    for (long i = 0; i < ntry && !ok && tries > TS_CLUSTER_MAX_TRIES / 2; i++) {
        if (tries-- % TS_CLUSTER_CLOCK_EVERY == 0 && budget && ts_budget_over(budget))
            return 0;
        if (!ts_reserve_clusters(w, multi, m, &all[i].x, budget))
            continue;
        int r = ts_packing_place(w, mp, order, cap, t, hint_r, budget, &excess);
        ok = r == 1;
        if (r == 0) {
            near[nnear] = all[i];
            near[nnear++].x.excess = excess;
        }
    }
    /* The reservations nearest to fitting memory, nearest first, get the delays. */
    qsort(near, (size_t)nnear, sizeof *near, ts_cmp_excess);
    for (int i = 0; i < nnear && i < TS_CLUSTER_DELAYED && !ok; i++)
        if (ts_reserve_clusters(w, multi, m, &near[i].x, budget))
            ok = ts_packing_delays(w, mp, order, cap, t, hint_r, budget, &tries);
    return ok;
}

int ts_modulo_greedy_clustered(const ts_placement *p, const ts_mplan *mp, long P, const int *order,
                               const long *cap, long *t, long *hint_r, const ts_budget *budget)
{
    int nb = p->nblocks;
    if (P > TS_CLUSTER_MAX_PERIOD || !ts_greedy_start(p, P, hint_r))
        return 0;
    int multi[TS_CLUSTER_MAX_MULTI], m = 0;
    for (int i = 0; i < nb; i++)
        if (p->blocks[order[i]].ndevices > 1) {
            if (m == TS_CLUSTER_MAX_MULTI)
                return 0;
            multi[m++] = order[i];
        }
    /* Every split (bit 0 clear: the first block opens the first cluster at residue 0, which
     * breaks the rotation; mask 0 is one cluster) and every opening of the second cluster. */
    long ntry = 0, nall = (1L << (m > 0 ? m - 1 : 0)) * P;
    ts_keyed_try *all = malloc((size_t)nall * sizeof *all);
    ts_keyed_try *near = malloc((size_t)nall * sizeof *near);
    int *grouped = malloc((size_t)nb * sizeof(int));
    ts_packing w;
    if (!all || !near || !grouped || !ts_packing_init(&w, p, P)) {
        free(all);
        free(near);
        free(grouped);
        return 0;
    }
    for (unsigned mask = 0; mask < (1u << m); mask += 2)
        for (long g = mask ? 1 : 0; g < (mask ? P : 1); g++) {
            all[ntry].x = (ts_cluster_try){mask, g, 0};
            all[ntry].key = ts_try_key(&all[ntry].x, m, P);
            ntry++;
        }
    qsort(all, (size_t)ntry, sizeof *all, ts_cmp_keyed);
    /* Chain order interleaves the micro-batches of a fold; grouped places one micro-batch
     * after the other. Each wins somewhere: nnshape's 2-fold fits 17 steps at 8 devices only
     * in chain order, 18 at 16 devices only grouped. */
    int ok = ts_clustered_pass(&w, mp, order, multi, m, all, ntry, near, cap, t, hint_r, budget);
    if (!ok && ts_component_order(p, order, grouped) > 1)
        ok = ts_clustered_pass(&w, mp, grouped, multi, m, all, ntry, near, cap, t, hint_r, budget);
    free(all);
    free(near);
    free(grouped);
    ts_packing_free(&w);
    return ok;
}

int ts_modulo_greedy(const ts_placement *p, const ts_mplan *mp, long P, const int *order,
                     const long *cap, long *t, long *hint_r, const ts_budget *budget)
{
    int nb = p->nblocks;
    if (!ts_greedy_start(p, P, hint_r))
        return 0;
    char *busy = calloc((size_t)p->ndevs * (size_t)P, 1);
    char *placed = calloc((size_t)nb, 1);
    int *ioff = NULL, *iedge = NULL;
    bool edges_ok = ts_in_edges(p, &ioff, &iedge);
    int ok = 0;
    if (!busy || !placed || !edges_ok)
        goto done;
    ok = 1;
    for (int i = 0; i < nb && ok; i++) {
        int b = order[i];
        long est = ts_placed_est(p, ioff, iedge, placed, t, P, b);
        ok = ts_place_first_free(p, b, est, P, busy, placed, NULL, t, hint_r, budget, 0);
    }
    if (ok) {
        ts_err e = {0};
        ok = ts_modulo_verify(p, mp, P, t, cap, &e) == TS_OK;
    }
done:
    free(busy);
    free(placed);
    free(ioff);
    free(iedge);
    return ok;
}

int ts_modulo_sequential(const ts_placement *p, const ts_mplan *mp, long P, const int *order,
                         const long *cap, long *t)
{
    int nb = p->nblocks;
    char *placed = calloc((size_t)nb ? (size_t)nb : 1, 1);
    int *ioff = NULL, *iedge = NULL;
    bool edges_ok = ts_in_edges(p, &ioff, &iedge);
    int ok = 0;
    if (placed && edges_ok) {
        /* One block after the other in chain order, each no earlier than its placed inputs:
         * the arcs never overlap while the whole micro-batch fits in one period. */
        long cursor = 0;
        for (int i = 0; i < nb; i++) {
            int b = order[i];
            long est = ts_placed_est(p, ioff, iedge, placed, t, P, b);
            t[b] = est > cursor ? est : cursor;
            cursor = t[b] + p->blocks[b].span;
            placed[b] = 1;
        }
        ts_err e = {0};
        ok = cursor <= P && ts_modulo_verify(p, mp, P, t, cap, &e) == TS_OK;
    }
    free(placed);
    free(ioff);
    free(iedge);
    return ok;
}
