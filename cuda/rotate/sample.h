/* gpuimg: rotate's arithmetic for an angle that is not a multiple of 90 degrees, one pixel at a
 * time, in plain C shared by the OpenMP loops (src/ops/rotate/rotate.c) and the kernels
 * (cuda/rotate/): integers only, so both give the same bits.
 *
 * Output pixel (i, j) samples source position (X, Y) / 2^33 (pixel centres at whole numbers):
 *   X = Cq (2i + 1 - W) + Sq (2j + 1 - H) + (w - 1) 2^32,  Y = -Sq (2i + 1 - W) + Cq (2j + 1 - H) + (h - 1) 2^32
 * with Cq, Sq = cos and sin of the angle rounded to 1/2^32 (struct gpu_rot holds them as the values
 * at (0, 0) and the steps per column and per row, so that walking a row adds exactly). Taps outside
 * the image read the background colour. Right shifts of negative numbers floor (arithmetic). */
#ifndef GPUIMG_CUDA_ROTATE_SAMPLE_H
#define GPUIMG_CUDA_ROTATE_SAMPLE_H
#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define ROT_FN static __device__ __forceinline__   /* the kernels; the host side is C */
#else
#define ROT_FN static inline
#endif

enum rot_interp { ROT_BILINEAR, ROT_BICUBIC, ROT_NEAREST };

#define ROT_WBITS 14   /* weights and the tap position's fraction: 1/16384 */

struct gpu_rot {
    int64_t x0, y0;      /* X, Y of output pixel (0, 0) */
    int64_t xdx, ydx;    /* added per output column: 2 Cq, -2 Sq */
    int64_t xdy, ydy;    /* added per output row: 2 Sq, 2 Cq */
    int interp;          /* enum rot_interp */
    uint32_t bg[4];      /* the background pixel's samples (straight colour, alpha last) */
    uint32_t fill[4];    /* the result where every tap is background (rot_fill) */
};

/* round(S / A), ties up, for 0 < S < top * A: floor((2S + A) / 2A). The kernels define it as
 * div_round (cuda/common.cuh), which gives the same integer without a 64-bit division. */
#ifndef ROT_DIV
#define ROT_DIV(S, A) ((uint32_t)((2 * (uint64_t)(S) + (uint64_t)(A)) / (2 * (uint64_t)(A))))
#endif

/* One axis' taps for the position P (units of 2^-33): the first tap's index and n weights summing
 * to 2^14. The position is rounded to 1/16384, q = (P + 2^18) >> 19, t = q & 16383 its fraction.
 * bilinear: taps q >> 14 and the next, weights 16384 - t, t. bicubic (Catmull-Rom, a = -0.5,
 * vips's bicubic): taps (q >> 14) - 1 .. + 2, with t2 = t^2, t3 = t^3 and
 * w0 = (-t3 + 2^15 t2 - 2^28 t + 2^28) >> 29, w1 = (3 t3 - 5 2^14 t2 + 2^43 + 2^28) >> 29,
 * w3 = (t3 - 2^14 t2 + 2^28) >> 29, w2 = 16384 - w0 - w1 - w3. Returns n. */
ROT_FN int rot_taps(int interp, int64_t P, int *first, int32_t *wt)
{
    const int64_t q = (P + ((int64_t)1 << 18)) >> 19;
    const int64_t t = q & ((1 << ROT_WBITS) - 1);
    if (interp == ROT_BILINEAR) {
        *first = (int)(q >> ROT_WBITS);
        wt[0] = (int32_t)((1 << ROT_WBITS) - t);
        wt[1] = (int32_t)t;
        return 2;
    }
    const int64_t t2 = t * t, t3 = t2 * t, half = (int64_t)1 << 28;
    *first = (int)(q >> ROT_WBITS) - 1;
    wt[0] = (int32_t)((-t3 + (t2 << 15) - (t << 28) + half) >> 29);
    wt[1] = (int32_t)((3 * t3 - 5 * (t2 << 14) + ((int64_t)1 << 43) + half) >> 29);
    wt[3] = (int32_t)((t3 - (t2 << 14) + half) >> 29);
    wt[2] = (1 << ROT_WBITS) - wt[0] - wt[1] - wt[3];
    return 4;
}

/* Sample k of pixel (x, y) of a w x h image of c samples of depth bits (rows stride bytes apart),
 * or the background's where (x, y) lies outside. */
ROT_FN uint32_t rot_src(const void *src, size_t stride, int w, int h, int depth, int c, const uint32_t *bg, int x,
                        int y, int k)
{
    if ((unsigned)x >= (unsigned)w || (unsigned)y >= (unsigned)h)
        return bg[k];
    const uint8_t *row = (const uint8_t *)src + (size_t)y * stride;
    return depth == 8 ? row[(size_t)x * c + k] : ((const uint16_t *)row)[(size_t)x * c + k];
}

