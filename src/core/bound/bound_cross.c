/* The cross term of the lower bound: windows of two devices that keep each other apart.
 *
 * Windows, their kinds and conflicts are bound_exclusive.c's: a window of kind X on device d is
 * the time interval [start (a_X, m), end (f_X, m)), and two kinds of one device in conflict
 * have no two windows (of two micro-batches or, for two kinds, of one) that overlap.
 *
 * Take X on d and Z on e != d, each in conflict with itself, so the N windows of X are disjoint
 * and so are the N of Z. Suppose a kind Y of e nests in X (a_X reaches a_Y, f_Y reaches f_X) and
 * conflicts with Z, and a kind W of d nests in Z and conflicts with X. Then window X_m holds the
 * core C_m = Y_m, lambda' >= lambda = L(a_X, a_Y) after its start and rho' >= rho =
 * L(f_Y, f_X) + span(f_X) - span(f_Y) before its end, and no Z window meets C_m; likewise Z_m
 * holds D_m = W_m (mu after its start, nu before its end), which no X window meets.
 *
 * A Z window that meets X_m lies wholly before C_m or wholly after it; it cannot lie inside X_m,
 * since its own core D would then meet X_m. So it covers X_m's start or its end, and two Z
 * windows cannot cover the same end (the later one would lie inside X_m). If it covers the start
 * of X_m, its core D lies before X_m, and the overlap is at most min(lambda', nu'); at the end,
 * min(rho', mu'). Every point lies in at most one X and one Z window and no window holds
 * another, so the overlaps form a forest on the 2N windows: at most 2N - 1 of them, at most N
 * at X's starts and at most N at X's ends.
 *
 * Stretching: X_m is at least w_X long and at least lambda' + w_Y + rho'. With the slack
 * s_X = max(0, w_X - (lambda + w_Y + rho)), the parts lambda' - lambda and rho' - rho beyond s_X
 * each lengthen X_m by as much, so with lambda* = lambda + s_X and rho* = rho + s_X,
 *     overlap at the start <= min(lambda*, nu*) + what X_m or Z_m is longer than its least,
 * where that excess is spent on one side of one window only. The union of the windows then
 * measures at least N (w_X + w_Z) - N max(c1, c2) - (N - 1) min(c1, c2), with
 * c1 = min(lambda*, nu*) and c2 = min(rho*, mu*), and lies after the earliest start of a_X or a_Z
 * and before the last tail of f_X or f_Z:
 *     makespan >= min(est a_X, est a_Z) + that + min(tail f_X, tail f_Z).
 *
 * Example (xshape, 4 devices, capacity 1): X = (Fa0, Ba0) on device 0, 16 long, nests device 3's
 * (Fa3, Ba3) 3 after its start and 9 before its end; Z = (Fb3, Bb3) on device 3 nests device 0's
 * (Fb0, Bb0) likewise. c1 = c2 = 3: at N = 4, 4 * 32 - 4 * 3 - 3 * 3 = 107, the optimum, where
 * each device alone gives 84. */
#include <limits.h>
#include <stdlib.h>
#include "bound_internal.h"

/* Placements larger than this are skipped (the term is quadratic in the blocks). */
#define TS_BOUND_CROSS_MAX_BLOCKS 512
/* Core pairs (Y, W) examined per bound, counted so that the answer never depends on time. */
#define TS_BOUND_CROSS_WORK 4000000L

/* Y of e nested in X of d: lambda* and rho*, or lam < 0 when Y does not nest in X. */
typedef struct {
    long lam, rho;
} ts_nest;

typedef struct {
    ts_mctx *c;
    ts_xdev *dev;
    const long *est, *tail;
    int n;
    long *pdist; /* nb x nb: the longest start-to-start path (LONG_MIN: none) */
    long work;
} ts_cctx;

static int ts_c_block(const ts_xdev *x, int kind, bool f)
{
    return x->on[f ? x->kind[kind].f : x->kind[kind].a];
}

/* How kind y of device e nests in kind x of device d. */
static ts_nest ts_c_nest(const ts_cctx *c, const ts_xdev *d, int x, const ts_xdev *e, int y)
{
    ts_nest r = {-1, -1};
    int ax = ts_c_block(d, x, false), fx = ts_c_block(d, x, true);
    int ay = ts_c_block(e, y, false), fy = ts_c_block(e, y, true);
    if (!ts_reaches(c->c, ax, ay) || !ts_reaches(c->c, fy, fx))
        return r;
    const ts_block *B = c->c->p->blocks;
    long nb = c->c->nb;
    long lam = c->pdist[ax * nb + ay];
    long rho = c->pdist[fy * nb + fx] + B[fx].span - B[fy].span;
    long slack = d->kind[x].w - (lam + e->kind[y].w + rho);
    if (slack < 0)
        slack = 0;
    r.lam = lam + slack;
    r.rho = rho + slack;
    return r;
}

static long ts_c_min(long a, long b)
{
    return a < b ? a : b;
}

/* The least overlap charge N max(c1, c2) + (N - 1) min(c1, c2) over the cores of X (on d) and
 * Z (on e): LONG_MAX when either has none, or the work ran out. */
