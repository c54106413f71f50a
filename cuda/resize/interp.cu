/* gpuimg: resize's cubic and lanczos3 kernels: the separable sums of src/ops/resize/interp.c in
 * the same integers, rounded once, so that the result is the CPU's bit for bit (the sums are
 * exact, so their order is free). The sums across (colour times alpha where there is alpha) are
 * kept in H, 32 bits where itaps_narrow proves they fit, else 64; the sums down in 64 bits (a
 * 32 x 32-bit multiply-add into 64 where H is 32).
 * - perpixel and coalesced: two passes through a scratch image of out->w x in->h sums, each pass
 *   one thread a pixel (a 2D grid) or GPU_PPT pixels a thread along a row (a warp's reads and
 *   writes consecutive).
 * - tiled: one pass; a block makes a tile of FT_W x tile_h output pixels, summing the source rows
 *   its taps reach across into shared memory, then down from there: no scratch in device memory,
 *   at the cost of the rows two tiles share being summed by both. */
#include "cuda/common.cuh"
#include "cuda/resize/kernels.h"

#define ITAP_BITS 14
#define FT_W 32          /* a tile's output columns: a warp's */
#define FT_THREADS 256   /* a tile's threads: FT_THREADS / FT_W rows at a time */

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

/* One output column's sums across a source row */
template <typename T, int C, typename H>
__device__ __forceinline__ void sum_across(const T *__restrict__ row, const int32_t *__restrict__ ii,
                                           const int16_t *__restrict__ wi, int nx, H *acc)
{
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
}

/* One output pixel's sums down its column of sums across: source row r's at base + (r - r0) *
 * row, channel ch's chs further on */
template <int C, typename H>
__device__ __forceinline__ void sum_down(const H *__restrict__ base, size_t row, int chs, int r0,
                                         const int32_t *__restrict__ ii, const int16_t *__restrict__ wi, int ny,
                                         long long *acc)
{
#pragma unroll
    for (int ch = 0; ch < C; ch++)
        acc[ch] = 0;
    for (int k = 0; k < ny; k++) {
        const H w = wi[k], *p = base + (size_t)(ii[k] - r0) * row;
#pragma unroll
        for (int ch = 0; ch < C; ch++)
            acc[ch] += (long long)w * p[ch * chs];
    }
}

/* One output pixel from its sums down: rounded once; with alpha, colour = round(C / A). */
template <typename T, int C>
__device__ __forceinline__ void store(const long long *acc, T *__restrict__ d, long long max)
{
    const long long A = acc[C - 1], half = 1ll << (2 * ITAP_BITS - 1);
#pragma unroll
    for (int ch = 0; ch < C; ch++) {
        long long v;
        if ((C == 2 || C == 4) && ch < C - 1)
            v = A > 0 && acc[ch] > 0 ? div_clamped(2 * acc[ch] + A, 2 * A, max) : 0;
        else
            v = acc[ch] < 0 ? 0 : (acc[ch] + half) >> (2 * ITAP_BITS);
        d[ch] = (T)(v > max ? max : v);
    }
}

template <typename T, int C, typename H, bool COALESCED, int PPT>
__global__ void interp_across(const T *__restrict__ in, int iw, int ih, H *__restrict__ h, int ow,
                              const int32_t *__restrict__ xi, const int16_t *__restrict__ xw, int nx)
{
    auto px = [&](int x, int y) {
        H acc[C];
        sum_across<T, C, H>(in + (size_t)y * iw * C, xi + (size_t)x * nx, xw + (size_t)x * nx, nx, acc);
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
        long long acc[C];
        sum_down<C, H>(h + (size_t)x * C, (size_t)ow * C, 1, 0, yi + (size_t)y * ny, yw + (size_t)y * ny, ny, acc);
        store<T, C>(acc, out + ((size_t)y * ow + x) * C, max);
    };
    if (COALESCED)
        for_coalesced<PPT>(ow, oh, px);
    else
        for_perpixel(ow, oh, px);
}

/* The tiled pass: blockIdx.x a tile column, tiles of th rows strided over by blockIdx.y. The
 * source rows of output rows y0..y1-1 are yi[y0 * ny] to yi[(y1 - 1) * ny + ny - 1] (the
 * tables' indices never decrease); their sums sit in shared memory by row, channel and column,
 * so that a warp's 32 columns are 32 banks. */
