/* gpuimg: the separable filter of src/ops/common/sepfilter.h evaluated directly per output pixel:
 * out = (sum_y wy * (sum_x wx * in) + 2^31) >> 32 over the Q16 tap tables, in unsigned integers,
 * which is the CPU's sum in another order: the same integer, bit for bit. With alpha, colour is
 * premultiplied (A = sum w a, C = sum w c a, colour = round(C / A)). perpixel: a 2D grid;
 * coalesced: GPU_PPT outputs a thread along a row, warp-stride; vector (bilinear): bilerp_alpha8
 * (8-bit with alpha) and bilerp16 (16-bit) below.
 * Used by resize (bilinear, area) and by blur's perpixel and coalesced variants. */
#include "cuda/common.cuh"
#include "cuda/sepfilter/kernels.h"

struct Taps {
    const int32_t *xi, *yi;
    const uint32_t *xw, *yw;
    int nx, ny;
};

/* NX, NY: the tap counts when known at compile time (2 and 2: bilinear, whose loops then unroll),
 * 0 for the tables' own counts. Either way the same sums (uint64 with alpha, as on the CPU). */
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
                T p[C];
                ld_vec<T, C>(row + (size_t)xi[kx] * C, p);
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
        T r[C];
        r[C - 1] = (T)((A + (1ull << 31)) >> 32);
        const float rA = rcp_approx((float)A);
#pragma unroll
        for (int c = 0; c < C - 1; c++)
            r[c] = (T)div_round(S[c], A, rA);
        st_vec<T, C>(o, r);
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

/* vector (bilinear, 8-bit, with alpha: 2 or 4 samples a pixel, one load each): sep_pixel's sums
 * for BA_PX outputs a thread, warp-stride along a row as coalesced does, walking down a run of
 * output rows (up to 8; fewer where the grid would not fill the GPU twice): the BA_PX column taps
 * are read once into registers, and the next row's tap pixels are requested before this row's are
 * used (sep_pixel's chain table -> pixel -> sum keeps one pixel's loads in flight at a time). One
 * output a thread at 8 blocks an SM (32 registers), the fastest of 1, 2, 4 and 8 outputs a thread.
 * Bilinear tables have i1 = min(i0 + 1, n - 1) and w0 = 65536 - w1, so only i0 and w1 are read,
 * and an edge pair (n - 1, n - 1; 65536, 0) is taken as (n - 2, n - 1; 0, 65536), the same sums,
 * so that a tap pair is always two neighbours (images of at least 2x2). Row sums in uint32 (at
 * most 65536 * 255 * 255), column sums in uint64, colour by div_round. The exact 1:2 goes to
 * double_pix (resize.cu), whose sums fit 32 bits. */
#define BA_PX 1
/* Rows [yb, ye) of a thread's walk in two register buffers (B: a row's tap pixels and weight)
 * taken in turn, so that no register array is indexed at run time: load(y, b) requests row y's
 * pixels, put(y, b) uses them, and row y + 1's are requested before row y's are used. */
template <typename B, typename L, typename U>
__device__ __forceinline__ void two_buffer_rows(int yb, int ye, L load, U put)
{
    B a, b;
    load(yb, a);
    for (int y = yb; y < ye; y += 2) {
        if (y + 1 < ye)
            load(y + 1, b);
        put(y, a);
        if (y + 1 >= ye)
            break;
        if (y + 2 < ye)
            load(y + 2, a);
        put(y + 1, b);
    }
}

