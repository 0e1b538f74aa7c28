/* The rules of two chunks per device: ZB-V and DualPipeV on the V placement (device d holds
 * stages d and 2D-1-d), DualPipe on the bidirectional one (two opposite chains). Each rank's
 * order follows the published per-rank program, with F, B and W as separate passes; the
 * timetable is then every pass as early as that order and the dependencies allow (zb-v-defer:
 * ZB-V's F and B order with every W deferred within 2D chunks, timed by ts_bl_wfill).
 *
 * Our exclusivity model runs one pass per device at a time, so DualPipe's overlapped F&B pair
 * (a forward and a backward of two micro-batches computed together while their communication
 * hides behind them) runs here as the forward then the backward: F&B costs F + B, the case of
 * the published bubble formula (PP/2-1)(F&B + B - 3W) without overlap. */
#include <stdlib.h>
#include "baseline_internal.h"

/* One chunk of a rank: its forward block, backward (input-gradient) block and the weight-gradient
 * block attached to it (-1 where the backward is not split). */
typedef struct {
    int f, b, w;
} ts_chunk;

/* A rank's order being written: counters of the next forward and backward micro-batch per chunk
 * (phase), and DualPipe's deferred weight passes, first in first out. */
typedef struct {
    ts_bl_seq *q;
    int n;
    ts_chunk c[2];
    int fc[2], bc[2];
    ts_bl_seq wq;
    int wh, err;
} ts_rank_order;

static void ts_put(ts_rank_order *o, int block, int m)
{
    if (block >= 0 && m < o->n)
        o->err |= ts_bl_seq_push(o->q, block * o->n + m);
}

static void ts_fwd(ts_rank_order *o, int ph)
{
    ts_put(o, o->c[ph].f, o->fc[ph]++);
}

/* A backward pass of phase ph; zb: its W is deferred to the queue, else it follows at once. */
static void ts_bwd(ts_rank_order *o, int ph, bool zb)
{
    int m = o->bc[ph]++;
    ts_put(o, o->c[ph].b, m);
    if (o->c[ph].w < 0)
        return;
    if (zb)
        o->err |= ts_bl_seq_push(&o->wq, o->c[ph].w * o->n + m);
    else
        ts_put(o, o->c[ph].w, m);
}

static void ts_weight(ts_rank_order *o)
{
    if (o->wh < o->wq.len)
        o->err |= ts_bl_seq_push(o->q, o->wq.v[o->wh++]);
}

/* An F&B pair: the forward of phase a, then the full backward of phase b. */
static void ts_fwd_bwd(ts_rank_order *o, int a, int b)
{
    ts_fwd(o, a);
    ts_bwd(o, b, false);
}

/* DualPipe's per-rank program (DeepSeek's DualPipe and DualPipeV share it): with R ranks in the
 * formula, rank r and C micro-batches per phase, eight phases: 2(R-r-1) F0; r+1 (F0 F1);
 * R-r-1 (B1 deferred, W, F1); C-2R+r+1 (F0&B1, F1&B0); R-r-1 (B1, F1&B0); r+1 (B1 B0, the second
 * half deferred); R-r-1 (W, B0 deferred); r+1 W. */
static void ts_dual_program(ts_rank_order *o, int R, int r, int C)
{
    for (int i = 0; i < 2 * (R - r - 1); i++)
        ts_fwd(o, 0);
    for (int i = 0; i < r + 1; i++) {
        ts_fwd(o, 0);
        ts_fwd(o, 1);
    }
    for (int i = 0; i < R - r - 1; i++) {
        ts_bwd(o, 1, true);
        ts_weight(o);
        ts_fwd(o, 1);
    }
    for (int i = 0; i < C - 2 * R + r + 1; i++) {
        ts_fwd_bwd(o, 0, 1);
        ts_fwd_bwd(o, 1, 0);
    }
    for (int i = 0; i < R - r - 1; i++) {
        ts_bwd(o, 1, false);
        ts_fwd_bwd(o, 1, 0);
    }
    bool zb = false;
    for (int i = 0; i < r + 1; i++) {
        if (i == (r + 1) / 2 && r % 2 == 1)
            zb = true;
        ts_bwd(o, 1, zb);
        if (i == (r + 1) / 2 && r % 2 == 0)
            zb = true;
        ts_bwd(o, 0, zb);
    }
    for (int i = 0; i < R - r - 1; i++) {
        ts_weight(o);
        ts_bwd(o, 0, true);
    }
    for (int i = 0; i < r + 1; i++)
        ts_weight(o);
}

/* ZB-V's per-rank program (Qi et al.; the order of PyTorch's ScheduleZBVZeroBubble): D ranks,
 * chunk 0 = stage r, chunk 1 = stage 2D-1-r; at least 2D-1 micro-batches are planned and those
 * beyond n dropped. B is the input gradient; W of each chunk runs in its own micro-batch order. */
