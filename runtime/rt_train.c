/* The train workload: a multi-layer perceptron whose layers are the placement's forward blocks.
 * Forward block f computes y = tanh(W_f x) for a micro-batch of TS_RT_TRAIN_BATCH columns, x
 * being the micro-batch's data (for a first block) or the sum of its forward inputs. Its mirrored
 * backward block takes dL/dy (the loss gradient at a last block, else the sum of the gradients
 * coming back), accumulates dL/dW_f = dz x^T over the micro-batches and sends dL/dx = W_f^T dz
 * on. A block on p devices is a tensor-parallel layer: each device owns a slice of W_f's rows, the
 * output slices are gathered with a sum (zeros elsewhere) and the input gradient's partial
 * products are summed.
 * Loss: 0.5/(B N) * sum ||y - t||^2 over the last blocks, so accumulated gradients are means. */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_mirror.h"
#include "rt_rng.h"
#include "rt_workloads.h"

/* The learning rate of the plain gradient step each iteration ends with. */
#define TS_RT_LR 0.2f

typedef struct {
    int S, B, N, rank;
    const ts_rt_plan *p;
    ts_rt_backend *be;
    ts_rt_mirror mir;
    /* per block: this rank's row slice */
    int *lo, *hi;
    /* per forward block on this rank: weight and gradient slices */
    float **w, **dw;
    /* host copies of the first iteration's gradient slices */
    float **grad0;
    /* per forward entry until its backward runs */
    float **saved_x, **saved_y;
    float *dy_dev, *dz_dev, *dx_dev;
    /* S x B scratch */
    float *host, *host2;
    double loss_acc, loss_last;
} ts_rt_train;

static float ts_rt_init_weight(int S, int f, size_t i)
{
    return ts_rt_uniform(23, (uint64_t)f, 0, i) * sqrtf(3.0f / (float)S);
}
static float ts_rt_data_value(int f, int m, size_t i)
{
    return ts_rt_uniform(21, (uint64_t)f, (uint64_t)m, i);
}
static float ts_rt_target_value(int f, int m, size_t i)
{
    return 0.8f * ts_rt_uniform(22, (uint64_t)f, (uint64_t)m, i);
}

static int ts_rt_fail_be(ts_rt_exec *x, ts_rt_train *t, ts_err *e)
{
    return ts_rt_exec_fail(x, e, TS_ESYS, "%s backend operation failed", t->be->name);
}

static int ts_rt_forward(ts_rt_train *t, ts_rt_exec *x, const ts_rt_op *op,
                         const float *const *inputs, float *out, ts_err *e)
{
    ts_rt_backend *be = t->be;
    int f = op->block, m = op->micro, S = t->S, B = t->B;
    size_t n = (size_t)S * B;
    const ts_block *blk = &t->p->s->placement->blocks[f];
    for (size_t i = 0; i < n; i++)
        t->host[i] = t->mir.source[f] ? ts_rt_data_value(f, m, i) : 0.0f;
    for (int k = 0; k < op->ninputs; k++)
        for (size_t i = 0; i < n; i++)
            t->host[i] += inputs[k][i];
    float *xd = be->alloc(be, n), *yd = be->alloc(be, n);
    if (!xd || !yd) {
        if (xd)
            be->release(be, xd);
        if (yd)
            be->release(be, yd);
        return ts_rt_exec_fail(x, e, TS_ESYS, "out of memory for activations");
    }
    int lo = t->lo[f], rows = t->hi[f] - lo;
    int rc = be->upload(be, xd, t->host, n);
    if (rc == TS_OK && rows > 0)
        rc = be->gemm(be, false, false, rows, B, S, 1.0f, t->w[f], S, xd, B, 0.0f,
                      yd + (size_t)lo * B, B);
    if (rc == TS_OK && rows > 0)
        rc = be->tanh_fwd(be, (size_t)rows * B, yd + (size_t)lo * B);
    if (rc != TS_OK)
        rc = ts_rt_fail_be(x, t, e);
    if (rc == TS_OK && blk->ndevices > 1)
        rc = ts_rt_exec_allreduce(x, f, yd, n, e);
    if (rc == TS_OK && be->download(be, out, yd, n) != TS_OK)
        rc = ts_rt_fail_be(x, t, e);
    if (rc != TS_OK || t->mir.partner[f] < 0) {
        be->release(be, xd);
        be->release(be, yd);
        return rc;
    }
    t->saved_x[op->entry] = xd;
    t->saved_y[op->entry] = yd;
    ts_rt_exec_account(x, (long long)(2 * n * sizeof(float)));
    return TS_OK;
}

