/* The controllable-memory family (Qi et al., "Pipeline Parallelism with Controllable Memory",
 * NeurIPS 2024) on the V placement: V-Half and V-Min, built from a building block.
 *
 * A building block is one micro-batch's passes on every device, at fixed offsets within a
 * repeating period of unit slots: device d runs its chunk-0 forward, chunk-1 forward, chunk-1
 * input gradient and chunk-0 input gradient at offsets off[d][0..3], and micro-batch m's pass at
 * offset + period * m. Repeating the block gives the steady state (no bubble when the period is
 * the device's load); how long a block lives on a device (its lifespan) sets the memory. The
 * schedule is then built as the paper's own scheduler builds it (zbv_greedy.py of the authors'
 * repository, whose makespans and peaks tests/fixtures/cm_peer_makespans.tsv holds), memory counted
 * as it counts it: a forward holds one unit of activations, an input gradient B none, its weight
 * gradient W frees the unit (a backward without W frees it itself):
 *  1. every W (which nothing waits for) fills the first free slot after its B, first in first out;
 *     the peak of that grid is the memory cap;
 *  2. in slot order, the warm-up (before micro-batch 0's last input gradient) and the cool-down
 *     (from the first chunk-0 forward of the last micro-batch after that) are squeezed: each pass
 *     moves to the earliest free slot after its inputs and its own previous micro-batch (a W:
 *     after the B of its rank and the previous W) where the device stays within the cap; the
 *     steady state keeps its slots. The grid is compressed (each pass as early as its device's
 *     order allows, one slot each);
 *  3. the W are taken out and the cool-down squeezed again, each W now counted as freeing its
 *     unit in the first idle slot after its B, within that grid's cap; the W fill the free slots
 *     again and the grid is compressed;
 *  4. the W are taken out and fill the free slots once more, those of a chunk-1 input gradient
 *     before those of a chunk-0 one.
 * Each device's order of the slots is then timed as early as the order and the dependencies
 * allow, with the placement's spans.
 *
 * The block offsets are the published ones (V-Min: lifespan about 4D/3 periods, (D+4)/3 micro-
 * batches of activations; V-Half: (D+2)/2). Contents: ts_cm_grid and its steps, ts_bl_vhalf,
 * ts_bl_vmin. */
#include <stdlib.h>
#include "baseline_internal.h"

/* Passes of a V device, in the order of the block's offsets. */
enum { TS_CM_F0, TS_CM_F1, TS_CM_B1, TS_CM_B0, TS_CM_NPASS };

/* What a block is to the memory count: a forward (+1), an input gradient with its W attached
 * (0), a backward without W (-1), a W (-1). */
enum { TS_CM_OTHER, TS_CM_FWD, TS_CM_BIN, TS_CM_BUN, TS_CM_W };

/* The slot grid being built: occ[d * nslots + t] is the instance id in slot t of device d (or -1),
 * at[id] the slot of an instance (or -1), run[d * nslots + t] device d's running memory after
 * slot t, pend[d * nslots + t] its W not yet counted after slot t (when W are counted in idle
 * slots); cls[b] what block b is (TS_CM_FWD...). During a squeeze, per device d: wn[d] W passed
 * so far, wlast[d] the slot of the last (-1), and the slots of the input gradients passed so far,
 * sorted, in bsl[boff[d] .. boff[d] + bn[d]). */
typedef struct {
    const ts_placement *p;
    const ts_bl_pipe *pp;
    int n, D;
    long nslots;
    int *occ, *cls, *pend;
    bool split; /* the backward split into B and W (the paper's setting) */
    long *at, *run;
    long *wn, *wlast, *bsl, *boff, *bn;
    ts_bl_preds pr;
} ts_cm_grid;

static void ts_cm_free(ts_cm_grid *g)
{
    free(g->occ);
    free(g->cls);
    free(g->at);
    free(g->run);
    free(g->pend);
    free(g->wn);
    free(g->wlast);
    free(g->bsl);
    free(g->boff);
    free(g->bn);
    ts_bl_preds_free(&g->pr);
}

static int ts_cm_dev(const ts_cm_grid *g, int id)
{
    return g->p->blocks[id / g->n].devices[0];
}

static int ts_cm_cls(const ts_cm_grid *g, int id)
{
    return g->cls[id / g->n];
}

