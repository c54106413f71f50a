/* gpuimg: crop's gravity=entropy (smart.h). A sample's key is its value; with alpha, colour is
 * first premultiplied as vips_premultiply does it in float, trunc(v * (float)(a / top)) (the cast
 * vips_hist_find makes), and alpha is its own band. A slice's entropy over all its bands together
 * is -sum(p log2 p), p = n / (N B) for the N B samples; two slices of the same size compare as
 * sum(n log2 n) the other way, computed here in double from the integer counts, so that the CPU and
 * the GPU choose alike. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "core/error.h"
#include "ops/crop/smart.h"

static double nlogn(const uint32_t *h, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        if (h[i] > 1)
            s += (double)h[i] * log2((double)h[i]);
    return s;
}

/* 1 where the first of the two rectangles has the lower entropy (vips: its score is less). */
static int first_lower(int c, int depth, smart_hist_fn hist, void *ctx, const struct rect r[2], uint32_t *buf, int *st)
{
    const size_t n = (size_t)c * SMART_BINS(depth);
    memset(buf, 0, 2 * n * sizeof *buf);
    if ((*st = hist(ctx, r, buf)))
        return 0;
    return nlogn(buf, n) > nlogn(buf + n, n);
}

int smart_entropy(int W, int H, int c, int depth, int w, int h, smart_hist_fn hist, void *ctx, int *left, int *top)
{
    uint32_t *buf = malloc(2 * (size_t)c * SMART_BINS(depth) * sizeof *buf);
    if (!buf)
        return gpuimg_fail(GPUIMG_ENOMEM, "crop: out of memory for histograms");
    int st = GPUIMG_OK, width = W, height = H;
    const int max_slice = (int)fmax(ceil((W - w) / 8.0), ceil((H - h) / 8.0));
    *left = *top = 0;
    while (!st && (width > w || height > h)) {
        const int sw = width - w < max_slice ? width - w : max_slice;
        const int sh = height - h < max_slice ? height - h : max_slice;
        if (sw > 0) {
            const struct rect r[2] = { { *left, *top, sw, height }, { *left + width - sw, *top, sw, height } };
            const int lower = first_lower(c, depth, hist, ctx, r, buf, &st);
            width -= sw;
            if (lower)
                *left += sw;
        }
        if (sh > 0 && !st) {
            const struct rect r[2] = { { *left, *top, width, sh }, { *left, *top + height - sh, width, sh } };
            const int lower = first_lower(c, depth, hist, ctx, r, buf, &st);
            height -= sh;
            if (lower)
                *top += sh;
        }
    }
    free(buf);
    return st;
}

/* vips_premultiply's float and vips_cast's truncation, in the same IEEE operations the GPU does */
static inline uint32_t premul_key(uint32_t v, uint32_t a, double top)
{
    const float na = (float)((double)a / top);
    return (uint32_t)((float)v * na);
}

int smart_hist_cpu(void *ctx, const struct rect r[2], uint32_t *hist)
{
    const struct image *in = ctx;
    const int c = in->c, alpha = has_alpha(c), bins = SMART_BINS(in->depth);
    const double top = in->depth == 16 ? 65535.0 : 255.0;
    const size_t n = (size_t)c * bins;
#ifdef _OPENMP
    const int nt = omp_get_max_threads();
#else
    const int nt = 1;
#endif
    uint32_t *all = calloc((size_t)nt * n, sizeof *all);   /* a histogram a thread, added after */
    if (!all)
        return gpuimg_fail(GPUIMG_ENOMEM, "crop: out of memory for histograms");
    for (int k = 0; k < 2; k++) {
        const struct rect *q = &r[k];
        memset(all, 0, (size_t)nt * n * sizeof *all);
#pragma omp parallel num_threads(nt)
        {
#ifdef _OPENMP
            uint32_t *own = all + (size_t)omp_get_thread_num() * n;
#else
            uint32_t *own = all;
#endif
#pragma omp for schedule(static)
            for (int y = q->y; y < q->y + q->h; y++)
                for (int x = q->x; x < q->x + q->w; x++) {
                    const size_t i = ((size_t)y * in->w + x) * c;
                    uint32_t s[4];
                    for (int b = 0; b < c; b++)
                        s[b] = in->depth == 16 ? ((const uint16_t *)in->data)[i + b] : in->data[i + b];
                    for (int b = 0; b < c; b++)
                        own[(size_t)b * bins + (alpha && b < c - 1 ? premul_key(s[b], s[c - 1], top) : s[b])]++;
                }
        }
        uint32_t *out = hist + k * n;
        for (int t = 0; t < nt; t++)
            for (size_t i = 0; i < n; i++)
                out[i] += all[(size_t)t * n + i];
    }
    free(all);
    return GPUIMG_OK;
}
