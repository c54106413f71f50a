/* gpuimg: separable filtering on the CPU with OpenMP (see sepfilter.h). Each thread owns one
 * row buffer: for every output row the vertical taps are summed into it exactly (uint32 without
 * alpha, uint64 with; floats holding integers for an 8-bit blur), then the horizontal taps
 * produce the output row. */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "ops/common/sepfilter.h"
#include "ops/common/simd.h"

int taps_alloc(struct taps *t, int count, int n)
{
    t->n = n;
    t->count = count;
    t->idx = calloc((size_t)count * n, sizeof *t->idx);
    t->w = calloc((size_t)count * n, sizeof *t->w);
    if (!t->idx || !t->w) {
        taps_free(t);
        return gpuimg_fail(GPUIMG_ENOMEM, "out of memory for filter tables");
    }
    return GPUIMG_OK;
}

void taps_free(struct taps *t)
{
    free(t->idx);
    free(t->w);
    t->idx = NULL;
    t->w = NULL;
}

/* The horizontal tables flattened per output sample for the gather path (read only, shared). */
struct flat { int32_t *idx; double *w; };

#define ROUND_SHIFT (2 * TAP_BITS)
#define ROUND_HALF ((uint64_t)1 << (ROUND_SHIFT - 1))


#define VCHUNK 2048   /* vertical pass: samples per chunk (8 KB of sums stay in L1 across the taps) */
#define HCHUNK 1024   /* uniform horizontal pass: samples per chunk (8 KB of 64-bit sums) */

/* Without alpha. Vertical: v[i] = sum_k w[k] rows[k][i], exact in uint32 (at most 65535 * 65536),
 * all taps of a chunk before the next chunk so the partial sums never leave L1. */
#define DEFINE_VPASS(T, SUF)                                                                          \
    HOT static void vpass_##SUF(uint32_t *restrict v, const T *const *rows, const uint32_t *w, int nt, int n) \
    {                                                                                                 \
        for (int i0 = 0; i0 < n; i0 += VCHUNK) {                                                      \
            const int i1 = i0 + VCHUNK < n ? i0 + VCHUNK : n;                                         \
            const T *restrict r0 = rows[0];                                                           \
            const uint32_t w0 = w[0];                                                                 \
            for (int i = i0; i < i1; i++)                                                             \
                v[i] = w0 * r0[i];                                                                    \
            for (int k = 1; k < nt; k++) {                                                            \
                const T *restrict rk = rows[k];                                                       \
                const uint32_t wk = w[k];                                                             \
                for (int i = i0; i < i1; i++)                                                         \
                    v[i] += wk * rk[i];                                                               \
            }                                                                                         \
        }                                                                                             \
    }

/* Horizontal on a uniform range, over the flat sample index j = x * c + ch:
 * out[j] = (sum_k kern[k] v[j + (k - r) c] + 2^31) >> 32, contiguous and so vectorised. */
#define DEFINE_HUNIFORM(T, SUF)                                                                       \
    HOT static void huniform_##SUF(T *restrict dst, const uint32_t *restrict v, const uint32_t *kern, int nt, \
                                   int c, int j0, int j1, uint64_t *restrict acc)                     \
    {                                                                                                 \
        const int r = nt / 2;                                                                         \
        for (int c0 = j0; c0 < j1; c0 += HCHUNK) {                                                    \
            const int n = c0 + HCHUNK < j1 ? HCHUNK : j1 - c0;                                        \
            const uint32_t *restrict base = v + c0 - r * c;                                           \
            for (int i = 0; i < n; i++)                                                               \
                acc[i] = (uint64_t)kern[0] * base[i];                                                 \
            for (int k = 1; k < nt; k++) {                                                            \
                const uint32_t *restrict vk = base + k * c;                                           \
                const uint64_t wk = kern[k];                                                          \
                for (int i = 0; i < n; i++)                                                           \
                    acc[i] += wk * vk[i];                                                             \
            }                                                                                         \
            for (int i = 0; i < n; i++)                                                               \
                dst[c0 + i] = (T)((acc[i] + ROUND_HALF) >> ROUND_SHIFT);                              \
        }                                                                                             \
    }

/* Horizontal through the tables, for outputs [x0, x1): resize, and a blur's border columns. */
#define DEFINE_HTABLE(T, SUF)                                                                         \
    static inline __attribute__((always_inline)) void htable_##SUF(T *dst, const uint32_t *v,         \
                                                                    const struct taps *tx, int x0, int x1, int c) \
    {                                                                                                 \
        const int nx = tx->n;                                                                         \
        for (int x = x0; x < x1; x++) {                                                               \
            const int32_t *xi = tx->idx + (size_t)x * nx;                                             \
            const uint32_t *xw = tx->w + (size_t)x * nx;                                              \
            for (int ch = 0; ch < c; ch++) {                                                          \
                uint64_t acc = 0;                                                                     \
                for (int k = 0; k < nx; k++)                                                          \
                    acc += (uint64_t)xw[k] * v[xi[k] * c + ch];                                       \
                dst[x * c + ch] = (T)((acc + ROUND_HALF) >> ROUND_SHIFT);                             \
            }                                                                                         \
        }                                                                                             \
    }                                                                                                 \
    HOT static void htable_any_##SUF(T *dst, const uint32_t *v, const struct taps *tx, int x0, int x1, int c) \
    {                                                                                                 \
        switch (c) { /* constant channel counts, so the channel loop unrolls */                       \
        case 1: htable_##SUF(dst, v, tx, x0, x1, 1); break;                                           \
        case 2: htable_##SUF(dst, v, tx, x0, x1, 2); break;                                           \
        case 3: htable_##SUF(dst, v, tx, x0, x1, 3); break;                                           \
        default: htable_##SUF(dst, v, tx, x0, x1, 4); break;                                          \
        }                                                                                             \
    }