static long ts_c_charge(ts_cctx *c, const ts_xdev *d, int x, const ts_xdev *e, int z, ts_nest *ny,
                        ts_nest *nw)
{
    long best = LONG_MAX;
    int nkd = d->nkind, nke = e->nkind;
    for (int y = 0; y < nke; y++) {
        ny[y].lam = -1;
        if (y != z && e->conflict[(size_t)z * nke + y])
            ny[y] = ts_c_nest(c, d, x, e, y);
    }
    for (int w = 0; w < nkd; w++) {
        nw[w].lam = -1;
        if (w != x && d->conflict[(size_t)x * nkd + w])
            nw[w] = ts_c_nest(c, e, z, d, w);
    }
    for (int y = 0; y < nke; y++) {
        if (ny[y].lam < 0)
            continue;
        for (int w = 0; w < nkd; w++) {
            if (nw[w].lam < 0)
                continue;
            if (--c->work < 0)
                return best;
            /* X's start meets Z's end (lambda, nu); X's end meets Z's start (rho, mu) */
            long c1 = ts_c_min(ny[y].lam, nw[w].rho), c2 = ts_c_min(ny[y].rho, nw[w].lam);
            long hi = c1 > c2 ? c1 : c2, lo = c1 > c2 ? c2 : c1;
            long v = (long)c->n * hi + (long)(c->n - 1) * lo;
            if (v < best)
                best = v;
        }
    }
    return best;
}

/* The best value over the kinds of devices d and e; -1 when none bounds anything, -2 on
 * allocation failure. */
static long ts_c_pair(ts_cctx *c, const ts_xdev *d, const ts_xdev *e)
{
    ts_nest *ny = malloc(((size_t)e->nkind + 1) * sizeof *ny);
    ts_nest *nw = malloc(((size_t)d->nkind + 1) * sizeof *nw);
    long best = -1;
    if (!ny || !nw) {
        best = -2;
        goto out;
    }
    for (int x = 0; x < d->nkind; x++) {
        if (!d->conflict[(size_t)x * d->nkind + x])
            continue;
        int ax = ts_c_block(d, x, false), fx = ts_c_block(d, x, true);
        for (int z = 0; z < e->nkind && c->work > 0; z++) {
            if (!e->conflict[(size_t)z * e->nkind + z])
                continue;
            int az = ts_c_block(e, z, false), fz = ts_c_block(e, z, true);
            long head = ts_c_min(c->est[ax], c->est[az]), tl = ts_c_min(c->tail[fx], c->tail[fz]);
            long most = head + (long)c->n * (d->kind[x].w + e->kind[z].w) + tl;
            /* without overlap it could not beat what is found */
            if (most <= best)
                continue;
            long charge = ts_c_charge(c, d, x, e, z, ny, nw);
            if (charge != LONG_MAX && most - charge > best)
                best = most - charge;
        }
    }
out:
    free(ny);
    free(nw);
    return best;
}

/* Every device's windows, then every pair of devices. */
static int ts_c_run(ts_cctx *c, ts_devblocks *db, const long *cap, long *budget, char *in,
                    long *out, int *dev)
{
    const ts_placement *p = c->c->p;
    int nd = p->ndevs, nb = c->c->nb, rc = -1;
    for (int d = 0; d < nd; d++) {
        int non = db->off[d + 1] - db->off[d];
        c->dev[d] = (ts_xdev){.c = c->c,
                              .on = db->list + db->off[d],
                              .non = non > TS_BOUND_MEM_MAX_ON_DEVICE ? 0 : non,
                              .n = c->n,
                              .cap = cap[d],
                              .budget = budget,
                              .in = in};
        if (ts_xdev_windows(&c->dev[d]))
            goto out;
    }
    /* The pairs need two devices with a window kind; without them, skip the quadratic paths. */
    int with_kinds = 0;
    for (int d = 0; d < nd; d++)
        with_kinds += c->dev[d].nkind > 0;
    if (with_kinds < 2) {
        rc = 0;
        goto out;
    }
    for (int b = 0; b < nb; b++) {
        ts_mctx_dist(c->c, b);
        for (int k = 0; k < nb; k++)
            c->pdist[(size_t)b * nb + k] = c->c->dist[k];
    }
    for (int d = 0; d < nd && c->work > 0; d++)
        for (int e = d + 1; e < nd && c->work > 0; e++) {
            if (c->dev[d].nkind == 0 || c->dev[e].nkind == 0)
                continue;
            long v = ts_c_pair(c, &c->dev[d], &c->dev[e]);
            if (v == -2)
                goto out;
            if (v > *out) {
                *out = v;
                *dev = d;
            }
        }
    rc = 0;
out:
    for (int d = 0; d < nd; d++)
        ts_xdev_free(&c->dev[d]);
    return rc;
}

int ts_bound_cross_term(const ts_placement *p, int n, const long *cap, const long *est,
                        const long *tail, long *out, int *dev)
{
    *out = -1;
    *dev = -1;
    if (p->nblocks > TS_BOUND_CROSS_MAX_BLOCKS || p->ndevs < 2)
        return 0;
    size_t nb = (size_t)p->nblocks;
    ts_mctx mc = {0};
    ts_devblocks db = {0};
    ts_cctx c = {.c = &mc, .est = est, .tail = tail, .n = n, .work = TS_BOUND_CROSS_WORK};
    long *budget = malloc(nb * sizeof(long) + 1);
    char *in = malloc(nb + 1);
    c.pdist = malloc(nb * nb * sizeof(long) + 1);
    c.dev = calloc((size_t)p->ndevs, sizeof *c.dev);
    int rc = -1;
    if (!budget || !in || !c.pdist || !c.dev || ts_mctx_make(&mc, p) ||
        ts_devblocks_make(p, mc.topo, &db))
        goto out;
    rc = ts_c_run(&c, &db, cap, budget, in, out, dev);
out:
    ts_devblocks_free(&db);
    free(budget);
    free(in);
    free(c.pdist);
    free(c.dev);
    ts_mctx_free(&mc);
    return rc;
}
