/* The CUDA backend: the same operations as rt_backend_cpu.c, on GPU memory, with cuBLAS for the
 * GEMMs, two small kernels for the activation, and NCCL for the collectives of multi-device
 * blocks. Everything runs on one stream per rank; copies to and from the host synchronise it,
 * which is where the runtime exchanges messages through MPI (host-staged point to point). */
/* MPI's C API only, for Open MPI and MPICH alike */
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "ts_clock.h"
#include "ts_error.h"
}
#include "rt_cuda.h"

typedef struct {
    int device;
    cudaStream_t stream;
    cublasHandle_t blas;
    int ngroups;
    /* per group; NULL where not a member */
    ncclComm_t *nccl;
} ts_rt_cuda_ctx;

static ts_rt_cuda_ctx *ts_rt_ctx_of(ts_rt_backend *b)
{
    return (ts_rt_cuda_ctx *)b->ctx;
}

__global__ void ts_rt_k_tanh_fwd(size_t n, float *x)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = tanhf(x[i]);
}

__global__ void ts_rt_k_tanh_bwd(size_t n, const float *y, const float *dy, float *dz)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dz[i] = dy[i] * (1.0f - y[i] * y[i]);
}

static unsigned ts_rt_blocks_for(size_t n)
{
    return (unsigned)((n + 255) / 256);
}

static float *ts_rt_cu_alloc(ts_rt_backend *b, size_t n)
{
    void *p = NULL;
    size_t bytes = (n ? n : 1) * sizeof(float);
    if (cudaMalloc(&p, bytes) != cudaSuccess)
        return NULL;
    if (cudaMemsetAsync(p, 0, bytes, ts_rt_ctx_of(b)->stream) != cudaSuccess ||
        cudaStreamSynchronize(ts_rt_ctx_of(b)->stream) != cudaSuccess) {
        cudaFree(p);
        return NULL;
    }
    return (float *)p;
}

static void ts_rt_cu_release(ts_rt_backend *b, float *p)
{
    /* a kernel may still read it */
    cudaStreamSynchronize(ts_rt_ctx_of(b)->stream);
    cudaFree(p);
}

static int ts_rt_cu_copy(ts_rt_backend *b, float *dst, const float *src, size_t n,
                         cudaMemcpyKind kind)
{
    ts_rt_cuda_ctx *c = ts_rt_ctx_of(b);
    if (!n)
        return TS_OK;
    if (cudaMemcpyAsync(dst, src, n * sizeof(float), kind, c->stream) != cudaSuccess)
        return TS_ESYS;
    return cudaStreamSynchronize(c->stream) == cudaSuccess ? TS_OK : TS_ESYS;
}
static int ts_rt_cu_upload(ts_rt_backend *b, float *dst, const float *host, size_t n)
{
    return ts_rt_cu_copy(b, dst, host, n, cudaMemcpyHostToDevice);
}
static int ts_rt_cu_download(ts_rt_backend *b, float *host, const float *src, size_t n)
{
    return ts_rt_cu_copy(b, host, src, n, cudaMemcpyDeviceToHost);
}

/* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands. */
static int ts_rt_cu_gemm(ts_rt_backend *b, bool ta, bool tb, int m, int n, int k, float alpha,
                         const float *A, int lda, const float *B, int ldb, float beta, float *C,
                         int ldc)
{
    cublasStatus_t st =
        cublasSgemm(ts_rt_ctx_of(b)->blas, tb ? CUBLAS_OP_T : CUBLAS_OP_N,
                    ta ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &alpha, B, ldb, A, lda, &beta, C, ldc);
    return st == CUBLAS_STATUS_SUCCESS ? TS_OK : TS_ESYS;
}

static int ts_rt_cu_tanh_fwd(ts_rt_backend *b, size_t n, float *x)
{
    if (!n)
        return TS_OK;
    ts_rt_k_tanh_fwd<<<ts_rt_blocks_for(n), 256, 0, ts_rt_ctx_of(b)->stream>>>(n, x);
    return cudaGetLastError() == cudaSuccess ? TS_OK : TS_ESYS;
}

