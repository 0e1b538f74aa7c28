/* GEMM throughput of the CUDA backend's path (cuBLAS SGEMM, fp32, row-major through the operand
 * swap) at the sizes the workloads use, against the best cuBLAS reaches on this GPU (large square
 * fp32 and TF32 GEMMs). Prints one line per size and the ratio to the peak; no assertions.
 *
 * usage: tessel-gemm-bench [sizes...]   (default 64 128 256 512 1024 2048 4096 8192) */
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>

#define TS_RT_CHECK(x)                                                                             \
    do {                                                                                           \
        cudaError_t err_ = (x);                                                                    \
        if (err_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "tessel-gemm-bench: %s: %s\n", #x, cudaGetErrorString(err_));          \
            return 2;                                                                              \
        }                                                                                          \
    } while (0)

/* Seconds per GEMM of size n, averaged over enough repetitions to last about 0.2 s. */
static double ts_rt_time_gemm(cublasHandle_t h, int n, const float *A, const float *B, float *C)
{
    const float one = 1.0f, zero = 0.0f;
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0);
    cudaEventCreate(&t1);
    /* warm up */
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n);
    int reps = 1;
    float ms = 0;
    for (;;) {
        cudaEventRecord(t0);
        for (int i = 0; i < reps; i++)
            cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n);
        cudaEventRecord(t1);
        cudaEventSynchronize(t1);
        cudaEventElapsedTime(&ms, t0, t1);
        if (ms > 200 || reps >= 1 << 16)
            break;
        reps *= ms < 1 ? 16 : 2;
    }
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    return ms * 1e-3 / reps;
}

int main(int argc, char **argv)
{
    int sizes[32], ns = 0;
    for (int i = 1; i < argc && ns < 32; i++)
        sizes[ns++] = atoi(argv[i]);
    if (!ns) {
        int def[] = {64, 128, 256, 512, 1024, 2048, 4096, 8192};
        for (int i = 0; i < 8; i++)
            sizes[ns++] = def[i];
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("tessel-gemm-bench: no CUDA device, nothing to measure\n");
        return 0;
    }
    cudaDeviceProp prop;
    TS_RT_CHECK(cudaGetDeviceProperties(&prop, 0));
    int maxn = 8192;
    for (int i = 0; i < ns; i++)
        if (sizes[i] > maxn)
            maxn = sizes[i];
    size_t bytes = (size_t)maxn * maxn * sizeof(float);
    float *A, *B, *C;
    TS_RT_CHECK(cudaMalloc(&A, bytes));
    TS_RT_CHECK(cudaMalloc(&B, bytes));
    TS_RT_CHECK(cudaMalloc(&C, bytes));
    TS_RT_CHECK(cudaMemset(A, 0, bytes));
    TS_RT_CHECK(cudaMemset(B, 0, bytes));
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "tessel-gemm-bench: cuBLAS did not start\n");
        return 2;
    }
    cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
    double peak = 2.0 * maxn * (double)maxn * maxn / ts_rt_time_gemm(h, maxn, A, B, C) / 1e12;
    cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH);
    double peak_tf32 = 2.0 * maxn * (double)maxn * maxn / ts_rt_time_gemm(h, maxn, A, B, C) / 1e12;
    cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
    printf("device: %s\n", prop.name);
    printf("cuBLAS peak at %d: fp32 %.1f TFLOP/s, tf32 tensor cores %.1f TFLOP/s\n", maxn, peak,
           peak_tf32);
    printf("%8s %14s %12s %14s\n", "size", "us/GEMM", "TFLOP/s", "of fp32 peak");
    for (int i = 0; i < ns; i++) {
        int n = sizes[i];
        double s = ts_rt_time_gemm(h, n, A, B, C);
        double tf = 2.0 * n * (double)n * n / s / 1e12;
        printf("%8d %14.2f %12.2f %13.1f%%\n", n, s * 1e6, tf, 100.0 * tf / peak);
    }
    cublasDestroy(h);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    return 0;
}