/* 8-bit fast paths (x86-64 with AVX2 and FMA, chosen at run time). Exact, not approximate: in the
 * vertical pass every partial sum is an integer below 255 * 65536 < 2^24, so float32 holds each
 * one exactly; in the gathered horizontal pass (resize) every partial sum is below 2^40 < 2^53,
 * exact in double, and (s + 2^31) * 2^-32 rounded down is exact too. The results are the integers
 * the portable code (and the GPU) computes, at the speed of 8- and 4-wide FMAs, with the sums in
 * registers across all taps and a symmetric kernel's mirrored taps added first. Blur kernels
 * (Q8, below) take faster paths still. */
static int symmetric(const uint32_t *w, int n)
{
    for (int k = 0; k < n / 2; k++)
        if (w[k] != w[n - 1 - k])
            return 0;
    return n % 2 == 1;
}

#ifdef HAVE_X86_SIMD
#define FAST8 1

AVX2 static inline __m256 load8(const uint8_t *p)
{
    return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p)));
}

AVX2 static void vpass_avx2_u8(uint32_t *restrict v, const uint8_t *const *rows, const uint32_t *w, int nt, int n)
{
    const int sym = symmetric(w, nt), half = nt / 2;
    int i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        const int kn = sym ? half : nt;
        for (int k = 0; k < kn; k++) {
            const __m256 wk = _mm256_set1_ps((float)w[k]);
            const uint8_t *p = rows[k] + i;
            __m256 x0 = load8(p), x1 = load8(p + 8), x2 = load8(p + 16), x3 = load8(p + 24);
            if (sym) {
                const uint8_t *q = rows[nt - 1 - k] + i;
                x0 = _mm256_add_ps(x0, load8(q));
                x1 = _mm256_add_ps(x1, load8(q + 8));
                x2 = _mm256_add_ps(x2, load8(q + 16));
                x3 = _mm256_add_ps(x3, load8(q + 24));
            }
            a0 = _mm256_fmadd_ps(wk, x0, a0);
            a1 = _mm256_fmadd_ps(wk, x1, a1);
            a2 = _mm256_fmadd_ps(wk, x2, a2);
            a3 = _mm256_fmadd_ps(wk, x3, a3);
        }
        if (sym) {
            const __m256 wk = _mm256_set1_ps((float)w[half]);
            const uint8_t *p = rows[half] + i;
            a0 = _mm256_fmadd_ps(wk, load8(p), a0);
            a1 = _mm256_fmadd_ps(wk, load8(p + 8), a1);
            a2 = _mm256_fmadd_ps(wk, load8(p + 16), a2);
            a3 = _mm256_fmadd_ps(wk, load8(p + 24), a3);
        }
        _mm256_storeu_si256((__m256i *)(v + i), _mm256_cvtps_epi32(a0));
        _mm256_storeu_si256((__m256i *)(v + i + 8), _mm256_cvtps_epi32(a1));
        _mm256_storeu_si256((__m256i *)(v + i + 16), _mm256_cvtps_epi32(a2));
        _mm256_storeu_si256((__m256i *)(v + i + 24), _mm256_cvtps_epi32(a3));
    }
    for (; i < n; i++) {
        uint32_t s = 0;
        for (int k = 0; k < nt; k++)
            s += w[k] * rows[k][i];
        v[i] = s;
    }
}

AVX2 static inline __m128i round4(__m256d s)
{
    const __m256d half = _mm256_set1_pd(2147483648.0), scale = _mm256_set1_pd(1.0 / 4294967296.0);
    return _mm256_cvttpd_epi32(_mm256_floor_pd(_mm256_mul_pd(_mm256_add_pd(s, half), scale)));
}

/* Q8 kernels (blur at 8 bits: every weight a multiple of 256, at most 256 * 256 in all; an exact
 * 2:1 resize too) go faster with the same integers: a vertical sum (w / 256) * p is at most
 * 255 * 256 and fits 16-bit lanes (16 samples an instruction; a mirrored pair's weight is at most
 * 128, so w * (p + q) fits too). Stored as the Q16 sum (<< 8) that the resize paths read, or for a
 * blur as floats, the sums themselves, on which the horizontal sum of (w / 256) * V, exact
 * integers below 2^24, runs in float FMAs (8 lanes) with no conversion per tap. The horizontal
 * uniform range is only ever a blur's, so without Q8 weights (never at 8 bits) it runs the
 * portable loop. */
static int q8_kernel(const uint32_t *w, int n)
{
    uint32_t sum = 0;
    for (int k = 0; k < n; k++) {
        if (w[k] & 255)
            return 0;
        sum += w[k] >> 8;
    }
    return sum <= 256;
}

AVX2 static inline __m256i load16w(const uint8_t *p)
{
    return _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)p));
}

/* 16 Q8 sums (16-bit lanes) stored as the Q16 integers everything else reads, or as floats (the
 * sums themselves, below 2^16: exact) for the blur row path. */
AVX2 static inline void store_sums(void *v, int i, __m256i a, int as_float)
{
    const __m256i lo = _mm256_cvtepu16_epi32(_mm256_castsi256_si128(a));
    const __m256i hi = _mm256_cvtepu16_epi32(_mm256_extracti128_si256(a, 1));
    if (as_float) {
        _mm256_storeu_ps((float *)v + i, _mm256_cvtepi32_ps(lo));
        _mm256_storeu_ps((float *)v + i + 8, _mm256_cvtepi32_ps(hi));
    } else {
        _mm256_storeu_si256((__m256i *)((uint32_t *)v + i), _mm256_slli_epi32(lo, 8));
        _mm256_storeu_si256((__m256i *)((uint32_t *)v + i + 8), _mm256_slli_epi32(hi, 8));
    }
}

