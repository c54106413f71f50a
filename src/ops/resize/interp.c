/* gpuimg: resize's cubic and lanczos3 filters on the CPU (interp.h). Each thread takes blocks of
 * output rows: the source rows they need are filtered horizontally once into the thread's
 * buffer (32-bit sums where itaps_narrow allows), then each output row sums its taps down those. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/hot.h"
#include "ops/common/simd.h"
#include "ops/resize/interp.h"

#define ONE (1 << ITAP_BITS)
#define BLOCK 32    /* output rows a block */
#define CHUNK 240   /* samples of a row summed down at a time: whole pixels of 1 to 4 channels */

static double cubic(double x)
{
    const double a = -0.75;
    x = fabs(x);
    return x < 1 ? ((a + 2) * x - (a + 3)) * x * x + 1 : x < 2 ? ((a * x - 5 * a) * x + 8 * a) * x - 4 * a : 0;
}

static double sinc(double x) { return x == 0 ? 1 : sin(M_PI * x) / (M_PI * x); }
static double lanczos3(double x) { return fabs(x) < 3 ? sinc(x) * sinc(x / 3) : 0; }

void itaps_free(struct itaps *t)
{
    free(t->idx);
    free(t->w);
    t->idx = NULL;
    t->w = NULL;
}

int itaps_make(enum interp_kind k, int in, int out, struct itaps *t)
{
    const double scale = (double)in / out, s = scale > 1 ? scale : 1, a = k == INTERP_CUBIC ? 2 : 3;
    const double support = a * s;
    const int n = (int)ceil(2 * support) + 1;
    t->n = n;
    t->count = out;
    t->idx = malloc((size_t)out * n * sizeof *t->idx);
    t->w = malloc((size_t)out * n * sizeof *t->w);
    double *wd = malloc((size_t)n * sizeof *wd);
    if (!t->idx || !t->w || !wd) {
        free(wd);
        itaps_free(t);
        return gpuimg_fail(GPUIMG_ENOMEM, "out of memory for resize tables");
    }
    for (int o = 0; o < out; o++) {
        const double c = (o + 0.5) * scale - 0.5;
        const int first = (int)floor(c - support) + 1;
        double sum = 0;
        for (int j = 0; j < n; j++) {
            const double x = (first + j - c) / s;
            wd[j] = k == INTERP_CUBIC ? cubic(x) : lanczos3(x);
            sum += wd[j];
        }
        int32_t *ii = t->idx + (size_t)o * n;
        int16_t *wi = t->w + (size_t)o * n;
        int total = 0, big = 0;
        for (int j = 0; j < n; j++) {
            const int i = first + j;
            ii[j] = i < 0 ? 0 : i >= in ? in - 1 : i;
            wi[j] = (int16_t)lround(wd[j] / sum * ONE);
            total += wi[j];
            if (wi[j] > wi[big])
                big = j;
        }
        wi[big] = (int16_t)(wi[big] + ONE - total);
    }
    free(wd);
    return GPUIMG_OK;
}

/* Source row r filtered across into hr's outputs x0 to x1 - 1: each sample's sum of w times the
 * sample, colour times its alpha where there is alpha, in H (32 bits where itaps_narrow says they
 * fit, else 64). One function per depth, channel count and H, so that the channel loops unroll. */
#define DEFINE_HORIZONTAL(T, C, H)                                                                   \
    HOT static void horizontal_##T##_##C##_##H(const uint8_t *row, const struct itaps *tx, int x0, int x1, \
                                               void *out)                                          \
    {                                                                                              \
        const T *s = (const T *)row;                                                               \
        H *hr = out;                                                                               \
        for (int x = x0; x < x1; x++) {                                                            \
            const int32_t *ii = tx->idx + (size_t)x * tx->n;                                       \
            const int16_t *wi = tx->w + (size_t)x * tx->n;                                         \
            H acc[C] = { 0 };                                                                      \
            for (int k = 0; k < tx->n; k++) {                                                      \
                const T *p = s + (size_t)ii[k] * C;                                                \
                const H w = wi[k];                                                                 \
                for (int ch = 0; ch < C; ch++)                                                     \
                    acc[ch] += w * ((C == 2 || C == 4) && ch < C - 1 ? (H)p[ch] * p[C - 1] : (H)p[ch]); \
            }                                                                                      \
            for (int ch = 0; ch < C; ch++)                                                         \
                hr[(size_t)x * C + ch] = acc[ch];                                                  \
        }                                                                                          \
    }
