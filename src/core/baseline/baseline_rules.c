/* The published rules, one function each: GPipe, 1F1B, interleaved 1F1B (Megatron), Chimera,
 * ZB-H1. Each fills a start step per instance or refuses a placement it does not fit. */
#include <stdlib.h>
#include <string.h>
#include "baseline_internal.h"

/* ---------------------------------------------------------------- the rules */

int ts_bl_1f1b(const ts_baseline_info *info, const ts_placement *p, int n, long *start, ts_err *e)
{
    bool *in = malloc((size_t)p->nblocks * sizeof(bool));
    int *pipe_of = calloc((size_t)p->nblocks, sizeof(int));
    ts_bl_seq *real = ts_bl_seqs_new(p->ndevs);
    ts_bl_pipe pp = {0};
    ts_placement *v = NULL;
    long *vstart = malloc((size_t)p->nblocks * (size_t)n * sizeof(long));
    int rc = TS_OK;
    if (!in || !pipe_of || !real || !vstart) {
        rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
        goto out;
    }
    for (int b = 0; b < p->nblocks; b++)
        in[b] = true;
    rc = ts_bl_pipe_of(info, p, in, &pp, e);
    if (rc != TS_OK)
        goto out;
    v = ts_bl_virtual(p, &pp, 1, pipe_of, pp.nstages);
    if (!v) {
        rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
        goto out;
    }
    rc = ts_bl_virtual_round(v, n, &pp, 1, 0, n, vstart, info->name, e);
    if (rc == TS_OK && ts_bl_merge(p, n, vstart, &pp, pipe_of, false, real) != 0)
        rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
    if (rc == TS_OK)
        rc = ts_bl_asap(p, n, real, start, info->name, e);
out:
    free(in);
    free(pipe_of);
    free(vstart);
    ts_bl_seqs_free(real, p->ndevs);
    ts_bl_pipe_free(&pp);
    ts_placement_free(v);
    return rc;
}

/* GPipe on any placement: every device runs all its forward work before any backward work, and
 * within a phase the instances in the order they would run if every block had a device of its
 * own and took the micro-batches one after another (so a device holding several stages runs each
 * as its inputs arrive). Forward-then-backward and the per-block timing are both consistent with
 * the dependencies, so the device orders share one key and cannot deadlock. */
int ts_bl_gpipe(const ts_baseline_info *info, const ts_placement *p, int n, long *start, ts_err *e)
{
    int B = p->nblocks;
    int *order = malloc((size_t)B * sizeof(int));
    int *pos = malloc((size_t)B * sizeof(int));
    long total = (long)B * n;
    long *vstart = malloc((size_t)total * sizeof(long));
    ts_bl_mkey *keys = malloc((size_t)total * sizeof(ts_bl_mkey));
    ts_bl_seq *vord = ts_bl_seqs_new(B);
    ts_bl_seq *real = ts_bl_seqs_new(p->ndevs);
    ts_placement *v = ts_placement_new(p->name, B);
    int rc = TS_OK;
    if (!order || !pos || !vstart || !keys || !vord || !real || !v) {
        rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
        goto out;
    }
    if (ts_placement_topo(p, order) != 0) {
        rc = ts_bl_refuse(e, info, p, "its blocks form a cycle");
        goto out;
    }
    for (int i = 0; i < B; i++)
        pos[order[i]] = i;
    /* the virtual placement: block b alone on virtual device b */
    for (int b = 0; b < B && rc == TS_OK; b++) {
        const ts_block *x = &p->blocks[b];
        if (ts_placement_add_block(v, x->id, x->kind, x->span, x->memory, 1, &b) < 0)
            rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
        for (int m = 0; m < n && rc == TS_OK; m++)
            if (ts_bl_seq_push(&vord[b], b * n + m) != 0)
                rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
    }
    for (int i = 0; i < p->nedges && rc == TS_OK; i++) {
        const ts_edge *x = &p->edges[i];
        if (ts_placement_add_edge(v, x->src, x->dst, x->delay, x->distance) < 0)
            rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
    }
    if (rc == TS_OK)
        rc = ts_bl_asap(v, n, vord, vstart, info->name, e);
    long vmax = 0;
    for (long i = 0; i < total && rc == TS_OK; i++)
        if (vstart[i] > vmax)
            vmax = vstart[i];
    for (int d = 0; d < p->ndevs && rc == TS_OK; d++) {
        long cnt = 0;
        for (int b = 0; b < B; b++) {
            if (!ts_block_on(&p->blocks[b], d))
                continue;
            int phase = p->blocks[b].kind == TS_KIND_BACKWARD;
            for (int m = 0; m < n; m++)
                keys[cnt++] = (ts_bl_mkey){vstart[(long)b * n + m], 0, phase, pos[b], m, b * n + m};
        }
        /* the phase goes first: backward keys are moved past every virtual start */
        for (long i = 0; i < cnt; i++)
            if (keys[i].pipe)
                keys[i].vstart += vmax + 1;
        qsort(keys, (size_t)cnt, sizeof *keys, ts_bl_cmp_mkey);
        for (long i = 0; i < cnt && rc == TS_OK; i++)
            if (ts_bl_seq_push(&real[d], keys[i].id) != 0)
                rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
    }
    if (rc == TS_OK)
        rc = ts_bl_asap(p, n, real, start, info->name, e);
out:
    free(order);
    free(pos);
    free(vstart);
    free(keys);
    ts_bl_seqs_free(vord, B);
    ts_bl_seqs_free(real, p->ndevs);
    ts_placement_free(v);
    return rc;
}

