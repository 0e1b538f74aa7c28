/* The barrier-wave construction (ts_bwave.h).
 *
 * Where memory sets the pace (nnshape on 128 devices at memory 40 needs about 17 steps a
 * micro-batch against a load of 8), a device is mostly idle and the steps are lost where the
 * chains of different micro-batches meet: a device busy with one when another arrives, and a
 * barrier that must wait until no device is inside a block. In gap time (the barrier steps cut
 * out) a chain that never waits is a wave at fixed speed; classes of micro-batches that start a
 * multiple of a grain g apart can cross without meeting on any device, and the points where no
 * block is running then repeat, so each barrier finds one near its chain. The only waits are at
 * the barrier crossings, one per crossing for every class. The memory of a device is the number
 * of its windows (first block's start to second's) that cover a point of the circle of Q gap
 * steps; the first device of the V has the longest, and fixes the least Q / R worth trying. */
#include <stdlib.h>
#include <string.h>
#include "ts_bchain.h"
#include "ts_bwave.h"
#include "ts_construct_caps.h"

typedef struct {
    const ts_placement *p;
    const long *cap;
    ts_bchain ch;
    int nx; /* barrier crossings between single-device blocks */
    int wait[TS_BW_MAX_CROSS];
    long Q;
    int R;
    long tau[TS_BW_MAX_R]; /* gap-time start of each class */
    long *start; /* R x nblocks: gap-time starts (barriers: their point) */
    unsigned *occ; /* D x stride: the stamp of the try that holds a device's cell */
    long stride; /* the longest circle tried */
    unsigned *meet; /* stride: the stamp of the waits at which two classes this far apart meet */
    unsigned mstamp;
    unsigned *strad; /* Q: the stamp of the try where a block runs across the point */
    unsigned stamp;
    long *cover; /* Q + 1: windows per point, as differences */
    long work_left;
} ts_bw;

static long ts_bw_mod(long a, long m)
{
    long r = a % m;
    return r < 0 ? r + m : r;
}

static long ts_bw_floordiv(long a, long m)
{
    return (a - ts_bw_mod(a, m)) / m;
}

static int ts_bw_span(const ts_bw *b, int blk)
{
    return b->p->blocks[blk].span;
}

/* Gap-time starts of class c's single-device blocks: no waiting, but wait[j] at crossing j. */
static void ts_bw_chain(ts_bw *b, int c)
{
    long *st = b->start + (long)c * b->p->nblocks, t = b->tau[c];
    int D = b->ch.D, j = 0;
    for (int i = 0; i < 2 * D; i++) {
        if (i) {
            t += ts_bw_span(b, b->ch.work[i - 1]);
            if (b->ch.cross[i - 1])
                t += b->wait[j++];
        }
        st[b->ch.work[i]] = t;
    }
}

/* Marks class c's cells; false when one is taken (or the work bound is spent). */
static bool ts_bw_cells(ts_bw *b, int c)
{
    const long *st = b->start + (long)c * b->p->nblocks;
    for (int i = 0; i < 2 * b->ch.D; i++) {
        int blk = b->ch.work[i], span = ts_bw_span(b, blk);
        long row = (long)b->p->blocks[blk].devices[0] * b->stride;
        b->work_left -= span;
        for (int k = 0; k < span; k++) {
            long x = ts_bw_mod(st[blk] + k, b->Q);
            if (b->occ[row + x] == b->stamp)
                return false;
            b->occ[row + x] = b->stamp;
            if (k)
                b->strad[x] = b->stamp;
        }
    }
    return b->work_left >= 0;
}

/* Each barrier of class c at the first point after its input where no block runs across (the
 * last before its output, ahead of the first block); false when its crossing holds none. */
static bool ts_bw_barriers(ts_bw *b, int c)
{
    long *st = b->start + (long)c * b->p->nblocks;
    const int *chain = b->ch.chain;
    int nb = b->p->nblocks;
    long prev_end = 0;
    bool have_prev = false;
    for (int i = 0; i < nb; i++) {
        int x = chain[i];
        if (b->p->blocks[x].ndevices == 1) {
            prev_end = st[x] + ts_bw_span(b, x);
            have_prev = true;
            continue;
        }
        long next = -1;
        for (int j = i + 1; j < nb && next < 0; j++)
            if (b->p->blocks[chain[j]].ndevices == 1)
                next = st[chain[j]];
        long lo = have_prev ? prev_end : next - b->Q, hi = next >= 0 ? next : prev_end + b->Q;
        long pt = have_prev ? lo : hi;
        while (pt >= lo && pt <= hi && b->strad[ts_bw_mod(pt, b->Q)] == b->stamp)
            pt += have_prev ? 1 : -1;
        if (pt < lo || pt > hi)
            return false;
        st[x] = pt;
    }
    return true;
}

