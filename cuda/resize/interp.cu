/* gpuimg: resize's cubic and lanczos3 kernels: the separable sums of src/ops/resize/interp.c in
 * the same integers and order of rounding, so that the result is the CPU's bit for bit. Pass one
 * sums across (each source row into out->w pixels of sums, colour times alpha where there is
 * alpha) in H, 32 bits where itaps_narrow proves they fit (half the scratch's traffic), else 64;
 * pass two sums down in 64 bits (a 32 x 32-bit multiply-add into 64 where H is 32). Each pass
 * perpixel (a 2D grid, one thread a pixel) or coalesced (GPU_PPT pixels a thread along a row, a
 * warp's reads and writes consecutive). */
#include "cuda/common.cuh"
#include "cuda/resize/kernels.h"

#define ITAP_BITS 14

/* round(num / den) for the alpha division, num = 2C + A and den = 2A both positive, clamped to
 * max: the quotient in doubles (within one of the floor below max + 2), made exact by one check
 * each way in integers; 64-bit integer division is a long subroutine on the GPU. */
__device__ __forceinline__ long long div_clamped(long long num, long long den, long long max)
{
    const double q = (double)num / (double)den;
    if (q >= (double)(max + 2))
        return max;
    long long v = (long long)q;
    const long long r = num - v * den;
    v += r < 0 ? -1 : r >= den ? 1 : 0;
    return v > max ? max : v;
}

template <typename T, int C, typename H, bool COALESCED, int PPT>
__global__ void interp_across(const T *__restrict__ in, int iw, int ih, H *__restrict__ h, int ow,
                              const int32_t *__restrict__ xi, const int16_t *__restrict__ xw, int nx)
{
    auto px = [&](int x, int y) {
        const T *row = in + (size_t)y * iw * C;
        const int32_t *ii = xi + (size_t)x * nx;
        const int16_t *wi = xw + (size_t)x * nx;
        H acc[C];
#pragma unroll
        for (int ch = 0; ch < C; ch++)
            acc[ch] = 0;
        for (int k = 0; k < nx; k++) {
            const T *p = row + (size_t)ii[k] * C;
            const H w = wi[k];
#pragma unroll
            for (int ch = 0; ch < C; ch++)
                acc[ch] += w * ((C == 2 || C == 4) && ch < C - 1 ? (H)p[ch] * p[C - 1] : (H)p[ch]);
        }
#pragma unroll
        for (int ch = 0; ch < C; ch++)
            h[((size_t)y * ow + x) * C + ch] = acc[ch];
    };
    if (COALESCED)
        for_coalesced<PPT>(ow, ih, px);
    else
        for_perpixel(ow, ih, px);
}

template <typename T, int C, typename H, bool COALESCED, int PPT>
__global__ void interp_down(const H *__restrict__ h, T *__restrict__ out, int ow, int oh,
                            const int32_t *__restrict__ yi, const int16_t *__restrict__ yw, int ny, long long max)
{
    auto px = [&](int x, int y) {
        const int32_t *ii = yi + (size_t)y * ny;
        const int16_t *wi = yw + (size_t)y * ny;
        long long acc[C];
#pragma unroll
        for (int ch = 0; ch < C; ch++)
            acc[ch] = 0;
        for (int k = 0; k < ny; k++) {
            const H w = wi[k], *p = h + ((size_t)ii[k] * ow + x) * C;
#pragma unroll
            for (int ch = 0; ch < C; ch++)
                acc[ch] += (long long)w * p[ch];
        }
        const long long A = acc[C - 1], half = 1ll << (2 * ITAP_BITS - 1);
        T *d = out + ((size_t)y * ow + x) * C;
#pragma unroll
        for (int ch = 0; ch < C; ch++) {
            long long v;
            if ((C == 2 || C == 4) && ch < C - 1)
                v = A > 0 && acc[ch] > 0 ? div_clamped(2 * acc[ch] + A, 2 * A, max) : 0;
            else
                v = acc[ch] < 0 ? 0 : (acc[ch] + half) >> (2 * ITAP_BITS);
            d[ch] = (T)(v > max ? max : v);
        }
    };
    if (COALESCED)
        for_coalesced<PPT>(ow, oh, px);
    else
        for_perpixel(ow, oh, px);
}