AVX2 static inline __attribute__((always_inline)) void vpass_q8_body(void *restrict v, const uint8_t *const *rows,
                                                                      const uint32_t *w, int nt, int i, int n,
                                                                      int as_float)
{
    const int sym = symmetric(w, nt), half = nt / 2, kn = sym ? half : nt;
    for (; i + 32 <= n; i += 32) {
        __m256i a0 = _mm256_setzero_si256(), a1 = a0;
        for (int k = 0; k < kn; k++) {
            const __m256i wk = _mm256_set1_epi16((short)(w[k] >> 8));
            const uint8_t *p = rows[k] + i;
            __m256i x0 = load16w(p), x1 = load16w(p + 16);
            if (sym) {
                const uint8_t *q = rows[nt - 1 - k] + i;
                x0 = _mm256_add_epi16(x0, load16w(q));
                x1 = _mm256_add_epi16(x1, load16w(q + 16));
            }
            a0 = _mm256_add_epi16(a0, _mm256_mullo_epi16(x0, wk));
            a1 = _mm256_add_epi16(a1, _mm256_mullo_epi16(x1, wk));
        }
        if (sym) {
            const __m256i wk = _mm256_set1_epi16((short)(w[half] >> 8));
            a0 = _mm256_add_epi16(a0, _mm256_mullo_epi16(load16w(rows[half] + i), wk));
            a1 = _mm256_add_epi16(a1, _mm256_mullo_epi16(load16w(rows[half] + i + 16), wk));
        }
        store_sums(v, i, a0, as_float);
        store_sums(v, i + 16, a1, as_float);
    }
    for (; i < n; i++) {
        uint32_t s = 0;
        for (int k = 0; k < nt; k++)
            s += w[k] * rows[k][i];
        if (as_float)
            ((float *)v)[i] = (float)(s >> 8);
        else
            ((uint32_t *)v)[i] = s;
    }
}

AVX2 static void vpass_q8_avx2(uint32_t *restrict v, const uint8_t *const *rows, const uint32_t *w, int nt, int n)
{
    vpass_q8_body(v, rows, w, nt, 0, n, 0);
}

AVX2 static void vpass_q8f_avx2(float *restrict v, const uint8_t *const *rows, const uint32_t *w, int nt, int i0,
                                int n)
{
    vpass_q8_body(v, rows, w, nt, i0, n, 1);
}

/* Horizontal on the float row of Q8 sums, symmetric Q8 kernels only (every blur's): S =
 * sum w8 * V, exact integers below 2^24, out = (S + 2^15) >> 16; mirrored taps added first (below
 * 2^17: exact). Four named accumulators (an array indexed in a loop went to the stack). */
AVX2 static void huniform_q8f_avx2(uint8_t *restrict dst, const float *restrict v, const uint32_t *kern, int nt, int c,
                                   int j0, int j1)
{
    const int r = nt / 2;
    const __m256i half = _mm256_set1_epi32(1 << 15), order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    const __m256 wc = _mm256_set1_ps((float)(kern[r] >> 8));
    int j = j0;
    for (; j + 32 <= j1; j += 32) {
        const float *s = v + j;
        __m256 a0 = _mm256_mul_ps(wc, _mm256_loadu_ps(s)), a1 = _mm256_mul_ps(wc, _mm256_loadu_ps(s + 8));
        __m256 a2 = _mm256_mul_ps(wc, _mm256_loadu_ps(s + 16)), a3 = _mm256_mul_ps(wc, _mm256_loadu_ps(s + 24));
        for (int k = 0; k < r; k++) {
            const __m256 wk = _mm256_set1_ps((float)(kern[k] >> 8));
            const float *p = s + (k - r) * c, *q = s + (r - k) * c;
            a0 = _mm256_fmadd_ps(wk, _mm256_add_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(q)), a0);
            a1 = _mm256_fmadd_ps(wk, _mm256_add_ps(_mm256_loadu_ps(p + 8), _mm256_loadu_ps(q + 8)), a1);
            a2 = _mm256_fmadd_ps(wk, _mm256_add_ps(_mm256_loadu_ps(p + 16), _mm256_loadu_ps(q + 16)), a2);
            a3 = _mm256_fmadd_ps(wk, _mm256_add_ps(_mm256_loadu_ps(p + 24), _mm256_loadu_ps(q + 24)), a3);
        }
        const __m256i o0 = _mm256_srli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(a0), half), 16);
        const __m256i o1 = _mm256_srli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(a1), half), 16);
        const __m256i o2 = _mm256_srli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(a2), half), 16);
        const __m256i o3 = _mm256_srli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(a3), half), 16);
        const __m256i b = _mm256_packus_epi16(_mm256_packs_epi32(o0, o1), _mm256_packs_epi32(o2, o3));
        _mm256_storeu_si256((__m256i *)(dst + j), _mm256_permutevar8x32_epi32(b, order));
    }
    for (; j < j1; j++) {
        uint32_t s = 0;
        for (int k = 0; k < nt; k++)
            s += (kern[k] >> 8) * (uint32_t)v[j + (k - r) * c];
        dst[j] = (uint8_t)((s + (1u << 15)) >> 16);
    }
}

/* A blur's border columns on the same float row, through the tables. */
static void htable_q8f(uint8_t *dst, const float *v, const struct taps *tx, int x0, int x1, int c)
{
    for (int x = x0; x < x1; x++)
        for (int ch = 0; ch < c; ch++) {
            uint32_t s = 0;
            for (int k = 0; k < tx->n; k++)
                s += (tx->w[(size_t)x * tx->n + k] >> 8) * (uint32_t)v[tx->idx[(size_t)x * tx->n + k] * c + ch];
            dst[x * c + ch] = (uint8_t)((s + (1u << 15)) >> 16);
        }
}