/* The interleaved placement: every stage on one device, stage s on device s mod D, v = S/D >= 2. */
static int ts_check_interleaved(const ts_baseline_info *info, const ts_placement *p, int n,
                                const ts_bl_pipe *pp, int min_chunks, ts_err *e)
{
    int D = p->ndevs;
    if (pp->nfwd != pp->nstages)
        return ts_bl_refuse(e, info, p, "its forward and backward blocks do not pair up");
    for (int s = 0; s < pp->nstages; s++) {
        int f = pp->fwd[s], b = pp->bwd[s];
        if (b < 0 || pp->att[b] >= 0 || p->blocks[f].ndevices != 1 ||
            !ts_block_same_devices(&p->blocks[f], &p->blocks[b]) ||
            p->blocks[f].devices[0] != s % D)
            return ts_bl_refuse(e, info, p,
                                "its stages are not placed round-robin, one device each");
    }
    if (pp->nstages % D != 0)
        return ts_bl_refuse(e, info, p, "its stage count is not a multiple of the device count");
    if (pp->nstages / D < min_chunks)
        return ts_bl_refuse(e, info, p, "it has fewer than 2 model chunks per device");
    if (info->n_multiple_of_devs && n > 0 && n % D != 0)
        return ts_fail(e, TS_EINPUT,
                       "baseline 'interleaved' needs a number of micro-batches that is a multiple "
                       "of the device count (%d), got %d",
                       D, n);
    return TS_OK;
}

/* Megatron-LM's interleaved schedule: forward item k of rank r runs chunk (k mod Dv) / D on
 * micro-batch (k / Dv) * D + k mod D; backward item k runs the chunks in reverse order. */
static int ts_interleaved_item(const ts_bl_pipe *pp, int D, int v, int r, long k, bool bwd, int n)
{
    long group = (long)D * v;
    int c = (int)((k % group) / D);
    if (bwd)
        c = v - 1 - c;
    int m = (int)((k / group) * D + k % D);
    int s = c * D + r;
    return (bwd ? pp->bwd[s] : pp->fwd[s]) * n + m;
}

/* One rank's order of a rule over the interleaved pipeline (D ranks, n micro-batches), pushed to
 * seq: 0, or nonzero on allocation failure. */
typedef int (*ts_rank_order)(const ts_bl_pipe *pp, int D, int r, int n, ts_bl_seq *seq);

/* The rules that run every block as one pipeline of at least min_chunks model chunks per device
 * (interleaved 1F1B, looped BFS): the pipeline, its checks, each rank's order, then the timing. */
static int ts_interleaved_rule(const ts_baseline_info *info, const ts_placement *p, int n,
                               int min_chunks, ts_rank_order order, long *start, ts_err *e)
{
    bool *in = malloc((size_t)p->nblocks * sizeof(bool) + 1);
    ts_bl_seq *real = ts_bl_seqs_new(p->ndevs);
    ts_bl_pipe pp = {0};
    int rc = TS_OK;
    if (!in || !real) {
        rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
        goto out;
    }
    for (int b = 0; b < p->nblocks; b++)
        in[b] = true;
    rc = ts_bl_pipe_of(info, p, in, &pp, e);
    if (rc == TS_OK)
        rc = ts_check_interleaved(info, p, n, &pp, min_chunks, e);
    for (int r = 0; r < p->ndevs && rc == TS_OK; r++)
        if (order(&pp, p->ndevs, r, n, &real[r]))
            rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
    if (rc == TS_OK)
        rc = ts_bl_asap(p, n, real, start, info->name, e);
out:
    free(in);
    ts_bl_seqs_free(real, p->ndevs);
    ts_bl_pipe_free(&pp);
    return rc;
}