__device__ __forceinline__ void bilin_pair(int n, int i, uint32_t w1, int &i0, uint32_t &v1)
{
    const bool edge = i > n - 2;
    i0 = edge ? n - 2 : i;
    v1 = edge ? 65536u : w1;
}
/* the column taps of a thread's PX outputs x0, x0 + blockDim.x, ... (past the row: its last) */
template <int PX>
__device__ __forceinline__ void bilin_columns(const Taps &t, int iw, int ow, int x0, int (&i0)[PX], uint32_t (&w)[PX][2])
{
#pragma unroll
    for (int k = 0; k < PX; k++) {
        const int x = min(x0 + k * (int)blockDim.x, ow - 1);
        bilin_pair(iw, t.xi[2 * x], t.xw[2 * x + 1], i0[k], w[k][1]);
        w[k][0] = 65536u - w[k][1];
    }
}
template <int C>
__global__ void __launch_bounds__(256, 8) bilerp_alpha8(const uint8_t *__restrict__ in, int iw, int ih,
                                                     uint8_t *__restrict__ out, int ow, int oh, Taps t, int rows)
{
    typedef typename PixT<C>::type P;
    const P *src = (const P *)in;
    P *dst = (P *)out;
    const int x0 = blockIdx.x * blockDim.x * BA_PX + threadIdx.x;
    if (x0 >= ow)
        return;
    int i0[BA_PX];
    uint32_t w[BA_PX][2];
    bilin_columns(t, iw, ow, x0, i0, w);
    /* row y's tap pixels into v, its weight of the lower row into wy */
    struct Rows {
        P v[BA_PX][4];
        uint32_t wy;
    };
    auto load = [&](int y, Rows &b) {
        auto &v = b.v;
        int y0;
        bilin_pair(ih, t.yi[2 * y], t.yw[2 * y + 1], y0, b.wy);
        const P *r0 = src + (size_t)y0 * iw;
#pragma unroll
        for (int k = 0; k < BA_PX; k++) {
            const P *p = r0 + i0[k];
            v[k][0] = p[0];
            v[k][1] = p[1];
            v[k][2] = p[iw];
            v[k][3] = p[iw + 1];
        }
    };
    auto put = [&](int y, const Rows &b) {
        const auto &v = b.v;
        const uint64_t wy0 = 65536u - b.wy, wy1 = b.wy;
#pragma unroll
        for (int k = 0; k < BA_PX; k++) {
            const int x = x0 + k * (int)blockDim.x;
            uint32_t ia[2], ic[2][C - 1];
#pragma unroll
            for (int r = 0; r < 2; r++) {
                const uint32_t p0 = v[k][2 * r], p1 = v[k][2 * r + 1];
                const uint32_t a0 = p0 >> (8 * (C - 1)), a1 = p1 >> (8 * (C - 1));
                ia[r] = w[k][0] * a0 + w[k][1] * a1;
#pragma unroll
                for (int c = 0; c < C - 1; c++)
                    ic[r][c] = w[k][0] * (((p0 >> (8 * c)) & 255u) * a0) + w[k][1] * (((p1 >> (8 * c)) & 255u) * a1);
            }
            const uint64_t A = wy0 * ia[0] + wy1 * ia[1];
            uint64_t S[C - 1];
#pragma unroll
            for (int c = 0; c < C - 1; c++)
                S[c] = wy0 * ic[0][c] + wy1 * ic[1][c];
            const uint32_t px = straight8<C>((uint32_t)((A + (1ull << 31)) >> 32), S, A);
            if (x < ow)
                dst[(size_t)y * ow + x] = (P)px;
        }
    };
    for (int yb = blockIdx.y * rows; yb < oh; yb += gridDim.y * rows)
        two_buffer_rows<Rows>(yb, min(yb + rows, oh), load, put);
}

/* vector for 16-bit (any layout): bilerp_alpha8's walk (column taps in registers, the next row's
 * tap pixels requested before this row's are used) with the samples apart, BH<C>::PX outputs a
 * thread. Sums as sep_pixel's: without alpha, row sums in uint32 (at most 65536 * 65535) and
 * column sums in uint64; with alpha, colour times alpha and every sum above it in uint64, colour
 * by div_round. */
template <int C> struct BH {   /* outputs a thread, blocks an SM: the fastest measured */
    static constexpr int PX = C == 1 ? 2 : 1, MINB = C == 1 ? 2 : 4;
};
template <int C>
__global__ void __launch_bounds__(256, BH<C>::MINB) bilerp16(const uint16_t *__restrict__ in, int iw, int ih,
                                                   uint16_t *__restrict__ out, int ow, int oh, Taps t, int rows)
{
    typedef uint16_t T;
    constexpr bool ALPHA = C == 2 || C == 4;
    const int x0 = blockIdx.x * blockDim.x * BH<C>::PX + threadIdx.x;
    if (x0 >= ow)
        return;
    int i0[BH<C>::PX];
    uint32_t w[BH<C>::PX][2];
    bilin_columns(t, iw, ow, x0, i0, w);
    struct Rows {
        T v[BH<C>::PX][4][C];
        uint32_t wy;
    };
    auto load = [&](int y, Rows &b) {
        auto &v = b.v;
        int y0;
        bilin_pair(ih, t.yi[2 * y], t.yw[2 * y + 1], y0, b.wy);
        const T *r0 = in + (size_t)y0 * iw * C;
#pragma unroll
        for (int k = 0; k < BH<C>::PX; k++) {
            const T *p = r0 + (size_t)i0[k] * C;
            ld_vec<T, C>(p, v[k][0]);
            ld_vec<T, C>(p + C, v[k][1]);
            ld_vec<T, C>(p + (size_t)iw * C, v[k][2]);
            ld_vec<T, C>(p + (size_t)iw * C + C, v[k][3]);
        }
    };
    auto put = [&](int y, const Rows &b) {
        const auto &v = b.v;
        const uint64_t wy0 = 65536u - b.wy, wy1 = b.wy;
#pragma unroll
        for (int k = 0; k < BH<C>::PX; k++) {
            const int x = x0 + k * (int)blockDim.x;
            const uint32_t w0 = w[k][0], w1 = w[k][1];
            T o[C];
            if constexpr (ALPHA) {
                uint32_t ia[2];
                uint64_t ic[2][C - 1];
#pragma unroll
                for (int r = 0; r < 2; r++) {
                    const uint32_t a0 = v[k][2 * r][C - 1], a1 = v[k][2 * r + 1][C - 1];
                    ia[r] = w0 * a0 + w1 * a1;
#pragma unroll
                    for (int c = 0; c < C - 1; c++)
                        ic[r][c] = (uint64_t)w0 * (v[k][2 * r][c] * a0) + (uint64_t)w1 * (v[k][2 * r + 1][c] * a1);
                }
                const uint64_t A = wy0 * ia[0] + wy1 * ia[1];
                const float rA = rcp_approx((float)A);
                o[C - 1] = (T)((A + (1ull << 31)) >> 32);
#pragma unroll
                for (int c = 0; c < C - 1; c++)
                    o[c] = (T)div_round(wy0 * ic[0][c] + wy1 * ic[1][c], A, rA);
            } else {
#pragma unroll
                for (int c = 0; c < C; c++) {
                    const uint32_t I0 = w0 * v[k][0][c] + w1 * v[k][1][c], I1 = w0 * v[k][2][c] + w1 * v[k][3][c];
                    o[c] = (T)((wy0 * I0 + wy1 * I1 + (1ull << 31)) >> 32);
                }
            }
            if (x < ow)
                st_vec<T, C>(out + ((size_t)y * ow + x) * C, o);
        }
    };
    for (int yb = blockIdx.y * rows; yb < oh; yb += gridDim.y * rows)
        two_buffer_rows<Rows>(yb, min(yb + rows, oh), load, put);
}