/* Units of activations a block holds once it has run (see TS_CM_FWD...). */
static long ts_cm_weight(const ts_cm_grid *g, int id)
{
    int c = ts_cm_cls(g, id);
    return c == TS_CM_FWD ? 1 : c == TS_CM_BUN || c == TS_CM_W ? -1 : 0;
}

static void ts_cm_classify(ts_cm_grid *g)
{
    const ts_bl_pipe *pp = g->pp;
    for (int b = 0; b < g->p->nblocks; b++)
        g->cls[b] = TS_CM_OTHER;
    for (int s = 0; s < pp->nstages; s++) {
        if (pp->fwd[s] >= 0)
            g->cls[pp->fwd[s]] = TS_CM_FWD;
        if (pp->bwd[s] >= 0 && pp->att[pp->bwd[s]] >= 0) {
            g->cls[pp->bwd[s]] = TS_CM_BIN;
            g->cls[pp->att[pp->bwd[s]]] = TS_CM_W;
            g->split = true;
        } else if (pp->bwd[s] >= 0) {
            g->cls[pp->bwd[s]] = TS_CM_BUN;
        }
    }
}

static void ts_cm_put(ts_cm_grid *g, int id, long t)
{
    g->occ[(long)ts_cm_dev(g, id) * g->nslots + t] = id;
    g->at[id] = t;
}

static void ts_cm_take(ts_cm_grid *g, int id)
{
    g->occ[(long)ts_cm_dev(g, id) * g->nslots + g->at[id]] = -1;
    g->at[id] = -1;
}

/* Running memory of every device, slot by slot; returns the largest. */
static long ts_cm_memory(ts_cm_grid *g)
{
    long peak = 0;
    for (int d = 0; d < g->D; d++) {
        long cur = 0;
        for (long t = 0; t < g->nslots; t++) {
            int x = g->occ[(long)d * g->nslots + t];
            if (x >= 0)
                cur += ts_cm_weight(g, x);
            g->run[(long)d * g->nslots + t] = cur;
            peak = cur > peak ? cur : peak;
        }
    }
    return peak;
}

/* Running memory with the W out of the grid, each counted as freeing its unit in the first idle
 * slot after its B (first in first out), as the paper's scheduler counts a grid without them:
 * run and pend of every device; returns the largest. */
static long ts_cm_idle_memory(ts_cm_grid *g)
{
    long peak = 0;
    for (int d = 0; d < g->D; d++) {
        const int *occ = g->occ + (long)d * g->nslots;
        long cur = 0, pending = 0;
        for (long t = 0; t < g->nslots; t++) {
            if (occ[t] >= 0) {
                cur += ts_cm_weight(g, occ[t]);
                pending += ts_cm_cls(g, occ[t]) == TS_CM_BIN;
            } else if (pending > 0) {
                cur--;
                pending--;
            }
            g->run[(long)d * g->nslots + t] = cur;
            g->pend[(long)d * g->nslots + t] = (int)pending;
            peak = cur > peak ? cur : peak;
        }
    }
    return peak;
}

/* Device d counted as ts_cm_idle_memory counts it, from slot t on, after a pass moved from slot
 * old to t: whether it stays within cap (write: stores the new counts). Past old, once the counts
 * meet the stored ones the rest is as stored (within cap). */
static bool ts_cm_idle_fits(ts_cm_grid *g, int d, long t, long old, long cap, bool write)
{
    const int *occ = g->occ + (long)d * g->nslots;
    long *run = g->run + (long)d * g->nslots;
    int *pend = g->pend + (long)d * g->nslots;
    long cur = t > 0 ? run[t - 1] : 0, pending = t > 0 ? pend[t - 1] : 0;
    for (long u = t; u < g->nslots; u++) {
        if (occ[u] >= 0) {
            cur += ts_cm_weight(g, occ[u]);
            pending += ts_cm_cls(g, occ[u]) == TS_CM_BIN;
        } else if (pending > 0) {
            cur--;
            pending--;
        }
        if (cur > cap)
            return false;
        if (u > old && cur == run[u] && pending == pend[u])
            return true;
        if (write) {
            run[u] = cur;
            pend[u] = (int)pending;
        }
    }
    return true;
}

