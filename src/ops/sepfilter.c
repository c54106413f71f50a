/* gpuimg: separable filtering on the CPU with OpenMP (see sepfilter.h). Each thread owns one
 * row buffer: for every output row the vertical taps are summed into it exactly (uint32 without
 * alpha, uint64 with), then the horizontal taps produce the output row. */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include "error.h"
#include "sepfilter.h"

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

void taps_quantize(const double *wd, uint32_t *wq, int n)
{
    uint32_t sum = 0;
    int big = 0;
    for (int i = 0; i < n; i++) {
        wq[i] = (uint32_t)(wd[i] * TAP_ONE + 0.5);
        sum += wq[i];
        if (wq[i] > wq[big])
            big = i;
    }
    wq[big] += TAP_ONE - sum;
}

#define ROUND_SHIFT (2 * TAP_BITS)
#define ROUND_HALF ((uint64_t)1 << (ROUND_SHIFT - 1))

/* Without alpha: uint32 row buffer (at most 65535 * 65536 < 2^32), uint64 horizontal sums. */
#define DEFINE_PLAIN(T, SUF)                                                                          \
    static void plain_##SUF(const struct image *in, struct image *out, const struct taps *tx,         \
                            const struct taps *ty, uint32_t *vrow, int y)                             \
    {                                                                                                 \
        const int c = in->c, rowlen = in->w * c, nx = tx->n, ny = ty->n;                              \
        const int32_t *yi = ty->idx + (size_t)y * ny;                                                 \
        const uint32_t *yw = ty->w + (size_t)y * ny;                                                  \
        memset(vrow, 0, (size_t)rowlen * sizeof *vrow);                                               \
        for (int k = 0; k < ny; k++) {                                                                \
            const uint32_t wk = yw[k];                                                                \
            if (!wk)                                                                                  \
                continue;                                                                             \
            const T *src = (const T *)(in->data + (size_t)yi[k] * in->stride);                        \
            for (int i = 0; i < rowlen; i++)                                                          \
                vrow[i] += wk * (uint32_t)src[i];                                                     \
        }                                                                                             \
        T *dst = (T *)(out->data + (size_t)y * out->stride);                                          \
        for (int x = 0; x < out->w; x++) {                                                            \
            const int32_t *xi = tx->idx + (size_t)x * nx;                                             \
            const uint32_t *xw = tx->w + (size_t)x * nx;                                              \
            for (int ch = 0; ch < c; ch++) {                                                          \
                uint64_t acc = 0;                                                                     \
                for (int k = 0; k < nx; k++)                                                          \
                    acc += (uint64_t)xw[k] * vrow[xi[k] * c + ch];                                    \
                dst[x * c + ch] = (T)((acc + ROUND_HALF) >> ROUND_SHIFT);                             \
            }                                                                                         \
        }                                                                                             \
    }

/* With alpha (last channel): colour premultiplied, uint64 throughout (16-bit: c*a < 2^32, times
 * two Q16 weights summing to 65536 each: < 2^64). round(C / A) via quotient and remainder, since
 * 2C could overflow. */
#define DEFINE_ALPHA(T, SUF)                                                                          \
    static void alpha_##SUF(const struct image *in, struct image *out, const struct taps *tx,         \
                            const struct taps *ty, uint64_t *vrow, int y)                             \
    {                                                                                                 \
        const int c = in->c, ac = c - 1, nx = tx->n, ny = ty->n;                                      \
        const int32_t *yi = ty->idx + (size_t)y * ny;                                                 \
        const uint32_t *yw = ty->w + (size_t)y * ny;                                                  \
        memset(vrow, 0, (size_t)in->w * c * sizeof *vrow);                                            \
        for (int k = 0; k < ny; k++) {                                                                \
            const uint64_t wk = yw[k];                                                                \
            if (!wk)                                                                                  \
                continue;                                                                             \
            const T *src = (const T *)(in->data + (size_t)yi[k] * in->stride);                        \
            for (int x = 0; x < in->w; x++) {                                                         \
                const uint64_t a = src[x * c + ac];                                                   \
                for (int ch = 0; ch < ac; ch++)                                                       \
                    vrow[x * c + ch] += wk * (src[x * c + ch] * a);                                   \
                vrow[x * c + ac] += wk * a;                                                           \
            }                                                                                         \
        }                                                                                             \
        T *dst = (T *)(out->data + (size_t)y * out->stride);                                          \
        for (int x = 0; x < out->w; x++) {                                                            \
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

DEFINE_PLAIN(uint8_t, u8)
DEFINE_PLAIN(uint16_t, u16)
DEFINE_ALPHA(uint8_t, u8)
DEFINE_ALPHA(uint16_t, u16)

int sepfilter_run(const struct image *in, struct image *out, const struct taps *tx, const struct taps *ty)
{
    const int alpha = has_alpha(in->c), wide = in->depth == 16;
    const size_t elem = alpha ? sizeof(uint64_t) : sizeof(uint32_t);
    int failed = 0;
#pragma omp parallel
    {
        void *vrow = malloc((size_t)in->w * in->c * elem);
        if (!vrow) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(static)
        for (int y = 0; y < out->h; y++) {
            if (!vrow)
                continue;
            if (alpha)
                (wide ? alpha_u16 : alpha_u8)(in, out, tx, ty, vrow, y);
            else
                (wide ? plain_u16 : plain_u8)(in, out, tx, ty, vrow, y);
        }
        free(vrow);
    }
    return failed ? gpuimg_fail(GPUIMG_ENOMEM, "out of memory for filter row buffers") : GPUIMG_OK;
}
