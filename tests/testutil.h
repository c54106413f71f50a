/* gpuimg tests: shared helpers for the C test programs: deterministic synthetic images, running
 * a pipeline through the CPU backend, and comparing images with a tolerance. */
#ifndef GPUIMG_TESTUTIL_H
#define GPUIMG_TESTUTIL_H
#include <stdint.h>
#include "core/image.h"

/* A smooth pattern with noise, every sample written (seeded, reproducible). */
int test_make_image(struct image *im, const struct geom *g, uint32_t seed);
/* Run the pipeline text on a copy of in with the CPU backend; prints the error and returns
 * nonzero on failure. */
int test_run_pipeline(const char *pipeline, const struct image *in, struct image *out);
/* Largest absolute sample difference, or -1 if the geometries differ. For gray+alpha and RGBA,
 * colour differences count premultiplied by b's alpha (rounded up): the error a viewer sees; an
 * almost transparent pixel's colour is the ratio of two tiny sums and carries no weight. */
long test_max_diff(const struct image *a, const struct image *b, long *count_over, long tol);
int test_copy(struct image *dst, const struct image *src);
/* Sample i (in samples from the start) of an 8- or 16-bit image. */
long test_sample(const struct image *im, size_t i);
int test_equal(const struct image *a, const struct image *b);
/* "on" or "off": whether the hand-written SIMD paths run (GPUIMG_NO_SIMD=1 turns them off). */
const char *test_simd_state(void);

#endif