/* One output row of an 8-bit blur (Q8 symmetric kernel across, Q8 rows down): the vertical sums
 * as floats, then the horizontal pass on them, BLUR_CHUNK output samples at a time so that the
 * sums are still in L1 when read (each chunk first extends the sums to what its taps reach). The
 * border columns come last, from sums already there. 0 where this path does not apply. */
#define BLUR_CHUNK 4096   /* 16 KB of sums; a 10109-pixel RGB row (121 KB) went 78 -> 61 ms */
static int blur_row_u8(uint8_t *dst, const uint8_t *const *rows, const uint32_t *w, int nt, const struct taps *tx,
                       int width, int c, void *buf)
{
    if (!simd_ok() || !tx->kern || tx->lo >= tx->hi || !q8_kernel(tx->kern, tx->n) || !symmetric(tx->kern, tx->n) ||
        !q8_kernel(w, nt))
        return 0;
    float *v = buf;
    const int n = width * c, reach = tx->n / 2 * c, u0 = tx->lo * c, u1 = tx->hi * c;
    int done = 0;   /* sums [0, done) are in v */
    for (int j0 = u0; j0 < u1; j0 += BLUR_CHUNK) {
        const int j1 = j0 + BLUR_CHUNK < u1 ? j0 + BLUR_CHUNK : u1;
        const int want = (j1 + reach + 31) / 32 * 32;   /* whole 32-sample steps but at the row's end */
        if (done < want) {
            vpass_q8f_avx2(v, rows, w, nt, done, want < n ? want : n);
            done = want < n ? want : n;
        }
        huniform_q8f_avx2(dst, v, tx->kern, tx->n, c, j0, j1);
    }
    htable_q8f(dst, v, tx, 0, tx->lo, c);
    htable_q8f(dst, v, tx, tx->hi, width, c);
    return 1;
}

/* Horizontal through the tables, 8 output samples at a time: the tables are flattened per output
 * sample (fidx[k * n + j] = idx * c + channel, fw[k * n + j] = weight) so that AVX2 gathers fetch
 * the taps; sums in double, exact as above. */
AVX2 static void hgather_avx2_u8(uint8_t *restrict dst, const uint32_t *restrict v, const int32_t *fidx,
                                 const double *fw, int nt, int n)
{
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        __m256d a0 = _mm256_setzero_pd(), a1 = a0;
        for (int k = 0; k < nt; k++) {
            const size_t o = (size_t)k * n + j;
            __m256i x = _mm256_i32gather_epi32((const int *)v, _mm256_loadu_si256((const __m256i *)(fidx + o)), 4);
            a0 = _mm256_fmadd_pd(_mm256_loadu_pd(fw + o), _mm256_cvtepi32_pd(_mm256_castsi256_si128(x)), a0);
            a1 = _mm256_fmadd_pd(_mm256_loadu_pd(fw + o + 4), _mm256_cvtepi32_pd(_mm256_extracti128_si256(x, 1)), a1);
        }
        __m128i y = _mm_packs_epi32(round4(a0), round4(a1));
        _mm_storel_epi64((__m128i *)(dst + j), _mm_packus_epi16(y, y));
    }
    for (; j < n; j++) {
        uint64_t s = 0;
        for (int k = 0; k < nt; k++)
            s += (uint64_t)fw[(size_t)k * n + j] * v[fidx[(size_t)k * n + j]];
        dst[j] = (uint8_t)((s + ROUND_HALF) >> ROUND_SHIFT);
    }
}

/* With alpha at 8 bits (grey+alpha, RGBA), the alpha path's integers by other means. Down: each
 * sample times its pixel's alpha (the alpha sample times 1) is below 2^16, so 16-bit lanes hold it,
 * and its weighted sum over the rows below 2^32 (uint32 lanes); stored as doubles. Across: a pixel's
 * c sums are contiguous, so each tap is one vector load and one FMA; every product and partial sum
 * is an integer below 2^48, exact in double. Then with N = 2C + A < 2^50 and D = 2A < 2^41,
 * round(C / A) halves up is floor(N / D), and the double quotient (at most 255.5) is within 2^-45 of
 * N / D while a non-integer N / D is at least 1 / D > 2^-41 from an integer, so its floor is exact:
 * one division a pixel where the portable loop does a 64-bit one a sample. Alpha = (A + 2^31) >> 32
 * in double too. A blur's uniform range takes its kernel in place of the tables. A 5120x2880 RGBA
 * blur with transparency in every row, 2 threads: sigma 2 587 -> 97 ms, sigma 6 1563 -> 237
 * (grey+alpha 320 -> 69, 841 -> 152). */
