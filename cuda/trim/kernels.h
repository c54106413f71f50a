/* gpuimg: trim's kernel launcher (cuda/trim/), in plain C for src/ops/trim. Returns 0 or a CUDA
 * error code with a one-line message in err (errlen bytes). */
#ifndef GPUIMG_CUDA_TRIM_KERNELS_H
#define GPUIMG_CUDA_TRIM_KERNELS_H
#include "cuda/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The bounding box of in's pixels that are not background, by trim's rule (src/ops/trim): the
 * median of the 3x3 neighbourhood (edges copied) of the colour samples, flattened onto the
 * background where there is alpha ((v a + b (top - a)) / top, truncated), more than thr from
 * bg[k] in some band. bg: the background's colour samples where bg_given, else the kernel takes
 * pixel (0, 0)'s. dbox: 4 ints of device memory the reduction uses; box: min x, max x, min y,
 * max y on return (min above max where every pixel is background). k->variant: KV_PERPIXEL (a
 * thread a pixel, 2D blocks) or KV_COALESCED (GPU_PPT pixels a thread along a row); each block
 * reduces its pixels to one box in shared memory, then four atomics. Synchronous (the box comes
 * back). */
int gpu_trim_box(const struct gpu_call *k, const struct gpu_image *in, int bg_given, const uint32_t bg[3], uint32_t thr,
                 int *dbox, int box[4], char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
