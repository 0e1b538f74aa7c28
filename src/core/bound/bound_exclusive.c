/* The exclusive-windows term of the lower bound: windows of micro-batches on one device that the
 * capacity keeps from overlapping, laid end to end.
 *
 * Memory is the running sum of the memory of the blocks a device has started, in its order
 * (what ts_schedule_validate checks after each block). A window (a, f) of micro-batch m on device
 * d is the stretch of d's order from (a, m), included, to (f, m), excluded, where a allocates, f
 * (memory <= 0, so never the same block as an a) depends on a, and both run on d. In it m holds
 * at least h(a, f): what a and its ancestors on d allocate, plus the least the blocks in between
 * can hold (ts_hold_min). Every micro-batch holds at least hold_min at any point of d's order.
 *
 * Two windows of different micro-batches that are both open hold h1 + h2, the N - 2 others at
 * least hold_min each, so when h1 + h2 + (N - 2) hold_min > capacity they cannot share a point of
 * d's order. Two windows of one micro-batch both open hold at least the least of one micro-batch
 * with both a's started and neither f (or cannot both be open when an f precedes an a), plus
 * (N - 1) hold_min. Windows are intervals of time, [start of (a, m), start of (f, m)]; the next
 * one on d opens with an a that follows the f that closed the previous one in d's order, so it
 * waits for that f to end. Hence two terms per device:
 *
 *  - clique: a set K of window kinds, every two (a kind with itself included) unable to share a
 *    point. Then all N |K| windows lie one after another, each followed by its f:
 *        makespan >= min_K est(a) + N * sum_K (L(a, f) + span(f)) + min_K tail(f),
 *    with L the longest start-to-start path from a to f. K is grown greedily from every seed
 *    (any such set is sound; the greedy one need not be the best).
 *
 *  - chain: one kind unable to share a point with itself. Order its windows by their a:
 *    m_1, ..., m_N, each closed before the next opens. At the point (a, m_{i+1}) is added, m_{i+1}
 *    holds h, so m_i holds at most tau = capacity - h - (N - 2) hold_min; m_i has started f and its
 *    ancestors, and only the freeing blocks it has also started lower what it holds. Such a block
 *    x that depends on f ran on d before (a, m_{i+1}): it ended no earlier than
 *    start(f, m_i) + L(f, x) + span(x). The least T for which f, its ancestors and every freeing
 *    block of d within T of f (and those not depending on f, at no cost) come to tau or below is
 *    a gap the two windows keep. Likewise, just before (f, m_i), m_i holds h and m_{i+1} at most
 *    tau; the blocks of m_{i+1} on d from then up to (a, m_{i+1}) allocate at least h - tau, all
 *    start after (f, m_i) ends, and each lags a by L(x, a) (an ancestor of a) or span(x) (any
 *    other block, which ends before a starts). With gap the larger of the two,
 *        makespan >= est(a) + N * L(a, f) + (N - 1) * gap + span(f) + tail(f).
 *
 * Only kinds unable to share a point with themselves serve either term, so only they are kept;
 * of those the longest TS_BOUND_EXCL_MAX_KINDS, fewer when kinds^2 x blocks^2 (the work of the
 * pairs) would pass TS_BOUND_EXCL_WORK on the device, and devices with more than
 * TS_BOUND_MEM_MAX_ON_DEVICE blocks are skipped (any subset of kinds is sound). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "bound_internal.h"

#define TS_BOUND_EXCL_MAX_KINDS 64
#define TS_BOUND_EXCL_WORK 500000L

/* The least one micro-batch holds on the device with kinds i and j (i == j: one) open: LONG_MAX
 * when they cannot be open at once. */
static long ts_x_hold(ts_xdev *x, int a1, int f1, int a2, int f2)
{
    const ts_block *B = x->c->p->blocks;
    long base = 0;
    for (int k = 0; k < x->non; k++) {
        int b = x->on[k], o = x->on[a1], p = x->on[a2], q = x->on[f1], r = x->on[f2];
        bool started = k == a1 || k == a2 || ts_reaches(x->c, b, o) || ts_reaches(x->c, b, p);
        bool not_started = k == f1 || k == f2 || ts_reaches(x->c, q, b) || ts_reaches(x->c, r, b);
        if (started && not_started)
            return LONG_MAX;
        x->in[k] = !started && !not_started;
        if (started)
            base += B[b].memory;
    }
    return base + ts_hold_min(x->c, x->on, x->non, x->in, x->budget);
}

static int ts_xkind_by_w(const void *p, const void *q)
{
    const ts_xkind *u = p, *v = q;
    if (u->w != v->w)
        return u->w > v->w ? -1 : 1;
    if (u->a != v->a)
        return u->a < v->a ? -1 : 1;
    return (u->f > v->f) - (u->f < v->f);
}

/* Every kind of the device that holds more than hold_min, the longest TS_BOUND_EXCL_MAX_KINDS
 * kept. Returns -1 on allocation failure. */