AVX2 static void alpha_down_u8(double *vd, const uint8_t *const *rows, const uint32_t *w, int nt, int j0, int j1,
                               int c)
{
    /* per sample: the byte of its pixel's alpha (pshufb), and 1 in place of the alpha sample's own */
    int8_t am[16], al[16];
    for (int i = 0; i < 16; i++) {
        am[i] = (int8_t)(i - i % c + c - 1);
        al[i] = (int8_t)(i % c == c - 1 ? -1 : 0);
    }
    const __m128i amask = _mm_loadu_si128((const __m128i *)am), alane = _mm_loadu_si128((const __m128i *)al);
    const __m128i one8 = _mm_set1_epi8(1), flip = _mm_set1_epi32(INT32_MIN);
    const __m256d two31 = _mm256_set1_pd(2147483648.0);
    int j = j0;
    for (; j + 16 <= j1; j += 16) {
        __m256i lo = _mm256_setzero_si256(), hi = lo;
        for (int k = 0; k < nt; k++) {
            const __m128i b = _mm_loadu_si128((const __m128i *)(rows[k] + j));
            const __m128i m = _mm_blendv_epi8(_mm_shuffle_epi8(b, amask), one8, alane);
            const __m256i p = _mm256_mullo_epi16(_mm256_cvtepu8_epi16(b), _mm256_cvtepu8_epi16(m));
            const __m256i wk = _mm256_set1_epi32((int)w[k]);
            lo = _mm256_add_epi32(lo, _mm256_mullo_epi32(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(p)), wk));
            hi = _mm256_add_epi32(hi, _mm256_mullo_epi32(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(p, 1)), wk));
        }
        /* uint32 to double: flip the top bit, convert as int32, add 2^31 back */
        const __m128i q[4] = { _mm256_castsi256_si128(lo), _mm256_extracti128_si256(lo, 1),
                               _mm256_castsi256_si128(hi), _mm256_extracti128_si256(hi, 1) };
        for (int i = 0; i < 4; i++)
            _mm256_storeu_pd(vd + j + 4 * i, _mm256_add_pd(_mm256_cvtepi32_pd(_mm_xor_si128(q[i], flip)), two31));
    }
    for (; j < j1; j++) {
        const int pa = j - j % c + c - 1;
        uint32_t v = 0;
        for (int k = 0; k < nt; k++)
            v += w[k] * (uint32_t)(j == pa ? rows[k][pa] : rows[k][j] * rows[k][pa]);
        vd[j] = v;
    }
}

/* One output pixel's c sums over its taps (fi: sample indices, or NULL where the taps are the c
 * samples' runs from vd on, a blur's uniform range; fw: weights), two chains of FMAs; its alpha, A,
 * in every lane. */
AVX2 static inline __attribute__((always_inline)) __m256d across_sums(const double *vd, const int32_t *fi,
                                                                       const double *fw, int n, int c, __m256d *A)
{
    __m256d a0 = _mm256_setzero_pd(), a1 = a0;
#define TAP(k) (c == 4 ? _mm256_loadu_pd(vd + (fi ? fi[k] : (k) * 4)) \
                       : _mm256_castpd128_pd256(_mm_loadu_pd(vd + (fi ? fi[k] : (k) * 2))))
    int k = 0;
    for (; k + 2 <= n; k += 2) {
        a0 = _mm256_fmadd_pd(_mm256_broadcast_sd(fw + k), TAP(k), a0);
        a1 = _mm256_fmadd_pd(_mm256_broadcast_sd(fw + k + 1), TAP(k + 1), a1);
    }
    if (k < n)
        a0 = _mm256_fmadd_pd(_mm256_broadcast_sd(fw + k), TAP(k), a0);
#undef TAP
    a0 = _mm256_add_pd(a0, a1);
    *A = c == 4 ? _mm256_permute4x64_pd(a0, 0xff) : _mm256_permute4x64_pd(a0, 0x55);   /* (immediates for clang) */
    return a0;
}

/* The pixel's c bytes from its sums: colour floor((2C + A) / 2A), alpha (A + 2^31) >> 32 (lanes
 * past c unused). Where A = 0, 0 / 0 is NaN, which the conversion makes INT32_MIN and the
 * saturating packs 0: colour 0, as defined. */
AVX2 static inline __attribute__((always_inline)) int32_t alpha_pixel(__m256d C, __m256d A, int c)
{
    const __m256d two31 = _mm256_set1_pd(2147483648.0), inv32 = _mm256_set1_pd(1.0 / 4294967296.0);
    const __m256d q = _mm256_floor_pd(_mm256_div_pd(_mm256_add_pd(_mm256_add_pd(C, C), A), _mm256_add_pd(A, A)));
    const __m256d a = _mm256_floor_pd(_mm256_mul_pd(_mm256_add_pd(A, two31), inv32));
    const __m128i i32 = _mm256_cvttpd_epi32(c == 4 ? _mm256_blend_pd(q, a, 8) : _mm256_blend_pd(q, a, 2));
    return _mm_cvtsi128_si32(_mm_packus_epi16(_mm_packs_epi32(i32, i32), i32));
}

/* Outputs [x0, x1) of a row from the down sums vd (indexed by sample; only those the taps read),
 * four pixels at a time so that their chains and divisions overlap. kw: the uniform taps' weights
 * (fi NULL), or NULL. */
AVX2 static inline __attribute__((always_inline)) void across_run(uint8_t *dst, const double *vd, const int32_t *fi,
                                                                   const double *fw, const double *kw, int n, int x0,
                                                                   int x1, int c)
{
    const int r = n / 2;
#define SUMS(x, A) (kw ? across_sums(vd + (ptrdiff_t)((x) - r) * c, NULL, kw, n, c, A) \
                       : across_sums(vd, fi + (size_t)(x) * n, fw + (size_t)(x) * n, n, c, A))
    int x = x0;
    for (; x + 4 <= x1; x += 4) {
        __m256d A[4], C[4];
        for (int i = 0; i < 4; i++)
            C[i] = SUMS(x + i, &A[i]);
        for (int i = 0; i < 4; i++) {
            const int32_t px = alpha_pixel(C[i], A[i], c);
            memcpy(dst + (size_t)(x + i) * c, &px, (size_t)c);   /* (little-endian: x86) */
        }
    }
    for (; x < x1; x++) {
        __m256d A, C = SUMS(x, &A);
        const int32_t px = alpha_pixel(C, A, c);
        memcpy(dst + (size_t)x * c, &px, (size_t)c);
    }
#undef SUMS
}

