/* gpuimg: the separable filter of src/ops/sepfilter.h evaluated directly per output pixel:
 * out = (sum_y wy * (sum_x wx * in) + 2^31) >> 32 over the Q16 tap tables, in unsigned integers,
 * which is the CPU's sum in another order: the same integer, bit for bit. With alpha, colour is
 * premultiplied (A = sum w a, C = sum w c a, colour = round(C / A)). perpixel: a 2D grid;
 * coalesced: GPU_PPT outputs a thread along a row, warp-stride. Used by resize (bilinear, area)
 * and by blur's perpixel and coalesced variants. */
#include "common.cuh"

struct Taps {
    const int32_t *xi, *yi;
    const uint32_t *xw, *yw;
    int nx, ny;
};

/* NX, NY: the tap counts when known at compile time (2 and 2: bilinear, whose loops then unroll),
 * 0 for the tables' own counts. Either way the same sums. */
template <typename T, int C, int NX = 0, int NY = 0>
__device__ __forceinline__ void sep_pixel(const T *in, int iw, T *o, int x, int y, const Taps &tt)
{
    Taps t = tt;
    if (NX)
        t.nx = NX;
    if (NY)
        t.ny = NY;
    const int32_t *xi = t.xi + (size_t)x * t.nx;
    const uint32_t *xw = t.xw + (size_t)x * t.nx;
    if (C == 2 || C == 4) {
        uint64_t A = 0, S[C] = {};   /* C, not C - 1: the C = 1 instantiation must compile */
        for (int ky = 0; ky < t.ny; ky++) {
            const uint64_t wy = t.yw[(size_t)y * t.ny + ky];
            if (!wy)
                continue;
            const T *row = in + (size_t)t.yi[(size_t)y * t.ny + ky] * iw * C;
            uint64_t ia = 0, ic[C] = {};
            for (int kx = 0; kx < t.nx; kx++) {
                const uint64_t wx = xw[kx];
                const T *p = row + (size_t)xi[kx] * C;
                const uint64_t a = p[C - 1];
                ia += wx * a;
#pragma unroll
                for (int c = 0; c < C - 1; c++)
                    ic[c] += wx * (p[c] * a);
            }
            A += wy * ia;
#pragma unroll
            for (int c = 0; c < C - 1; c++)
                S[c] += wy * ic[c];
        }
        o[C - 1] = (T)((A + (1ull << 31)) >> 32);
#pragma unroll
        for (int c = 0; c < C - 1; c++)
            o[c] = A ? (T)(S[c] / A + (S[c] % A >= A - S[c] % A)) : (T)0;
    } else {
        uint64_t acc[C] = {};
        for (int ky = 0; ky < t.ny; ky++) {
            const uint32_t wy = t.yw[(size_t)y * t.ny + ky];
            if (!wy)
                continue;
            const T *row = in + (size_t)t.yi[(size_t)y * t.ny + ky] * iw * C;
            uint32_t inner[C] = {};
            for (int kx = 0; kx < t.nx; kx++) {
                const uint32_t wx = xw[kx];
                const T *p = row + (size_t)xi[kx] * C;
#pragma unroll
                for (int c = 0; c < C; c++)
                    inner[c] += wx * p[c];
            }
#pragma unroll
            for (int c = 0; c < C; c++)
                acc[c] += (uint64_t)wy * inner[c];
        }
#pragma unroll
        for (int c = 0; c < C; c++)
            o[c] = (T)((acc[c] + (1ull << 31)) >> 32);
    }
}

template <typename T, int C, bool COALESCED, int N = 0>
__global__ void sep_kernel(const T *in, int iw, T *out, int ow, int oh, Taps t)
{
    auto px = [&](int x, int y) { sep_pixel<T, C, N, N>(in, iw, out + ((size_t)y * ow + x) * C, x, y, t); };
    if (COALESCED)
        for_coalesced(ow, oh, px);
    else
        for_perpixel(ow, oh, px);
}

template <typename T, int C>
static int launch_sep(int variant, const gpu_image *in, const gpu_image *out, const Taps &t, char *err,
                      size_t errlen)
{
    const T *s = (const T *)in->data;
    T *d = (T *)out->data;
    const bool two = t.nx == 2 && t.ny == 2;   /* bilinear: the unrolled instantiation */
    if (variant == KV_PERPIXEL) {
        const dim3 b = perpixel_block(), g = grid2d(out->w, out->h, b);
        launch(two ? sep_kernel<T, C, false, 2> : sep_kernel<T, C, false>, g, b, 0, 1, s, in->w, d, out->w, out->h, t);
    } else {
        const unsigned th = threads1d();
        const dim3 g = grid_coalesced(out->w, out->h, th, GPU_PPT);
        launch(two ? sep_kernel<T, C, true, 2> : sep_kernel<T, C, true>, g, th, 0, GPU_PPT, s, in->w, d, out->w, out->h,
               t);
    }
    LAUNCH_TRY(err, errlen);
    return 0;
}

extern "C" int gpu_sepfilter(int variant, const struct gpu_image *in, const struct gpu_image *out, const int32_t *xi,
                             const uint32_t *xw, int nx, const int32_t *yi, const uint32_t *yw, int ny, char *err,
                             size_t errlen)
{
    Taps t = { xi, yi, xw, yw, nx, ny };
    return DISPATCH_TC(in->depth, in->c, launch_sep, variant, in, out, t, err, errlen);
}
