/* gpuimg: crop's gravity=entropy histograms (kernels.h): two rectangles a launch (grid z), each
 * band's keys counted; 8-bit keys in a block's shared histogram, added to the rectangle's by one
 * atomic a non-zero bin; 16-bit keys (65536 a band) by global atomics. The counts are integers:
 * equal to the CPU's in any order. */
#include "cuda/common.cuh"
#include "cuda/crop/kernels.h"

struct hist_rects { int x[2], y[2], w[2], h[2]; };

template <typename T, int C> __device__ __forceinline__ void keys(const T *p, uint32_t (&key)[C])
{
    constexpr double top = sizeof(T) == 1 ? 255.0 : 65535.0;
    if constexpr (C == 2 || C == 4) {
        const float na = __double2float_rn((double)p[C - 1] / top);
#pragma unroll
        for (int b = 0; b < C - 1; b++)
            key[b] = (uint32_t)__fmul_rn((float)p[b], na);   /* truncated, as the CPU's cast */
        key[C - 1] = p[C - 1];
    } else {
#pragma unroll
        for (int b = 0; b < C; b++)
            key[b] = p[b];
    }
}

template <typename T, int C, bool PERPIXEL, int PPT>
__global__ void crop_hist(const T *in, int iw, hist_rects r, uint32_t *hist)
{
    constexpr int BINS = sizeof(T) == 1 ? 256 : 65536;
    constexpr bool SHARED = sizeof(T) == 1;
    __shared__ uint32_t sh[SHARED ? C * 256 : 1];
    const int z = blockIdx.z;
    uint32_t *out = hist + (size_t)z * C * BINS;
    if constexpr (SHARED) {
        for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < C * 256; i += blockDim.x * blockDim.y)
            sh[i] = 0;
        __syncthreads();
    }
    auto count = [&](int x, int y) {
        uint32_t key[C];
        keys<T, C>(in + ((size_t)(y + r.y[z]) * iw + x + r.x[z]) * C, key);
#pragma unroll
        for (int b = 0; b < C; b++)
            if constexpr (SHARED)
                atomicAdd(&sh[b * 256 + key[b]], 1u);
            else
                atomicAdd(&out[(size_t)b * BINS + key[b]], 1u);
    };
    if constexpr (PERPIXEL)
        for_perpixel(r.w[z], r.h[z], count);
    else
        for_coalesced<PPT>(r.w[z], r.h[z], count);
    if constexpr (SHARED) {
        __syncthreads();
        for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < C * 256; i += blockDim.x * blockDim.y)
            if (sh[i])
                atomicAdd(&out[i], sh[i]);
    }
}

template <typename T, int C>
static int launch_hist(const gpu_call *k, const gpu_image *in, const hist_rects &r, uint32_t *dhist, char *err,
                       size_t errlen)
{
    const T *s = (const T *)in->data;
    const int w = max(r.w[0], r.w[1]), h = max(r.h[0], r.h[1]);
    if (k->variant == KV_PERPIXEL) {
        const dim3 bl = perpixel_block(k->shape), g0 = grid2d(w, h, bl);
        launch(crop_hist<T, C, true, 1>, dim3(g0.x, g0.y, 2), bl, 0, 1, s, in->w, r, dhist);
    } else {
        const unsigned th = threads1d(k->shape);
        PPT_SWITCH(ppt_choice(k->shape), {
            const dim3 g0 = grid_coalesced(w, h, th, P);
            launch(crop_hist<T, C, false, P>, dim3(g0.x, g0.y, 2), dim3(th), 0, P, s, in->w, r, dhist);
        });
    }
    LAUNCH_TRY(err, errlen);
    return 0;
}

extern "C" int gpu_crop_hist(const struct gpu_call *k, const struct gpu_image *in, const int r[8], uint32_t *dhist,
                             uint32_t *hist, char *err, size_t errlen)
{
    const hist_rects rr = { { r[0], r[4] }, { r[1], r[5] }, { r[2], r[6] }, { r[3], r[7] } };
    const size_t bytes = 2 * (size_t)in->c * (in->depth == 16 ? 65536 : 256) * sizeof(uint32_t);
    CUDA_TRY(cudaMemsetAsync(dhist, 0, bytes, 0), err, errlen);
    const int st = DISPATCH_TC(in->depth, in->c, launch_hist, k, in, rr, dhist, err, errlen);
    if (st)
        return st;
    CUDA_TRY(cudaMemcpy(hist, dhist, bytes, cudaMemcpyDeviceToHost), err, errlen);
    return 0;
}
