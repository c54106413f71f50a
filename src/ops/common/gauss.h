/* gpuimg: the gaussian that blur defines and sharpen reuses. A separable kernel of
 * round(6 sigma + 1) | 1 taps for 8 bits and round(8 sigma + 1) | 1 for 16 (OpenCV's choice), with
 * OpenCV's fixed-point weights (Q8 for 8 bits, Q16 for 16, both given as Q16 for the separable
 * engine), on one of three borders; the tap tables the engine reads, and the halo a tile needs. */
#ifndef GPUIMG_OPS_GAUSS_H
#define GPUIMG_OPS_GAUSS_H
#include <stdint.h>
#include "core/image.h"
#include "ops/common/sepfilter.h"

/* reflect101: dcb|abcd|cba, folded again for kernels wider than the image; replicate: the edge
 * repeated; constant: 0 */
enum { GAUSS_REFLECT101, GAUSS_REPLICATE, GAUSS_CONSTANT };

int gauss_ksize(double sigma, int depth);
/* The kernel for sigma at depth: *ksize Q16 weights (the caller frees them), or NULL with the
 * failure recorded. */
uint32_t *gauss_kernel(double sigma, int depth, int *ksize);
/* Source index of position p (any integer) in n under border mode, or -1 for "outside, 0". */
int gauss_border_index(int p, int n, int mode);

/* The kernel and both axes' tap tables for a w x h image (the engine's input and output). */
struct gauss {
    int ksize;
    uint32_t *kern;
    struct taps tx, ty;
};
int gauss_make(struct gauss *g, double sigma, int depth, int mode, int w, int h);
void gauss_free(struct gauss *g);

/* op_desc.region for a gaussian of sigma: the wanted rectangle grown by the kernel's radius,
 * clipped to the image (where it is clipped the tile's edge is the image's, so the border rule
 * gives what it gives without tiles); it yields all of it. */
void gauss_region(double sigma, const struct geom *in, const struct rect *want, struct rect *need,
                  struct rect *yields);

#endif