static int ts_rt_backward(ts_rt_train *t, ts_rt_exec *x, const ts_rt_op *op,
                          const float *const *inputs, float *out, ts_err *e)
{
    ts_rt_backend *be = t->be;
    const ts_placement *pl = t->p->s->placement;
    int b = op->block, m = op->micro, f = t->mir.partner[b], S = t->S, B = t->B, N = t->N;
    size_t n = (size_t)S * B;
    int fe = t->p->index[f * N + m];
    float *xd = t->saved_x[fe], *yd = t->saved_y[fe];
    if (!xd || !yd)
        return ts_rt_exec_fail(x, e, TS_ESYS, "the saved activations of %s micro %d are missing",
                               pl->blocks[f].id, m);
    memset(t->host, 0, n * sizeof(float));
    for (int k = 0; k < op->ninputs; k++) {
        int src = pl->edges[op->inputs[k].edge].src;
        if (pl->blocks[src].kind != TS_KIND_BACKWARD)
            /* the forward output: saved */
            continue;
        for (size_t i = 0; i < n; i++)
            t->host[i] += inputs[k][i];
    }
    const ts_block *blk = &pl->blocks[b];
    if (t->mir.sink[f]) {
        if (be->download(be, t->host2, yd, n) != TS_OK)
            return ts_rt_fail_be(x, t, e);
        double loss = 0, scale = 1.0 / ((double)B * N);
        for (size_t i = 0; i < n; i++) {
            float r = t->host2[i] - ts_rt_target_value(f, m, i);
            t->host[i] += (float)(r * scale);
            loss += 0.5 * r * r * scale;
        }
        if (ts_rt_block_member(blk, t->rank) == 0)
            t->loss_acc += loss;
    }
    int lo = t->lo[f], rows = t->hi[f] - lo;
    int rc = be->upload(be, t->dy_dev, t->host, n);
    if (rc == TS_OK && rows > 0)
        rc = be->tanh_bwd(be, (size_t)rows * B, yd + (size_t)lo * B, t->dy_dev + (size_t)lo * B,
                          t->dz_dev);
    /* dW += dz x^T */
    if (rc == TS_OK && rows > 0)
        rc = be->gemm(be, false, true, rows, S, B, 1.0f, t->dz_dev, B, xd, B, 1.0f, t->dw[f], S);
    /* dx = W^T dz, partial over the row slices */
    if (rc == TS_OK && !t->mir.source[f]) {
        if (rows > 0)
            rc = be->gemm(be, true, false, S, B, rows, 1.0f, t->w[f], S, t->dz_dev, B, 0.0f,
                          t->dx_dev, B);
        else
            rc = be->upload(be, t->dx_dev, memset(t->host2, 0, n * sizeof(float)), n);
        if (rc != TS_OK)
            return ts_rt_fail_be(x, t, e);
        if (blk->ndevices > 1 && (rc = ts_rt_exec_allreduce(x, b, t->dx_dev, n, e)) != TS_OK)
            return rc;
        if (be->download(be, out, t->dx_dev, n) != TS_OK)
            rc = TS_ESYS;
    }
    if (rc != TS_OK)
        return ts_rt_fail_be(x, t, e);
    be->release(be, xd);
    be->release(be, yd);
    t->saved_x[fe] = t->saved_y[fe] = NULL;
    ts_rt_exec_account(x, -(long long)(2 * n * sizeof(float)));
    return TS_OK;
}