static int ts_rt_cu_tanh_bwd(ts_rt_backend *b, size_t n, const float *y, const float *dy, float *dz)
{
    if (!n)
        return TS_OK;
    ts_rt_k_tanh_bwd<<<ts_rt_blocks_for(n), 256, 0, ts_rt_ctx_of(b)->stream>>>(n, y, dy, dz);
    return cudaGetLastError() == cudaSuccess ? TS_OK : TS_ESYS;
}

static int ts_rt_cu_axpy(ts_rt_backend *b, size_t n, float a, const float *x, float *y)
{
    if (!n)
        return TS_OK;
    return cublasSaxpy(ts_rt_ctx_of(b)->blas, (int)n, &a, x, 1, y, 1) == CUBLAS_STATUS_SUCCESS
               ? TS_OK
               : TS_ESYS;
}

static int ts_rt_cu_sync(ts_rt_backend *b)
{
    return cudaStreamSynchronize(ts_rt_ctx_of(b)->stream) == cudaSuccess ? TS_OK : TS_ESYS;
}

/* NCCL sum with a deadline: the stream is polled, and a communicator that does not finish in
 * time is aborted so that the rank can report instead of hanging. */
static int ts_rt_cu_allreduce(ts_rt_backend *b, int group, float *buf, size_t n, double deadline,
                              ts_err *e)
{
    ts_rt_cuda_ctx *c = ts_rt_ctx_of(b);
    ncclComm_t comm = c->nccl[group];
    ncclResult_t r = ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm, c->stream);
    if (r != ncclSuccess)
        return ts_fail(e, TS_ESYS, "NCCL all-reduce failed: %s", ncclGetErrorString(r));
    for (;;) {
        cudaError_t q = cudaStreamQuery(c->stream);
        if (q == cudaSuccess)
            return TS_OK;
        if (q != cudaErrorNotReady)
            return ts_fail(e, TS_ESYS, "CUDA error in a collective: %s", cudaGetErrorString(q));
        ncclResult_t async = ncclSuccess;
        ncclCommGetAsyncError(comm, &async);
        if (async != ncclSuccess && async != ncclInProgress) {
            ncclCommAbort(comm);
            c->nccl[group] = NULL;
            return ts_fail(e, TS_ESYS, "NCCL collective failed: %s", ncclGetErrorString(async));
        }
        if (ts_clock_now() > deadline) {
            ncclCommAbort(comm);
            c->nccl[group] = NULL;
            return ts_fail(e, TS_ESYS, "NCCL collective timed out");
        }
    }
}

static void ts_rt_cu_destroy(ts_rt_backend *b)
{
    if (!b)
        return;
    ts_rt_cuda_ctx *c = ts_rt_ctx_of(b);
    if (c) {
        for (int g = 0; g < c->ngroups; g++)
            if (c->nccl && c->nccl[g])
                ncclCommDestroy(c->nccl[g]);
        free(c->nccl);
        if (c->blas)
            cublasDestroy(c->blas);
        if (c->stream)
            cudaStreamDestroy(c->stream);
        free(c);
    }
    free(b);
}

