/* The machinery the baseline rules share: the refusal and the words for what a kind fits
 * (ts_baseline_fits_text), device orders as growable lists, their timing (every
 * instance as early as its device order and inputs allow), the pipeline view of a V-shaped
 * placement, and the virtual pipeline whose timing orders the real devices (see baseline.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "baseline_internal.h"
#include "ts_replay.h"

/* Appends s to buf (size bytes in all), truncating. */
static void ts_bl_cat(char *buf, size_t size, const char *s)
{
    strncat(buf, s, size - strlen(buf) - 1);
}

void ts_baseline_fits_text(const ts_baseline_info *info, char *buf, size_t size)
{
    if (size == 0)
        return;
    buf[0] = '\0';
    if (info->family) {
        ts_bl_cat(buf, size, info->family);
        ts_bl_cat(buf, size, " (");
    }
    for (int i = 0; info->fits[i]; i++) {
        ts_bl_cat(buf, size, i ? ", " : "");
        ts_bl_cat(buf, size, info->fits[i]);
    }
    if (info->inference)
        ts_bl_cat(buf, size, " and inference variants");
    if (info->family)
        ts_bl_cat(buf, size, ")");
    if (info->unsplit) {
        ts_bl_cat(buf, size, " (or ");
        ts_bl_cat(buf, size, info->unsplit);
        ts_bl_cat(buf, size, ", backward unsplit)");
    }
    if (info->needs)
        ts_bl_cat(buf, size, info->needs);
}

int ts_bl_refuse(ts_err *e, const ts_baseline_info *info, const ts_placement *p, const char *why)
{
    char fits[512];
    ts_baseline_fits_text(info, fits, sizeof fits);
    return ts_fail(e, TS_EINPUT, "baseline '%s' does not fit placement '%s': %s; it fits %s",
                   info->name, p->name, why, fits);
}

/* ---------------------------------------------------------------- growable int lists */