/* Interleaved 1F1B's rank r: warm-up (D-r-1)*2 + (v-1)*D forwards, then one forward one
 * backward, then the rest. */
static int ts_interleaved_rank(const ts_bl_pipe *pp, int D, int r, int n, ts_bl_seq *seq)
{
    int v = pp->nstages / D;
    long total = (long)n * v;
    long warm = (long)(D - r - 1) * 2 + (long)(v - 1) * D;
    if (warm > total)
        warm = total;
    int err = 0;
    for (long k = 0; k < warm; k++)
        err |= ts_bl_seq_push(seq, ts_interleaved_item(pp, D, v, r, k, false, n));
    for (long i = 0; i < total - warm; i++) {
        err |= ts_bl_seq_push(seq, ts_interleaved_item(pp, D, v, r, warm + i, false, n));
        err |= ts_bl_seq_push(seq, ts_interleaved_item(pp, D, v, r, i, true, n));
    }
    for (long k = total - warm; k < total; k++)
        err |= ts_bl_seq_push(seq, ts_interleaved_item(pp, D, v, r, k, true, n));
    return err;
}

int ts_bl_interleaved(const ts_baseline_info *info, const ts_placement *p, int n, long *start,
                      ts_err *e)
{
    return ts_interleaved_rule(info, p, n, 2, ts_interleaved_rank, start, e);
}

/* Direction of a chain with one forward and one backward block per device: 0 when stage s runs
 * on device s, 1 when on device D-1-s; TS_EINPUT (refused) otherwise. D is even, so s == D-1-s
 * never happens and the direction is unambiguous. */
static int ts_chain_direction(const ts_baseline_info *info, const ts_placement *p,
                              const ts_bl_pipe *pp, int *dir, ts_err *e)
{
    int D = p->ndevs;
    if (pp->nstages != D || pp->nfwd != D)
        return ts_bl_refuse(e, info, p,
                            "each chain must have one forward and one backward block "
                            "per device");
    for (int s = 0; s < D; s++) {
        int f = pp->fwd[s], bk = pp->bwd[s];
        if (bk < 0 || pp->att[bk] >= 0 || p->blocks[f].ndevices != 1 ||
            !ts_block_same_devices(&p->blocks[f], &p->blocks[bk]))
            return ts_bl_refuse(e, info, p, "each stage must run on one device");
        int dev = p->blocks[f].devices[0];
        int dk = dev == s ? 0 : dev == D - 1 - s ? 1 : -2;
        if (s == 0)
            *dir = dk;
        if (dk == -2 || dk != *dir)
            return ts_bl_refuse(e, info, p, "its chains do not run straight across the devices");
    }
    return TS_OK;
}

/* Chimera's placement: two V chains over the same D devices, one down (stage s on device s) and
 * one up (stage s on device D-1-s). pipes[0] is the down one. */
static int ts_chimera_pipes(const ts_baseline_info *info, const ts_placement *p, ts_bl_pipe *pipes,
                            int *pipe_of, ts_err *e)
{
    if (p->ndevs < 2 || p->ndevs % 2)
        return ts_bl_refuse(e, info, p, "it needs an even device count");
    int rc = ts_bl_two_pipes(info, p, pipes, pipe_of, e);
    int dir[2] = {-1, -1};
    for (int k = 0; k < 2 && rc == TS_OK; k++)
        rc = ts_chain_direction(info, p, &pipes[k], &dir[k], e);
    if (rc != TS_OK)
        return rc;
    if (dir[0] == dir[1])
        return ts_bl_refuse(e, info, p, "its two chains run in the same direction");
    if (dir[0] == 1) { /* put the down pipeline first */
        ts_bl_pipe t = pipes[0];
        pipes[0] = pipes[1];
        pipes[1] = t;
        for (int b = 0; b < p->nblocks; b++)
            pipe_of[b] = 1 - pipe_of[b];
    }
    return TS_OK;
}