#define DEFINE_HORIZONTALS(T)                                                                        \
    DEFINE_HORIZONTAL(T, 1, int32_t)                                                               \
    DEFINE_HORIZONTAL(T, 2, int32_t)                                                               \
    DEFINE_HORIZONTAL(T, 3, int32_t)                                                               \
    DEFINE_HORIZONTAL(T, 4, int32_t)                                                               \
    DEFINE_HORIZONTAL(T, 1, int64_t)                                                               \
    DEFINE_HORIZONTAL(T, 2, int64_t)                                                               \
    DEFINE_HORIZONTAL(T, 3, int64_t)                                                               \
    DEFINE_HORIZONTAL(T, 4, int64_t)
DEFINE_HORIZONTALS(uint8_t)
DEFINE_HORIZONTALS(uint16_t)

typedef void (*horizontal_fn)(const uint8_t *, const struct itaps *, int, int, void *);
#define HORIZONTALS(T)                                                                               \
    { { horizontal_##T##_1_int64_t, horizontal_##T##_2_int64_t, horizontal_##T##_3_int64_t,          \
        horizontal_##T##_4_int64_t },                                                               \
      { horizontal_##T##_1_int32_t, horizontal_##T##_2_int32_t, horizontal_##T##_3_int32_t,          \
        horizontal_##T##_4_int32_t } }

static horizontal_fn horizontal_for(const struct image *in, int narrow)
{
    static const horizontal_fn fn[2][2][4] = { HORIZONTALS(uint8_t), HORIZONTALS(uint16_t) };
    return fn[in->depth == 16][narrow][in->c - 1];
}

/* The pass across for a source row: an AVX2 form for the outputs lo to hi - 1 where one applies
 * (8-bit RGB, RGBA and grey), the loops above for the rest. */
struct across {
    horizontal_fn fn;
    void (*simd)(const uint8_t *s, const struct itaps *tx, const struct across *a, void *out);
    int lo, hi;
    uint32_t *pairs;   /* RGB: each output's weights two by two (the odd one with 0), np an output */
    int np;
    int16_t *grey;     /* grey: each output's weights in 16 lanes (0 past its taps) */
};

#ifdef HAVE_X86_SIMD
/* 8-bit RGB summed across two taps at a time: the two source pixels' bytes (four each: the
 * fourth is the next pixel's, its sum thrown away; no output in the range reads the row's last
 * pixel) interleaved as 16-bit values, times the two weights, in one multiply-add into 32 bits:
 * the same integers as the loops above. */
AVX2 static void across_rgb8(const uint8_t *s, const struct itaps *tx, const struct across *a, void *out)
{
    int32_t *hr = out;
    for (int x = a->lo; x < a->hi; x++) {
        const int32_t *ii = tx->idx + (size_t)x * tx->n;
        const uint32_t *w = a->pairs + (size_t)x * a->np;
        __m128i acc = _mm_setzero_si128();
        for (int j = 0; j < a->np; j++) {
            const int k1 = 2 * j + 1 < tx->n ? 2 * j + 1 : 2 * j;
            int32_t p0, p1;
            memcpy(&p0, s + (size_t)ii[2 * j] * 3, 4);
            memcpy(&p1, s + (size_t)ii[k1] * 3, 4);
            const __m128i v = _mm_cvtepu8_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(p0), _mm_cvtsi32_si128(p1)));
            acc = _mm_add_epi32(acc, _mm_madd_epi16(v, _mm_set1_epi32((int)w[j])));
        }
        if (x + 1 < a->hi) {
            _mm_storeu_si128((__m128i *)(hr + (size_t)x * 3), acc);   /* its fourth lane is the next x's first */
        } else {
            hr[(size_t)x * 3] = _mm_cvtsi128_si32(acc);
            hr[(size_t)x * 3 + 1] = _mm_extract_epi32(acc, 1);
            hr[(size_t)x * 3 + 2] = _mm_extract_epi32(acc, 2);
        }
    }
}

/* 8-bit RGBA summed across a tap at a time: the pixel's four bytes as 32-bit lanes, the colour
 * times alpha and all four times the weight in 32-bit multiplies: the same integers as the loops
 * above. */
AVX2 static void across_rgba8(const uint8_t *s, const struct itaps *tx, const struct across *a, void *out)
{
    int32_t *hr = out;
    const __m128i one_alpha = _mm_setr_epi32(0, 0, 0, -1);
    for (int x = a->lo; x < a->hi; x++) {
        const int32_t *ii = tx->idx + (size_t)x * tx->n;
        const int16_t *wi = tx->w + (size_t)x * tx->n;
        __m128i acc = _mm_setzero_si128();
        for (int k = 0; k < tx->n; k++) {
            int32_t p;
            memcpy(&p, s + (size_t)ii[k] * 4, 4);
            const __m128i v = _mm_cvtepu8_epi32(_mm_cvtsi32_si128(p));
            /* [a a a 1]: the colour premultiplied, alpha as it is */
            const __m128i m = _mm_blendv_epi8(_mm_shuffle_epi32(v, 0xFF), _mm_set1_epi32(1), one_alpha);
            acc = _mm_add_epi32(acc, _mm_mullo_epi32(_mm_mullo_epi32(v, m), _mm_set1_epi32(wi[k])));
        }
        _mm_storeu_si128((__m128i *)(hr + (size_t)x * 4), acc);
    }
}

/* 8-bit grey summed across as a window: each output in the range has consecutive taps, so the 16
 * pixels from its first, as 16-bit values, times its weights in multiply-adds, summed in 32 bits:
 * the same integers as the loops above. */
AVX2 static void across_grey8(const uint8_t *s, const struct itaps *tx, const struct across *a, void *out)
{
    int32_t *hr = out;
    for (int x = a->lo; x < a->hi; x++) {
        const __m256i v = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(s + tx->idx[(size_t)x * tx->n])));
        const __m256i p = _mm256_madd_epi16(v, _mm256_loadu_si256((const __m256i *)(a->grey + (size_t)x * 16)));
        __m128i q = _mm_add_epi32(_mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1));
        q = _mm_add_epi32(q, _mm_shuffle_epi32(q, 0x4E));
        q = _mm_add_epi32(q, _mm_shuffle_epi32(q, 0xB1));
        hr[x] = _mm_cvtsi128_si32(q);
    }
}