template <typename T, int C, typename H>
static int launch_interp(const gpu_call *k, const gpu_image *in, const gpu_image *out, const int32_t *xi,
                         const int16_t *xw, int nx, const int32_t *yi, const int16_t *yw, int ny, H *h, char *err,
                         size_t errlen)
{
    const T *s = (const T *)in->data;
    T *d = (T *)out->data;
    const long long max = sizeof(T) == 2 ? 65535 : 255;
    if (k->variant == KV_PERPIXEL) {
        const dim3 b = perpixel_block(k->shape);
        launch(interp_across<T, C, H, false, 1>, grid2d(out->w, in->h, b), b, 0, 1, s, in->w, in->h, h, out->w, xi, xw,
               nx);
        LAUNCH_TRY(err, errlen);
        launch(interp_down<T, C, H, false, 1>, grid2d(out->w, out->h, b), b, 0, 1, (const H *)h, d, out->w, out->h, yi,
               yw, ny, max);
    } else {
        const unsigned th = threads1d(k->shape);
        PPT_SWITCH(ppt_choice(k->shape),
                   launch(interp_across<T, C, H, true, P>, grid_coalesced(out->w, in->h, th, P), th, 0, P, s, in->w,
                          in->h, h, out->w, xi, xw, nx);
                   LAUNCH_TRY(err, errlen);
                   launch(interp_down<T, C, H, true, P>, grid_coalesced(out->w, out->h, th, P), th, 0, P, (const H *)h,
                          d, out->w, out->h, yi, yw, ny, max));
    }
    LAUNCH_TRY(err, errlen);
    return 0;
}

template <typename T, typename H>
static int launch_layout(const gpu_call *k, const gpu_image *in, const gpu_image *out, const int32_t *xi,
                         const int16_t *xw, int nx, const int32_t *yi, const int16_t *yw, int ny, void *h, char *err,
                         size_t errlen)
{
    H *hh = (H *)h;
    switch (in->c) {
    case 1: return launch_interp<T, 1, H>(k, in, out, xi, xw, nx, yi, yw, ny, hh, err, errlen);
    case 2: return launch_interp<T, 2, H>(k, in, out, xi, xw, nx, yi, yw, ny, hh, err, errlen);
    case 3: return launch_interp<T, 3, H>(k, in, out, xi, xw, nx, yi, yw, ny, hh, err, errlen);
    default: return launch_interp<T, 4, H>(k, in, out, xi, xw, nx, yi, yw, ny, hh, err, errlen);
    }
}

extern "C" size_t gpu_interp_scratch(int ow, int ih, int c, int narrow)
{
    return (size_t)ow * ih * c * (narrow ? sizeof(int) : sizeof(long long));
}

extern "C" int gpu_interp(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out,
                          const int32_t *xi, const int16_t *xw, int nx, const int32_t *yi, const int16_t *yw, int ny,
                          int narrow, void *h, char *err, size_t errlen)
{
    if (in->depth == 16)
        return narrow ? launch_layout<uint16_t, int>(k, in, out, xi, xw, nx, yi, yw, ny, h, err, errlen)
                      : launch_layout<uint16_t, long long>(k, in, out, xi, xw, nx, yi, yw, ny, h, err, errlen);
    return narrow ? launch_layout<uint8_t, int>(k, in, out, xi, xw, nx, yi, yw, ny, h, err, errlen)
                  : launch_layout<uint8_t, long long>(k, in, out, xi, xw, nx, yi, yw, ny, h, err, errlen);
}