static void ts_zbv_program(ts_rank_order *o, int D, int r)
{
    int nm = o->n > 2 * D - 1 ? o->n : 2 * D - 1;
    const ts_chunk *c = o->c;
    int f0 = 0, f1 = 0, b0 = 0, b1 = 0;
    for (int i = 0; i < 2 * (D - r) - 1; i++)
        ts_put(o, c[0].f, f0++);
    for (int i = 0; i < r; i++) {
        ts_put(o, c[1].f, f1++);
        ts_put(o, c[0].f, f0++);
    }
    for (int i = 0; i < D - r; i++, b1++) {
        ts_put(o, c[1].f, f1++);
        ts_put(o, c[1].b, b1);
        ts_put(o, c[1].w, b1);
    }
    while (f1 < f0 || f0 < nm) {
        if (f0 < nm)
            ts_put(o, c[0].f, f0++);
        ts_put(o, c[0].b, b0);
        ts_put(o, c[0].w, b0++);
        ts_put(o, c[1].f, f1++);
        ts_put(o, c[1].b, b1);
        ts_put(o, c[1].w, b1++);
    }
    int w0 = b0, w1 = b1;
    for (int i = 0; i < r; i++) {
        ts_put(o, c[0].b, b0++);
        ts_put(o, c[1].b, b1++);
    }
    for (int i = 0; i < D - r; i++) {
        ts_put(o, c[0].b, b0++);
        ts_put(o, c[0].w, w0++);
    }
    while (w1 < b1)
        ts_put(o, c[1].w, w1++);
    while (w0 < b0)
        ts_put(o, c[0].w, w0++);
}

static ts_chunk ts_chunk_of(const ts_bl_pipe *pp, int s)
{
    ts_chunk c = {pp->fwd[s], pp->bwd[s], pp->att[pp->bwd[s]]};
    return c;
}

/* Stage s of pipe pp runs, forward and backward, on device dev alone. */
static bool ts_stage_on(const ts_placement *p, const ts_bl_pipe *pp, int s, int dev)
{
    int f = pp->fwd[s], b = pp->bwd[s];
    return f >= 0 && b >= 0 && p->blocks[f].ndevices == 1 && p->blocks[f].devices[0] == dev &&
           ts_block_same_devices(&p->blocks[f], &p->blocks[b]);
}

/* The V placement as one pipe of 2D stages, stage s on device s (s < D) or 2D-1-s. */
int ts_bl_v_pipe(const ts_baseline_info *info, const ts_placement *p, ts_bl_pipe *pp, ts_err *e)
{
    int D = p->ndevs;
    bool *in = malloc((size_t)p->nblocks * sizeof(bool) + 1);
    if (!in)
        return ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
    for (int b = 0; b < p->nblocks; b++)
        in[b] = true;
    int rc = ts_bl_pipe_of(info, p, in, pp, e);
    free(in);
    if (rc != TS_OK)
        return rc;
    if (pp->nstages != 2 * D || pp->nfwd != 2 * D)
        return ts_bl_refuse(e, info, p, "it needs two forward and two backward blocks per device");
    for (int s = 0; s < 2 * D; s++)
        if (!ts_stage_on(p, pp, s, s < D ? s : 2 * D - 1 - s))
            return ts_bl_refuse(e, info, p,
                                "its stages do not run down the devices and back up (stage s on "
                                "device s, then stage 2D-1-s on device s)");
    return TS_OK;
}

/* Writes each rank's order with program(o, rank) and times it: as early as each order allows,
 * or (defer_cap set, W left out of the orders) with every W deferred while the device stays
 * within defer_cap[d], filling idle steps (ts_bl_wfill). */
static int ts_run_ranks(const ts_baseline_info *info, const ts_placement *p, int n,
                        const ts_chunk (*chunks)[2], int R, const int *rr, bool dual,
                        const ts_bl_pipe *pp, const long *defer_cap, long *start, ts_err *e)
{
    int D = p->ndevs, rc = TS_OK;
    ts_bl_seq *real = ts_bl_seqs_new(D);
    if (!real)
        return ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
    for (int r = 0; r < D && rc == TS_OK; r++) {
        ts_rank_order o = {&real[r], n, {chunks[r][0], chunks[r][1]}, {0, 0}, {0, 0}, {0}, 0, 0};
        if (dual)
            ts_dual_program(&o, R, rr[r], n);
        else
            ts_zbv_program(&o, D, r);
        free(o.wq.v);
        if (o.err)
            rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
    }
    if (rc == TS_OK && defer_cap)
        rc = ts_bl_wfill(p, n, real, pp->att, defer_cap, start, info->name, e);
    else if (rc == TS_OK)
        rc = ts_bl_asap(p, n, real, start, info->name, e);
    ts_bl_seqs_free(real, D);
    return rc;
}

/* ZB-V and DualPipeV: chunk 0 of rank r is stage r, chunk 1 stage 2D-1-r. defer: ZB-V's F and
 * B order with every W deferred while the device holds at most D micro-batches of its two
 * chunks (1F1B's activation memory, the 2D-chunk cap of the published ZB-V). */