static int ts_rt_tr_compute(ts_rt_workload *w, ts_rt_exec *x, const ts_rt_op *op,
                            const float *const *inputs, float *out, ts_err *e)
{
    ts_rt_train *t = w->state;
    if (t->p->s->placement->blocks[op->block].kind == TS_KIND_FORWARD)
        return ts_rt_forward(t, x, op, inputs, out, e);
    return ts_rt_backward(t, x, op, inputs, out, e);
}

/* Keeps the first iteration's gradients for the check, then a plain SGD step. */
static int ts_rt_tr_end_iteration(ts_rt_workload *w, ts_rt_exec *x, int iteration, ts_err *e)
{
    ts_rt_train *t = w->state;
    ts_rt_backend *be = t->be;
    for (int f = 0; f < t->p->nblocks; f++) {
        if (!t->dw[f])
            continue;
        size_t n = (size_t)(t->hi[f] - t->lo[f]) * t->S;
        if (iteration == 0) {
            t->grad0[f] = malloc((n ? n : 1) * sizeof(float));
            if (!t->grad0[f] || be->download(be, t->grad0[f], t->dw[f], n) != TS_OK)
                return ts_rt_exec_fail(x, e, TS_ESYS, "could not keep the gradients");
        }
        float *zero = calloc(n ? n : 1, sizeof(float));
        int rc = zero ? be->axpy(be, n, -TS_RT_LR, t->dw[f], t->w[f]) : TS_ESYS;
        if (rc == TS_OK)
            rc = be->upload(be, t->dw[f], zero, n);
        free(zero);
        if (rc != TS_OK)
            return ts_rt_exec_fail(x, e, TS_ESYS, "optimizer step failed");
    }
    t->loss_last = t->loss_acc;
    t->loss_acc = 0;
    return TS_OK;
}

static void ts_rt_tr_destroy(ts_rt_workload *w)
{
    if (!w)
        return;
    ts_rt_train *t = w->state;
    if (t) {
        ts_rt_backend *be = t->be;
        for (int f = 0; f < t->p->nblocks; f++) {
            if (t->w && t->w[f])
                be->release(be, t->w[f]);
            if (t->dw && t->dw[f])
                be->release(be, t->dw[f]);
            if (t->grad0)
                free(t->grad0[f]);
        }
        for (int i = 0; i < t->p->s->nentries; i++) {
            if (t->saved_x && t->saved_x[i])
                be->release(be, t->saved_x[i]);
            if (t->saved_y && t->saved_y[i])
                be->release(be, t->saved_y[i]);
        }
        if (t->dy_dev)
            be->release(be, t->dy_dev);
        if (t->dz_dev)
            be->release(be, t->dz_dev);
        if (t->dx_dev)
            be->release(be, t->dx_dev);
        free(t->lo);
        free(t->hi);
        free(t->w);
        free(t->dw);
        free(t->grad0);
        free(t->saved_x);
        free(t->saved_y);
        free(t->host);
        free(t->host2);
        ts_rt_mirror_free(&t->mir);
        free(t);
    }
    free(w);
}

static int ts_rt_tr_check(ts_rt_workload *w, const ts_rt_plan *p, int rank, ts_rt_check *c,
                          ts_err *e);
static double ts_rt_tr_loss(const ts_rt_workload *w);

