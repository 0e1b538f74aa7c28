/* The reference backend: host memory and CBLAS (OpenBLAS). One BLAS thread per rank, since every
 * rank is one device and ranks already share the machine's cores. */
#include "rt_backend.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static float *ts_rt_cpu_alloc(ts_rt_backend *b, size_t n)
{
    (void)b;
    return calloc(n ? n : 1, sizeof(float));
}
static void ts_rt_cpu_release(ts_rt_backend *b, float *p)
{
    (void)b;
    free(p);
}
static int ts_rt_cpu_copy(ts_rt_backend *b, float *dst, const float *src, size_t n)
{
    (void)b;
    if (n)
        memmove(dst, src, n * sizeof(float));
    return TS_OK;
}
static int ts_rt_cpu_gemm(ts_rt_backend *b, bool ta, bool tb, int m, int n, int k, float alpha,
                          const float *A, int lda, const float *B, int ldb, float beta, float *C,
                          int ldc)
{
    (void)b;
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n,
                k, alpha, A, lda, B, ldb, beta, C, ldc);
    return TS_OK;
}
static int ts_rt_cpu_tanh_fwd(ts_rt_backend *b, size_t n, float *x)
{
    (void)b;
    for (size_t i = 0; i < n; i++)
        x[i] = tanhf(x[i]);
    return TS_OK;
}
static int ts_rt_cpu_tanh_bwd(ts_rt_backend *b, size_t n, const float *y, const float *dy,
                              float *dz)
{
    (void)b;
    for (size_t i = 0; i < n; i++)
        dz[i] = dy[i] * (1.0f - y[i] * y[i]);
    return TS_OK;
}
static int ts_rt_cpu_axpy(ts_rt_backend *b, size_t n, float a, const float *x, float *y)
{
    (void)b;
    for (size_t i = 0; i < n; i++)
        y[i] += a * x[i];
    return TS_OK;
}
static int ts_rt_cpu_sync(ts_rt_backend *b)
{
    (void)b;
    return TS_OK;
}
static void ts_rt_cpu_destroy(ts_rt_backend *b)
{
    free(b);
}

ts_rt_backend *ts_rt_backend_cpu_new(ts_err *e)
{
    ts_rt_backend *b = calloc(1, sizeof *b);
    if (!b) {
        ts_fail(e, TS_ESYS, "cpu backend: out of memory");
        return NULL;
    }
#ifdef TS_HAVE_OPENBLAS_THREADS
    openblas_set_num_threads(1);
#endif
    b->name = "cpu";
    b->alloc = ts_rt_cpu_alloc;
    b->release = ts_rt_cpu_release;
    b->upload = ts_rt_cpu_copy;
    b->download = ts_rt_cpu_copy;
    b->gemm = ts_rt_cpu_gemm;
    b->tanh_fwd = ts_rt_cpu_tanh_fwd;
    b->tanh_bwd = ts_rt_cpu_tanh_bwd;
    b->axpy = ts_rt_cpu_axpy;
    b->sync = ts_rt_cpu_sync;
    b->destroy = ts_rt_cpu_destroy;
    b->allreduce = NULL;
    b->host_memory = true;
    return b;
}