static int ts_x_kinds(ts_xdev *x)
{
    const ts_block *B = x->c->p->blocks;
    size_t most = (size_t)x->non * (size_t)x->non + 1;
    x->kind = malloc(most * sizeof *x->kind);
    if (!x->kind)
        return -1;
    x->nkind = 0;
    for (int i = 0; i < x->non; i++) {
        if (B[x->on[i]].memory <= 0)
            continue;
        ts_mctx_dist(x->c, x->on[i]);
        for (int k = 0; k < x->non; k++) {
            int f = x->on[k];
            if (B[f].memory > 0 || !ts_reaches(x->c, x->on[i], f))
                continue;
            long h = ts_x_hold(x, i, k, i, k);
            /* both terms use only kinds whose windows of two micro-batches cannot overlap */
            if (h == LONG_MAX || h <= x->hold_min ||
                (x->n >= 2 && 2 * h + (long)(x->n - 2) * x->hold_min <= x->cap))
                continue;
            long len = x->c->dist[f];
            x->kind[x->nkind++] = (ts_xkind){i, k, h, len, len + B[f].span};
        }
    }
    qsort(x->kind, (size_t)x->nkind, sizeof *x->kind, ts_xkind_by_w);
    if (x->nkind > TS_BOUND_EXCL_MAX_KINDS)
        x->nkind = TS_BOUND_EXCL_MAX_KINDS;
    /* the pairs cost kinds^2 x blocks^2: at most TS_BOUND_EXCL_WORK per device */
    while ((long)x->nkind * x->nkind * x->non * x->non > TS_BOUND_EXCL_WORK)
        x->nkind--;
    return 0;
}

/* conflict[i][j]: kinds i and j (i == j included) cannot share a point of the device's order,
 * neither in two micro-batches nor (i != j) in one. */
static int ts_x_conflicts(ts_xdev *x)
{
    int nk = x->nkind;
    x->conflict = malloc((size_t)nk * (size_t)nk + 1);
    if (!x->conflict)
        return -1;
    long others = (long)(x->n - 2) * x->hold_min, rest = (long)(x->n - 1) * x->hold_min;
    for (int i = 0; i < nk; i++)
        for (int j = i; j < nk; j++) {
            const ts_xkind *u = &x->kind[i], *v = &x->kind[j];
            bool two = x->n < 2 || u->h + v->h + others > x->cap;
            bool one = true;
            if (i != j) {
                long h = ts_x_hold(x, u->a, u->f, v->a, v->f);
                one = h == LONG_MAX || h + rest > x->cap;
            }
            x->conflict[(size_t)i * nk + j] = x->conflict[(size_t)j * nk + i] = two && one;
        }
    return 0;
}

/* The clique bound: from every seed, the kinds in order of length that conflict with all kept. */
static long ts_x_clique(const ts_xdev *x, const long *est, const long *tail, char *keep)
{
    int nk = x->nkind;
    long best = -1;
    for (int s = 0; s < nk; s++) {
        if (!x->conflict[(size_t)s * nk + s])
            continue;
        memset(keep, 0, (size_t)nk);
        keep[s] = 1;
        long sum = x->kind[s].w, head = est[x->on[x->kind[s].a]], tl = tail[x->on[x->kind[s].f]];
        for (int i = 0; i < nk; i++) {
            bool ok = i != s && x->conflict[(size_t)i * nk + i];
            for (int j = 0; j < nk && ok; j++)
                ok = !keep[j] || x->conflict[(size_t)i * nk + j];
            if (!ok)
                continue;
            keep[i] = 1;
            sum += x->kind[i].w;
            if (est[x->on[x->kind[i].a]] < head)
                head = est[x->on[x->kind[i].a]];
            if (tail[x->on[x->kind[i].f]] < tl)
                tl = tail[x->on[x->kind[i].f]];
        }
        long v = head + (long)x->n * sum + tl;
        if (v > best)
            best = v;
    }
    return best;
}

/* The chain's gap after (f, m_i): the least T at which f, its ancestors and the freeing blocks
 * within T of f (see the top) hold tau or less on the device; -1 when none does. */
static long ts_x_gap_release(ts_xdev *x, int fk, long tau)
{
    const ts_block *B = x->c->p->blocks;
    int f = x->on[fk];
    ts_mctx_dist(x->c, f);
    long forced = 0;
    for (int k = 0; k < x->non; k++)
        if (k == fk || ts_reaches(x->c, x->on[k], f))
            forced += B[x->on[k]].memory;
    /* candidate thresholds: span(f) and every freeing block's cost */
    long best = -1;
    for (int t = -1; t < x->non; t++) {
        int xt = t < 0 ? f : x->on[t];
        if (t >= 0 && (B[xt].memory >= 0 || !ts_reaches(x->c, f, xt)))
            continue;
        long T = t < 0 ? B[f].span : x->c->dist[xt] + B[xt].span, held = forced;
        for (int k = 0; k < x->non; k++) {
            int b = x->on[k];
            if (k == fk || B[b].memory >= 0 || ts_reaches(x->c, b, f))
                continue;
            if (!ts_reaches(x->c, f, b) || x->c->dist[b] + B[b].span <= T)
                held += B[b].memory;
        }
        if (held <= tau && (best < 0 || T < best))
            best = T;
    }
    return best;
}