int ts_bl_seq_push(ts_bl_seq *q, int x)
{
    if (q->len == q->cap) {
        int cap = q->cap ? q->cap * 2 : 64;
        int *v = realloc(q->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        q->v = v;
        q->cap = cap;
    }
    q->v[q->len++] = x;
    return 0;
}

ts_bl_seq *ts_bl_seqs_new(int n)
{
    return calloc((size_t)(n > 0 ? n : 1), sizeof(ts_bl_seq));
}

void ts_bl_seqs_free(ts_bl_seq *q, int n)
{
    if (!q)
        return;
    for (int i = 0; i < n; i++)
        free(q[i].v);
    free(q);
}

/* ---------------------------------------------------------------- timing of device orders */

int ts_bl_preds_make(const ts_placement *p, ts_bl_preds *pr)
{
    pr->off = calloc((size_t)p->nblocks + 1, sizeof(int));
    pr->in = malloc((size_t)(p->nedges > 0 ? p->nedges : 1) * sizeof(int));
    if (!pr->off || !pr->in)
        return -1;
    for (int i = 0; i < p->nedges; i++)
        pr->off[p->edges[i].dst + 1]++;
    for (int b = 0; b < p->nblocks; b++)
        pr->off[b + 1] += pr->off[b];
    int *fill = malloc((size_t)p->nblocks * sizeof(int) + 1);
    if (!fill)
        return -1;
    memcpy(fill, pr->off, (size_t)p->nblocks * sizeof(int));
    for (int i = 0; i < p->nedges; i++)
        pr->in[fill[p->edges[i].dst]++] = i;
    free(fill);
    return 0;
}

void ts_bl_preds_free(ts_bl_preds *pr)
{
    free(pr->off);
    free(pr->in);
}

/* Earliest start of every listed instance (id = block * n + micro) given each device's order:
 * the core's replay (ts_replay.h). Unlisted instances keep start -1. Fails when the orders
 * deadlock. */
int ts_bl_asap(const ts_placement *p, int n, const ts_bl_seq *ord, long *start, const char *kind,
               ts_err *e)
{
    int D = p->ndevs, total = p->nblocks * n, len = 0, stuck = -1;
    for (int d = 0; d < D; d++)
        len += ord[d].len;
    int *inst = malloc((size_t)(total > 0 ? total : 1) * sizeof(int));
    int *off = malloc((size_t)(D + 1) * sizeof(int));
    int *order = malloc((size_t)(len > 0 ? len : 1) * sizeof(int));
    double *dur = malloc((size_t)(total > 0 ? total : 1) * sizeof(double));
    double *st = malloc((size_t)(total > 0 ? total : 1) * sizeof(double));
    int rc = TS_OK;
    if (!inst || !off || !order || !dur || !st) {
        rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", kind);
        goto out;
    }
    for (int x = 0; x < total; x++) {
        inst[x] = -1;
        dur[x] = (double)p->blocks[x / n].span;
    }
    off[0] = 0;
    for (int d = 0; d < D; d++) {
        for (int i = 0; i < ord[d].len; i++) {
            int x = ord[d].v[i];
            order[off[d] + i] = x;
            inst[x] = x;
        }
        off[d + 1] = off[d] + ord[d].len;
    }
    ts_replay_in in = {p, n, total, inst, off, order, dur, NULL};
    rc = ts_replay(&in, st, &stuck, e);
    if (rc == TS_ENOANSWER)
        rc = ts_fail(e, TS_ESYS,
                     "baseline %s: internal error: device orders deadlock at instance %s "
                     "micro-batch %d",
                     kind, p->blocks[stuck / n].id, stuck % n);
    for (int x = 0; rc == TS_OK && x < total; x++)
        start[x] = inst[x] >= 0 ? (long)st[x] : -1;
out:
    free(inst);
    free(off);
    free(order);
    free(dur);
    free(st);
    return rc;
}

/* ---------------------------------------------------------------- pipeline view of a placement */

void ts_bl_pipe_free(ts_bl_pipe *q)
{
    free(q->fwd);
    free(q->bwd);
    free(q->att);
    free(q->stage);
    free(q->rank);
    memset(q, 0, sizeof *q);
}

/* Is there an edge a -> b? Looks only at a's edges (off, list: ts_placement_out_edges), so that
 * checking a chain is linear in its edges (20,000 blocks: a scan of every edge per pair took
 * most of a second). */
static bool ts_has_edge(const ts_placement *p, const int *off, const int *list, int a, int b)
{
    for (int i = off[a]; i < off[a + 1]; i++)
        if (p->edges[list[i]].dst == b)
            return true;
    return false;
}

/* Attachments: a backward sink whose one input (within in[]) is a backward block on the same
 * devices hangs off that block (att[a] = b, attached[b] set). */
static int ts_pipe_attach(const ts_placement *p, const bool *in, int *att, bool *attached)
{
    int B = p->nblocks;
    int *nout = calloc((size_t)B, sizeof(int));
    int *nin = calloc((size_t)B, sizeof(int));
    int *pred = malloc((size_t)B * sizeof(int) + 1);
    if (!nout || !nin || !pred) {
        free(nout);
        free(nin);
        free(pred);
        return -1;
    }
    for (int i = 0; i < p->nedges; i++) {
        const ts_edge *x = &p->edges[i];
        if (!in[x->src] || !in[x->dst])
            continue;
        nout[x->src]++;
        nin[x->dst]++;
        pred[x->dst] = x->src;
    }
    for (int b = 0; b < B; b++) {
        if (!in[b] || nout[b] != 0 || nin[b] != 1)
            continue;
        int a = pred[b];
        if (p->blocks[b].kind == TS_KIND_BACKWARD && p->blocks[a].kind == TS_KIND_BACKWARD &&
            ts_block_same_devices(&p->blocks[a], &p->blocks[b]) && att[a] < 0 && nout[a] >= 1) {
            att[a] = b;
            attached[b] = true;
        }
    }
    free(nout);
    free(nin);
    free(pred);
    return 0;
}

/* Checks that chain[0..len) is one linked chain of forward blocks then backward blocks; sets *nf
 * to the number of forward blocks. TS_EINPUT with why[] otherwise. */
static int ts_pipe_check_chain(const ts_placement *p, const int *chain, int len, int *nf, char *why,
                               size_t nwhy)
{
    if (len == 0) {
        snprintf(why, nwhy, "it has no blocks");
        return TS_EINPUT;
    }
    int *off, *list;
    if (ts_placement_out_edges(p, &off, &list)) {
        snprintf(why, nwhy, "out of memory");
        return TS_ESYS;
    }
    for (int i = 0; i + 1 < len; i++)
        if (!ts_has_edge(p, off, list, chain[i], chain[i + 1])) {
            snprintf(why, nwhy, "its blocks do not form one chain (%s and %s are not linked)",
                     p->blocks[chain[i]].id, p->blocks[chain[i + 1]].id);
            free(off);
            free(list);
            return TS_EINPUT;
        }
    free(off);
    free(list);
    int f = 0;
    while (f < len && p->blocks[chain[f]].kind != TS_KIND_BACKWARD)
        f++;
    for (int i = f; i < len; i++)
        if (p->blocks[chain[i]].kind != TS_KIND_BACKWARD) {
            snprintf(why, nwhy, "its chain runs %s (not backward) after the backward block %s",
                     p->blocks[chain[i]].id, p->blocks[chain[f]].id);
            return TS_EINPUT;
        }
    *nf = f;
    return TS_OK;
}

/* Ranks and stages of a checked chain: forwards in chain order; backward g_k (chain order)
 * mirrors forward nf-1-k. */
static void ts_pipe_stages(ts_bl_pipe *q, const int *chain, int len, int nf)
{
    int ng = len - nf;
    for (int i = 0; i < len; i++) {
        q->rank[chain[i]] = 2 * i;
        if (q->att[chain[i]] >= 0)
            q->rank[q->att[chain[i]]] = 2 * i + 1;
    }
    q->nfwd = nf;
    q->nstages = nf + (ng > nf ? ng - nf : 0);
    for (int s = 0; s < q->nstages; s++) {
        q->fwd[s] = s < nf ? chain[s] : -1;
        q->bwd[s] = -1;
    }
    for (int k = 0; k < ng; k++) {
        int s = k < nf ? nf - 1 - k : nf + (k - nf);
        q->bwd[s] = chain[nf + k];
    }
    for (int s = 0; s < q->nstages; s++) {
        if (q->fwd[s] >= 0)
            q->stage[q->fwd[s]] = s;
        if (q->bwd[s] >= 0) {
            q->stage[q->bwd[s]] = s;
            if (q->att[q->bwd[s]] >= 0)
                q->stage[q->att[q->bwd[s]]] = s;
        }
    }
}

/* Reads the blocks with in[b] set as a pipeline. Returns TS_OK, TS_EINPUT with why[] filled when
 * they are not V-shaped, TS_ESYS on allocation failure. */
int ts_bl_pipe_make(const ts_placement *p, const bool *in, ts_bl_pipe *q, char *why, size_t nwhy)
{
    int B = p->nblocks;
    memset(q, 0, sizeof *q);
    int *order = malloc((size_t)B * sizeof(int) + 1);
    int *chain = malloc((size_t)B * sizeof(int) + 1);
    bool *attached = calloc((size_t)B + 1, sizeof(bool));
    q->att = malloc((size_t)B * sizeof(int) + 1);
    q->stage = malloc((size_t)B * sizeof(int) + 1);
    q->rank = malloc((size_t)B * sizeof(int) + 1);
    q->fwd = malloc((size_t)(2 * B + 1) * sizeof(int));
    q->bwd = malloc((size_t)(2 * B + 1) * sizeof(int));
    int rc = TS_OK;
    if (!order || !chain || !attached || !q->att || !q->stage || !q->rank || !q->fwd || !q->bwd) {
        rc = TS_ESYS;
        goto out;
    }
    if (ts_placement_topo(p, order) != 0) {
        snprintf(why, nwhy, "its blocks form a cycle");
        rc = TS_EINPUT;
        goto out;
    }
    for (int b = 0; b < B; b++)
        q->att[b] = q->stage[b] = q->rank[b] = -1;
    if (ts_pipe_attach(p, in, q->att, attached) != 0) {
        rc = TS_ESYS;
        goto out;
    }
    int len = 0, nf = 0;
    for (int i = 0; i < B; i++)
        if (in[order[i]] && !attached[order[i]])
            chain[len++] = order[i];
    rc = ts_pipe_check_chain(p, chain, len, &nf, why, nwhy);
    if (rc == TS_OK)
        ts_pipe_stages(q, chain, len, nf);
out:
    free(order);
    free(chain);
    free(attached);
    if (rc != TS_OK)
        ts_bl_pipe_free(q);
    return rc;
}

int ts_bl_pipe_of(const ts_baseline_info *info, const ts_placement *p, const bool *in,
                  ts_bl_pipe *q, ts_err *e)
{
    char why[256] = "";
    int rc = ts_bl_pipe_make(p, in, q, why, sizeof why);
    if (rc == TS_ESYS)
        return ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
    if (rc != TS_OK)
        return ts_bl_refuse(e, info, p, why);
    return TS_OK;
}

/* ---------------------------------------------------------------- stage orders */

/* Appends a stage's item: forward pass (the forward block) or backward pass (the backward block
 * and its attachment). Instance ids are block * n + micro. */
static int ts_push_item(ts_bl_seq *q, const ts_bl_pipe *pp, int s, bool backward, int micro, int n)
{
    int b = backward ? pp->bwd[s] : pp->fwd[s];
    if (b < 0)
        return 0;
    if (ts_bl_seq_push(q, b * n + micro) != 0)
        return -1;
    if (backward && pp->att[b] >= 0 && ts_bl_seq_push(q, pp->att[b] * n + micro) != 0)
        return -1;
    return 0;
}

/* 1F1B on one stage over micro-batches m0 .. m0+cnt-1 with `warm` warm-up forwards (Megatron's
 * order: warm-up forwards, then one forward one backward, then the remaining backwards). A stage
 * with only one half runs it in micro-batch order. */
int ts_bl_stage_order(ts_bl_seq *q, const ts_bl_pipe *pp, int s, int m0, int cnt, int warm, int n)
{
    bool hf = pp->fwd[s] >= 0, hb = pp->bwd[s] >= 0;
    if (!hf || !hb) {
        for (int i = 0; i < cnt; i++)
            if (ts_push_item(q, pp, s, false, m0 + i, n) != 0)
                return -1;
        for (int i = 0; i < cnt; i++)
            if (ts_push_item(q, pp, s, true, m0 + i, n) != 0)
                return -1;
        return 0;
    }
    if (warm > cnt)
        warm = cnt;
    if (warm < 0)
        warm = 0;
    for (int i = 0; i < warm; i++)
        if (ts_push_item(q, pp, s, false, m0 + i, n) != 0)
            return -1;
    for (int i = 0; i < cnt - warm; i++)
        if (ts_push_item(q, pp, s, false, m0 + warm + i, n) != 0 ||
            ts_push_item(q, pp, s, true, m0 + i, n) != 0)
            return -1;
    for (int i = cnt - warm; i < cnt; i++)
        if (ts_push_item(q, pp, s, true, m0 + i, n) != 0)
            return -1;
    return 0;
}

/* The virtual placement: each block of pipe k moved onto virtual device base[k] + its stage. */
ts_placement *ts_bl_virtual(const ts_placement *p, const ts_bl_pipe *pipes, int npipes,
                            const int *pipe_of, int ndevs)
{
    ts_placement *v = ts_placement_new(p->name, ndevs);
    if (!v)
        return NULL;
    int base = 0;
    int *bases = malloc((size_t)npipes * sizeof(int));
    if (!bases) {
        ts_placement_free(v);
        return NULL;
    }
    for (int k = 0; k < npipes; k++) {
        bases[k] = base;
        base += pipes[k].nstages;
    }
    for (int b = 0; b < p->nblocks; b++) {
        const ts_block *x = &p->blocks[b];
        int dev = bases[pipe_of[b]] + pipes[pipe_of[b]].stage[b];
        if (ts_placement_add_block(v, x->id, x->kind, x->span, x->memory, 1, &dev) < 0)
            goto fail;
    }
    for (int i = 0; i < p->nedges; i++) {
        const ts_edge *x = &p->edges[i];
        if (ts_placement_add_edge(v, x->src, x->dst, x->delay, x->distance) < 0)
            goto fail;
    }
    free(bases);
    return v;
fail:
    free(bases);
    ts_placement_free(v);
    return NULL;
}

int ts_bl_cmp_mkey(const void *a, const void *b)
{
    const ts_bl_mkey *x = a, *y = b;
    if (x->vstart != y->vstart)
        return x->vstart < y->vstart ? -1 : 1;
    if (x->stage != y->stage)
        return y->stage - x->stage;
    if (x->pipe != y->pipe)
        return x->pipe - y->pipe;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    return x->micro - y->micro;
}

/* Appends to each real device's order its instances that the virtual run timed (vstart >= 0),
 * sorted by the common merge key (deep_first: Chimera's tie-break by deeper stage). */
int ts_bl_merge(const ts_placement *p, int n, const long *vstart, const ts_bl_pipe *pipes,
                const int *pipe_of, bool deep_first, ts_bl_seq *real)
{
    long total = (long)p->nblocks * n;
    ts_bl_mkey *keys = malloc((size_t)(total > 0 ? total : 1) * sizeof *keys);
    if (!keys)
        return -1;
    for (int d = 0; d < p->ndevs; d++) {
        long cnt = 0;
        for (int b = 0; b < p->nblocks; b++) {
            if (!ts_block_on(&p->blocks[b], d))
                continue;
            for (int m = 0; m < n; m++) {
                long id = (long)b * n + m;
                if (vstart[id] < 0)
                    continue;
                const ts_bl_pipe *pp = &pipes[pipe_of[b]];
                keys[cnt++] = (ts_bl_mkey){
                    vstart[id], deep_first ? pp->stage[b] : 0, pipe_of[b], pp->rank[b], m, (int)id};
            }
        }
        qsort(keys, (size_t)cnt, sizeof *keys, ts_bl_cmp_mkey);
        for (long i = 0; i < cnt; i++)
            if (ts_bl_seq_push(&real[d], keys[i].id) != 0) {
                free(keys);
                return -1;
            }
    }
    free(keys);
    return 0;
}

/* Times the rule on the virtual pipeline(s) for micro-batches m0 .. m0+cnt-1, as if that group
 * ran alone from time 0: vstart gets those instances' virtual starts, -1 elsewhere. */
int ts_bl_virtual_round(const ts_placement *v, int n, const ts_bl_pipe *pipes, int npipes, int m0,
                        int cnt, long *vstart, const char *kind, ts_err *e)
{
    ts_bl_seq *vord = ts_bl_seqs_new(v->ndevs);
    if (!vord)
        return ts_fail(e, TS_ESYS, "baseline %s: out of memory", kind);
    int rc = TS_OK;
    int base = 0;
    for (int k = 0; k < npipes && rc == TS_OK; k++) {
        const ts_bl_pipe *pp = &pipes[k];
        for (int s = 0; s < pp->nstages; s++)
            if (ts_bl_stage_order(&vord[base + s], pp, s, m0, cnt, pp->nfwd - s - 1, n) != 0) {
                rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", kind);
                break;
            }
        base += pp->nstages;
    }
    if (rc == TS_OK)
        rc = ts_bl_asap(v, n, vord, vstart, kind, e);
    ts_bl_seqs_free(vord, v->ndevs);
    return rc;
}

/* Peak running memory over all devices of a timetable (deltas applied at start). */
long ts_bl_peak_memory(const ts_placement *p, int n, const long *start)
{
    long best = 0;
    long total = (long)p->nblocks * n;
    ts_bl_mkey *keys = malloc((size_t)(total > 0 ? total : 1) * sizeof *keys);
    if (!keys)
        return -1;
    for (int d = 0; d < p->ndevs; d++) {
        long cnt = 0;
        for (int b = 0; b < p->nblocks; b++)
            if (ts_block_on(&p->blocks[b], d))
                for (int m = 0; m < n; m++)
                    keys[cnt++] = (ts_bl_mkey){start[(long)b * n + m], 0, 0, b, m, b};
        qsort(keys, (size_t)cnt, sizeof *keys, ts_bl_cmp_mkey);
        long cur = 0;
        for (long i = 0; i < cnt; i++) {
            cur += p->blocks[keys[i].id].memory;
            if (cur > best)
                best = cur;
        }
    }
    free(keys);
    return best;
}

bool ts_bl_inputs_ready(const ts_placement *p, const ts_bl_preds *pr, int n, const long *start,
                        int b, int m, long t)
{
    for (int j = pr->off[b]; j < pr->off[b + 1]; j++) {
        const ts_edge *ed = &p->edges[pr->in[j]];
        long ps = start[(long)ed->src * n + m];
        if (ps < 0 || ps + p->blocks[ed->src].span + ed->delay > t)
            return false;
    }
    return true;
}

/* ---------------------------------------------------------------- two opposite chains */

/* Union-find root, for the connected components of Chimera's two chains. */
static int ts_root(int *up, int x)
{
    while (up[x] != x) {
        up[x] = up[up[x]];
        x = up[x];
    }
    return x;
}

/* Splits the placement into its two connected components and reads each as a pipeline
 * (pipe_of[b] = 0 or 1). Refuses a placement that is not exactly two chains. */
int ts_bl_two_pipes(const ts_baseline_info *info, const ts_placement *p, ts_bl_pipe *pipes,
                    int *pipe_of, ts_err *e)
{
    int B = p->nblocks;
    int *up = malloc((size_t)B * sizeof(int) + 1);
    bool *in = malloc((size_t)B * sizeof(bool) + 1);
    int rc = TS_OK;
    if (!up || !in) {
        rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", info->name);
        goto out;
    }
    for (int b = 0; b < B; b++)
        up[b] = b;
    for (int i = 0; i < p->nedges; i++)
        up[ts_root(up, p->edges[i].src)] = ts_root(up, p->edges[i].dst);
    int roots[2], nroots = 0;
    for (int b = 0; b < B && nroots <= 2; b++)
        if (ts_root(up, b) == b) {
            if (nroots < 2)
                roots[nroots] = b;
            nroots++;
        }
    if (nroots != 2) {
        rc = ts_bl_refuse(e, info, p, "it is not made of exactly two separate chains");
        goto out;
    }
    for (int k = 0; k < 2 && rc == TS_OK; k++) {
        for (int b = 0; b < B; b++) {
            in[b] = ts_root(up, b) == roots[k];
            if (in[b])
                pipe_of[b] = k;
        }
        rc = ts_bl_pipe_of(info, p, in, &pipes[k], e);
    }
out:
    free(up);
    free(in);
    return rc;
}
