/* Compute backends: the few dense operations the workloads need, on memory the backend owns
 * (host memory for the CPU backend, GPU memory for CUDA). Matrices are row-major fp32. The CPU
 * backend (rt_backend_cpu.c, BLAS) is the reference; rt_backend_cuda.cu mirrors it with cuBLAS. */
#ifndef TS_RT_BACKEND_H
#define TS_RT_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
#include "ts_error.h"

typedef struct ts_rt_backend ts_rt_backend;

/* Collective sum over a group of ranks on backend memory, used when the backend has its own
 * transport (NCCL). Returns TS_OK or fails with a message; deadline is a ts_clock_now() time. */
typedef int (*ts_rt_allreduce_fn)(ts_rt_backend *b, int group, float *buf, size_t n,
                                  double deadline, ts_err *e);

struct ts_rt_backend {
    const char *name;
    void *ctx;
    /* n floats, zeroed; NULL on failure */
    float *(*alloc)(ts_rt_backend *b, size_t n);
    void (*release)(ts_rt_backend *b, float *p);
    int (*upload)(ts_rt_backend *b, float *dst, const float *host, size_t n);
    int (*download)(ts_rt_backend *b, float *host, const float *src, size_t n);
    /* C[m x n] = alpha * op(A) * op(B) + beta * C, row-major with leading dimensions. */
    int (*gemm)(ts_rt_backend *b, bool ta, bool tb, int m, int n, int k, float alpha,
                const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);
    /* x = tanh(x) */
    int (*tanh_fwd)(ts_rt_backend *b, size_t n, float *x);
    /* dz = dy (1 - y^2) */
    int (*tanh_bwd)(ts_rt_backend *b, size_t n, const float *y, const float *dy, float *dz);
    /* y += a x */
    int (*axpy)(ts_rt_backend *b, size_t n, float a, const float *x, float *y);
    int (*sync)(ts_rt_backend *b);
    void (*destroy)(ts_rt_backend *b);
    /* NULL: the runtime stages through host memory and MPI */
    ts_rt_allreduce_fn allreduce;
    /* pointers are plain host memory */
    bool host_memory;
};

ts_rt_backend *ts_rt_backend_cpu_new(ts_err *e);
/* Defined only when the CUDA backend is built (TS_HAVE_CUDA). local_rank picks the GPU;
 * nccl_ok says whether each rank has its own GPU so that NCCL may be used for collectives. */
ts_rt_backend *ts_rt_backend_cuda_new(int local_rank, int *ngpus, ts_err *e);

#ifdef __cplusplus
}
#endif
#endif