int ts_rt_train_new(const ts_rt_plan *p, int rank, ts_rt_backend *be, const ts_rt_workload_opts *o,
                    ts_rt_workload **out, ts_err *e)
{
    *out = NULL;
    const ts_placement *pl = p->s->placement;
    ts_rt_workload *w = calloc(1, sizeof *w);
    ts_rt_train *t = calloc(1, sizeof *t);
    if (!w || !t) {
        free(w);
        free(t);
        return ts_fail(e, TS_ESYS, "train: out of memory");
    }
    w->state = t;
    w->name = "train";
    w->compute = ts_rt_tr_compute;
    w->end_iteration = ts_rt_tr_end_iteration;
    w->check = ts_rt_tr_check;
    w->loss = ts_rt_tr_loss;
    w->destroy = ts_rt_tr_destroy;
    t->S = o->size;
    t->B = TS_RT_TRAIN_BATCH;
    t->N = p->nmicros;
    t->rank = rank;
    t->p = p;
    t->be = be;
    size_t n = (size_t)t->S * t->B;
    w->msg_floats = n;
    int rc = ts_rt_mirror_build(pl, &t->mir, e);
    if (rc != TS_OK) {
        ts_rt_tr_destroy(w);
        return rc;
    }
    size_t nb = (size_t)pl->nblocks, ne = (size_t)p->s->nentries + 1;
    t->lo = calloc(nb, sizeof(int));
    t->hi = calloc(nb, sizeof(int));
    t->w = calloc(nb, sizeof(float *));
    t->dw = calloc(nb, sizeof(float *));
    t->grad0 = calloc(nb, sizeof(float *));
    t->saved_x = calloc(ne, sizeof(float *));
    t->saved_y = calloc(ne, sizeof(float *));
    t->host = malloc(n * sizeof(float));
    t->host2 = malloc(n * sizeof(float));
    t->dy_dev = be->alloc(be, n);
    t->dz_dev = be->alloc(be, n);
    t->dx_dev = be->alloc(be, n);
    float *tmp = malloc((size_t)t->S * t->S * sizeof(float));
    rc = (t->lo && t->hi && t->w && t->dw && t->grad0 && t->saved_x && t->saved_y && t->host &&
          t->host2 && t->dy_dev && t->dz_dev && t->dx_dev && tmp)
             ? TS_OK
             : TS_ESYS;
    for (int f = 0; f < pl->nblocks && rc == TS_OK; f++) {
        const ts_block *blk = &pl->blocks[f];
        int j = ts_rt_block_member(blk, rank);
        if (blk->kind != TS_KIND_FORWARD || j < 0)
            continue;
        t->lo[f] = j * t->S / blk->ndevices;
        t->hi[f] = (j + 1) * t->S / blk->ndevices;
        size_t rn = (size_t)(t->hi[f] - t->lo[f]) * t->S;
        for (size_t i = 0; i < rn; i++)
            tmp[i] = ts_rt_init_weight(t->S, f, (size_t)t->lo[f] * t->S + i);
        t->w[f] = be->alloc(be, rn);
        if (!t->w[f] || be->upload(be, t->w[f], tmp, rn) != TS_OK)
            rc = TS_ESYS;
        if (rc == TS_OK && t->mir.partner[f] >= 0 && !(t->dw[f] = be->alloc(be, rn)))
            rc = TS_ESYS;
    }
    free(tmp);
    if (rc != TS_OK) {
        ts_rt_tr_destroy(w);
        return ts_fail(e, TS_ESYS, "train: rank %d could not allocate its layers", rank);
    }
    *out = w;
    return TS_OK;
}

/* This rank's share of the loss of the last iteration (sum over its loss-taking instances). */
static double ts_rt_tr_loss(const ts_rt_workload *w)
{
    return ((const ts_rt_train *)w->state)->loss_last;
}

/* The single-process run: every micro-batch forward through all layers in topological order,
 * then backward in reverse, accumulating full gradients. */
