/* gpuimg: crop's gravity=attention cell sums (kernels.h): one block a cell of the 32 x 32 grid, its
 * threads striding the cell's pixels and adding into the block's uint64 sums in shared memory.
 * Integers: equal to the CPU's (smart_attention_sums_cpu) in any order. */
#include "cuda/common.cuh"
#include "cuda/crop/kernels.h"

enum { CELLS = 32 };   /* ATTN_N of src/ops/crop/smart.h */

__device__ __forceinline__ void span(int n, int i, int &a, int &b)
{
    a = (int)((long long)i * n / CELLS);
    b = (int)((long long)(i + 1) * n / CELLS);
    if (b <= a)
        b = a + 1;
}

template <typename T, int C> __global__ void crop_cells(const T *in, int iw, int ih, unsigned long long *sums)
{
    constexpr int NB = C <= 2 ? 1 : 3;
    constexpr bool ALPHA = C == 2 || C == 4;
    __shared__ unsigned long long sh[NB];
    if (threadIdx.x < NB)
        sh[threadIdx.x] = 0;
    __syncthreads();
    int x0, x1, y0, y1;
    span(iw, blockIdx.x, x0, x1);
    span(ih, blockIdx.y, y0, y1);
    const int cw = x1 - x0;
    const long long n = (long long)cw * (y1 - y0);
    unsigned long long s[NB] = {};
    for (long long i = threadIdx.x; i < n; i += blockDim.x) {   /* along rows: neighbours coalesce */
        const T *p = in + ((size_t)(y0 + i / cw) * iw + x0 + i % cw) * C;
#pragma unroll
        for (int b = 0; b < NB; b++)
            s[b] += ALPHA ? (unsigned long long)p[b] * p[C - 1] : (unsigned long long)p[b];
    }
#pragma unroll
    for (int b = 0; b < NB; b++)
        atomicAdd(&sh[b], s[b]);
    __syncthreads();
    if (threadIdx.x < NB)
        sums[((size_t)blockIdx.y * CELLS + blockIdx.x) * NB + threadIdx.x] = sh[threadIdx.x];
}

template <typename T, int C>
static int launch_cells(const gpu_image *in, unsigned long long *dsums, char *err, size_t errlen)
{
    launch(crop_cells<T, C>, dim3(CELLS, CELLS), dim3(256), 0, 1, (const T *)in->data, in->w, in->h, dsums);
    LAUNCH_TRY(err, errlen);
    return 0;
}

extern "C" int gpu_crop_cells(const struct gpu_image *in, uint64_t *dsums, uint64_t *sums, char *err, size_t errlen)
{
    const size_t bytes = (size_t)CELLS * CELLS * (in->c <= 2 ? 1 : 3) * sizeof(uint64_t);
    const int st = DISPATCH_TC(in->depth, in->c, launch_cells, in, (unsigned long long *)dsums, err, errlen);
    if (st)
        return st;
    CUDA_TRY(cudaMemcpy(sums, dsums, bytes, cudaMemcpyDeviceToHost), err, errlen);
    return 0;
}