/* Through the tables, but on a blur's uniform range [tx->lo, tx->hi) by its kernel (kw). */
AVX2 static void alpha_across_u8(uint8_t *dst, const double *vd, const struct taps *tx, const int32_t *fi,
                                 const double *fw, const double *kw, int x0, int x1, int c)
{
    const int n = tx->n;
    int lo = x1, hi = x1;   /* the uniform part [lo, hi) of [x0, x1), clamped into it */
    if (kw) {
        lo = tx->lo < x0 ? x0 : tx->lo < x1 ? tx->lo : x1;
        hi = tx->hi < lo ? lo : tx->hi < x1 ? tx->hi : x1;
    }
    if (c == 4) {
        across_run(dst, vd, fi, fw, NULL, n, x0, lo, 4);
        across_run(dst, vd, NULL, NULL, kw, n, lo, hi, 4);
        across_run(dst, vd, fi, fw, NULL, n, hi, x1, 4);
    } else {
        across_run(dst, vd, fi, fw, NULL, n, x0, lo, 2);
        across_run(dst, vd, NULL, NULL, kw, n, lo, hi, 2);
        across_run(dst, vd, fi, fw, NULL, n, hi, x1, 2);
    }
}

#endif

#ifdef FAST8
#define vpass_pick_u8 vpass_fast_u8
#else
#define vpass_pick_u8 vpass_u8
#define blur_row_u8(dst, rows, w, nt, tx, width, c, buf) 0
#endif
#define huniform_pick_u8 huniform_u8
#define blur_row_u16(dst, rows, w, nt, tx, width, c, buf) 0
#define vpass_pick_u16 vpass_u16
#define htable_fast_u16(dst, v, tx, fl, n) 0
#ifndef FAST8
#define htable_fast_u8(dst, v, tx, fl, n) 0
#endif
#define huniform_pick_u16 huniform_u16

