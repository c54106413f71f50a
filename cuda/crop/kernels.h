/* gpuimg: crop's kernel launcher for gravity=entropy (cuda/crop/), in plain C for src/ops/crop.
 * Returns 0 or a CUDA error code with a one-line message in err (errlen bytes). */
#ifndef GPUIMG_CUDA_CROP_KERNELS_H
#define GPUIMG_CUDA_CROP_KERNELS_H
#include "cuda/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Each band's counts of its sample keys in two rectangles of in (r: x, y, w, h of the first, then
 * of the second), as src/ops/crop/smart.c counts them (a key: the sample, or with alpha the colour
 * premultiplied in float and truncated, trunc(v * (float)(a / top)), alpha its own band) into
 * hist[rect][band][key] (256 keys a band at 8 bits, 65536 at 16), through dhist (as many uint32 of
 * device memory). k->variant: KV_PERPIXEL (a thread a pixel) or any other (coalesced: GPU_PPT
 * pixels a thread along a row); 8 bits count in shared memory first. Synchronous. */
int gpu_crop_hist(const struct gpu_call *k, const struct gpu_image *in, const int r[8], uint32_t *dhist,
                  uint32_t *hist, char *err, size_t errlen);

/* gravity=attention: each of the 32 x 32 cells' sums of each colour band (premultiplied by alpha
 * with alpha, v * a), as src/ops/crop/smart.h's attn_span and smart_attention_sums_cpu define them,
 * into sums (32 * 32 * (c <= 2 ? 1 : 3) uint64, cell by cell) through dsums (as many on the
 * device). One block a cell, whatever the variant. Synchronous. */
int gpu_crop_cells(const struct gpu_image *in, uint64_t *dsums, uint64_t *sums, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