template <typename T, int C, typename H>
__global__ void __launch_bounds__(FT_THREADS)
    interp_tiled(const T *__restrict__ in, int iw, T *__restrict__ out, int ow, int oh, const int32_t *__restrict__ xi,
                 const int16_t *__restrict__ xw, int nx, const int32_t *__restrict__ yi,
                 const int16_t *__restrict__ yw, int ny, int th, long long max)
{
    extern __shared__ __align__(16) unsigned char smem[];
    H *h = (H *)smem;
    const int tx = threadIdx.x % FT_W, step = FT_THREADS / FT_W, x = blockIdx.x * FT_W + tx;
    const int tiles = (oh + th - 1) / th;
    for (int t = blockIdx.y; t < tiles; t += gridDim.y) {
        const int y0 = t * th, y1 = min(y0 + th, oh);
        const int r0 = yi[(size_t)y0 * ny], rows = yi[(size_t)(y1 - 1) * ny + ny - 1] - r0 + 1;
        if (x < ow)
            for (int r = threadIdx.x / FT_W; r < rows; r += step) {
                H acc[C];
                sum_across<T, C, H>(in + (size_t)(r0 + r) * iw * C, xi + (size_t)x * nx, xw + (size_t)x * nx, nx, acc);
#pragma unroll
                for (int ch = 0; ch < C; ch++)
                    h[(r * C + ch) * FT_W + tx] = acc[ch];
            }
        __syncthreads();
        if (x < ow)
            for (int y = y0 + threadIdx.x / FT_W; y < y1; y += step) {
                long long acc[C];
                sum_down<C, H>(h + tx, (size_t)C * FT_W, FT_W, r0, yi + (size_t)y * ny, yw + (size_t)y * ny, ny, acc);
                store<T, C>(acc, out + ((size_t)y * ow + x) * C, max);
            }
        __syncthreads();
    }
}

template <typename T, int C, typename H>
static int launch_interp(const gpu_call *k, const gpu_image *in, const gpu_image *out, const gpu_interp_tables *t,
                         char *err, size_t errlen)
{
    const T *s = (const T *)in->data;
    T *d = (T *)out->data;
    H *h = (H *)t->sums;
    const long long max = sizeof(T) == 2 ? 65535 : 255;
    if (k->variant == KV_TILED) {
        const size_t smem = gpu_interp_tile_bytes(t->tile_rows, in->c, t->narrow);
        const int tiles = (out->h + t->tile_h - 1) / t->tile_h;
        const dim3 g((unsigned)((out->w + FT_W - 1) / FT_W), (unsigned)(tiles > 65535 ? 65535 : tiles));
        launch(interp_tiled<T, C, H>, g, dim3(FT_THREADS), smem, 1, s, in->w, d, out->w, out->h, t->xi, t->xw, t->nx,
               t->yi, t->yw, t->ny, t->tile_h, max);
    } else if (k->variant == KV_PERPIXEL) {
        const dim3 b = perpixel_block(k->shape);
        launch(interp_across<T, C, H, false, 1>, grid2d(out->w, in->h, b), b, 0, 1, s, in->w, in->h, h, out->w, t->xi,
               t->xw, t->nx);
        LAUNCH_TRY(err, errlen);
        launch(interp_down<T, C, H, false, 1>, grid2d(out->w, out->h, b), b, 0, 1, (const H *)h, d, out->w, out->h,
               t->yi, t->yw, t->ny, max);
    } else {
        const unsigned th = threads1d(k->shape);
        PPT_SWITCH(ppt_choice(k->shape),
                   launch(interp_across<T, C, H, true, P>, grid_coalesced(out->w, in->h, th, P), th, 0, P, s, in->w,
                          in->h, h, out->w, t->xi, t->xw, t->nx);
                   LAUNCH_TRY(err, errlen);
                   launch(interp_down<T, C, H, true, P>, grid_coalesced(out->w, out->h, th, P), th, 0, P, (const H *)h,
                          d, out->w, out->h, t->yi, t->yw, t->ny, max));
    }
    LAUNCH_TRY(err, errlen);
    return 0;
}

template <typename T, typename H>
static int launch_layout(const gpu_call *k, const gpu_image *in, const gpu_image *out, const gpu_interp_tables *t,
                         char *err, size_t errlen)
{
    switch (in->c) {
    case 1: return launch_interp<T, 1, H>(k, in, out, t, err, errlen);
    case 2: return launch_interp<T, 2, H>(k, in, out, t, err, errlen);
    case 3: return launch_interp<T, 3, H>(k, in, out, t, err, errlen);
    default: return launch_interp<T, 4, H>(k, in, out, t, err, errlen);
    }
}

extern "C" size_t gpu_interp_scratch(int ow, int ih, int c, int narrow)
{
    return (size_t)ow * ih * c * (narrow ? sizeof(int) : sizeof(long long));
}

extern "C" size_t gpu_interp_tile_bytes(int rows, int c, int narrow)
{
    return (size_t)rows * c * FT_W * (narrow ? sizeof(int) : sizeof(long long));
}

extern "C" int gpu_interp(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out,
                          const struct gpu_interp_tables *t, char *err, size_t errlen)
{
    if (in->depth == 16)
        return t->narrow ? launch_layout<uint16_t, int>(k, in, out, t, err, errlen)
                         : launch_layout<uint16_t, long long>(k, in, out, t, err, errlen);
    return t->narrow ? launch_layout<uint8_t, int>(k, in, out, t, err, errlen)
                     : launch_layout<uint8_t, long long>(k, in, out, t, err, errlen);
}
