/* gpuimg: what the blur kernel families share (the .cu files of cuda/blur/): the border maps, the byte staging
 * and transposed copy-out of the one-pass and tensor kernels, the compiled tap counts, the exact
 * four-sum helpers of the 16-bit and alpha kernels, and each family's entry for the dispatchers
 * (each instantiated in its own file, so that make -j compiles the families side by side). */
#ifndef GPUIMG_CUDA_BLUR_CUH
#define GPUIMG_CUDA_BLUR_CUH
#include "cuda/common.cuh"
#include "cuda/blur/kernels.h"

/* Position p of an axis of n through its border map (positions -rk .. n+rk-1, offset by rk): the
 * source index, or -1 (past the map, or the constant border). */
__device__ __forceinline__ int border_pos(int p, int n, int rk, const int32_t *map)
{
    return p >= -rk && p < n + rk ? map[p + rk] : -1;
}

/* Byte column q (any integer) of an image row of w pixels of C bytes, through the border map bx
 * of pixel positions -rk .. w+rk-1 (the identity inside the row): the byte, or 0 for the constant
 * border. The staging of the one-pass and tensor kernels where a word reaches past a row's end. */
template <int C>
__device__ __forceinline__ uint32_t border_byte(const uint8_t *row, int q, int w, int rk, const int32_t *bx)
{
    const int px = q >= 0 ? q / C : -((-q + C - 1) / C), ch = q - px * C;   /* int: rows are at most 2^24 pixels */
    const int mx = border_pos(px, w, rk, bx);
    return mx >= 0 ? row[(size_t)mx * C + ch] : 0u;
}

/* put_transposed's words that are not whole (rare) */
template <int C>
__device__ __forceinline__ void put_partial(uint8_t *row, int j0, uint32_t v, int nsb, int c0, int c1)
{
    for (int b = 0; b < 4; b++) {
        const int jb = j0 + b, ch = jb % C;
        if (jb >= 0 && jb < nsb && ch >= c0 && ch < c1)
            row[jb] = (uint8_t)(v >> (8 * b));
    }
}

/* A fused transpose's copy-out, for staging that holds a tile pixel column a row (PT bytes: its
 * TH rows' C bytes each, in output order). Tile pixel column xl < np is output row p0 + xl, whose
 * bytes from row y0 on are staging bytes [0, nr C) of row xl. They go out as the aligned 4-byte
 * words they cover (TH C / 4 + 1 slots a row, consecutive threads on consecutive words), each the
 * funnel shift of two staged words; bytes one by one only in the words shared with neighbouring
 * tiles: the span's two ends, a short last tile, and a pixel split between two tile columns (of
 * its channels only those in the tile's image-row bytes [blo, bhi) are written). Byte by byte, this
 * copy-out was half of the tensor kernel's instructions; the one-pass kernel's tiles (fused at
 * small sizes) still go out byte by byte. */
template <int C, int TH>
__device__ __forceinline__ void put_transposed(const uint8_t *OS, int PT, uint8_t *out, int h, long long p0, int np,
                                               int y0, int nr, long long blo, long long bhi)
{
    constexpr int NS = TH * C / 4 + 1;
    const int nsb = nr * C;
    const size_t hc = (size_t)h * C;
    uint8_t *const base = out + ((size_t)p0 * h + y0) * C;   /* output row p0's span */
    const unsigned a0 = (unsigned)(uintptr_t)base, hcl = (unsigned)hc;
    for (int e = threadIdx.x; e < np * NS; e += blockDim.x) {
        const int xl = e / NS, k = e - xl * NS;
        const int sh = (int)((a0 + (unsigned)xl * hcl) & 3u), j0 = 4 * k - sh;   /* span byte of the word's first */
        if (j0 >= nsb)
            continue;
        const uint32_t *sw = (const uint32_t *)(OS + xl * PT);   /* (the last slot's high word lies past the span) */
        const uint32_t hiw = k < NS - 1 ? sw[k] : 0u, low = k ? sw[k - 1] : 0u;
        const uint32_t v = __funnelshift_rc(low, hiw, 32 - 8 * sh);
        uint8_t *row = base + xl * hc;
        bool whole = j0 >= 0 && j0 + 4 <= nsb;
        int c0 = 0, c1 = C;
        if (C != 1 && (xl == 0 || xl == np - 1)) {   /* a pixel split between two tile columns */
            const long long b0 = (p0 + xl) * C;
            c0 = (int)max(0LL, blo - b0);
            c1 = (int)min((long long)C, bhi - b0);
            whole = whole && c0 == 0 && c1 == C;
        }
        if (whole)
            *(uint32_t *)(row + j0) = v;
        else
            put_partial<C>(row, j0, v, nsb, c0, c1);
    }
}


