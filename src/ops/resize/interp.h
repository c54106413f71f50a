/* gpuimg: resize's wide filters, cubic and lanczos3 (interp.c): signed Q14 tap tables built on the
 * host, and the OpenMP two-pass filter over them. The GPU's kernels (cuda/resize/interp.cu) read
 * the same tables and compute the same integers. */
#ifndef GPUIMG_RESIZE_INTERP_H
#define GPUIMG_RESIZE_INTERP_H
#include <stdint.h>
#include "core/image.h"

#define ITAP_BITS 14

enum interp_kind { INTERP_CUBIC, INTERP_LANCZOS3 };

struct itaps {
    int n;          /* taps per output coordinate */
    int count;      /* output coordinates */
    int32_t *idx;   /* count * n source indices, clamped into [0, source size) */
    int16_t *w;     /* count * n weights, summing to 1 << ITAP_BITS for each output */
};

/* Output coordinate o samples source position (o + 0.5) * in / out - 0.5; each source pixel i
 * weighs K((i - centre) / s) with s = max(in / out, 1) (the kernel widened when shrinking, so
 * that it averages), normalised to sum 1 and rounded to 1/16384 (the rounding's remainder to the
 * largest weight); indices past an edge take the edge pixel. K: cubic, Keys' with a = -0.75
 * (OpenCV's INTER_CUBIC); lanczos3, sinc(x) sinc(x / 3) for |x| < 3. */
int itaps_make(enum interp_kind k, int in, int out, struct itaps *t);
void itaps_free(struct itaps *t);
/* 1 when the pass across's sums for c channels of depth bits fit 32 bits: the largest sample
 * (colour times alpha where there is alpha) times tx's largest sum of |w|; else 0 (64 bits). The
 * sums are the same integers either way; the CPU and the GPU store them this wide. */
int itaps_narrow(const struct itaps *tx, int c, int depth);
/* The most source indices that tiles of th consecutive outputs reach (first to last, the
 * tables' indices never decreasing), tiles starting at multiples of th. */
int itaps_span(const struct itaps *t, int th);
/* out (tx->count x ty->count, in's layout) from in, exactly in integers and rounded once.
 * Rows: h = sum wx * in, then out = clamp((sum wy * h + 2^27) >> 28, 0, max). With alpha the
 * colour is filtered premultiplied: A = sum wy sum wx a, C = sum wy sum wx c a; alpha from A as
 * above, colour round(C / A) clamped (0 where A <= 0), so transparent pixels lend no colour. */
int interp_run(const struct image *in, struct image *out, const struct itaps *tx, const struct itaps *ty);

#endif