/* Whether output x's taps are 16 source pixels in a row (its own first, 0 weights past them)
 * that lie inside a row of w */
static int grey_window(const struct itaps *tx, int x, int w)
{
    const int32_t *ii = tx->idx + (size_t)x * tx->n;
    int run = ii[0] + 16 <= w;
    for (int k = 1; k < tx->n; k++)
        run &= ii[k] == ii[0] + k;
    return run;
}
#endif

static void across_row(const struct across *a, const uint8_t *row, const struct itaps *tx, void *out)
{
    a->fn(row, tx, 0, a->lo, out);
    if (a->simd)
        a->simd(row, tx, a, out);
    a->fn(row, tx, a->hi, tx->count, out);
}

static void across_free(struct across *a)
{
    free(a->pairs);
    free(a->grey);
}

/* The pass across for in, with the tables its AVX2 form needs (across_free frees them). */
static int across_make(struct across *a, const struct image *in, const struct itaps *tx, int narrow)
{
    memset(a, 0, sizeof *a);
    a->fn = horizontal_for(in, narrow);
#ifdef HAVE_X86_SIMD
    if (in->depth != 8 || !narrow || !simd_ok())
        return GPUIMG_OK;
    if (in->c == 4) {
        a->simd = across_rgba8;
        a->hi = tx->count;
    } else if (in->c == 1 && tx->n <= 16) {
        /* the outputs with whole windows: between the edges, where taps are clamped */
        while (a->lo < tx->count && !grey_window(tx, a->lo, in->w))
            a->lo++;
        for (a->hi = a->lo; a->hi < tx->count && grey_window(tx, a->hi, in->w);)
            a->hi++;
        if (!(a->grey = calloc((size_t)tx->count * 16, sizeof *a->grey)))
            return gpuimg_fail(GPUIMG_ENOMEM, "out of memory for resize tables");
        for (int x = 0; x < tx->count; x++)
            memcpy(a->grey + (size_t)x * 16, tx->w + (size_t)x * tx->n, (size_t)tx->n * sizeof *a->grey);
        a->simd = across_grey8;
    } else if (in->c == 3) {
        /* the outputs before the first whose taps reach the last source pixel (indices never
         * decrease) */
        while (a->hi < tx->count && tx->idx[(size_t)a->hi * tx->n + tx->n - 1] < in->w - 1)
            a->hi++;
        a->np = (tx->n + 1) / 2;
        if (!(a->pairs = malloc((size_t)tx->count * a->np * sizeof *a->pairs)))
            return gpuimg_fail(GPUIMG_ENOMEM, "out of memory for resize tables");
        for (int x = 0; x < tx->count; x++)
            for (int j = 0; j < a->np; j++) {
                const int16_t *w = tx->w + (size_t)x * tx->n;
                const uint16_t lo = (uint16_t)w[2 * j], hi = 2 * j + 1 < tx->n ? (uint16_t)w[2 * j + 1] : 0;
                a->pairs[(size_t)x * a->np + j] = (uint32_t)lo | (uint32_t)hi << 16;
            }
        a->simd = across_rgb8;
    }
#endif
    return GPUIMG_OK;
}

