/* gpuimg: crop's gravity=entropy (smart.c): where vips_smartcrop (8.14) with interesting=entropy
 * puts a w x h rectangle, found by histograms of slices of the image, which the CPU (smart.c) and
 * the GPU (cuda/crop/) count in the same integers; the choice between two slices is made here, on
 * the host, for both. */
#ifndef GPUIMG_OPS_CROP_SMART_H
#define GPUIMG_OPS_CROP_SMART_H
#include <stdint.h>
#include "core/image.h"

/* Counts of each band's values (the sample keys below) in two rectangles: hist[r][band][key],
 * SMART_BINS(depth) keys a band. Returns a gpuimg_status. */
#define SMART_BINS(depth) ((depth) == 16 ? 65536 : 256)
typedef int (*smart_hist_fn)(void *ctx, const struct rect r[2], uint32_t *hist);
/* The corner of the w x h rectangle in the W x H image of c channels at depth: vips's loop,
 * each step cutting the lower-entropy of two end slices off an axis (at most 8 steps an axis). */
int smart_entropy(int W, int H, int c, int depth, int w, int h, smart_hist_fn hist, void *ctx, int *left, int *top);
/* The CPU's counts (ctx: the const struct image). */
int smart_hist_cpu(void *ctx, const struct rect r[2], uint32_t *hist);

/* gravity=attention (attention.c). The image is cut into ATTN_N x ATTN_N cells, cell i of an axis
 * of n pixels spanning [i n / ATTN_N, max((i + 1) n / ATTN_N, i n / ATTN_N + 1)) (integer
 * division: a partition when n >= ATTN_N, the nearest pixel when smaller). A cell's sums
 * (ATTN_SUMS(c) a cell, row by row): each colour band's samples, premultiplied by alpha with alpha
 * (v * a, not divided), in uint64; grey has one colour band. The CPU (attention.c) and the GPU
 * (cuda/crop/cells.cu) compute the same integers, and the place is scored from them on the host. */
#define ATTN_N 32
#define ATTN_SUMS(c) ((c) <= 2 ? 1 : 3)
static inline void attn_span(int n, int i, int *a, int *b)
{
    *a = (int)((int64_t)i * n / ATTN_N);
    *b = (int)((int64_t)(i + 1) * n / ATTN_N);
    if (*b <= *a)
        *b = *a + 1;
}
/* The CPU's sums (ATTN_N * ATTN_N * ATTN_SUMS(in->c) of them). */
void smart_attention_sums_cpu(const struct image *in, uint64_t *sums);
/* The corner of the w x h rectangle in the W x H image from its cells' sums (the definition in
 * crop.c's description). */
void smart_attention_place(int W, int H, int c, int depth, int w, int h, const uint64_t *sums, int *left, int *top);

#endif