static int ts_v_rule(const ts_baseline_info *info, const ts_placement *p, int n, bool dual,
                     bool defer, long *start, ts_err *e)
{
    int D = p->ndevs;
    ts_bl_pipe pp = {0};
    ts_chunk(*chunks)[2] = malloc((size_t)D * sizeof *chunks);
    int *rr = malloc((size_t)D * sizeof(int));
    long *cap = malloc((size_t)D * sizeof(long));
    int rc = chunks && rr && cap ? ts_bl_v_pipe(info, p, &pp, e)
                                 : ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
    for (int r = 0; r < D && rc == TS_OK; r++) {
        chunks[r][0] = ts_chunk_of(&pp, r);
        chunks[r][1] = ts_chunk_of(&pp, 2 * D - 1 - r);
        cap[r] = (long)D * (p->blocks[chunks[r][0].f].memory + p->blocks[chunks[r][1].f].memory);
        if (defer)
            chunks[r][0].w = chunks[r][1].w = -1;
        rr[r] = r;
    }
    if (rc == TS_OK)
        rc = ts_run_ranks(info, p, n, (const ts_chunk(*)[2])chunks, D, rr, dual, &pp,
                          defer ? cap : NULL, start, e);
    free(chunks);
    free(rr);
    free(cap);
    ts_bl_pipe_free(&pp);
    return rc;
}

int ts_bl_zbv(const ts_baseline_info *info, const ts_placement *p, int n, long *start, ts_err *e)
{
    return ts_v_rule(info, p, n, false, false, start, e);
}

int ts_bl_zbv_defer(const ts_baseline_info *info, const ts_placement *p, int n, long *start,
                    ts_err *e)
{
    return ts_v_rule(info, p, n, false, true, start, e);
}

int ts_bl_dualpipev(const ts_baseline_info *info, const ts_placement *p, int n, long *start,
                    ts_err *e)
{
    return ts_v_rule(info, p, n, true, false, start, e);
}

/* DualPipe's placement: two chains over the same D (even) devices, one with stage s on device s
 * (down), the other with stage s on device D-1-s (up); down[0] and up[0] tell which is which. */
static int ts_dual_pipes(const ts_baseline_info *info, const ts_placement *p, ts_bl_pipe *pipes,
                         int *pipe_of, int *down, ts_err *e)
{
    int D = p->ndevs;
    if (D < 2 || D % 2)
        return ts_bl_refuse(e, info, p, "it needs an even device count");
    int rc = ts_bl_two_pipes(info, p, pipes, pipe_of, e);
    bool dir[2][2] = {{true, true}, {true, true}}; /* [pipe][0: down, 1: up] */
    for (int k = 0; k < 2 && rc == TS_OK; k++) {
        if (pipes[k].nstages != D || pipes[k].nfwd != D)
            return ts_bl_refuse(e, info, p,
                                "each chain must have one forward and one backward "
                                "block per device");
        for (int s = 0; s < D; s++) {
            dir[k][0] = dir[k][0] && ts_stage_on(p, &pipes[k], s, s);
            dir[k][1] = dir[k][1] && ts_stage_on(p, &pipes[k], s, D - 1 - s);
        }
    }
    if (rc != TS_OK)
        return rc;
    if (dir[0][0] && dir[1][1])
        *down = 0;
    else if (dir[1][0] && dir[0][1])
        *down = 1;
    else
        return ts_bl_refuse(e, info, p,
                            "its chains do not run straight across the devices in "
                            "opposite directions");
    return TS_OK;
}

/* DualPipe: rank r of D works with half-rank min(r, D-1-r) of D/2; phase 0 is the direction that
 * enters at its end of the pipeline (down for the first half of the ranks, up for the second),
 * with n micro-batches per direction. */
int ts_bl_dualpipe(const ts_baseline_info *info, const ts_placement *p, int n, long *start,
                   ts_err *e)
{
    int D = p->ndevs, down = 0;
    ts_bl_pipe pipes[2] = {{0}, {0}};
    int *pipe_of = calloc((size_t)p->nblocks + 1, sizeof(int));
    ts_chunk(*chunks)[2] = malloc((size_t)D * sizeof *chunks);
    int *rr = malloc((size_t)D * sizeof(int));
    int rc = pipe_of && chunks && rr
                 ? ts_dual_pipes(info, p, pipes, pipe_of, &down, e)
                 : ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
    for (int r = 0; r < D && rc == TS_OK; r++) {
        ts_chunk dn = ts_chunk_of(&pipes[down], r), up = ts_chunk_of(&pipes[1 - down], D - 1 - r);
        bool first = r < D / 2;
        chunks[r][0] = first ? dn : up;
        chunks[r][1] = first ? up : dn;
        rr[r] = first ? r : D - 1 - r;
    }
    if (rc == TS_OK)
        rc = ts_run_ranks(info, p, n, (const ts_chunk(*)[2])chunks, D / 2, rr, true, NULL, NULL,
                          start, e);
    ts_bl_pipe_free(&pipes[0]);
    ts_bl_pipe_free(&pipes[1]);
    free(pipe_of);
    free(chunks);
    free(rr);
    return rc;
}