ROT_FN void rot_store(void *dst, int depth, int c, const uint32_t *v)
{
    for (int k = 0; k < c; k++)
        if (depth == 8)
            ((uint8_t *)dst)[k] = (uint8_t)v[k];
        else
            ((uint16_t *)dst)[k] = (uint16_t)v[k];
}

/* The output pixel at source position (X, Y) into v (c samples); interp is r's (a constant where the
 * caller specialises on it). nearest: the pixel
 * ((X + 2^32) >> 33, (Y + 2^32) >> 33), the background outside. bilinear and bicubic:
 * S = sum_j wy_j sum_i wx_i p(i, j) exactly (64 bits), sample = clamp((S + 2^27) >> 28, 0, top);
 * with alpha (2 or 4 samples) the colours are summed premultiplied, p = colour * alpha, and
 * A = the alpha's S gives alpha = clamp((A + 2^27) >> 28, 0, top) and colour = 0 where A <= 0 or
 * C <= 0, top where C >= top A, else round(C / A) ties up. */
ROT_FN void rot_value(const struct gpu_rot *r, int interp, const void *src, size_t stride, int w, int h, int depth,
                      int c, int64_t X, int64_t Y, uint32_t *v)
{
    const uint32_t top = depth == 8 ? 255u : 65535u;
    if (interp == ROT_NEAREST) {
        const int x = (int)((X + ((int64_t)1 << 32)) >> 33), y = (int)((Y + ((int64_t)1 << 32)) >> 33);
        for (int k = 0; k < c; k++)
            v[k] = rot_src(src, stride, w, h, depth, c, r->bg, x, y, k);
        return;
    }
    int x0, y0;
    int32_t wx[4], wy[4];
    const int n = rot_taps(interp, X, &x0, wx);
    rot_taps(interp, Y, &y0, wy);
    if (x0 + n <= 0 || x0 >= w || y0 + n <= 0 || y0 >= h) {   /* every tap background */
        for (int k = 0; k < c; k++)
            v[k] = r->fill[k];
        return;
    }
    const int alpha = c == 2 || c == 4;
    /* every tap inside: read without the checks (the same samples) */
    const int inside = x0 >= 0 && x0 + n <= w && y0 >= 0 && y0 + n <= h;
    int64_t S[4] = { 0, 0, 0, 0 };
    for (int b = 0; b < n; b++) {
        int64_t row[4] = { 0, 0, 0, 0 };
        const uint8_t *line = (const uint8_t *)src + (size_t)(inside ? y0 + b : 0) * stride;
        for (int a = 0; a < n; a++) {
            uint32_t p[4];
            for (int k = 0; k < c; k++)
                p[k] = !inside ? rot_src(src, stride, w, h, depth, c, r->bg, x0 + a, y0 + b, k)
                     : depth == 8 ? line[(size_t)(x0 + a) * c + k] : ((const uint16_t *)line)[(size_t)(x0 + a) * c + k];
            if (alpha)
                for (int k = 0; k < c - 1; k++)
                    p[k] *= p[c - 1];
            for (int k = 0; k < c; k++)
                row[k] += (int64_t)wx[a] * p[k];
        }
        for (int k = 0; k < c; k++)
            S[k] += (int64_t)wy[b] * row[k];
    }
    const int64_t half = (int64_t)1 << 27;
    for (int k = alpha ? c - 1 : 0; k < c; k++) {
        const int64_t s = (S[k] + half) >> 28;
        v[k] = s < 0 ? 0 : s > (int64_t)top ? top : (uint32_t)s;
    }
    if (alpha) {
        const int64_t A = S[c - 1];
        for (int k = 0; k < c - 1; k++) {
            const int64_t C = S[k];
            v[k] = A <= 0 || C <= 0 ? 0 : C >= (int64_t)top * A ? top : ROT_DIV(C, A);
        }
    }
}

/* What rot_value gives where every tap is background (the weights sum to 2^28, so S = 2^28 bg):
 * the background, its colour 0 where its alpha is 0 (nearest: the background as it is). */
ROT_FN void rot_fill(struct gpu_rot *r, int c)
{
    const int alpha = c == 2 || c == 4;
    for (int k = 0; k < c; k++)
        r->fill[k] = r->bg[k];
    if (alpha && r->interp != ROT_NEAREST && r->bg[c - 1] == 0)
        for (int k = 0; k < c - 1; k++)
            r->fill[k] = 0;
}

#endif
