/* gpuimg: grayscale kernels, the formula of src/ops/gray: Y = (wr R + wg G + wb B + 16384) >> 15
 * in 32-bit integers, alpha copied. perpixel: a 2D grid, one thread a pixel. coalesced: GPU_PPT
 * pixels a thread over the flattened image, thread t of a block taking pixels t, t + blockDim,
 * ..., so that at each step a warp reads and writes consecutive pixels. */
#include "cuda/common.cuh"
#include "cuda/gray/kernels.h"

template <typename T, int CI>
__device__ __forceinline__ void gray_px(const T *s, T *d, uint32_t wr, uint32_t wg, uint32_t wb)
{
    d[0] = (T)((wr * s[0] + wg * s[1] + wb * s[2] + 16384u) >> 15);
    if (CI == 4)
        d[1] = s[3];
}

template <typename T, int CI>
__global__ void gray_perpixel(const T *in, T *out, int w, int h, uint32_t wr, uint32_t wg, uint32_t wb)
{
    for_perpixel(w, h, [&](int x, int y) {
        const size_t i = (size_t)y * w + x;
        gray_px<T, CI>(in + i * CI, out + i * (CI > 2 ? CI - 2 : CI), wr, wg, wb);
    });
}

template <typename T, int CI, int PPT>
__global__ void gray_coalesced(const T *in, T *out, size_t n, uint32_t wr, uint32_t wg, uint32_t wb)
{
    const size_t base = (size_t)blockIdx.x * blockDim.x * PPT + threadIdx.x;
#pragma unroll
    for (int k = 0; k < PPT; k++) {
        const size_t i = base + (size_t)k * blockDim.x;
        if (i < n)
            gray_px<T, CI>(in + i * CI, out + i * (CI > 2 ? CI - 2 : CI), wr, wg, wb);
    }
}

/* vector: GPU_VPX pixels a thread, in and out as 16-byte words (16 pixels of any layout are a
 * whole number of them, and every block of 16 starts 16-byte aligned); the tail that is not a
 * whole block goes pixel by pixel. */
template <typename T, int CI>
__global__ void gray_vector(const T *in, T *out, size_t n, uint32_t wr, uint32_t wg, uint32_t wb)
{
    constexpr int CO = CI > 2 ? CI - 2 : 1;
    constexpr int VIN = GPU_VPX * CI * (int)sizeof(T) / 16, VOUT = GPU_VPX * CO * (int)sizeof(T) / 16;
    const size_t nblk = n / GPU_VPX;
    for (size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x; b < nblk; b += (size_t)gridDim.x * blockDim.x) {
        uint4 iv[VIN], ov[VOUT];
        const uint4 *src = (const uint4 *)(in + b * GPU_VPX * CI);
#pragma unroll
        for (int i = 0; i < VIN; i++)
            iv[i] = src[i];
        const T *p = (const T *)iv;
        T *q = (T *)ov;
#pragma unroll
        for (int k = 0; k < GPU_VPX; k++)
            gray_px<T, CI>(p + k * CI, q + k * CO, wr, wg, wb);
        uint4 *dst = (uint4 *)(out + b * GPU_VPX * CO);
#pragma unroll
        for (int i = 0; i < VOUT; i++)
            dst[i] = ov[i];
    }
    if (blockIdx.x == 0)
        for (size_t i = nblk * GPU_VPX + threadIdx.x; i < n; i += blockDim.x)
            gray_px<T, CI>(in + i * CI, out + i * CO, wr, wg, wb);
}

template <typename T, int CI>
static int launch_gray(const gpu_call *k, const gpu_image *in, const gpu_image *out, const uint32_t *w, char *err,
                       size_t errlen)
{
    if (CI < 3) { /* gray and gray+alpha pass through: the caller copies */
        snprintf(err, errlen, "gpu_gray: %d channels in", CI);
        return (int)cudaErrorInvalidValue;
    }
    const T *s = (const T *)in->data;
    T *d = (T *)out->data;
    const size_t n = (size_t)in->w * in->h;
    if (k->variant == KV_PERPIXEL) {
        const dim3 b = perpixel_block(k->shape), g = grid2d(in->w, in->h, b);
        launch(gray_perpixel<T, CI>, g, b, 0, 1, s, d, in->w, in->h, w[0], w[1], w[2]);
    } else if (k->variant == KV_VECTOR) {
        const unsigned th = threads1d(k->shape), blocks = (unsigned)((n / GPU_VPX + th - 1) / th);
        launch(gray_vector<T, CI>, blocks ? blocks : 1, th, 0, GPU_VPX, s, d, n, w[0], w[1], w[2]);
    } else {
        const unsigned th = threads1d(k->shape);
        PPT_SWITCH(ppt_choice(k->shape), launch(gray_coalesced<T, CI, P>, grid1d(n, th, P), th, 0, P, s, d, n, w[0], w[1], w[2]));
    }
    LAUNCH_TRY(err, errlen);
    return 0;
}

extern "C" int gpu_gray(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out, const uint32_t w[3],
                        char *err, size_t errlen)
{
    return DISPATCH_TC(in->depth, in->c, launch_gray, k, in, out, w, err, errlen);
}