/* Chimera: units of D/2 micro-batches; in each unit both pipelines run 1F1B over the unit's
 * micro-batches (each a micro-batch of its own direction), merged on every device by the time
 * each would run alone; units follow each other (direct concatenation). */
int ts_bl_chimera(const ts_baseline_info *info, const ts_placement *p, int n, long *start,
                  ts_err *e)
{
    ts_bl_pipe pipes[2];
    memset(pipes, 0, sizeof pipes);
    int *pipe_of = calloc((size_t)p->nblocks, sizeof(int));
    ts_bl_seq *real = ts_bl_seqs_new(p->ndevs);
    long *vstart = malloc((size_t)p->nblocks * (size_t)n * sizeof(long));
    long *vall = malloc((size_t)p->nblocks * (size_t)n * sizeof(long));
    ts_placement *v = NULL;
    int rc = TS_OK;
    if (!pipe_of || !real || !vstart || !vall) {
        rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
        goto out;
    }
    rc = ts_chimera_pipes(info, p, pipes, pipe_of, e);
    if (rc != TS_OK)
        goto out;
    v = ts_bl_virtual(p, pipes, 2, pipe_of, 2 * p->ndevs);
    if (!v) {
        rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
        goto out;
    }
    /* Unit u is timed alone and shifted by u times the busiest device's work in one unit, so
     * the next unit's warm-up slides into the previous unit's cool-down. */
    int unit = p->ndevs / 2;
    long *load = malloc((size_t)p->ndevs * sizeof(long));
    if (!load) {
        rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
        goto out;
    }
    ts_placement_device_load(p, load);
    long period = 0;
    for (int d = 0; d < p->ndevs; d++)
        if (load[d] * unit > period)
            period = load[d] * unit;
    free(load);
    long total = (long)p->nblocks * n;
    for (long i = 0; i < total; i++)
        vall[i] = -1;
    for (int m0 = 0; m0 < n && rc == TS_OK; m0 += unit) {
        int cnt = n - m0 < unit ? n - m0 : unit;
        rc = ts_bl_virtual_round(v, n, pipes, 2, m0, cnt, vstart, info->name, e);
        for (long i = 0; i < total && rc == TS_OK; i++)
            if (vstart[i] >= 0)
                vall[i] = vstart[i] + (long)(m0 / unit) * period;
    }
    if (rc == TS_OK && ts_bl_merge(p, n, vall, pipes, pipe_of, true, real) != 0)
        rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
    if (rc == TS_OK)
        rc = ts_bl_asap(p, n, real, start, info->name, e);
out:
    ts_bl_pipe_free(&pipes[0]);
    ts_bl_pipe_free(&pipes[1]);
    free(pipe_of);
    free(vstart);
    free(vall);
    ts_bl_seqs_free(real, p->ndevs);
    ts_placement_free(v);
    return rc;
}

/* The ZB-H1 placement: device s runs forward F of stage s, input gradient B and its attached
 * weight gradient W. */
static int ts_check_zb(const ts_baseline_info *info, const ts_placement *p, const ts_bl_pipe *pp,
                       ts_err *e)
{
    int D = p->ndevs;
    if (pp->nstages != D || pp->nfwd != D)
        return ts_bl_refuse(e, info, p, "it needs one forward and one backward block per device");
    for (int s = 0; s < D; s++) {
        int f = pp->fwd[s], bk = pp->bwd[s], w = bk >= 0 ? pp->att[bk] : -1;
        if (bk < 0 || w < 0 || p->blocks[f].ndevices != 1 || p->blocks[f].devices[0] != s ||
            !ts_block_same_devices(&p->blocks[f], &p->blocks[bk]))
            return ts_bl_refuse(e, info, p,
                                "each device needs a forward F, an input-gradient B and a "
                                "weight-gradient W (a backward block after B that nothing waits "
                                "for)");
    }
    return TS_OK;
}

int ts_bl_fb_1f1b(ts_bl_seq *q, int f, int b, int n, int warm)
{
    if (warm > n)
        warm = n;
    int err = 0;
    for (int i = 0; i < warm; i++)
        err |= ts_bl_seq_push(q, f * n + i);
    for (int i = 0; i < n - warm; i++) {
        err |= ts_bl_seq_push(q, f * n + warm + i);
        err |= ts_bl_seq_push(q, b * n + i);
    }
    for (int i = n - warm; i < n; i++)
        err |= ts_bl_seq_push(q, b * n + i);
    return err ? -1 : 0;
}