/* Each W (att[b] of a placed pass b) into the first free slot after its pass, first in first
 * out per device; with `split`, the W of a chunk-1 input gradient (a stage in the pipe's second
 * half) before those of a chunk-0 one. queue holds 2 * nblocks * n ids. */
static void ts_cm_fill_w(ts_cm_grid *g, const int *att, int *queue, bool split)
{
    int total = g->p->nblocks * g->n;
    for (int d = 0; d < g->D; d++) {
        /* q[0]: the W taken first (chunk 1's when split), q[1]: the others */
        int *q[2] = {queue, queue + total}, head[2] = {0, 0}, tail[2] = {0, 0};
        for (long t = 0; t < g->nslots; t++) {
            int x = g->occ[(long)d * g->nslots + t];
            if (x >= 0 && att[x / g->n] >= 0 && g->at[att[x / g->n] * g->n + x % g->n] < 0) {
                int k = split && g->pp->stage[x / g->n] < g->pp->nstages / 2;
                q[k][tail[k]++] = att[x / g->n] * g->n + x % g->n;
            } else if (x < 0) {
                int k = head[0] < tail[0] ? 0 : head[1] < tail[1] ? 1 : -1;
                if (k >= 0)
                    ts_cm_put(g, q[k][head[k]++], t);
            }
        }
    }
}

/* The earliest slot instance id may take: after every placed input and after its own block's
 * previous micro-batch. */
static long ts_cm_earliest(const ts_cm_grid *g, int id)
{
    const ts_placement *p = g->p;
    int b = id / g->n, m = id % g->n;
    long t = m > 0 && g->at[id - 1] >= 0 ? g->at[id - 1] + 1 : 0;
    for (int k = g->pr.off[b]; k < g->pr.off[b + 1]; k++) {
        long s = g->at[p->edges[g->pr.in[k]].src * g->n + m];
        if (s >= 0 && s + 1 > t)
            t = s + 1;
    }
    return t;
}

/* The earliest slot of a W in the squeeze: the k-th W of its device (in slot order) after the
 * k-th input gradient there and after the W before it, whichever passes those are: the W are one
 * queue, as the paper's scheduler keeps them. The W keep their order, and the k-th input
 * gradient comes before the k-th W's first slot, so both are among the passes already seen. */
static long ts_cm_earliest_w(const ts_cm_grid *g, int id)
{
    int d = ts_cm_dev(g, id);
    long k = g->wn[d], t = g->wlast[d] + 1;
    if (k < g->bn[d] && g->bsl[g->boff[d] + k] + 1 > t)
        t = g->bsl[g->boff[d] + k] + 1;
    return t;
}

/* The squeeze has passed instance id (moved or not): its slot joins its device's W or input
 * gradients. */
static void ts_cm_seen(ts_cm_grid *g, int id)
{
    int d = ts_cm_dev(g, id), c = ts_cm_cls(g, id);
    if (c == TS_CM_W) {
        g->wn[d]++;
        g->wlast[d] = g->at[id];
    } else if (c == TS_CM_BIN) {
        long *b = g->bsl + g->boff[d], i = g->bn[d]++;
        for (; i > 0 && b[i - 1] > g->at[id]; i--)
            b[i] = b[i - 1];
        b[i] = g->at[id];
    }
}

/* Moves id to the earliest free slot before its own where the device stays within cap: its
 * running memory throughout (W in the grid), or its peak with the W counted in idle slots
 * (idle_w). */
static void ts_cm_pull(ts_cm_grid *g, int id, long cap, bool idle_w)
{
    int d = ts_cm_dev(g, id);
    long cur = g->at[id], dm = ts_cm_weight(g, id);
    long *run = g->run + (long)d * g->nslots;
    const int *occ = g->occ + (long)d * g->nslots;
    long t0 = ts_cm_cls(g, id) == TS_CM_W ? ts_cm_earliest_w(g, id) : ts_cm_earliest(g, id);
    for (long t = t0; t < cur; t++) {
        if (occ[t] >= 0)
            continue;
        if (idle_w) {
            ts_cm_take(g, id);
            ts_cm_put(g, id, t);
            if (ts_cm_idle_fits(g, d, t, cur, cap, false)) {
                ts_cm_idle_fits(g, d, t, cur, cap, true);
                return;
            }
            ts_cm_take(g, id);
            ts_cm_put(g, id, cur);
            continue;
        }
        bool ok = true;
        for (long u = t; u < cur && ok && dm > 0; u++)
            ok = run[u] + dm <= cap;
        if (!ok)
            continue;
        for (long u = t; u < cur; u++)
            run[u] += dm;
        ts_cm_take(g, id);
        ts_cm_put(g, id, t);
        return;
    }
}

