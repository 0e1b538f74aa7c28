/* The dataflow workload: instance (b, m) computes tanh(W_b (D_bm + sum of its inputs)) with S x S
 * matrices. W_b is fixed per block and D_bm per instance, so an input taken from the wrong block
 * or micro-batch changes the result. A block on p devices splits the inner dimension of the GEMM
 * into p slices and sums the partial products with a collective. The check recomputes every
 * instance in one process, micro-batch by micro-batch in topological order. */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_rng.h"
#include "rt_workloads.h"

typedef struct {
    int S, rank;
    const ts_rt_plan *p;
    ts_rt_backend *be;
    /* per block on this rank: W_b on the backend */
    float **w_dev;
    float *x_dev, *y_dev, *x_host;
    /* per entry: this rank's output of the first iteration (with --check) */
    float **kept;
    bool keep;
} ts_rt_dataflow;

static float ts_rt_weight(int S, int b, size_t i)
{
    return ts_rt_uniform(11, (uint64_t)b, 0, i) * sqrtf(3.0f / (float)S);
}
static float ts_rt_bias(int b, int m, size_t i)
{
    return 0.5f * ts_rt_uniform(12, (uint64_t)b, (uint64_t)m, i);
}

static void ts_rt_fill_weight(int S, int b, float *w)
{
    for (size_t i = 0; i < (size_t)S * S; i++)
        w[i] = ts_rt_weight(S, b, i);
}

static int ts_rt_df_compute(ts_rt_workload *w, ts_rt_exec *x, const ts_rt_op *op,
                            const float *const *inputs, float *out, ts_err *e)
{
    ts_rt_dataflow *d = w->state;
    ts_rt_backend *be = d->be;
    const ts_block *blk = &d->p->s->placement->blocks[op->block];
    size_t n = (size_t)d->S * d->S;
    for (size_t i = 0; i < n; i++)
        d->x_host[i] = ts_rt_bias(op->block, op->micro, i);
    for (int k = 0; k < op->ninputs; k++)
        for (size_t i = 0; i < n; i++)
            d->x_host[i] += inputs[k][i];
    int j = ts_rt_block_member(blk, d->rank), np = blk->ndevices;
    int lo = j * d->S / np, hi = (j + 1) * d->S / np;
    int rc = be->upload(be, d->x_dev, d->x_host, n);
    if (rc == TS_OK)
        rc = be->gemm(be, false, false, d->S, d->S, hi - lo, 1.0f, d->w_dev[op->block] + lo, d->S,
                      d->x_dev + (size_t)lo * d->S, d->S, 0.0f, d->y_dev, d->S);
    if (rc != TS_OK)
        return ts_rt_exec_fail(x, e, TS_ESYS, "%s backend: GEMM failed", be->name);
    if (np > 1 && (rc = ts_rt_exec_allreduce(x, op->block, d->y_dev, n, e)) != TS_OK)
        return rc;
    if (be->tanh_fwd(be, n, d->y_dev) != TS_OK || be->download(be, out, d->y_dev, n) != TS_OK)
        return ts_rt_exec_fail(x, e, TS_ESYS, "%s backend: activation or copy failed", be->name);
    if (d->keep && !d->kept[op->entry]) {
        d->kept[op->entry] = malloc(n * sizeof(float));
        if (!d->kept[op->entry])
            return ts_rt_exec_fail(x, e, TS_ESYS, "out of memory keeping results");
        memcpy(d->kept[op->entry], out, n * sizeof(float));
    }
    return TS_OK;
}

static void ts_rt_df_destroy(ts_rt_workload *w)
{
    if (!w)
        return;
    ts_rt_dataflow *d = w->state;
    if (d) {
        for (int b = 0; d->w_dev && b < d->p->nblocks; b++)
            if (d->w_dev[b])
                d->be->release(d->be, d->w_dev[b]);
        if (d->x_dev)
            d->be->release(d->be, d->x_dev);
        if (d->y_dev)
            d->be->release(d->be, d->y_dev);
        for (int i = 0; d->kept && i < d->p->s->nentries; i++)
            free(d->kept[i]);
        free(d->kept);
        free(d->w_dev);
        free(d->x_host);
        free(d);
    }
    free(w);
}

static int ts_rt_df_check(ts_rt_workload *w, const ts_rt_plan *p, int rank, ts_rt_check *c,
                          ts_err *e);