int ts_bl_zb_flat(const ts_baseline_info *info, const ts_placement *p, int n, int extra_warm,
                  long cap, long *start, ts_err *e)
{
    int D = p->ndevs;
    bool *in = malloc((size_t)p->nblocks * sizeof(bool));
    ts_bl_seq *fb = ts_bl_seqs_new(D);
    long *caps = malloc((size_t)D * sizeof(long));
    ts_bl_pipe pp = {0};
    int rc = TS_OK;
    if (!in || !fb || !caps) {
        rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
        goto out;
    }
    for (int b = 0; b < p->nblocks; b++)
        in[b] = true;
    rc = ts_bl_pipe_of(info, p, in, &pp, e);
    if (rc == TS_OK)
        rc = ts_check_zb(info, p, &pp, e);
    for (int s = 0; s < D && rc == TS_OK; s++) {
        caps[s] = cap;
        if (ts_bl_fb_1f1b(&fb[s], pp.fwd[s], pp.bwd[s], n, (D - s - 1) * (1 + extra_warm)) != 0)
            rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
    }
    if (rc == TS_OK)
        rc = ts_bl_wfill(p, n, fb, pp.att, caps, start, info->name, e);
out:
    free(in);
    free(caps);
    ts_bl_seqs_free(fb, D);
    ts_bl_pipe_free(&pp);
    return rc;
}

/* ZB-H1 (Qi et al., zero bubble pipeline parallelism): each stage keeps 1F1B's order of forward
 * passes F and input-gradient passes B; the weight-gradient passes W, which nothing waits for, are
 * deferred to fill the slots where the next F or B is not ready yet, and are run earlier only when
 * the next F would lift memory above 1F1B's peak. */
int ts_bl_zbh1(const ts_baseline_info *info, const ts_placement *p, int n, long *start, ts_err *e)
{
    /* Memory ceiling: the peak of 1F1B (B and W together) on the same placement. */
    int rc = ts_bl_1f1b(info, p, n, start, e);
    if (rc != TS_OK)
        return rc;
    long cap = ts_bl_peak_memory(p, n, start);
    if (cap < 0)
        return ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
    return ts_bl_zb_flat(info, p, n, 0, cap, start, e);
}

/* ZB-H2 (Qi et al.): ZB-H1 with 2(D-d-1) warm-up forwards on device d (2D-2d-1 micro-batches in
 * flight before the first B), which lets W fill the warm-up and tail bubbles; W is forced only to
 * stay within 2D-1 micro-batches of activations, the paper's memory figure for ZB-H2. */
int ts_bl_zbh2(const ts_baseline_info *info, const ts_placement *p, int n, long *start, ts_err *e)
{
    long fmem = 0;
    for (int b = 0; b < p->nblocks; b++)
        if (p->blocks[b].kind != TS_KIND_BACKWARD && p->blocks[b].memory > fmem)
            fmem = p->blocks[b].memory;
    return ts_bl_zb_flat(info, p, n, 1, (2L * p->ndevs - 1) * fmem, start, e);
}

/* Looped BFS's rank r: its chunks' forwards in order, then its chunks' backwards in reverse. */
static int ts_looped_bfs_rank(const ts_bl_pipe *pp, int D, int r, int n, ts_bl_seq *seq)
{
    int err = 0;
    for (int s = r; s < pp->nstages; s += D)
        for (int m = 0; m < n; m++)
            err |= ts_bl_seq_push(seq, pp->fwd[s] * n + m);
    for (int s = pp->nstages - D + r; s >= 0; s -= D)
        for (int m = n - 1; m >= 0; m--)
            err |= ts_bl_seq_push(seq, pp->bwd[s] * n + m);
    return err;
}

/* Looped BFS (Lamy-Poirier, breadth-first pipeline parallelism; PyTorch's ScheduleLoopedBFS):
 * rank r runs, chunk by chunk (its stages r, r+D, ...), the forwards of every micro-batch, then
 * the chunks in reverse order, the backwards of every micro-batch in reverse order. */
int ts_bl_looped_bfs(const ts_baseline_info *info, const ts_placement *p, int n, long *start,
                     ts_err *e)
{
    return ts_interleaved_rule(info, p, n, 1, ts_looped_bfs_rank, start, e);
}