int itaps_narrow(const struct itaps *tx, int c, int depth)
{
    const int64_t top = depth == 16 ? 65535 : 255, sample = has_alpha(c) ? top * top : top;
    int64_t most = 0;   /* the largest sum of |w| over the outputs */
    for (int x = 0; x < tx->count; x++) {
        int64_t sum = 0;
        for (int k = 0; k < tx->n; k++) {
            const int w = tx->w[(size_t)x * tx->n + k];
            sum += w < 0 ? -w : w;
        }
        most = sum > most ? sum : most;
    }
    return sample * most <= INT32_MAX;
}

int itaps_span(const struct itaps *t, int th)
{
    int most = 0;
    for (int o = 0; o < t->count; o += th) {
        const int last = (o + th < t->count ? o + th : t->count) - 1;
        const int span = t->idx[(size_t)last * t->n + t->n - 1] - t->idx[(size_t)o * t->n] + 1;
        most = span > most ? span : most;
    }
    return most;
}

/* The sums down the taps of output row y into acc (a row; tap after tap so that the loop runs
 * along the row) from the block's rows h (row j holds source row r0 + j). From 32-bit sums in
 * doubles, which hold them exactly: a product is under 2^15 * 2^31 and every partial sum under
 * the weights' absolute sum (under 2^15) times 2^31, far inside a double's 53 bits; the vector
 * units multiply and add doubles, not 64-bit integers. From 64-bit sums in 64-bit integers. */
HOT static void down_narrow(const void *h, int r0, const struct itaps *ty, int y, size_t rowlen, size_t i0, size_t m,
                            double *restrict acc)
{
    const int32_t *ii = ty->idx + (size_t)y * ty->n;
    const int16_t *wi = ty->w + (size_t)y * ty->n;
    memset(acc, 0, m * sizeof *acc);
    for (int k = 0; k < ty->n; k++) {
        const double w = wi[k];
        const int32_t *restrict hr = (const int32_t *)h + (size_t)(ii[k] - r0) * rowlen + i0;
        for (size_t i = 0; i < m; i++)
            acc[i] += w * hr[i];
    }
}

