/* The barrier-frame construction: a periodic schedule for a V chain with barriers (ts_bframe.h).
 *
 * A period of P steps for R micro-batches (classes c < R) opens with G = R x (barriers) barrier
 * steps, then a segment of L = P - G steps where each device runs the first and second blocks
 * of its pair for every class at offsets of its own (its pattern). Starting each block at the
 * first step of its offset after its input is best for every device's memory at once, so the
 * window of the device at position k of the V (from its first block's start to its second's,
 * which frees the memory) is a sum of hops to the neighbour k + 1 and of k + 1's window. The
 * pass goes from the bottom of the V (k = D - 1) to the top, keeping per pattern of position k
 * the Pareto set of window vectors that the memory of positions k..D-1 admits; the class is
 * empty at P exactly when a level empties. On nnshape at memory D + 2 it gives 2 micro-batches
 * per 18 steps at 16 and 32 devices, where the modulo constructions give 19 at 32. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_bchain.h"
#include "ts_bframe.h"
#include "ts_construct_caps.h"

typedef struct {
    int f[TS_BF_MAX_R], s[TS_BF_MAX_R]; /* segment offsets of the first and second blocks */
} ts_bf_pat;

typedef struct {
    int pat; /* pattern index at this level's position */
    int parent; /* entry of the level below (position k + 1); -1 at the bottom */
    long w[TS_BF_MAX_R]; /* windows per class */
} ts_bf_entry;

typedef struct {
    ts_bf_entry *v;
    long n, cap;
} ts_bf_level;

typedef struct {
    const ts_placement *p;
    const long *cap;
    int D;
    long barsteps; /* steps of one micro-batch's barriers */
    const int *chain, *work; /* borrowed from the ts_bchain (ts_bchain.h) */
    const bool *cross;
    int R;
    long P, G;
    ts_bf_pat **pats; /* per position */
    int *npats;
    long work_left;
    bool too_many; /* the last pattern enumeration overflowed */
    int skipped; /* periods left out for their pattern count */
} ts_bf;

static long ts_bf_mod(long a, long m)
{
    long r = a % m;
    return r < 0 ? r + m : r;
}

/* Start of the next block at segment offset off after one of `span` started at t, through a
 * barrier block when `cross` (the occurrences sit at [kP, kP + G)). */
static long ts_bf_hop(const ts_bf *b, long t, int span, bool cross, int off)
{
    t += span;
    if (cross) {
        long k = t >= 0 ? (t + b->P - 1) / b->P : -((-t) / b->P);
        t = k * b->P + b->G;
    }
    return t + ts_bf_mod(b->G + off - t, b->P);
}

static long ts_bf_rel(const ts_bf *b, int i, int off_u, int off_v)
{
    long t = b->G + off_u;
    return ts_bf_hop(b, t, b->p->blocks[b->work[i]].span, b->cross[i], off_v) - t;
}

typedef struct {
    ts_bf_pat *v;
    int n, cap;
    int R, L, span[2];
    int left[2 * TS_BF_MAX_R]; /* items still to place: kind (0 first, 1 second) x class */
    ts_bf_pat cur;
} ts_bf_enum;

static int ts_bf_enum_rec(ts_bf_enum *x, int pos, int nleft)
{
    if (!nleft) {
        if (x->n == x->cap)
            return -1;
        x->v[x->n++] = x->cur;
        return 0;
    }
    if (pos >= x->L)
        return 0;
    if (ts_bf_enum_rec(x, pos + 1, nleft))
        return -1;
    for (int i = 0; i < 2 * x->R; i++) {
        if (!x->left[i])
            continue;
        int kind = i / x->R, c = i % x->R, span = x->span[kind];
        if (pos + span > x->L)
            continue;
        (kind ? x->cur.s : x->cur.f)[c] = pos;
        x->left[i] = 0;
        int r = ts_bf_enum_rec(x, pos + span, nleft - 1);
        x->left[i] = 1;
        if (r)
            return -1;
    }
    return 0;
}

/* Every pattern of position k; -1 past TS_BF_MAX_PATTERNS or out of memory (the caller tells
 * them apart by b->too_many). */
