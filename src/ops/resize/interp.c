/* gpuimg: resize's cubic and lanczos3 filters on the CPU (interp.h). Each thread takes blocks of
 * output rows: the source rows they need are filtered horizontally once into the thread's
 * buffer (32-bit sums where itaps_narrow allows), then each output row sums its taps down those. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/hot.h"
#include "ops/resize/interp.h"

#define ONE (1 << ITAP_BITS)
#define BLOCK 32   /* output rows a block */

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

/* Source row r filtered across into hr (tx->count pixels): each sample's sum of w times the
 * sample, colour times its alpha where there is alpha, in H (32 bits where itaps_narrow says they
 * fit, else 64). One function per depth, channel count and H, so that the channel loops unroll. */
#define DEFINE_HORIZONTAL(T, C, H)                                                                   \
    HOT static void horizontal_##T##_##C##_##H(const uint8_t *row, const struct itaps *tx, void *out) \
    {                                                                                              \
        const T *s = (const T *)row;                                                               \
        H *hr = out;                                                                               \
        for (int x = 0; x < tx->count; x++) {                                                      \
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

typedef void (*horizontal_fn)(const uint8_t *, const struct itaps *, void *);
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
HOT static void down_narrow(const void *h, int r0, const struct itaps *ty, int y, size_t rowlen, double *restrict acc)
{
    const int32_t *ii = ty->idx + (size_t)y * ty->n;
    const int16_t *wi = ty->w + (size_t)y * ty->n;
    memset(acc, 0, rowlen * sizeof *acc);
    for (int k = 0; k < ty->n; k++) {
        const double w = wi[k];
        const int32_t *restrict hr = (const int32_t *)h + (size_t)(ii[k] - r0) * rowlen;
        for (size_t i = 0; i < rowlen; i++)
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

/* One output row: the sums down (acc: rowlen doubles or 64-bit integers, as narrow says),
 * rounded once; with alpha, colour = round(C / A). */
static void vertical(const void *h, int narrow, int r0, const struct itaps *ty, int y, void *acc, struct image *out)
{
    const int c = out->c;
    const size_t rowlen = (size_t)out->w * c;
    const int64_t max = out->depth == 16 ? 65535 : 255;
    int64_t *sums = acc;
    if (narrow) {   /* the doubles made integers again, in place */
        double *dv = acc;
        down_narrow(h, r0, ty, y, rowlen, dv);
        for (size_t i = 0; i < rowlen; i++)
            sums[i] = (int64_t)dv[i];
    } else {
        down_wide(h, r0, ty, y, rowlen, sums);
    }
    uint8_t *d = out->data + (size_t)y * out->stride;
    uint16_t *d16 = (uint16_t *)d;
    if (!has_alpha(c)) {
        for (size_t i = 0; i < rowlen; i++) {
            const int64_t v = sample(sums[i], max);
            if (out->depth == 16)
                d16[i] = (uint16_t)v;
            else
                d[i] = (uint8_t)v;
        }
        return;
    }
    for (size_t p = 0; p < rowlen; p += (size_t)c) {
        const int64_t A = sums[p + (size_t)c - 1];
        for (int k = 0; k < c; k++) {
            const int64_t C = sums[p + (size_t)k];
            int64_t v = k == c - 1 ? sample(A, max) : A > 0 && C > 0 ? (2 * C + A) / (2 * A) : 0;
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
    const horizontal_fn across = horizontal_for(in, narrow);
    const size_t rowlen = (size_t)out->w * out->c, sum_bytes = narrow ? 4 : 8;
    const int blocks = (out->h + BLOCK - 1) / BLOCK;
    int failed = 0;
#pragma omp parallel
    {
        uint8_t *h = NULL;   /* the block's rows of sums, 32 or 64 bits each */
        void *acc = malloc(rowlen * 8);   /* a row of sums down: doubles or 64-bit integers */
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
            if (!h || !acc) {
#pragma omp atomic write
                failed = 1;
                continue;
            }
            for (int r = r0; r < r1; r++)
                across(in->data + (size_t)r * in->stride, tx, h + (size_t)(r - r0) * rowlen * sum_bytes);
            for (int y = y0; y < y1; y++)
                vertical(h, narrow, r0, ty, y, acc, out);
        }
        free(h);
        free(acc);
    }
    return failed ? gpuimg_fail(GPUIMG_ENOMEM, "out of memory for the resize's rows") : GPUIMG_OK;
}