static int ts_rt_tr_check(ts_rt_workload *w, const ts_rt_plan *p, int rank, ts_rt_check *c,
                          ts_err *e)
{
    ts_rt_train *t = w->state;
    const ts_placement *pl = p->s->placement;
    const ts_rt_mirror *mir = &t->mir;
    int S = t->S, B = t->B, N = t->N, nb = pl->nblocks;
    size_t n = (size_t)S * B, ss = (size_t)S * S;
    memset(c, 0, sizeof *c);
    float *W = malloc(ss * nb * sizeof(float)), *G = calloc(ss * nb, sizeof(float));
    float *X = malloc(n * nb * sizeof(float)), *Y = malloc(n * nb * sizeof(float));
    float *DX = malloc(n * nb * sizeof(float)), *dy = malloc(n * sizeof(float));
    int *topo = malloc(sizeof(int) * (size_t)nb);
    int rc = (W && G && X && Y && DX && dy && topo)
                 ? TS_OK
                 : ts_fail(e, TS_ESYS, "train check: out of memory");
    if (rc == TS_OK && ts_placement_topo(pl, topo) != 0)
        rc = ts_fail(e, TS_EINPUT, "train check: the placement has a cycle");
    for (int f = 0; f < nb && rc == TS_OK; f++)
        for (size_t i = 0; i < ss; i++)
            W[ss * f + i] = ts_rt_init_weight(S, f, i);
    for (int m = 0; m < N && rc == TS_OK; m++) {
        for (int q = 0; q < nb; q++) {
            int f = topo[q];
            if (pl->blocks[f].kind != TS_KIND_FORWARD)
                continue;
            float *x = X + n * f, *y = Y + n * f;
            for (size_t i = 0; i < n; i++)
                x[i] = mir->source[f] ? ts_rt_data_value(f, m, i) : 0.0f;
            for (int k = 0; k < pl->nedges; k++)
                if (pl->edges[k].dst == f)
                    for (size_t i = 0; i < n; i++)
                        x[i] += Y[n * pl->edges[k].src + i];
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, S, B, S, 1.0f, W + ss * f, S, x,
                        B, 0.0f, y, B);
            for (size_t i = 0; i < n; i++)
                y[i] = tanhf(y[i]);
        }
        for (int q = nb - 1; q >= 0; q--) {
            int f = topo[q];
            if (pl->blocks[f].kind != TS_KIND_FORWARD || mir->partner[f] < 0)
                continue;
            float *y = Y + n * f;
            memset(dy, 0, n * sizeof(float));
            for (int k = 0; k < pl->nedges; k++) {
                int c2 = pl->edges[k].dst;
                if (pl->edges[k].src == f && pl->blocks[c2].kind == TS_KIND_FORWARD)
                    for (size_t i = 0; i < n; i++)
                        dy[i] += DX[n * c2 + i];
            }
            if (mir->sink[f]) {
                double scale = 1.0 / ((double)B * N);
                for (size_t i = 0; i < n; i++)
                    dy[i] += (float)((y[i] - ts_rt_target_value(f, m, i)) * scale);
            }
            for (size_t i = 0; i < n; i++)
                /* now dz */
                dy[i] *= 1.0f - y[i] * y[i];
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, S, S, B, 1.0f, dy, B, X + n * f, B,
                        1.0f, G + ss * f, S);
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, S, B, S, 1.0f, W + ss * f, S, dy,
                        B, 0.0f, DX + n * f, B);
        }
    }
    for (int f = 0; f < nb && rc == TS_OK; f++) {
        if (!t->grad0[f])
            continue;
        size_t off = (size_t)t->lo[f] * S, len = (size_t)(t->hi[f] - t->lo[f]) * S;
        double num = 0, den = 0;
        for (size_t i = 0; i < len; i++) {
            double d = (double)t->grad0[f][i] - G[ss * f + off + i];
            num += d * d;
            den += (double)G[ss * f + off + i] * G[ss * f + off + i];
        }
        double rel = sqrt(num) / (sqrt(den) > 1e-30 ? sqrt(den) : 1e-30);
        c->compared++;
        if (rel > c->max_rel_error)
            c->max_rel_error = rel;
        if (rel > 1e-5) {
            if (!c->failed)
                snprintf(c->first, sizeof c->first,
                         "rank %d, block %s: accumulated gradient differs from the single-process "
                         "run (relative error %.3g)",
                         rank, pl->blocks[f].id, rel);
            c->failed++;
        }
    }
    free(W);
    free(G);
    free(X);
    free(Y);
    free(DX);
    free(dy);
    free(topo);
    return rc;
}
