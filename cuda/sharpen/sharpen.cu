/* gpuimg: sharpen's combine (src/ops/sharpen/sharpen.c says what sharpen is), after blur's perpixel
 * or coalesced kernel (cuda/sepfilter/) has written the blurred image. perpixel: a 2D grid, one
 * thread a pixel; coalesced: ppt pixels a thread over the flattened image, thread t of a block
 * taking pixels t, t + blockDim, ..., so that a warp's accesses are consecutive. */
#include "cuda/common.cuh"
#include "cuda/sharpen/kernels.h"

struct Mask {
    double amount;
    int32_t thr;
};

/* One colour sample, the CPU's steps to the bit (sharpen_sample in src/ops/sharpen/sharpen.c):
 * nvcc would fuse amount * d + v into one fma rounded once, so each product and sum is written
 * rounded (__dmul_rn, __dadd_rn, never fused). x below 1 floors to 0 or less; from 1 up the
 * conversion's truncation is the floor. */
template <typename T> __device__ __forceinline__ T sharpen_sample(int32_t v, int32_t b, const Mask &m)
{
    constexpr int32_t top = sizeof(T) == 1 ? 255 : 65535;
    const int32_t d = v - b;
    const double x = __dadd_rn(__dadd_rn((double)v, __dmul_rn(m.amount, (double)d)), 0.5);
    const int32_t r = x < 1.0 ? 0 : x >= (double)top ? top : __double2int_rz(x);
    return (T)(d > m.thr || d < -m.thr ? r : v);
}

template <typename T, int C>
__device__ __forceinline__ void sharpen_pixel(const T *in, const T *blur, T *out, size_t i, const Mask &m)
{
    constexpr int NC = C == 2 || C == 4 ? C - 1 : C;   /* alpha, the last of 2 or 4, kept */
    T v[C], b[C];
    ld_vec<T, C>(in + i * C, v);
    ld_vec<T, C>(blur + i * C, b);
#pragma unroll
    for (int c = 0; c < NC; c++)
        v[c] = sharpen_sample<T>(v[c], b[c], m);
    st_vec<T, C>(out + i * C, v);
}

template <typename T, int C>
__global__ void sharpen_perpixel(const T *__restrict__ in, const T *__restrict__ blur, T *__restrict__ out, int w,
                                 int h, Mask m)
{
    for_perpixel(w, h, [&](int x, int y) { sharpen_pixel<T, C>(in, blur, out, (size_t)y * w + x, m); });
}

template <typename T, int C, int PPT>
__global__ void sharpen_coalesced(const T *__restrict__ in, const T *__restrict__ blur, T *__restrict__ out, size_t n,
                                  Mask m)
{
    const size_t base = (size_t)blockIdx.x * blockDim.x * PPT + threadIdx.x;
#pragma unroll
    for (int k = 0; k < PPT; k++) {
        const size_t i = base + (size_t)k * blockDim.x;
        if (i < n)
            sharpen_pixel<T, C>(in, blur, out, i, m);
    }
}

template <typename T, int C>
static int launch_combine(const gpu_call *k, const gpu_image *in, const void *blur, const gpu_image *out,
                          const Mask &m, char *err, size_t errlen)
{
    const T *s = (const T *)in->data, *b = (const T *)blur;
    T *d = (T *)out->data;
    const size_t n = (size_t)in->w * in->h;
    if (k->variant == KV_PERPIXEL) {
        const dim3 bl = perpixel_block(k->shape), g = grid2d(in->w, in->h, bl);
        launch(sharpen_perpixel<T, C>, g, bl, 0, 1, s, b, d, in->w, in->h, m);
    } else if (k->variant == KV_COALESCED) {
        const unsigned th = threads1d(k->shape);
        PPT_SWITCH(ppt_choice(k->shape), launch(sharpen_coalesced<T, C, P>, grid1d(n, th, P), th, 0, P, s, b, d, n, m));
    } else {
        snprintf(err, errlen, "gpu_sharpen_combine: no kernel for variant %d", k->variant);
        return (int)cudaErrorInvalidValue;
    }
    LAUNCH_TRY(err, errlen);
    return 0;
}

extern "C" int gpu_sharpen_combine(const struct gpu_call *k, const struct gpu_image *in, const void *blur,
                                   const struct gpu_image *out, double amount, int32_t thr, char *err, size_t errlen)
{
    const Mask m = { amount, thr };
    return DISPATCH_TC(in->depth, in->c, launch_combine, k, in, blur, out, m, err, errlen);
}