#define DEFINE_PLAIN(T, SUF)                                                                          \
    DEFINE_HTABLE(T, SUF)                                                                             \
    static void plain_##SUF(const struct image *in, struct image *out, const struct taps *tx,         \
                            const struct taps *ty, const struct flat *fl, void *buf, int y)           \
    {                                                                                                 \
        const int c = in->c, ny = ty->n;                                                              \
        uint32_t *v = buf;                                                                            \
        uint64_t *acc = (uint64_t *)(v + ((size_t)in->w * c + 1) / 2 * 2);                            \
        const T *rows[ny];                                                                            \
        uint32_t w[ny];                                                                               \
        int nt = 0;                                                                                   \
        for (int k = 0; k < ny; k++) { /* zero weights (a constant border) read nothing */            \
            const size_t t = (size_t)y * ny + k;                                                      \
            if (ty->w[t]) {                                                                           \
                rows[nt] = (const T *)(in->data + (size_t)ty->idx[t] * in->stride);                   \
                w[nt++] = ty->w[t];                                                                   \
            }                                                                                         \
        }                                                                                             \
        T *dst = (T *)(out->data + (size_t)y * out->stride);                                          \
        if (!nt) {                                                                                    \
            memset(dst, 0, out->stride);                                                              \
            return;                                                                                   \
        }                                                                                             \
        if (blur_row_##SUF(dst, rows, w, nt, tx, in->w, c, buf))                                      \
            return;                                                                                   \
        vpass_pick_##SUF(v, rows, w, nt, in->w * c);                                                  \
        if (tx->kern && tx->lo < tx->hi) {                                                            \
            htable_any_##SUF(dst, v, tx, 0, tx->lo, c);                                               \
            huniform_pick_##SUF(dst, v, tx->kern, tx->n, c, tx->lo * c, tx->hi * c, acc);             \
            htable_any_##SUF(dst, v, tx, tx->hi, out->w, c);                                          \
        } else if (!htable_fast_##SUF(dst, v, tx, fl, out->w * c))                                  \
            htable_any_##SUF(dst, v, tx, 0, out->w, c);                                               \
    }

/* The source columns [s0, s1) that outputs [x0, x1) read with a nonzero weight (a zero weight's
 * index is a placeholder); the whole row for the whole row. */
static void source_span(const struct taps *tx, int x0, int x1, int out_w, int in_w, int *s0, int *s1)
{
    *s0 = 0;
    *s1 = in_w;
    if (x0 == 0 && x1 == out_w)
        return;
    *s0 = in_w;
    *s1 = 0;
    for (size_t t = (size_t)x0 * tx->n; t < (size_t)x1 * tx->n; t++)
        if (tx->w[t]) {
            *s0 = tx->idx[t] < *s0 ? tx->idx[t] : *s0;
            *s1 = tx->idx[t] >= *s1 ? tx->idx[t] + 1 : *s1;
        }
    if (*s1 < *s0)   /* every weight zero: the outputs are 0 */
        *s1 = *s0;
}

/* With alpha (last channel): colour premultiplied, uint64 throughout (16-bit: c*a < 2^32, times
 * two Q16 weights summing to 65536 each: < 2^64). round(C / A) via quotient and remainder, since
 * 2C could overflow. */
#define DEFINE_ALPHA(T, SUF)                                                                          \
    static void alpha_##SUF(const struct image *in, struct image *out, const struct taps *tx,         \
                            const struct taps *ty, void *buf, int y, int x0, int x1)                  \
    {                                                                                                 \
        uint64_t *vrow = buf;                                                                         \
        const int c = in->c, ac = c - 1, nx = tx->n, ny = ty->n;                                      \
        const int32_t *yi = ty->idx + (size_t)y * ny;                                                 \
        const uint32_t *yw = ty->w + (size_t)y * ny;                                                  \
        int s0, s1;                                                                                   \
        source_span(tx, x0, x1, out->w, in->w, &s0, &s1);                                             \
        memset(vrow + (size_t)s0 * c, 0, (size_t)(s1 - s0) * c * sizeof *vrow);                       \
        for (int k = 0; k < ny; k++) {                                                                \
            const uint64_t wk = yw[k];                                                                \
            if (!wk)                                                                                  \
                continue;                                                                             \
            const T *src = (const T *)(in->data + (size_t)yi[k] * in->stride);                        \
            for (int x = s0; x < s1; x++) {                                                           \
                const uint64_t a = src[x * c + ac];                                                   \
                for (int ch = 0; ch < ac; ch++)                                                       \
                    vrow[x * c + ch] += wk * (src[x * c + ch] * a);                                   \
                vrow[x * c + ac] += wk * a;                                                           \
            }                                                                                         \
        }                                                                                             \
        T *dst = (T *)(out->data + (size_t)y * out->stride);                                          \
        for (int x = x0; x < x1; x++) {                                                               \
            const int32_t *xi = tx->idx + (size_t)x * nx;                                             \
            const uint32_t *xw = tx->w + (size_t)x * nx;                                              \
            uint64_t A = 0;                                                                           \
            for (int k = 0; k < nx; k++)                                                              \
                A += xw[k] * vrow[xi[k] * c + ac];                                                    \
            dst[x * c + ac] = (T)((A + ROUND_HALF) >> ROUND_SHIFT);                                   \
            for (int ch = 0; ch < ac; ch++) {                                                         \
                uint64_t C = 0;                                                                       \
                for (int k = 0; k < nx; k++)                                                          \
                    C += xw[k] * vrow[xi[k] * c + ch];                                                \
                dst[x * c + ch] = A > 0 ? (T)(C / A + (C % A >= A - C % A)) : 0;                      \
            }                                                                                         \
        }                                                                                             \
    }

DEFINE_VPASS(uint8_t, u8)
DEFINE_HUNIFORM(uint8_t, u8)
DEFINE_VPASS(uint16_t, u16)
DEFINE_HUNIFORM(uint16_t, u16)
#ifdef FAST8
static int htable_fast_u8(uint8_t *dst, const uint32_t *v, const struct taps *tx, const struct flat *fl, int n)
{
    if (!fl || !fl->idx)
        return 0;
    hgather_avx2_u8(dst, v, fl->idx, fl->w, tx->n, n);
    return 1;
}
static void vpass_fast_u8(uint32_t *v, const uint8_t *const *rows, const uint32_t *w, int nt, int n)
{
    (!simd_ok() ? vpass_u8 : q8_kernel(w, nt) ? vpass_q8_avx2 : vpass_avx2_u8)(v, rows, w, nt, n);
}
#endif
DEFINE_PLAIN(uint8_t, u8)
DEFINE_PLAIN(uint16_t, u16)
DEFINE_ALPHA(uint8_t, u8)
DEFINE_ALPHA(uint16_t, u16)

#ifdef FAST8
static struct flat flatten(const struct taps *tx, int c)
{
    const size_t n = (size_t)tx->count * c;
    struct flat f = { malloc(n * tx->n * sizeof(int32_t)), malloc(n * tx->n * sizeof(double)) };
    if (f.idx && f.w)
        for (int k = 0; k < tx->n; k++)
            for (size_t j = 0; j < n; j++) {
                const size_t t = (j / c) * tx->n + k;
                f.idx[k * n + j] = tx->idx[t] * c + (int)(j % c);
                f.w[k * n + j] = tx->w[t];
            }
    return f;
}
#endif

#ifdef FAST8
/* The AVX2 alpha path's tables: each tap's first sample index (idx c) and its weight as a double,
 * and after them a blur's kernel as doubles. A
 * zero weight's index is a placeholder that may lie outside the sums a call computes, where the
 * buffer holds anything (0 times NaN is NaN), so it takes its output's first nonzero tap's index.
 * An output with no nonzero weight never occurs (a blur's centre tap is inside, a resize's weights
 * sum to 65536); if one did, the tables are not made and the portable path runs. */
static void across_tables(const struct taps *tx, int c, int32_t **fi, double **fw)
{
    const size_t n = (size_t)tx->count * tx->n;
    *fi = malloc(n * sizeof **fi);
    *fw = malloc((n + tx->n) * sizeof **fw);   /* then a blur's kernel for its uniform range */
    for (int k = 0; *fw && tx->kern && k < tx->n; k++)
        (*fw)[n + k] = tx->kern[k];
    for (int x = 0; *fi && *fw && x < tx->count; x++) {
        const int32_t *xi = tx->idx + (size_t)x * tx->n;
        const uint32_t *xw = tx->w + (size_t)x * tx->n;
        int first = -1;
        for (int k = 0; k < tx->n && first < 0; k++)
            first = xw[k] ? xi[k] : -1;
        if (first < 0) {
            free(*fi);
            *fi = NULL;
            break;
        }
        for (int k = 0; k < tx->n; k++) {
            (*fi)[(size_t)x * tx->n + k] = (xw[k] ? xi[k] : first) * c;
            (*fw)[(size_t)x * tx->n + k] = xw[k];
        }
    }
    if (!*fi || !*fw) {   /* (no memory: the portable path) */
        free(*fi);
        free(*fw);
        *fi = NULL;
        *fw = NULL;
    }
}
#endif

/* Outputs [x0, x1) of row y of an image with alpha: the AVX2 path at 8 bits where it has its tables
 * (across_tables), the portable one otherwise; the same integers. */
static void alpha_row(const struct image *in, struct image *out, const struct taps *tx, const int32_t *fi,
                      const double *fw, const struct taps *ty, void *buf, int y, int x0, int x1)
{
#ifdef FAST8
    if (fw) {
        const int c = in->c, ny = ty->n;
        const uint8_t *rows[ny];
        uint32_t w[ny];
        int nt = 0, s0, s1;
        for (int k = 0; k < ny; k++) {
            const size_t t = (size_t)y * ny + k;
            if (ty->w[t]) {
                rows[nt] = in->data + (size_t)ty->idx[t] * in->stride;
                w[nt++] = ty->w[t];
            }
        }
        source_span(tx, x0, x1, out->w, in->w, &s0, &s1);
        alpha_down_u8(buf, rows, w, nt, s0 * c, s1 * c, c);
        alpha_across_u8(out->data + (size_t)y * out->stride, buf, tx, fi, fw,
                        tx->kern ? fw + (size_t)tx->count * tx->n : NULL, x0, x1, c);
        return;
    }
#else
    (void)fi;
    (void)fw;
#endif
    (in->depth == 16 ? alpha_u16 : alpha_u8)(in, out, tx, ty, buf, y, x0, x1);
}

/* Whether output o's weights sum to exactly 65536. */
static int taps_whole(const struct taps *t, int o)
{
    uint32_t s = 0;
    for (int k = 0; k < t->n; k++)
        s += t->w[(size_t)o * t->n + k];
    return s == TAP_ONE;
}

/* Opaque rows take the plain path. Where every alpha a window reads is the maximum M and both
 * axes' weights sum to 65536, A = M 2^32 and C = M S, so alpha = M and round(C / A) (halves up) is
 * (S + 2^31) >> 32: the plain result, bit for bit, at the plain path's speed (RGBA 8-bit blur
 * 5120x2880, 2 threads: 629 -> 45 ms). A constant border's edge outputs have weights summing to
 * less (its missing taps are zero): the alpha path, which normalises by A, redoes those columns
 * (lo and hi below) and the edge rows whole. */
struct opaque {
    uint8_t *rows;   /* flags: all of the row's alphas at the maximum; NULL: the alpha path only */
    int lo, hi;      /* output columns [lo, hi) have whole weights, the rest are at the two ends */
};

static struct opaque plan_opaque(const struct image *in, const struct taps *tx)
{
    struct opaque o = { NULL, 0, tx->count };
    if (!has_alpha(in->c))
        return o;
    while (o.lo < o.hi && !taps_whole(tx, o.lo))
        o.lo++;
    while (o.hi > o.lo && !taps_whole(tx, o.hi - 1))
        o.hi--;
    for (int x = o.lo; x < o.hi; x++)
        if (!taps_whole(tx, x))
            return o;
    if (o.lo < o.hi && (o.rows = malloc((size_t)in->h)) && !image_opaque_rows(in, o.rows)) {
        free(o.rows);   /* (no memory: the alpha path does all the work) */
        o.rows = NULL;
    }
    return o;
}

/* Output row y of an image with alpha may take the plain path: its weights sum to 65536 and every
 * row it reads with a weight is opaque. */
static int row_plain(const struct opaque *o, const struct taps *ty, int y)
{
    if (!o->rows || !taps_whole(ty, y))
        return 0;
    for (int k = 0; k < ty->n; k++) {
        const size_t t = (size_t)y * ty->n + k;
        if (ty->w[t] && !o->rows[ty->idx[t]])
            return 0;
    }
    return 1;
}

int sepfilter_run(const struct image *in, struct image *out, const struct taps *tx, const struct taps *ty)
{
    return sepfilter_run_rows(in, out, tx, ty, NULL, NULL);
}

int sepfilter_run_rows(const struct image *in, struct image *out, const struct taps *tx, const struct taps *ty,
                       void (*row)(void *ctx, int y), void *ctx)
{
    const int alpha = has_alpha(in->c), wide = in->depth == 16;
    struct opaque op = plan_opaque(in, tx);
    /* per thread: the row sums (uint64 with alpha; uint32 and the uniform pass' sums without) */
    const size_t n = (size_t)in->w * in->c;
    const size_t plain_bytes = (n + 1) / 2 * 2 * sizeof(uint32_t) + HCHUNK * sizeof(uint64_t);
    const size_t bytes = alpha && n * sizeof(uint64_t) > plain_bytes ? n * sizeof(uint64_t) : plain_bytes;
    int failed = 0;
#ifdef FAST8
    struct flat f = { 0 };
    if ((!alpha || op.rows) && !wide && !tx->kern && simd_ok()) {
        f = flatten(tx, in->c);
        if (!f.idx || !f.w) {   /* no memory for the fast tables: the portable loop does the work */
            free(f.idx);
            free(f.w);
            f.idx = NULL;
            f.w = NULL;
        }
    }
#endif
#ifdef FAST8
    const struct flat *fl = &f;
    int32_t *fi = NULL;
    double *fw = NULL;
    if (alpha && !wide && simd_ok())
        across_tables(tx, in->c, &fi, &fw);
#else
    const struct flat *fl = NULL;
    int32_t *fi = NULL;
    double *fw = NULL;
#endif
#pragma omp parallel
    {
        void *vrow = malloc(bytes);
        if (!vrow) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(static)
        for (int y = 0; y < out->h; y++) {
            if (!vrow)
                continue;
            if (alpha && !row_plain(&op, ty, y)) {
                alpha_row(in, out, tx, fi, fw, ty, vrow, y, 0, out->w);
            } else {
                (wide ? plain_u16 : plain_u8)(in, out, tx, ty, fl, vrow, y);
                if (alpha && op.lo > 0)
                    alpha_row(in, out, tx, fi, fw, ty, vrow, y, 0, op.lo);
                if (alpha && op.hi < out->w)
                    alpha_row(in, out, tx, fi, fw, ty, vrow, y, op.hi, out->w);
            }
            if (row)
                row(ctx, y);
        }
        free(vrow);
    }
#ifdef FAST8
    free(f.idx);
    free(f.w);
#endif
    free(op.rows);
    free(fi);
    free(fw);
    return failed ? gpuimg_fail(GPUIMG_ENOMEM, "out of memory for filter row buffers") : GPUIMG_OK;
}