extern "C" ts_rt_backend *ts_rt_backend_cuda_new(int local_rank, int *ngpus, ts_err *e)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (ngpus)
        *ngpus = count;
    if (err != cudaSuccess || count == 0) {
        ts_fail(e, TS_EINPUT, "--backend cuda: no CUDA device (%s)",
                err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
        return NULL;
    }
    ts_rt_backend *b = (ts_rt_backend *)calloc(1, sizeof *b);
    ts_rt_cuda_ctx *c = (ts_rt_cuda_ctx *)calloc(1, sizeof *c);
    if (!b || !c) {
        free(b);
        free(c);
        ts_fail(e, TS_ESYS, "cuda backend: out of memory");
        return NULL;
    }
    b->ctx = c;
    c->device = local_rank % count;
    b->name = "cuda";
    b->alloc = ts_rt_cu_alloc;
    b->release = ts_rt_cu_release;
    b->upload = ts_rt_cu_upload;
    b->download = ts_rt_cu_download;
    b->gemm = ts_rt_cu_gemm;
    b->tanh_fwd = ts_rt_cu_tanh_fwd;
    b->tanh_bwd = ts_rt_cu_tanh_bwd;
    b->axpy = ts_rt_cu_axpy;
    b->sync = ts_rt_cu_sync;
    b->destroy = ts_rt_cu_destroy;
    b->allreduce = NULL;
    b->host_memory = false;
    if ((err = cudaSetDevice(c->device)) != cudaSuccess ||
        (err = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking)) != cudaSuccess) {
        ts_fail(e, TS_ESYS, "cuda backend: device %d: %s", c->device, cudaGetErrorString(err));
        ts_rt_cu_destroy(b);
        return NULL;
    }
    if (cublasCreate(&c->blas) != CUBLAS_STATUS_SUCCESS ||
        cublasSetStream(c->blas, c->stream) != CUBLAS_STATUS_SUCCESS) {
        c->blas = NULL;
        ts_fail(e, TS_ESYS, "cuda backend: cuBLAS could not start on device %d", c->device);
        ts_rt_cu_destroy(b);
        return NULL;
    }
    /* fp32 GEMMs stay fp32 (no TF32) so that the checks compare like with like */
    cublasSetMathMode(c->blas, CUBLAS_DEFAULT_MATH);
    return b;
}

extern "C" int ts_rt_cuda_backend_for_rank(MPI_Comm world, ts_rt_backend **out, ts_err *e)
{
    *out = NULL;
    MPI_Comm node;
    int rank = 0, local = 0, nlocal = 1;
    MPI_Comm_rank(world, &rank);
    if (MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_rank(node, &local);
        MPI_Comm_size(node, &nlocal);
        MPI_Comm_free(&node);
    }
    int ngpus = 0;
    ts_rt_backend *b = ts_rt_backend_cuda_new(local, &ngpus, e);
    if (!b)
        return e && e->code ? e->code : TS_ESYS;
    if (nlocal > ngpus) {
        if (rank == 0)
            fprintf(
                stderr,
                "tessel-run: warning: %d ranks share %d GPU(s) on a node; NCCL refuses two ranks "
                "on one GPU, so collectives go through host memory and MPI\n",
                nlocal, ngpus);
    } else {
        /* enabled once ts_rt_cuda_setup_groups made the communicators */
        b->allreduce = ts_rt_cu_allreduce;
    }
    *out = b;
    return TS_OK;
}

extern "C" int ts_rt_cuda_setup_groups(ts_rt_backend *b, MPI_Comm world, int ngroups,
                                       const MPI_Comm *group_comms, ts_err *e)
{
    (void)world;
    if (!b->allreduce)
        return TS_OK;
    ts_rt_cuda_ctx *c = ts_rt_ctx_of(b);
    c->nccl = (ncclComm_t *)calloc((size_t)ngroups + 1, sizeof(ncclComm_t));
    if (!c->nccl)
        return ts_fail(e, TS_ESYS, "cuda backend: out of memory");
    c->ngroups = ngroups;
    for (int g = 0; g < ngroups; g++) {
        if (group_comms[g] == MPI_COMM_NULL)
            continue;
        int r = 0, n = 0;
        MPI_Comm_rank(group_comms[g], &r);
        MPI_Comm_size(group_comms[g], &n);
        ncclUniqueId id;
        if (r == 0 && ncclGetUniqueId(&id) != ncclSuccess)
            /* the others then fail in ncclCommInitRank, reported below */
            memset(&id, 0, sizeof id);
        MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, group_comms[g]);
        ncclResult_t res = ncclCommInitRank(&c->nccl[g], n, id, r);
        if (res != ncclSuccess) {
            c->nccl[g] = NULL;
            return ts_fail(e, TS_ESYS, "NCCL communicator for device group %d failed: %s", g,
                           ncclGetErrorString(res));
        }
    }
    return TS_OK;
}
