/* The controllable-memory family (Qi et al., "Pipeline Parallelism with Controllable Memory",
 * NeurIPS 2024) on the V placement: V-Half and V-Min, built from a building block.
 *
 * A building block is one micro-batch's passes on every device, at fixed offsets within a
 * repeating period of unit slots: device d runs its chunk-0 forward, chunk-1 forward, chunk-1
 * input gradient and chunk-0 input gradient at offsets off[d][0..3], and micro-batch m's pass at
 * offset + period * m. Repeating the block gives the steady state (no bubble when the period is
 * the device's load); how long a block lives on a device (its lifespan) sets the memory. Then:
 *  - every weight-gradient pass W (which nothing waits for) fills the first free slot after its
 *    input gradient, first in first out;
 *  - the steady-state peak is the largest running memory of that grid over all devices;
 *  - the warm-up (before micro-batch 0's last input gradient) and the cool-down (once the steady
 *    state has begun and the last micro-batch has entered a first-half stage) are squeezed: in slot order, every pass moves to the earliest
 *    free slot after its inputs and its own previous micro-batch, where that keeps the device's
 *    running memory within the steady-state peak (so forwards run ahead up to the peak, and the
 *    cool-down closes its gaps without raising it); the steady state keeps its slots;
 *  - the grid is compressed (every pass as early as its device's order allows, one slot each), and
 *    the cool-down squeezed again with the W passes taken out; they then fill the free slots anew
 *    (twice, with a compression between), since W passes placed in the first round hold slots that
 *    a pass on the critical path could use.
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

/* The slot grid being built: occ[d * nslots + t] is the instance id in slot t of device d (or -1),
 * at[id] the slot of an instance (or -1), run[d * nslots + t] device d's running memory after
 * slot t. */
typedef struct {
    const ts_placement *p;
    int n, D;
    long nslots;
    int *occ;
    long *at, *run;
    ts_bl_preds pr;
} ts_cm_grid;

static void ts_cm_free(ts_cm_grid *g)
{
    free(g->occ);
    free(g->at);
    free(g->run);
    ts_bl_preds_free(&g->pr);
}

static int ts_cm_dev(const ts_cm_grid *g, int id)
{
    return g->p->blocks[id / g->n].devices[0];
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

/* Running memory of every device, slot by slot. */
static void ts_cm_memory(ts_cm_grid *g)
{
    for (int d = 0; d < g->D; d++) {
        long cur = 0;
        for (long t = 0; t < g->nslots; t++) {
            int x = g->occ[(long)d * g->nslots + t];
            if (x >= 0)
                cur += g->p->blocks[x / g->n].memory;
            g->run[(long)d * g->nslots + t] = cur;
        }
    }
}

/* Each W (att[b] of a placed pass b) into the first free slot after its pass, first in first
 * out per device. queue holds up to nblocks * n ids. */
static void ts_cm_fill_w(ts_cm_grid *g, const int *att, int *queue)
{
    for (int d = 0; d < g->D; d++) {
        int head = 0, tail = 0;
        for (long t = 0; t < g->nslots; t++) {
            int x = g->occ[(long)d * g->nslots + t];
            if (x >= 0 && att[x / g->n] >= 0 && g->at[att[x / g->n] * g->n + x % g->n] < 0)
                queue[tail++] = att[x / g->n] * g->n + x % g->n;
            else if (x < 0 && head < tail)
                ts_cm_put(g, queue[head++], t);
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

/* Moves id to the earliest free slot before its own where the device's running memory stays
 * within peak throughout. */
static void ts_cm_pull(ts_cm_grid *g, int id, long peak)
{
    int d = ts_cm_dev(g, id);
    long cur = g->at[id], dm = g->p->blocks[id / g->n].memory;
    long *run = g->run + (long)d * g->nslots;
    const int *occ = g->occ + (long)d * g->nslots;
    for (long t = ts_cm_earliest(g, id); t < cur; t++) {
        if (occ[t] >= 0)
            continue;
        bool ok = true;
        for (long u = t; u < cur && ok && dm > 0; u++)
            ok = run[u] + dm <= peak;
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
static void ts_cm_squeeze(ts_cm_grid *g, bool warm, const ts_bl_pipe *pp, long peak, long *keys)
{
    int n = g->n, cnt = ts_cm_sorted(g, keys), half = pp->nstages / 2, last = pp->bwd[0];
    /* phase 0: warm-up; 1: steady state; 2: cool-down. The steady state begins with micro-batch
     * 0's last input gradient (stage 0's, pp->bwd[0]); the cool-down once
     * the last micro-batch has run a forward of a first-half stage, or right after the steady
     * state begins when that came earlier. */
    int phase = 0;
    bool seen = false;
    for (int i = 0; i < cnt; i++) {
        int id = (int)keys[3 * i + 2];
        if (phase == 0 && id == last * n)
            phase = 1;
        else if ((phase == 0 && warm) || phase == 2)
            ts_cm_pull(g, id, peak);
        if (id % n == n - 1 && pp->stage[id / n] >= 0 && pp->stage[id / n] < half &&
            pp->fwd[pp->stage[id / n]] == id / n)
            seen = true;
        if (phase == 1 && seen)
            phase = 2;
    }
}

/* Takes every W (att[b] of a block b) out of the grid and recounts the running memory. */
static void ts_cm_drop_w(ts_cm_grid *g, const int *att)
{
    for (int b = 0; b < g->p->nblocks; b++)
        if (att[b] >= 0)
            for (int m = 0; m < g->n; m++)
                if (g->at[att[b] * g->n + m] >= 0)
                    ts_cm_take(g, att[b] * g->n + m);
    ts_cm_memory(g);
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
    ts_cm_grid g = {p, n, D, maxoff + (long)period * n + 2L * n + 8, NULL, NULL, NULL, {0}};
    int *queue = malloc((size_t)total * sizeof(int) + 1);
    long *keys = malloc(3 * (size_t)total * sizeof(long) + 1);
    long *free_at = malloc((size_t)D * sizeof(long));
    g.occ = malloc((size_t)D * (size_t)g.nslots * sizeof(int));
    g.at = malloc((size_t)total * sizeof(long) + 1);
    g.run = malloc((size_t)D * (size_t)g.nslots * sizeof(long));
    ts_bl_seq *ord = ts_bl_seqs_new(D);
    int rc = TS_OK;
    if (!queue || !keys || !free_at || !g.occ || !g.at || !g.run || !ord ||
        ts_bl_preds_make(p, &g.pr) != 0) {
        rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
        goto out;
    }
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
    ts_cm_fill_w(&g, pp->att, queue);
    ts_cm_memory(&g);
    long peak = 0;
    for (long i = 0; i < (long)D * g.nslots; i++)
        peak = g.run[i] > peak ? g.run[i] : peak;
    ts_cm_squeeze(&g, true, pp, peak, keys);
    ts_cm_compress(&g, keys, free_at);
    ts_cm_drop_w(&g, pp->att);
    ts_cm_squeeze(&g, false, pp, peak, keys);
    ts_cm_fill_w(&g, pp->att, queue);
    ts_cm_compress(&g, keys, free_at);
    ts_cm_drop_w(&g, pp->att);
    ts_cm_fill_w(&g, pp->att, queue);
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
