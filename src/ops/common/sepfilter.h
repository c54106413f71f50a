/* gpuimg: the separable filter engine that resize (bilinear, area), blur and sharpen share.
 *
 * A filter is two tap tables, one per axis: for each output coordinate, n source indices and n
 * Q16 weights (integers summing to at most 65536). The 2D result is computed exactly in unsigned
 * integers and rounded once:  out = (sum_y wy * sum_x wx * in + 2^31) >> 32. Everything fits:
 * a 16-bit sample times one axis' weights is below 2^32, times both below 2^48.
 * With alpha (2 or 4 channels) colour is filtered premultiplied: A = sum w*a, C = sum w*c*a
 * (below (65535 * 65536)^2 < 2^64), alpha = (A + 2^31) >> 32 and colour = round(C / A) (0 where
 * A = 0), so transparent pixels lend no colour to their neighbours. The tables are built on the host with integer arithmetic only,
 * so a GPU kernel that reads the same tables computes the same bits. */
#ifndef GPUIMG_SEPFILTER_H
#define GPUIMG_SEPFILTER_H
#include <stdint.h>
#include "core/image.h"

#define TAP_BITS 16
#define TAP_ONE (1 << TAP_BITS)

struct taps {
    int n;          /* taps per output coordinate */
    int count;      /* output coordinates */
    int32_t *idx;   /* count * n source indices, each in [0, source size) */
    uint32_t *w;    /* count * n weights */
    /* Optional, for speed only: on outputs [lo, hi) the taps are uniform, idx = o - n/2 + k and
     * w = kern[k] (a blur away from the borders). kern NULL: no such range. */
    const uint32_t *kern;
    int lo, hi;
};

int taps_alloc(struct taps *t, int count, int n);
void taps_free(struct taps *t);
/* out must have in's channels and depth and the tables' sizes (tx->count x ty->count). */
int sepfilter_run(const struct image *in, struct image *out, const struct taps *tx, const struct taps *ty);
/* The same, then row(ctx, y) on each output row y as soon as it is written, by the thread that
 * wrote it (while it is in that core's cache): a step that finishes the filtered rows (sharpen).
 * row NULL: sepfilter_run. */
int sepfilter_run_rows(const struct image *in, struct image *out, const struct taps *tx, const struct taps *ty,
                       void (*row)(void *ctx, int y), void *ctx);

#endif