/* Every device's windows within its capacity. */
static bool ts_bw_memory(ts_bw *b)
{
    int D = b->ch.D, nb = b->p->nblocks;
    for (int k = 0; k < D; k++) {
        const ts_block *f = &b->p->blocks[b->ch.work[k]];
        int s = b->ch.work[2 * D - 1 - k];
        long cap = b->cap ? b->cap[f->devices[0]] : -1;
        if (cap < 0 || f->memory == 0)
            continue;
        long base = 0;
        memset(b->cover, 0, (size_t)(b->Q + 1) * sizeof(long));
        for (int c = 0; c < b->R; c++) {
            const long *st = b->start + (long)c * nb;
            long w = st[s] - st[b->ch.work[k]], from = ts_bw_mod(st[b->ch.work[k]], b->Q);
            long arc = w % b->Q;
            base += w / b->Q;
            b->cover[from]++;
            if (from + arc <= b->Q)
                b->cover[from + arc]--;
            else {
                b->cover[b->Q]--;
                b->cover[0]++;
                b->cover[from + arc - b->Q]--;
            }
        }
        long run = 0, most = 0;
        for (long x = 0; x < b->Q; x++) {
            run += b->cover[x];
            most = run > most ? run : most;
        }
        b->work_left -= b->Q + b->R;
        if ((base + most) * f->memory > cap)
            return false;
    }
    return true;
}

/* The try at (Q, R, tau, wait): true when it fits. */
static bool ts_bw_try(ts_bw *b)
{
    if (++b->stamp == 0) {
        memset(b->occ, 0, (size_t)b->ch.D * (size_t)b->stride * sizeof *b->occ);
        memset(b->strad, 0, (size_t)b->stride * sizeof *b->strad);
        b->stamp = 1;
    }
    for (int c = 0; c < b->R; c++) {
        ts_bw_chain(b, c);
        if (!ts_bw_cells(b, c))
            return false;
    }
    for (int c = 0; c < b->R; c++)
        if (!ts_bw_barriers(b, c))
            return false;
    return ts_bw_memory(b);
}

/* The top device's window without waits: the spans from its first block to its second. */
static long ts_bw_top_window(const ts_bw *b)
{
    long t = 0;
    for (int i = 0; i + 1 < 2 * b->ch.D; i++)
        t += ts_bw_span(b, b->ch.work[i]);
    return t;
}

/* The offsets (mod Q) at which two classes meet on some device with these waits: the
 * differences of one class's cells per device. False when a class meets itself a period on. */
static bool ts_bw_meets(ts_bw *b)
{
    if (++b->mstamp == 0) {
        memset(b->meet, 0, (size_t)b->stride * sizeof *b->meet);
        b->mstamp = 1;
    }
    long keep = b->tau[0];
    b->tau[0] = 0;
    ts_bw_chain(b, 0);
    b->tau[0] = keep;
    const long *st = b->start;
    int D = b->ch.D;
    for (int k = 0; k < D; k++) {
        int u = b->ch.work[k], v = b->ch.work[2 * D - 1 - k];
        int su = ts_bw_span(b, u), sv = ts_bw_span(b, v);
        b->work_left -= (long)(su + sv) * (su + sv);
        for (int i = 0; i < su + sv; i++)
            for (int j = 0; j < su + sv; j++) {
                long xi = i < su ? st[u] + i : st[v] + i - su;
                long xj = j < su ? st[u] + j : st[v] + j - su;
                long d = ts_bw_mod(xi - xj, b->Q);
                if (i != j && d == 0)
                    return false;
                b->meet[d] = b->mstamp;
            }
    }
    return true;
}

/* Classes R at grain g (as even as the grain allows): true when no two meet. */
static bool ts_bw_apart(ts_bw *b, int g)
{
    long M = b->Q / g;
    for (int c = 0; c < b->R; c++)
        b->tau[c] = g * ((c * M) / b->R);
    b->work_left -= (long)b->R * b->R;
    for (int c = 0; c < b->R; c++)
        for (int d = c + 1; d < b->R; d++)
            if (b->meet[ts_bw_mod(b->tau[d] - b->tau[c], b->Q)] == b->mstamp)
                return false;
    return true;
}

