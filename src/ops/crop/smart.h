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

#endif
