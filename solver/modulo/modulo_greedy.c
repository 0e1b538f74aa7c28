/* Constructed modulo timetables (iterative modulo scheduling without backtracking): each block,
 * in the order given, starts as early as its placed predecessors allow at a time whose arc is
 * free on every device it occupies. Two variants:
 *   ts_modulo_greedy         plain, in chain order;
 *   ts_modulo_greedy_packed  the blocks on several devices first get consecutive residues (so
 *                            every device keeps one long free arc), and a single-device block
 *                            takes a residue only where the rest of its device still packs.
 *                            Without the look-ahead, nnshape at 4 devices fragments device 3 and
 *                            kshape at 32 devices leaves no common residue for M.
 * Cheap (milliseconds at 32 devices); for the paper's placements the packed variant is already
 * the answer at the smallest feasible period, and otherwise its residues seed the solver. */
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

/* Whether the single-device blocks still to place on device d fit the free arcs of its circle
 * (first-fit decreasing: a quick sufficient test, so it may refuse a packable state). skip is
 * a block to count as placed. */
static bool ts_fits_rest(const ts_placement *p, const char *busy, long P, int d, const char *placed,
                         int skip, long *runs, long *spans)
{
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
    for (int b = 0; b < p->nblocks; b++)
        if (!placed[b] && b != skip && p->blocks[b].ndevices == 1 && p->blocks[b].devices[0] == d)
            spans[ns++] = p->blocks[b].span;
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
 * when runs is given (the packed variant), still leaves room for the rest of its device. */
static int ts_place_first_free(const ts_placement *p, int b, long est, long P, char *busy,
                               char *placed, long *runs, long *spans, long *t, long *hint_r,
                               const ts_budget *budget)
{
    const ts_block *blk = &p->blocks[b];
    for (long s = est; s < est + P; s++) {
        if (ts_greedy_over(budget, s - est + 1))
            return 0;
        long r = s - ts_mod_floordiv(s, P) * P;
        if (!ts_arc_free(blk, busy, P, r))
            continue;
        ts_mark(blk, busy, P, r);
        if (runs && !ts_fits_rest(p, busy, P, blk->devices[0], placed, b, runs, spans)) {
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

int ts_modulo_greedy_packed(const ts_placement *p, const ts_mplan *mp, long P, const int *order,
                            const long *cap, long *t, long *hint_r, const ts_budget *budget)
{
    int nb = p->nblocks;
    if (hint_r)
        for (int b = 0; b < nb; b++)
            hint_r[b] = -1;
    if ((long)p->ndevs * P > TS_GREEDY_MAX_CELLS || nb == 0)
        return 0;
    char *busy = calloc((size_t)p->ndevs * (size_t)P, 1);
    char *placed = calloc((size_t)nb, 1);
    long *res = malloc((size_t)nb * sizeof(long));
    int *ioff = NULL, *iedge = NULL;
    bool edges_ok = ts_in_edges(p, &ioff, &iedge);
    long *runs = malloc((size_t)(P + 1) * sizeof(long));
    long *spans = malloc((size_t)nb * sizeof(long));
    int ok = 0;
    if (!busy || !placed || !res || !edges_ok || !runs || !spans)
        goto done;
    /* Phase 1: blocks on several devices get consecutive residues, in chain order, so that
     * every device keeps one long free arc for its own blocks. */
    long next = 0;
    for (int i = 0; i < nb; i++) {
        int b = order[i];
        const ts_block *blk = &p->blocks[b];
        res[b] = -1;
        if (blk->ndevices == 1)
            continue;
        for (long k = 0; k < P; k++) {
            if (ts_greedy_over(budget, k + 1))
                goto done;
            long r = (next + k) % P;
            if (!ts_arc_free(blk, busy, P, r))
                continue;
            ts_mark(blk, busy, P, r);
            bool fits = true;
            for (int j = 0; j < blk->ndevices && fits; j++)
                fits = ts_fits_rest(p, busy, P, blk->devices[j], placed, -1, runs, spans);
            if (!fits) {
                ts_unmark(blk, busy, P, r);
                continue;
            }
            res[b] = r;
            next = r + blk->span;
            break;
        }
        if (res[b] < 0)
            goto done;
    }
    /* Phase 2: chain order; each block at the earliest start its placed predecessors allow that
     * (multi-device) has its reserved residue or (single-device) leaves room for the rest of
     * its device. */
    ok = 1;
    for (int i = 0; i < nb && ok; i++) {
        int b = order[i];
        const ts_block *blk = &p->blocks[b];
        long est = ts_placed_est(p, ioff, iedge, placed, t, P, b);
        ok = 0;
        if (blk->ndevices > 1) {
            long r0 = est - ts_mod_floordiv(est, P) * P;
            t[b] = est + ((res[b] - r0) % P + P) % P;
            placed[b] = 1;
            ok = 1;
            if (hint_r)
                hint_r[b] = res[b];
            continue;
        }
        ok = ts_place_first_free(p, b, est, P, busy, placed, runs, spans, t, hint_r, budget);
    }
    if (ok) {
        ts_err e = {0};
        ok = ts_modulo_verify(p, mp, P, t, cap, &e) == TS_OK;
    }
done:
    free(busy);
    free(placed);
    free(res);
    free(ioff);
    free(iedge);
    free(runs);
    free(spans);
    return ok;
}

int ts_modulo_greedy(const ts_placement *p, const ts_mplan *mp, long P, const int *order,
                     const long *cap, long *t, long *hint_r, const ts_budget *budget)
{
    int nb = p->nblocks;
    if (hint_r)
        for (int b = 0; b < nb; b++)
            hint_r[b] = -1;
    if ((long)p->ndevs * P > TS_GREEDY_MAX_CELLS || nb == 0)
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
        ok = ts_place_first_free(p, b, est, P, busy, placed, NULL, NULL, t, hint_r, budget);
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