static int ts_cm_cmp_slot(const void *a, const void *b)
{
    const long *x = a, *y = b;
    for (int i = 0; i < 3; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* The placed instances sorted by slot, then device, then id, into keys (3 longs each); returns
 * their count. */
static int ts_cm_sorted(const ts_cm_grid *g, long *keys)
{
    int cnt = 0;
    for (int id = 0; id < g->p->nblocks * g->n; id++)
        if (g->at[id] >= 0) {
            keys[3 * cnt] = g->at[id];
            keys[3 * cnt + 1] = ts_cm_dev(g, id);
            keys[3 * cnt + 2] = id;
            cnt++;
        }
    qsort(keys, (size_t)cnt, 3 * sizeof(long), ts_cm_cmp_slot);
    return cnt;
}

/* Every instance as early as its device's order and its inputs allow, one slot each (the
 * paper's squeeze of a grid into a timetable). */
static void ts_cm_compress(ts_cm_grid *g, long *keys, long *free_at)
{
    int cnt = ts_cm_sorted(g, keys);
    for (int d = 0; d < g->D; d++)
        free_at[d] = 0;
    for (int i = 0; i < cnt; i++)
        ts_cm_take(g, (int)keys[3 * i + 2]);
    for (int i = 0; i < cnt; i++) {
        int id = (int)keys[3 * i + 2], d = ts_cm_dev(g, id);
        long t = ts_cm_earliest(g, id);
        t = t > free_at[d] ? t : free_at[d];
        ts_cm_put(g, id, t);
        free_at[d] = t + 1;
    }
}

/* One squeeze round over the placed instances in slot order (then device, then id): the warm-up
 * (when warm) and the cool-down move, the steady state between them stays. keys holds
 * 3 * nblocks * n. */
static void ts_cm_squeeze(ts_cm_grid *g, bool warm, long cap, bool idle_w, long *keys)
{
    const ts_bl_pipe *pp = g->pp;
    int n = g->n, cnt = ts_cm_sorted(g, keys), half = pp->nstages / 2, last = pp->bwd[0];
    /* phase 0: warm-up; 1: steady state; 2: cool-down. The steady state begins with the last
     * input gradient (stage 0's, pp->bwd[0]) of micro-batch 0; the cool-down with the first
     * chunk-0 forward (a first-half stage's) of the last micro-batch that comes after it. The
     * passes that begin a phase keep their slots. Without W (the backward unsplit, which the
     * paper's scheduler does not build) a forward of the last micro-batch before the steady state
     * counts too: the cool-down then begins with the steady state. */
    int phase = 0;
    bool seen = false;
    for (int d = 0; d < g->D; d++) {
        g->wn[d] = g->bn[d] = 0;
        g->wlast[d] = -1;
    }
    for (int i = 0; i < cnt; i++) {
        int id = (int)keys[3 * i + 2], b = id / n;
        bool last_fwd = id % n == n - 1 && pp->stage[b] >= 0 && pp->stage[b] < half &&
                        pp->fwd[pp->stage[b]] == b;
        if (phase == 0 && b == last)
            phase = 1;
        else if ((phase == 0 && warm) || phase == 2)
            ts_cm_pull(g, id, cap, idle_w);
        ts_cm_seen(g, id);
        if (last_fwd && (phase == 1 || !g->split))
            seen = true;
        if (phase == 1 && seen)
            phase = 2;
    }
}

/* The k-th W of each device (in slot order) becomes the W of the k-th input gradient there, as
 * the paper's scheduler pairs them (a squeeze may have moved input gradients past each other).
 * queue holds nblocks * n ids, slots as many longs. */
static void ts_cm_rebind_w(ts_cm_grid *g, const int *att, int *queue, long *slots)
{
    for (int d = 0; d < g->D; d++) {
        int nb = 0, nw = 0;
        for (long t = 0; t < g->nslots; t++) {
            int x = g->occ[(long)d * g->nslots + t];
            if (x >= 0 && ts_cm_cls(g, x) == TS_CM_BIN)
                queue[nb++] = att[x / g->n] * g->n + x % g->n;
            else if (x >= 0 && ts_cm_cls(g, x) == TS_CM_W)
                slots[nw++] = t;
        }
        for (int k = 0; k < nw; k++)
            ts_cm_take(g, g->occ[(long)d * g->nslots + slots[k]]);
        for (int k = 0; k < nw && k < nb; k++)
            ts_cm_put(g, queue[k], slots[k]);
    }
}

/* Takes every W (att[b] of a block b) out of the grid. */
static void ts_cm_drop_w(ts_cm_grid *g, const int *att)
{
    for (int b = 0; b < g->p->nblocks; b++)
        if (att[b] >= 0)
            for (int m = 0; m < g->n; m++)
                if (g->at[att[b] * g->n + m] >= 0)
                    ts_cm_take(g, att[b] * g->n + m);
}

/* Steps 1 to 4 of the header on the grid of the repeated block; queue holds 2 * nblocks * n
 * ids, keys 3 * nblocks * n longs, free_at D. */
static void ts_cm_steps(ts_cm_grid *g, int *queue, long *keys, long *free_at)
{
    const int *att = g->pp->att;
    ts_cm_fill_w(g, att, queue, false);
    long cap = ts_cm_memory(g);
    ts_cm_squeeze(g, true, cap, false, keys);
    ts_cm_rebind_w(g, att, queue, keys);
    ts_cm_compress(g, keys, free_at);
    ts_cm_drop_w(g, att);
    /* without W the first round's cap stays, and the running memory is the count (nothing to
     * follow: see ts_cm_squeeze) */
    if (g->split)
        cap = ts_cm_idle_memory(g);
    else
        ts_cm_memory(g);
    ts_cm_squeeze(g, false, cap, g->split, keys);
    ts_cm_fill_w(g, att, queue, false);
    ts_cm_compress(g, keys, free_at);
    ts_cm_drop_w(g, att);
    ts_cm_fill_w(g, att, queue, true);
}

/* The building-block schedule of the V pipe pp with offsets off[d][pass] in a period of `period`
 * slots: fills start (as ts_bl_asap). */
static int ts_cm_build(const ts_baseline_info *info, const ts_placement *p, int n,
                       const ts_bl_pipe *pp, const int (*off)[TS_CM_NPASS], int period, long *start,
                       ts_err *e)
{
    int D = p->ndevs, total = p->nblocks * n;
    long maxoff = 0;
    for (int d = 0; d < D; d++)
        for (int k = 0; k < TS_CM_NPASS; k++)
            maxoff = off[d][k] > maxoff ? off[d][k] : maxoff;
    ts_cm_grid g = {.p = p, .pp = pp, .n = n, .D = D};
    g.nslots = maxoff + (long)period * n + 2L * n + 8;
    int *queue = malloc(2 * (size_t)total * sizeof(int) + 1);
    long *keys = malloc(3 * (size_t)total * sizeof(long) + 1);
    long *free_at = malloc((size_t)D * sizeof(long));
    g.occ = malloc((size_t)D * (size_t)g.nslots * sizeof(int));
    g.cls = malloc((size_t)p->nblocks * sizeof(int));
    g.at = malloc((size_t)total * sizeof(long) + 1);
    g.run = malloc((size_t)D * (size_t)g.nslots * sizeof(long));
    g.pend = malloc((size_t)D * (size_t)g.nslots * sizeof(int));
    g.wn = malloc((size_t)D * sizeof(long));
    g.wlast = malloc((size_t)D * sizeof(long));
    g.bn = malloc((size_t)D * sizeof(long));
    g.boff = calloc((size_t)D + 1, sizeof(long));
    g.bsl = malloc((size_t)total * sizeof(long) + 1);
    ts_bl_seq *ord = ts_bl_seqs_new(D);
    int rc = TS_OK;
    if (!queue || !keys || !free_at || !g.occ || !g.cls || !g.at || !g.run || !g.pend || !g.wn ||
        !g.wlast || !g.bn || !g.boff || !g.bsl || !ord || ts_bl_preds_make(p, &g.pr) != 0) {
        rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
        goto out;
    }
    ts_cm_classify(&g);
    /* room for each device's input gradients (n instances of each of its B blocks) */
    for (int b = 0; b < p->nblocks; b++)
        if (g.cls[b] == TS_CM_BIN)
            g.boff[p->blocks[b].devices[0] + 1] += n;
    for (int d = 0; d < D; d++)
        g.boff[d + 1] += g.boff[d];
    for (long i = 0; i < (long)D * g.nslots; i++)
        g.occ[i] = -1;
    for (int i = 0; i < total; i++)
        g.at[i] = -1;
    /* the repeated block: every pass of micro-batch m at its offset + period * m */
    for (int d = 0; d < D && rc == TS_OK; d++) {
        int blk[TS_CM_NPASS] = {pp->fwd[d], pp->fwd[2 * D - 1 - d], pp->bwd[2 * D - 1 - d],
                                pp->bwd[d]};
        for (int k = 0; k < TS_CM_NPASS && rc == TS_OK; k++)
            for (int m = 0; m < n && rc == TS_OK; m++) {
                long t = off[d][k] + (long)period * m;
                if (g.occ[(long)d * g.nslots + t] >= 0)
                    rc = ts_fail(e, TS_ESYS, "baseline %s: internal error: block offsets collide",
                                 info->name);
                else
                    ts_cm_put(&g, blk[k] * n + m, t);
            }
    }
    if (rc != TS_OK)
        goto out;
    ts_cm_steps(&g, queue, keys, free_at);
    for (int d = 0; d < D && rc == TS_OK; d++)
        for (long t = 0; t < g.nslots && rc == TS_OK; t++) {
            int x = g.occ[(long)d * g.nslots + t];
            if (x >= 0 && ts_bl_seq_push(&ord[d], x) != 0)
                rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
        }
    if (rc == TS_OK)
        rc = ts_bl_asap(p, n, ord, start, info->name, e);
out:
    ts_bl_seqs_free(ord, D);
    free(queue);
    free(keys);
    free(free_at);
    ts_cm_free(&g);
    return rc;
}

/* V-Min's block (6 slots): device d at d, 2D-1-d, 2D+g+d, 4D+g-1-d, g = 2 when 3 divides D
 * (else 0), which keeps the four offsets of each device distinct modulo 6. V-Half's: 2d,
 * 3D-2-d, 3D+g+2d-1, 6D+g-2-d, g = 3 when D is even. */
static void ts_cm_offsets(int D, bool half, int (*off)[TS_CM_NPASS])
{
    for (int d = 0; d < D; d++) {
        if (half) {
            int g = D % 2 == 0 ? 3 : 0;
            off[d][TS_CM_F0] = 2 * d;
            off[d][TS_CM_F1] = 3 * D - 2 - d;
            off[d][TS_CM_B1] = 3 * D + g + 2 * d - 1;
            off[d][TS_CM_B0] = 6 * D + g - 2 - d;
        } else {
            int g = D % 3 == 0 ? 2 : 0;
            off[d][TS_CM_F0] = d;
            off[d][TS_CM_F1] = 2 * D - 1 - d;
            off[d][TS_CM_B1] = 2 * D + g + d;
            off[d][TS_CM_B0] = 4 * D + g - 1 - d;
        }
    }
}

static int ts_cm_rule(const ts_baseline_info *info, const ts_placement *p, int n, bool half,
                      long *start, ts_err *e)
{
    int D = p->ndevs;
    ts_bl_pipe pp = {0};
    int rc = ts_bl_v_pipe(info, p, &pp, e);
    int(*off)[TS_CM_NPASS] = malloc((size_t)D * sizeof *off);
    if (rc == TS_OK && !off)
        rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
    if (rc == TS_OK) {
        ts_cm_offsets(D, half, off);
        rc = ts_cm_build(info, p, n, &pp, (const int(*)[TS_CM_NPASS])off, 6, start, e);
    }
    free(off);
    ts_bl_pipe_free(&pp);
    return rc;
}

int ts_bl_vhalf(const ts_baseline_info *info, const ts_placement *p, int n, long *start, ts_err *e)
{
    return ts_cm_rule(info, p, n, true, start, e);
}

int ts_bl_vmin(const ts_baseline_info *info, const ts_placement *p, int n, long *start, ts_err *e)
{
    return ts_cm_rule(info, p, n, false, start, e);
}
