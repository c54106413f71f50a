/* gpuimg: flatten kernels, the formula of src/ops/flatten in 32-bit integers: each colour sample v
 * of alpha a over the background b, (v a + b (top - a) + top / 2) / top (at most top^2 + top / 2,
 * below 2^32; top a constant, so the division is a multiply), alpha dropped: grey+alpha to grey,
 * RGBA to RGB. perpixel: a 2D grid, one thread a pixel. coalesced: GPU_PPT pixels a thread over
 * the flattened image, a warp's pixels consecutive at each step. vector: GPU_VPX pixels a thread
 * read and written as 16-byte words. */
#include "cuda/common.cuh"
#include "cuda/flatten/kernels.h"

struct flatten_bg { uint32_t b[3]; };

template <typename T, int CI>
__device__ __forceinline__ void flatten_px(const T *s, T *d, const flatten_bg &bg)
{
    constexpr uint32_t top = sizeof(T) == 1 ? 255u : 65535u;
    const uint32_t a = s[CI - 1];
#pragma unroll
    for (int k = 0; k < CI - 1; k++)
        d[k] = (T)(((uint32_t)s[k] * a + bg.b[k] * (top - a) + top / 2) / top);
}

template <typename T, int CI>
__global__ void flatten_perpixel(const T *in, T *out, int w, int h, flatten_bg bg)
{
    for_perpixel(w, h, [&](int x, int y) {
        const size_t i = (size_t)y * w + x;
        flatten_px<T, CI>(in + i * CI, out + i * (CI - 1), bg);
    });
}

template <typename T, int CI, int PPT>
__global__ void flatten_coalesced(const T *in, T *out, size_t n, flatten_bg bg)
{
    const size_t base = (size_t)blockIdx.x * blockDim.x * PPT + threadIdx.x;
#pragma unroll
    for (int k = 0; k < PPT; k++) {
        const size_t i = base + (size_t)k * blockDim.x;
        if (i < n)
            flatten_px<T, CI>(in + i * CI, out + i * (CI - 1), bg);
    }
}

/* GPU_VPX pixels of any layout are a whole number of 16-byte words, and every block of them
 * starts 16-byte aligned; the tail that is not a whole block goes pixel by pixel. */
template <typename T, int CI>
__global__ void flatten_vector(const T *in, T *out, size_t n, flatten_bg bg)
{
    constexpr int CO = CI - 1;
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
            flatten_px<T, CI>(p + k * CI, q + k * CO, bg);
        uint4 *dst = (uint4 *)(out + b * GPU_VPX * CO);
#pragma unroll
        for (int i = 0; i < VOUT; i++)
            dst[i] = ov[i];
    }
    if (blockIdx.x == 0)
        for (size_t i = nblk * GPU_VPX + threadIdx.x; i < n; i += blockDim.x)
            flatten_px<T, CI>(in + i * CI, out + i * CO, bg);
}

template <typename T, int CI>
static int launch_flatten(const gpu_call *k, const gpu_image *in, const gpu_image *out, const uint32_t *b, char *err,
                          size_t errlen)
{
    const flatten_bg bg = { { b[0], b[1], b[2] } };
    const T *s = (const T *)in->data;
    T *d = (T *)out->data;
    const size_t n = (size_t)in->w * in->h;
    if (k->variant == KV_PERPIXEL) {
        const dim3 bl = perpixel_block(k->shape), g = grid2d(in->w, in->h, bl);
        launch(flatten_perpixel<T, CI>, g, bl, 0, 1, s, d, in->w, in->h, bg);
    } else if (k->variant == KV_VECTOR) {
        const unsigned th = threads1d(k->shape), blocks = (unsigned)((n / GPU_VPX + th - 1) / th);
        launch(flatten_vector<T, CI>, blocks ? blocks : 1, th, 0, GPU_VPX, s, d, n, bg);
    } else {
        const unsigned th = threads1d(k->shape);
        PPT_SWITCH(ppt_choice(k->shape), launch(flatten_coalesced<T, CI, P>, grid1d(n, th, P), th, 0, P, s, d, n, bg));
    }
    LAUNCH_TRY(err, errlen);
    return 0;
}

extern "C" int gpu_flatten(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out,
                           const uint32_t b[3], char *err, size_t errlen)
{
    if (in->c != 2 && in->c != 4) {   /* no alpha: the caller copies */
        snprintf(err, errlen, "gpu_flatten: %d channels in", in->c);
        return (int)cudaErrorInvalidValue;
    }
    if (in->depth == 8)
        return in->c == 4 ? launch_flatten<uint8_t, 4>(k, in, out, b, err, errlen)
                          : launch_flatten<uint8_t, 2>(k, in, out, b, err, errlen);
    return in->c == 4 ? launch_flatten<uint16_t, 4>(k, in, out, b, err, errlen)
                      : launch_flatten<uint16_t, 2>(k, in, out, b, err, errlen);
}