/* Waits at crossings j.. with `slack` left to share, then the grains: true when a try fits. */
static bool ts_bw_waits(ts_bw *b, int j, long slack)
{
    if (j == b->nx) {
        b->work_left -= b->Q;
        if (!ts_bw_meets(b))
            return false;
        for (int g = 1; g <= TS_BW_MAX_GRAIN && (long)g * b->R <= b->Q; g++)
            if (b->Q % g == 0 && ts_bw_apart(b, g) && ts_bw_try(b))
                return true;
        return false;
    }
    for (int w = 0; w <= TS_BW_MAX_WAIT && w <= slack && j < TS_BW_MAX_CROSS && b->work_left >= 0;
         w++) {
        b->wait[j] = w;
        if (ts_bw_waits(b, j + 1, slack - w))
            return true;
    }
    return false;
}

/* (Q, R) fits with some waits and grain: 1, 0 not, -1 work bound. The waits together may not
 * push the top device's average count of windows past its capacity. */
static int ts_bw_pair(ts_bw *b, long Q, int R, long w0)
{
    const ts_block *top = &b->p->blocks[b->ch.work[0]];
    long cap = b->cap ? b->cap[top->devices[0]] : -1;
    long slack = TS_BW_MAX_WAIT * TS_BW_MAX_CROSS;
    if (cap >= 0 && top->memory > 0)
        slack = (cap / top->memory) * Q / R - w0;
    if (slack < 0)
        return 0;
    b->Q = Q;
    b->R = R;
    if (ts_bw_waits(b, 0, slack))
        return 1;
    return b->work_left < 0 ? -1 : 0;
}

typedef struct {
    long Q;
    int R;
} ts_bw_rate;

static int ts_bw_rate_cmp(const void *x, const void *y)
{
    const ts_bw_rate *a = x, *b = y;
    long l = a->Q * b->R, r = b->Q * a->R;
    if (l != r)
        return l < r ? -1 : 1;
    return a->R - b->R;
}

/* The least per-class gap time: the load of the busiest device, and what the top device's
 * memory needs for a window without waits. */
static double ts_bw_least(const ts_bw *b, long w0)
{
    double q = 0;
    for (int k = 0; k < b->ch.D; k++) {
        const ts_block *f = &b->p->blocks[b->ch.work[k]];
        double load = f->span + ts_bw_span(b, b->ch.work[2 * b->ch.D - 1 - k]);
        q = load > q ? load : q;
    }
    const ts_block *top = &b->p->blocks[b->ch.work[0]];
    long cap = b->cap ? b->cap[top->devices[0]] : -1;
    if (cap >= 0 && top->memory > 0) {
        long hold = cap / top->memory;
        if (hold < 1)
            return -1;
        q = (double)w0 / (double)hold > q ? (double)w0 / (double)hold : q;
    }
    return q;
}

/* 1: found (b->Q, R, tau, wait and start set), 0: none, -1: work bound, -2: out of memory. */
static int ts_bw_search(ts_bw *b)
{
    long w0 = ts_bw_top_window(b);
    double q = ts_bw_least(b, w0);
    if (q < 0)
        return 0;
    ts_bw_rate *v = malloc((size_t)TS_BW_MAX_R * TS_BW_MAX_Q * sizeof *v);
    if (!v)
        return -2;
    long nv = 0, maxq = 0;
    for (int R = 1; R <= TS_BW_MAX_R; R++) {
        long lo = (long)(q * R), hi = (long)(q * TS_BW_SPREAD * R) + 1;
        for (long Q = lo < 1 ? 1 : lo; Q <= hi && Q <= TS_BW_MAX_Q; Q++)
            if ((double)Q >= q * R) {
                v[nv].Q = Q;
                v[nv++].R = R;
                maxq = Q > maxq ? Q : maxq;
            }
    }
    qsort(v, (size_t)nv, sizeof *v, ts_bw_rate_cmp);
    int rc = -2;
    b->stride = maxq;
    b->occ = calloc((size_t)b->ch.D * (size_t)maxq, sizeof *b->occ);
    b->strad = calloc((size_t)maxq, sizeof *b->strad);
    b->meet = calloc((size_t)maxq, sizeof *b->meet);
    b->cover = malloc((size_t)(maxq + 1) * sizeof *b->cover);
    if (!b->occ || !b->strad || !b->meet || !b->cover)
        goto out;
    rc = 0;
    for (long i = 0; i < nv && !rc; i++)
        rc = ts_bw_pair(b, v[i].Q, v[i].R, w0);
out:
    free(v);
    return rc;
}