HOT static void down_wide(const void *h, int r0, const struct itaps *ty, int y, size_t rowlen, int64_t *restrict acc)
{
    const int32_t *ii = ty->idx + (size_t)y * ty->n;
    const int16_t *wi = ty->w + (size_t)y * ty->n;
    memset(acc, 0, rowlen * sizeof *acc);
    for (int k = 0; k < ty->n; k++) {
        const int64_t w = wi[k];
        const int64_t *restrict hr = (const int64_t *)h + (size_t)(ii[k] - r0) * rowlen;
        for (size_t i = 0; i < rowlen; i++)
            acc[i] += w * hr[i];
    }
}

static int64_t sample(int64_t v, int64_t max)
{
    v = v < 0 ? 0 : (v + ((int64_t)1 << (2 * ITAP_BITS - 1))) >> (2 * ITAP_BITS);
    return v > max ? max : v;
}

/* A row of exact sums held in doubles rounded as sample() rounds integers: adding 2^27 and
 * scaling by 2^-28 are exact, and once clamped to [0, max] truncating is the shift's floor; the
 * clamp and convert run in the vector units. */
HOT static void round_row(const double *restrict acc, size_t n, int depth, uint8_t *restrict d)
{
    const double half = (double)(1 << (2 * ITAP_BITS - 1)), scale = 1.0 / (double)(1 << (2 * ITAP_BITS));
    if (depth == 16) {
        uint16_t *restrict d16 = (uint16_t *)d;
        for (size_t i = 0; i < n; i++) {
            const double v = (acc[i] + half) * scale;
            d16[i] = (uint16_t)(int32_t)(v < 0 ? 0 : v > 65535 ? 65535 : v);
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            const double v = (acc[i] + half) * scale;
            d[i] = (uint8_t)(int32_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
}

/* A piece of a row with alpha from exact sums in doubles: alpha rounded as round_row does, colour
 * round(C / A) as (2C + A) / (2A) in doubles, whose truncation is the integer division's (see
 * vertical); A <= 0 or C <= 0 give 0. One function per channel count, so that the loops vectorise. */
#define DEFINE_ROUND_ALPHA(C)                                                                        \
    HOT static void round_alpha_##C(const double *restrict s, size_t m, int depth, uint8_t *restrict d) \
    {                                                                                              \
        const double half = (double)(1 << (2 * ITAP_BITS - 1)), scale = 1.0 / (double)(1 << (2 * ITAP_BITS)); \
        const double max = depth == 16 ? 65535 : 255;                                              \
        uint16_t *restrict d16 = (uint16_t *)d;                                                    \
        for (size_t p = 0; p < m; p += C) {                                                        \
            const double A = s[p + C - 1], a = (A + half) * scale;                                 \
            for (int k = 0; k < C; k++) {                                                          \
                const double q = (2 * s[p + k] + A) / (2 * A);                                     \
                double v = k == C - 1 ? (a < 0 ? 0 : a) : A > 0 && s[p + k] > 0 ? q : 0;          \
                v = v > max ? max : v;                                                             \
                if (depth == 16)                                                                   \
                    d16[p + k] = (uint16_t)(int32_t)v;                                             \
                else                                                                               \
                    d[p + k] = (uint8_t)(int32_t)v;                                                \
            }                                                                                      \
        }                                                                                          \
    }
DEFINE_ROUND_ALPHA(2)
DEFINE_ROUND_ALPHA(4)

/* One output row: the sums down (in doubles by pieces where narrow, else in acc's rowlen 64-bit
 * integers), rounded once; with alpha, colour = round(C / A). Where the sums are doubles the alpha division
 * is too: C and A are exact and 2A times the quotient (at most max + 1 before the clamp decides)
 * stays under 2^52, so the quotient's floor is the integer division's. */
static void vertical(const void *h, int narrow, int r0, const struct itaps *ty, int y, int64_t *acc, struct image *out)
{
    const int c = out->c;
    const size_t rowlen = (size_t)out->w * c;
    const int64_t max = out->depth == 16 ? 65535 : 255;
    uint8_t *d = out->data + (size_t)y * out->stride;
    uint16_t *d16 = (uint16_t *)d;
    if (narrow) {   /* by pieces of CHUNK samples (whole pixels), their sums staying in L1 */
        double sums[CHUNK];
        for (size_t i0 = 0; i0 < rowlen; i0 += CHUNK) {
            const size_t m = rowlen - i0 < CHUNK ? rowlen - i0 : CHUNK;
            down_narrow(h, r0, ty, y, rowlen, i0, m, sums);
            if (!has_alpha(c)) {
                round_row(sums, m, out->depth, out->depth == 16 ? (uint8_t *)(d16 + i0) : d + i0);
                continue;
            }
            (c == 2 ? round_alpha_2 : round_alpha_4)(sums, m, out->depth,
                                                     out->depth == 16 ? (uint8_t *)(d16 + i0) : d + i0);
        }
        return;
    }
    int64_t *const sums = acc;
    down_wide(h, r0, ty, y, rowlen, sums);
    for (size_t p = 0; p < rowlen; p += (size_t)c) {
        const int64_t A = sums[p + (size_t)c - 1];
        for (int k = 0; k < c; k++) {
            const int64_t C = sums[p + (size_t)k];
            int64_t v = k == c - 1 || !has_alpha(c) ? sample(C, max) : A > 0 && C > 0 ? (2 * C + A) / (2 * A) : 0;
            v = v > max ? max : v;
            if (out->depth == 16)
                d16[p + (size_t)k] = (uint16_t)v;
            else
                d[p + (size_t)k] = (uint8_t)v;
        }
    }
}

int interp_run(const struct image *in, struct image *out, const struct itaps *tx, const struct itaps *ty)
{
    const int narrow = itaps_narrow(tx, in->c, in->depth);
    struct across across;
    if (across_make(&across, in, tx, narrow))
        return GPUIMG_ENOMEM;
    const size_t rowlen = (size_t)out->w * out->c, sum_bytes = narrow ? 4 : 8;
    const int blocks = (out->h + BLOCK - 1) / BLOCK;
    int failed = 0;
#pragma omp parallel
    {
        uint8_t *h = NULL;   /* the block's rows of sums, 32 or 64 bits each */
        int64_t *acc = narrow ? NULL : malloc(rowlen * sizeof *acc);   /* a row of 64-bit sums down */
        size_t cap = 0;
#pragma omp for schedule(dynamic, 1)
        for (int b = 0; b < blocks; b++) {
            const int y0 = b * BLOCK, y1 = y0 + BLOCK < out->h ? y0 + BLOCK : out->h;
            int r0 = in->h, r1 = 0;   /* the source rows the block's taps reach */
            for (int y = y0; y < y1; y++)
                for (int k = 0; k < ty->n; k++) {
                    const int r = ty->idx[(size_t)y * ty->n + k];
                    r0 = r < r0 ? r : r0;
                    r1 = r + 1 > r1 ? r + 1 : r1;
                }
            const size_t need = (size_t)(r1 - r0) * rowlen * sum_bytes;
            if (need > cap) {
                free(h);
                h = malloc(need);
                cap = h ? need : 0;
            }
            if (!h || (!narrow && !acc)) {
#pragma omp atomic write
                failed = 1;
                continue;
            }
            for (int r = r0; r < r1; r++)
                across_row(&across, in->data + (size_t)r * in->stride, tx, h + (size_t)(r - r0) * rowlen * sum_bytes);
            for (int y = y0; y < y1; y++)
                vertical(h, narrow, r0, ty, y, acc, out);
        }
        free(h);
        free(acc);
    }
    across_free(&across);
    return failed ? gpuimg_fail(GPUIMG_ENOMEM, "out of memory for the resize's rows") : GPUIMG_OK;
}