static int ts_bf_patterns(ts_bf *b, int k)
{
    ts_bf_enum x = {.cap = TS_BF_MAX_PATTERNS, .R = b->R, .L = (int)(b->P - b->G)};
    x.span[0] = b->p->blocks[b->work[k]].span;
    x.span[1] = b->p->blocks[b->work[2 * b->D - 1 - k]].span;
    x.v = malloc(TS_BF_MAX_PATTERNS * sizeof *x.v);
    if (!x.v)
        return -1;
    for (int i = 0; i < 2 * b->R; i++)
        x.left[i] = 1;
    if (ts_bf_enum_rec(&x, 0, 2 * b->R)) {
        free(x.v);
        b->too_many = true;
        return -1;
    }
    b->pats[k] = x.v;
    b->npats[k] = x.n;
    return 0;
}

/* In flight on the device of position k at its fullest: class c holds w[c] / P micro-batches
 * all period, and one more on the arc of w[c] % P steps from its first block's offset; with
 * R <= 2 the fullest point adds the arcs that meet. */
static bool ts_bf_mem_ok(const ts_bf *b, int k, const ts_bf_pat *q, const long *w)
{
    const ts_block *f = &b->p->blocks[b->work[k]];
    long cap = b->cap ? b->cap[f->devices[0]] : -1;
    if (cap < 0 || f->memory == 0)
        return true;
    long cnt = 0, r[TS_BF_MAX_R];
    int arcs = 0;
    for (int c = 0; c < b->R; c++) {
        cnt += w[c] / b->P;
        r[c] = w[c] % b->P;
        arcs += r[c] > 0;
    }
    if (arcs == 2) {
        long d = ts_bf_mod(q->f[1] - q->f[0], b->P);
        cnt += (d < r[0] || ts_bf_mod(-d, b->P) < r[1]) ? 2 : 1;
    } else
        cnt += arcs;
    return cnt * f->memory <= cap;
}