/* The chain's gap before (a, m_{i+1}): span(f) plus the least T such that the blocks of the
 * device lagging a by at most T allocate h - tau or more; -1 when they never do. */
static long ts_x_gap_ramp(ts_xdev *x, int ak, int fk, long need)
{
    const ts_block *B = x->c->p->blocks;
    int a = x->on[ak];
    long best = -1;
    for (int t = 0; t < x->non; t++) {
        /* the lag of block t: 0 for a, L(t, a) for an ancestor, span for any other before a */
        int b = x->on[t];
        long T;
        if (B[b].memory <= 0 || (t != ak && ts_reaches(x->c, a, b)))
            continue;
        if (t == ak) {
            T = 0;
        } else if (ts_reaches(x->c, b, a)) {
            ts_mctx_dist(x->c, b);
            T = x->c->dist[a];
        } else {
            T = B[b].span;
        }
        x->budget[t] = T;
    }
    for (int t = 0; t < x->non; t++) {
        int b = x->on[t];
        if (B[b].memory <= 0 || (t != ak && ts_reaches(x->c, a, b)))
            continue;
        long T = x->budget[t], got = 0;
        for (int k = 0; k < x->non; k++) {
            int y = x->on[k];
            if (B[y].memory > 0 && (k == ak || !ts_reaches(x->c, a, y)) && x->budget[k] <= T)
                got += B[y].memory;
        }
        if (got >= need && (best < 0 || T < best))
            best = T;
    }
    return best < 0 ? -1 : B[x->on[fk]].span + best;
}

/* The chain bound of every kind that cannot share a point with itself. */
static long ts_x_chain(ts_xdev *x, const long *est, const long *tail)
{
    const ts_block *B = x->c->p->blocks;
    int nk = x->nkind;
    long best = -1;
    for (int i = 0; i < nk && x->n >= 2; i++) {
        const ts_xkind *u = &x->kind[i];
        if (!x->conflict[(size_t)i * nk + i])
            continue;
        long tau = x->cap - u->h - (long)(x->n - 2) * x->hold_min;
        long g1 = ts_x_gap_release(x, u->f, tau), g2 = ts_x_gap_ramp(x, u->a, u->f, u->h - tau);
        if (g1 < 0 || g2 < 0)
            continue; /* no schedule; other checks say so */
        long gap = g1 > g2 ? g1 : g2, sf = B[x->on[u->f]].span;
        if (gap < sf)
            gap = sf;
        long v = est[x->on[u->a]] + (long)x->n * u->len + (long)(x->n - 1) * gap + sf +
                 tail[x->on[u->f]];
        if (v > best)
            best = v;
    }
    return best;
}

int ts_xdev_windows(ts_xdev *x)
{
    x->kind = NULL;
    x->conflict = NULL;
    x->nkind = 0;
    if (x->cap <= 0 || x->non == 0)
        return 0;
    memset(x->in, 1, (size_t)x->non);
    x->hold_min = ts_hold_min(x->c, x->on, x->non, x->in, x->budget);
    return ts_x_kinds(x) || ts_x_conflicts(x) ? -1 : 0;
}

void ts_xdev_free(ts_xdev *x)
{
    free(x->kind);
    free(x->conflict);
    x->kind = NULL;
    x->conflict = NULL;
}

/* The term of one device (on[]: its blocks in topological order): -1 when it bounds nothing, -2
 * on allocation failure. */
static long ts_x_device(ts_xdev *x, const long *est, const long *tail)
{
    if (x->cap <= 0)
        return -1;
    if (ts_xdev_windows(x))
        return -2;
    char *keep = malloc((size_t)x->nkind + 1);
    if (!keep)
        return -2;
    long v = ts_x_clique(x, est, tail, keep), w = ts_x_chain(x, est, tail);
    free(keep);
    return v > w ? v : w;
}

/* ts_x_device on one device of ts_bound_mem_devices, with the kinds it makes freed. */
static long ts_x_term(const ts_mdev *m)
{
    /* A device without blocks has no windows (the memory term's area form still answers 0). */
    if (m->non == 0)
        return -1;
    ts_xdev x = {.c = m->c,
                 .on = m->on,
                 .non = m->non,
                 .n = m->n,
                 .cap = m->cap,
                 .budget = m->budget,
                 .in = m->in};
    long v = ts_x_device(&x, m->est, m->tail);
    ts_xdev_free(&x);
    return v;
}

int ts_bound_exclusive_term(const ts_placement *p, int n, const long *cap, const long *est,
                            const long *tail, long *out, int *dev)
{
    return ts_bound_mem_devices(p, n, cap, est, tail, ts_x_term, out, dev);
}