int ts_rt_dataflow_new(const ts_rt_plan *p, int rank, ts_rt_backend *be,
                       const ts_rt_workload_opts *o, ts_rt_workload **out, ts_err *e)
{
    *out = NULL;
    ts_rt_workload *w = calloc(1, sizeof *w);
    ts_rt_dataflow *d = calloc(1, sizeof *d);
    if (!w || !d) {
        free(w);
        free(d);
        return ts_fail(e, TS_ESYS, "dataflow: out of memory");
    }
    w->state = d;
    w->name = "dataflow";
    w->compute = ts_rt_df_compute;
    w->check = ts_rt_df_check;
    w->destroy = ts_rt_df_destroy;
    d->S = o->size;
    d->rank = rank;
    d->p = p;
    d->be = be;
    d->keep = o->check;
    size_t n = (size_t)d->S * d->S;
    w->msg_floats = n;
    d->w_dev = calloc((size_t)p->nblocks, sizeof(float *));
    d->kept = calloc((size_t)p->s->nentries + 1, sizeof(float *));
    d->x_host = malloc(n * sizeof(float));
    d->x_dev = be->alloc(be, n);
    d->y_dev = be->alloc(be, n);
    float *tmp = malloc(n * sizeof(float));
    int rc = (d->w_dev && d->kept && d->x_host && d->x_dev && d->y_dev && tmp) ? TS_OK : TS_ESYS;
    for (int b = 0; b < p->nblocks && rc == TS_OK; b++) {
        if (ts_rt_block_member(&p->s->placement->blocks[b], rank) < 0)
            continue;
        ts_rt_fill_weight(d->S, b, tmp);
        d->w_dev[b] = be->alloc(be, n);
        if (!d->w_dev[b] || be->upload(be, d->w_dev[b], tmp, n) != TS_OK)
            rc = TS_ESYS;
    }
    free(tmp);
    if (rc != TS_OK) {
        /* the message first: destroying w frees d, whose size it names */
        ts_fail(e, TS_ESYS, "dataflow: rank %d could not allocate %d x %d matrices", rank, d->S,
                d->S);
        ts_rt_df_destroy(w);
        return TS_ESYS;
    }
    *out = w;
    return TS_OK;
}

static int ts_rt_df_check(ts_rt_workload *w, const ts_rt_plan *p, int rank, ts_rt_check *c,
                          ts_err *e)
{
    ts_rt_dataflow *d = w->state;
    const ts_placement *pl = p->s->placement;
    int S = d->S, N = p->nmicros;
    size_t n = (size_t)S * S;
    memset(c, 0, sizeof *c);
    float **ref = calloc((size_t)p->s->nentries + 1, sizeof(float *));
    float *wt = malloc(n * sizeof(float) * (size_t)pl->nblocks);
    float *x = malloc(n * sizeof(float));
    int *topo = malloc(sizeof(int) * (size_t)pl->nblocks);
    int rc =
        (ref && wt && x && topo) ? TS_OK : ts_fail(e, TS_ESYS, "dataflow check: out of memory");
    if (rc == TS_OK && ts_placement_topo(pl, topo) != 0)
        rc = ts_fail(e, TS_EINPUT, "dataflow check: the placement has a cycle");
    for (int b = 0; b < pl->nblocks && rc == TS_OK; b++)
        ts_rt_fill_weight(S, b, wt + n * (size_t)b);
    for (int m = 0; m < N && rc == TS_OK; m++) {
        for (int t = 0; t < pl->nblocks && rc == TS_OK; t++) {
            int b = topo[t], ent = p->index[b * N + m];
            for (size_t i = 0; i < n; i++)
                x[i] = ts_rt_bias(b, m, i);
            for (int k = 0; k < pl->nedges; k++) {
                const ts_edge *ed = &pl->edges[k];
                if (ed->dst != b || m - ed->distance < 0)
                    continue;
                const float *src = ref[p->index[ed->src * N + m - ed->distance]];
                for (size_t i = 0; i < n; i++)
                    x[i] += src[i];
            }
            ref[ent] = malloc(n * sizeof(float));
            if (!ref[ent]) {
                rc = ts_fail(e, TS_ESYS, "dataflow check: out of memory");
                break;
            }
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, S, S, S, 1.0f,
                        wt + n * (size_t)b, S, x, S, 0.0f, ref[ent], S);
            for (size_t i = 0; i < n; i++)
                ref[ent][i] = tanhf(ref[ent][i]);
            if (ts_rt_block_member(&pl->blocks[b], rank) < 0)
                continue;
            c->compared++;
            const float *got = d->kept[ent];
            double num = 0, den = 0;
            for (size_t i = 0; got && i < n; i++) {
                double diff = (double)got[i] - ref[ent][i];
                num += diff * diff;
                den += (double)ref[ent][i] * ref[ent][i];
            }
            double rel = got ? sqrt(num) / (sqrt(den) > 1e-30 ? sqrt(den) : 1e-30) : INFINITY;
            if (rel > c->max_rel_error)
                c->max_rel_error = rel;
            if (rel > 1e-5) {
                if (!c->failed)
                    snprintf(c->first, sizeof c->first,
                             "rank %d, instance %s micro %d: relative error %.3g against the "
                             "single-process result",
                             rank, pl->blocks[b].id, m, rel);
                c->failed++;
            }
        }
    }
    for (int i = 0; ref && i < p->s->nentries; i++)
        free(ref[i]);
    free(ref);
    free(wt);
    free(x);
    free(topo);
    return rc;
}