#define Q8_MAXK 33   /* the most taps a one-pass kernel is compiled for */
/* The compiled tap counts (a kernel runs in the smallest that holds it). */
#define Q8_SIZES(X) X(3) X(5) X(7) X(9) X(11) X(13) X(17) X(21) X(25) X(33)

/* f(std::integral_constant<int, K>) for the smallest compiled K that holds ksize taps; -1 if none */
template <typename F> static int by_tap_count(int ksize, F f)
{
#define KS_TRY(K)                                                                                  \
    if (ksize <= K)                                                                                \
        return f(std::integral_constant<int, K>());
    Q8_SIZES(KS_TRY)
#undef KS_TRY
    return -1;
}

#define B16_TH 32   /* output rows a tile of blur16 and blur_alpha */
/* The byte offset in the image of staged rows y .. y + n - 1 (taken through the border map, rows
 * rowbytes apart), -1 for none, worked out by the block's threads once a tile so that a load adds
 * it rather than multiplying a row index (blur16, blur_alpha). */
__device__ __forceinline__ void row_offsets(long long *ro, int n, int y, int h, int rk, const int32_t *by,
                                            long long rowbytes)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        const int r = border_pos(y + i, h, rk, by);
        ro[i] = r >= 0 ? r * rowbytes : -1;
    }
}
/* a + w v, exact: 32-bit, or a 64-bit sum of 32-bit values (one wide multiply-add) */
__device__ __forceinline__ uint32_t mac(uint32_t a, uint32_t w, uint32_t v) { return a + w * v; }
__device__ __forceinline__ uint64_t mac(uint64_t a, uint32_t w, uint32_t v) { return a + (uint64_t)w * v; }
/* the 4 neighbouring sums a[j] += sum_k w[k] p[(k + j) S], j = 0..3, from KS + 3 loads */
template <int S, int KS, typename A, typename E>
__device__ __forceinline__ void sums4(const E *p, const uint32_t (&wk)[KS], A (&a)[4])
{
#pragma unroll
    for (int k = 0; k < KS + 3; k++) {
        const uint32_t v = p[k * S];
#pragma unroll
        for (int j = 0; j < 4; j++)
            if (k - j >= 0 && k - j < KS)
                a[j] = mac(a[j], wk[k - j], v);
    }
}
/* sums4 for a symmetric kernel (w[k] = w[KS - 1 - k]: the blur's), mirrored samples added first:
 * (KS + 1) / 2 multiply-adds a sum instead of KS. The caller sees that the pair sums fit 32 bits. */
template <int S, int KS, typename A, typename E>
__device__ __forceinline__ void sums4_sym(const E *p, const uint32_t (&wk)[KS], A (&a)[4])
{
    static_assert(KS % 2 == 1, "a centre tap");
    constexpr int R = KS / 2;
    uint32_t v[KS + 3];
#pragma unroll
    for (int k = 0; k < KS + 3; k++)
        v[k] = p[k * S];
#pragma unroll
    for (int j = 0; j < 4; j++) {
        a[j] = mac(a[j], wk[R], v[j + R]);
#pragma unroll
        for (int k = 0; k < R; k++)
            a[j] = mac(a[j], wk[k], v[j + k] + v[j + KS - 1 - k]);
    }
}

/* The families' entries, one instantiation per layout in its own file: a launch of ksize taps
 * through the border maps bx, by (blur_q8: 8-bit grey, RGB, RGBA, straight or transposed; blur16:
 * 16-bit grey, RGB; blur_alpha: grey+alpha and 16-bit RGBA; tensor: 8-bit, written transposed or not). -1: no
 * compiled size holds ksize taps. */
#define BLUR_ENTRY_ARGS const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize, \
                        const int32_t *bx, const int32_t *by, char *err, size_t errlen
template <int C> int blur_q8_dispatch(BLUR_ENTRY_ARGS);
template <int C> int blur16_dispatch(BLUR_ENTRY_ARGS);
template <typename T, int C> int blur_alpha_dispatch(BLUR_ENTRY_ARGS);
template <int C, bool TR> int blur_tensor_run(BLUR_ENTRY_ARGS);

#endif