/* vector's bilinear gathering kernels: 8-bit with alpha, every 16-bit layout (images of at least
 * 2x2) */
extern "C" int gpu_bilerp_applies(int c, int depth, int iw, int ih)
{
    return (depth == 16 || c == 2 || c == 4) && iw >= 2 && ih >= 2;
}

template <typename T, int C>
static int launch_sep(const gpu_call *k, const gpu_image *in, const gpu_image *out, const Taps &t, char *err,
                      size_t errlen)
{
    const T *s = (const T *)in->data;
    T *d = (T *)out->data;
    const bool two = t.nx == 2 && t.ny == 2;   /* bilinear: the unrolled instantiation */
    if (k->variant == KV_VECTOR) {
        if (!two || !gpu_bilerp_applies(C, 8 * (int)sizeof(T), in->w, in->h)) {
            snprintf(err, errlen, "gpu_sepfilter: no vector kernel for %d channels at %d bits, %dx%d taps", C,
                     (int)(8 * sizeof(T)), t.nx, t.ny);
            return (int)cudaErrorInvalidValue;
        }
        /* rows a thread: 8 (the column taps read once for them), fewer on small images */
        const unsigned th = threads1d(k->shape);
        int rows;
        dim3 g;
        if constexpr (sizeof(T) == 2) {
            constexpr int px = BH<C>::PX;
            CUDA_TRY(walk_grid(bilerp16<C>, th, grid_coalesced(out->w, out->h, th, px).x, out->h, &rows, &g), err, errlen);
            launch(bilerp16<C>, g, th, 0, px * rows, (const uint16_t *)s, in->w, in->h, (uint16_t *)d, out->w, out->h, t,
                   rows);
        } else {
            const auto k = bilerp_alpha8<C == 2 ? 2 : 4>;
            CUDA_TRY(walk_grid(k, th, grid_coalesced(out->w, out->h, th, BA_PX).x, out->h, &rows, &g), err, errlen);
            launch(k, g, th, 0, BA_PX * rows, (const uint8_t *)s, in->w, in->h, (uint8_t *)d, out->w, out->h, t, rows);
        }
    } else if (k->variant == KV_PERPIXEL) {
        const dim3 b = perpixel_block(k->shape), g = grid2d(out->w, out->h, b);
        launch(two ? sep_kernel<T, C, false, 2> : sep_kernel<T, C, false>, g, b, 0, 1, s, in->w, d, out->w, out->h, t);
    } else {
        const unsigned th = threads1d(k->shape);
        const dim3 g = grid_coalesced(out->w, out->h, th, GPU_PPT);
        launch(two ? sep_kernel<T, C, true, 2> : sep_kernel<T, C, true>, g, th, 0, GPU_PPT, s, in->w, d, out->w, out->h,
               t);
    }
    LAUNCH_TRY(err, errlen);
    return 0;
}

extern "C" int gpu_sepfilter(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out, const int32_t *xi,
                             const uint32_t *xw, int nx, const int32_t *yi, const uint32_t *yw, int ny, char *err,
                             size_t errlen)
{
    Taps t = { xi, yi, xw, yw, nx, ny };
    return DISPATCH_TC(in->depth, in->c, launch_sep, k, in, out, t, err, errlen);
}
