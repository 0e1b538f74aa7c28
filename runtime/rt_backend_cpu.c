/* The reference backend: host memory and CBLAS (OpenBLAS). One BLAS thread per rank, since every
 * rank is one device and ranks already share the machine's cores. */
#include "rt_backend.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static float *cpu_alloc(rt_backend *b, size_t n)
{
    (void)b;
    return calloc(n ? n : 1, sizeof(float));
}
static void cpu_release(rt_backend *b, float *p)
{
    (void)b;
    free(p);
}
static int cpu_copy(rt_backend *b, float *dst, const float *src, size_t n)
{
    (void)b;
    if (n)
        memmove(dst, src, n * sizeof(float));
    return TS_OK;
}
static int cpu_gemm(rt_backend *b, bool ta, bool tb, int m, int n, int k, float alpha,
                    const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    (void)b;
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n,
                k, alpha, A, lda, B, ldb, beta, C, ldc);
    return TS_OK;
}
static int cpu_tanh_fwd(rt_backend *b, size_t n, float *x)
{
    (void)b;
    for (size_t i = 0; i < n; i++)
        x[i] = tanhf(x[i]);
    return TS_OK;
}
static int cpu_tanh_bwd(rt_backend *b, size_t n, const float *y, const float *dy, float *dz)
{
    (void)b;
    for (size_t i = 0; i < n; i++)
        dz[i] = dy[i] * (1.0f - y[i] * y[i]);
    return TS_OK;
}
static int cpu_axpy(rt_backend *b, size_t n, float a, const float *x, float *y)
{
    (void)b;
    for (size_t i = 0; i < n; i++)
        y[i] += a * x[i];
    return TS_OK;
}
static int cpu_sync(rt_backend *b)
{
    (void)b;
    return TS_OK;
}
static void cpu_destroy(rt_backend *b)
{
    free(b);
}

rt_backend *rt_backend_cpu_new(ts_err *e)
{
    rt_backend *b = calloc(1, sizeof *b);
    if (!b) {
        ts_fail(e, TS_ESYS, "cpu backend: out of memory");
        return NULL;
    }
#ifdef TS_HAVE_OPENBLAS_THREADS
    openblas_set_num_threads(1);
#endif
    b->name = "cpu";
    b->alloc = cpu_alloc;
    b->release = cpu_release;
    b->upload = cpu_copy;
    b->download = cpu_copy;
    b->gemm = cpu_gemm;
    b->tanh_fwd = cpu_tanh_fwd;
    b->tanh_bwd = cpu_tanh_bwd;
    b->axpy = cpu_axpy;
    b->sync = cpu_sync;
    b->destroy = cpu_destroy;
    b->allreduce = NULL;
    b->host_memory = true;
    return b;
}