static int ts_bf_push(ts_bf_level *l, const ts_bf_entry *x)
{
    if (l->n == l->cap) {
        long nc = l->cap ? 2 * l->cap : 256;
        ts_bf_entry *v = realloc(l->v, (size_t)nc * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = nc;
    }
    l->v[l->n++] = *x;
    return 0;
}

static bool ts_bf_le(const long *a, const long *b, int R)
{
    for (int c = 0; c < R; c++)
        if (a[c] > b[c])
            return false;
    return true;
}

/* Adds x to the Pareto set in l->v[from..n) unless some entry there is at or below it. */
static int ts_bf_pareto(ts_bf_level *l, long from, const ts_bf_entry *x, int R)
{
    long keep = from;
    for (long i = from; i < l->n; i++)
        if (ts_bf_le(l->v[i].w, x->w, R))
            return 0;
    for (long i = from; i < l->n; i++)
        if (!ts_bf_le(x->w, l->v[i].w, R))
            l->v[keep++] = l->v[i];
    l->n = keep;
    return ts_bf_push(l, x);
}

/* Level k from level k + 1 (below). -1: out of memory or work. */
static int ts_bf_level_up(ts_bf *b, int k, const ts_bf_level *below, ts_bf_level *l)
{
    int R = b->R, D = b->D;
    for (int j = 0; j < b->npats[k]; j++) {
        const ts_bf_pat *q = &b->pats[k][j];
        long from = l->n;
        for (long i = 0; i < below->n; i++) {
            const ts_bf_entry *y = &below->v[i];
            const ts_bf_pat *pp = &b->pats[k + 1][y->pat];
            ts_bf_entry x = {.pat = j, .parent = (int)i};
            for (int c = 0; c < R; c++)
                x.w[c] = y->w[c] + ts_bf_rel(b, k, q->f[c], pp->f[c]) +
                         ts_bf_rel(b, 2 * D - 2 - k, pp->s[c], q->s[c]);
            /* one extension and the Pareto set it is held against */
            b->work_left -= 1 + (l->n - from);
            if (b->work_left < 0)
                return -1;
            if (ts_bf_mem_ok(b, k, q, x.w) && ts_bf_pareto(l, from, &x, R))
                return -1;
        }
    }
    return 0;
}

/* The pass at (R, P): 1 feasible (chosen[k]: the pattern of position k), 0 not, -1 cut by
 * the work bound or out of memory, -2 too many patterns to search at this period. */
static int ts_bf_decide(ts_bf *b, ts_bf_pat *chosen)
{
    int D = b->D, R = b->R, rc = -1;
    ts_bf_level *lv = D > 0 ? calloc((size_t)D, sizeof *lv) : NULL;
    if (!lv)
        return -1;
    for (int k = 0; k < D; k++)
        if (ts_bf_patterns(b, k)) {
            rc = b->too_many ? -2 : -1;
            goto out;
        }
    for (int j = 0; j < b->npats[D - 1]; j++) {
        const ts_bf_pat *q = &b->pats[D - 1][j];
        ts_bf_entry x = {.pat = j, .parent = -1};
        for (int c = 0; c < R; c++)
            x.w[c] = ts_bf_rel(b, D - 1, q->f[c], q->s[c]);
        if (ts_bf_mem_ok(b, D - 1, q, x.w) && ts_bf_pareto(&lv[D - 1], lv[D - 1].n, &x, R))
            goto out;
    }
    for (int k = D - 2; k >= 0 && lv[k + 1].n; k--)
        if (ts_bf_level_up(b, k, &lv[k + 1], &lv[k]))
            goto out;
    rc = 0;
    if (!lv[0].n)
        goto out;
    /* the top entry with the smallest largest window */
    long best = 0;
    for (long i = 1; i < lv[0].n; i++) {
        long a = 0, z = 0;
        for (int c = 0; c < R; c++) {
            a = lv[0].v[i].w[c] > a ? lv[0].v[i].w[c] : a;
            z = lv[0].v[best].w[c] > z ? lv[0].v[best].w[c] : z;
        }
        if (a < z)
            best = i;
    }
    for (int k = 0; k < D; k++) {
        chosen[k] = b->pats[k][lv[k].v[best].pat];
        best = lv[k].v[best].parent;
    }
    rc = 1;
out:
    for (int k = 0; k < D; k++) {
        free(lv[k].v);
        free(b->pats[k]);
        b->pats[k] = NULL;
    }
    free(lv);
    return rc;
}

/* Starts of class c's blocks in base[] (per block), from the chosen patterns. */
static void ts_bf_bases(const ts_bf *b, const ts_bf_pat *pat, int c, long *base)
{
    const ts_placement *p = b->p;
    int D = b->D, k = 0, bi = 0, prev = -1;
    long t = 0;
    for (int i = 0; i < p->nblocks; i++) {
        int x = b->chain[i];
        if (p->blocks[x].ndevices != 1)
            continue;
        int off = k < D ? pat[k].f[c] : pat[2 * D - 1 - k].s[c];
        t = prev < 0 ? b->G + off : ts_bf_hop(b, t, p->blocks[prev].span, b->cross[k - 1], off);
        base[x] = t;
        prev = x;
        k++;
    }
    prev = -1;
    for (int i = 0; i < p->nblocks; i++) {
        int x = b->chain[i];
        if (p->blocks[x].ndevices == 1) {
            prev = x;
            continue;
        }
        /* before the first block of the chain: the occurrence of period 0, which that block
         * follows; else the first after the block before it, the one the hop went through */
        long occ = prev < 0 ? 0 : ts_bf_hop(b, base[prev], p->blocks[prev].span, true, 0) - b->G;
        base[x] = occ + (long)c * b->barsteps + bi;
        bi += p->blocks[x].span;
    }
}

static int ts_bf_emit(const ts_bf *b, const ts_bf_pat *pat, int n, ts_schedule **out, ts_err *e)
{
    int nb = b->p->nblocks;
    long *base = malloc((size_t)nb * TS_BF_MAX_R * sizeof(long));
    if (!base)
        return ts_fail(e, TS_ESYS, "barrier frames: out of memory");
    for (int c = 0; c < b->R; c++)
        ts_bf_bases(b, pat, c, base + (long)c * nb);
    int rc = ts_bchain_unroll(b->p, b->cap, n, b->R, b->P, base, "barrier frames", out, e);
    free(base);
    return rc;
}

/* The least hop out of work[i]: its span, and the G barrier steps when it crosses them
 * (ts_bf_hop). */
static long ts_bf_least_hop(const ts_bf *b, int i)
{
    return b->p->blocks[b->work[i]].span + (b->cross[i] ? b->G : 0);
}

/* False when no pattern at (R, P) can pass ts_bf_mem_ok at some position: each hop of a window
 * takes at least ts_bf_least_hop, and the count ts_bf_mem_ok takes is at least the period's
 * average, the windows' sum over P. Without this, a period the memory rules out costs the whole
 * pass (1.5 s on nnshape at 128 devices, memory 40, for none of the periods up to TS_BF_EXTRA
 * steps above the load). */
static bool ts_bf_may_fit(const ts_bf *b)
{
    int D = b->D;
    /* position k's least window, the hops i = k .. 2D - 2 - k, grown from the bottom up */
    long w = 0;
    for (int k = D - 1; k >= 0; k--) {
        w += ts_bf_least_hop(b, k) + (k < D - 1 ? ts_bf_least_hop(b, 2 * D - 2 - k) : 0);
        const ts_block *f = &b->p->blocks[b->work[k]];
        long cap = b->cap ? b->cap[f->devices[0]] : -1;
        if (cap >= 0 && f->memory > 0 && (long)b->R * w * f->memory > cap * b->P)
            return false;
    }
    return true;
}

/* Periods in order of steps per micro-batch (R = 1 before R = 2 at a tie), from the load. */
static int ts_bf_search(ts_bf *b, ts_bf_pat *chosen)
{
    const ts_placement *p = b->p;
    long per = 0;
    for (int k = 0; k < b->D; k++) {
        long x = p->blocks[b->work[k]].span + p->blocks[b->work[2 * b->D - 1 - k]].span;
        per = x > per ? x : per;
    }
    per += b->barsteps;
    for (long x = 2 * per; x <= 2 * (per + TS_BF_EXTRA); x++)
        for (int R = 1; R <= TS_BF_MAX_R; R++) {
            if ((x * R) % 2)
                continue;
            b->R = R;
            b->P = x * R / 2;
            b->G = (long)R * b->barsteps;
            b->too_many = false;
            if (!ts_bf_may_fit(b))
                continue;
            int r = ts_bf_decide(b, chosen);
            if (r == -2)
                b->skipped++;
            else if (r)
                return r;
        }
    return 0;
}

int ts_bframe_schedule(const ts_placement *p, int n, const long *cap, ts_schedule **out, ts_err *e)
{
    *out = NULL;
    int nb = p->nblocks;
    if (n < 1 || nb < 1)
        return ts_fail(e, TS_EINPUT, "barrier frames: nothing to schedule");
    ts_bf b = {.p = p, .cap = cap, .work_left = TS_BF_MAX_WORK};
    char why[160] = "";
    int rc = TS_OK;
    ts_bchain ch;
    int rd = ts_bchain_read(p, &ch, why, sizeof why);
    b.pats = calloc((size_t)p->ndevs, sizeof *b.pats);
    b.npats = calloc((size_t)p->ndevs, sizeof(int));
    ts_bf_pat *chosen = malloc((size_t)p->ndevs * sizeof *chosen);
    if (!b.pats || !b.npats || !chosen) {
        rc = ts_fail(e, TS_ESYS, "barrier frames: out of memory");
        goto out;
    }
    b.D = ch.D;
    b.barsteps = ch.barsteps;
    b.chain = ch.chain;
    b.work = ch.work;
    b.cross = ch.cross;
    if (rd) {
        rc = ts_fail(e, TS_EINPUT, "barrier frames: '%s' is not a barrier V (%s)", p->name,
                     why[0] ? why : "out of memory");
        goto out;
    }
    int r = ts_bf_search(&b, chosen);
    if (r <= 0) {
        rc = r < 0 ? ts_fail(e, TS_ENOANSWER, "barrier frames: the search's work bound cut it")
                   : ts_fail(e, TS_ENOANSWER,
                             "barrier frames: no period up to %d steps per micro-batch above "
                             "the load fits the memory%s",
                             TS_BF_EXTRA,
                             b.skipped ? " (of those with few enough patterns to search)" : "");
        goto out;
    }
    rc = ts_bf_emit(&b, chosen, n, out, e);
out:
    ts_bchain_free(&ch);
    free(b.pats);
    free(b.npats);
    free(chosen);
    return rc;
}