/* Real steps: in every period the barrier steps sit at their points in the order (point,
 * class, place on the chain), and a gap step x comes after every barrier at a point <= x. */
static int ts_bw_emit(const ts_bw *b, int n, ts_schedule **out, ts_err *e)
{
    const ts_placement *p = b->p;
    int nb = p->nblocks, R = b->R;
    long Q = b->Q, G = 0;
    long *pre = calloc((size_t)Q + 1, sizeof(long)), *at = calloc((size_t)Q, sizeof(long));
    long *real = malloc((size_t)R * (size_t)nb * sizeof(long));
    int rc = TS_OK;
    if (!pre || !at || !real) {
        rc = ts_fail(e, TS_ESYS, "barrier waves: out of memory");
        goto out;
    }
    for (int c = 0; c < R; c++)
        for (int i = 0; i < nb; i++) {
            int x = b->ch.chain[i];
            if (p->blocks[x].ndevices != 1) {
                at[ts_bw_mod(b->start[(long)c * nb + x], Q)] += p->blocks[x].span;
                G += p->blocks[x].span;
            }
        }
    for (long x = 0; x < Q; x++)
        pre[x + 1] = pre[x] + at[x];
    /* barriers at one point: earlier classes first, then the chain's order */
    memset(at, 0, (size_t)Q * sizeof(long));
    for (int c = 0; c < R; c++)
        for (int i = 0; i < nb; i++) {
            int x = b->ch.chain[i];
            long t = b->start[(long)c * nb + x], r = ts_bw_mod(t, Q);
            long before = ts_bw_floordiv(t, Q) * G;
            if (p->blocks[x].ndevices == 1)
                real[(long)c * nb + x] = t + before + pre[r + 1];
            else {
                real[(long)c * nb + x] = t + before + pre[r] + at[r];
                at[r] += p->blocks[x].span;
            }
        }
    rc = ts_bchain_unroll(p, b->cap, n, R, Q + G, real, "barrier waves", out, e);
out:
    free(pre);
    free(at);
    free(real);
    return rc;
}

int ts_bwave_schedule(const ts_placement *p, int n, const long *cap, ts_schedule **out, ts_err *e)
{
    *out = NULL;
    if (n < 1 || p->nblocks < 1)
        return ts_fail(e, TS_EINPUT, "barrier waves: nothing to schedule");
    ts_bw b = {.p = p, .cap = cap, .work_left = TS_BW_MAX_WORK};
    char why[160] = "";
    int rc = TS_OK;
    if (ts_bchain_read(p, &b.ch, why, sizeof why)) {
        rc = ts_fail(e, why[0] ? TS_EINPUT : TS_ESYS, "barrier waves: '%s' is not a barrier V (%s)",
                     p->name, why[0] ? why : "out of memory");
        goto out;
    }
    for (int i = 0; i + 1 < 2 * b.ch.D; i++)
        b.nx += b.ch.cross[i];
    if (b.nx > TS_BW_MAX_CROSS) {
        rc = ts_fail(e, TS_EINPUT, "barrier waves: '%s' has %d barrier crossings (at most %d)",
                     p->name, b.nx, TS_BW_MAX_CROSS);
        goto out;
    }
    b.start = malloc((size_t)TS_BW_MAX_R * (size_t)p->nblocks * sizeof(long));
    int r = b.start ? ts_bw_search(&b) : -2;
    if (r == 1)
        rc = ts_bw_emit(&b, n, out, e);
    else if (r == -2)
        rc = ts_fail(e, TS_ESYS, "barrier waves: out of memory");
    else
        rc = ts_fail(e, TS_ENOANSWER,
                     r < 0 ? "barrier waves: the search's work bound cut it"
                           : "barrier waves: no period fits the memory");
out:
    ts_bchain_free(&b.ch);
    free(b.start);
    free(b.occ);
    free(b.strad);
    free(b.meet);
    free(b.cover);
    return rc;
}
