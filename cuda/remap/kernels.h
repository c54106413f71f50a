/* gpuimg: the remap kernels' launchers (cuda/remap/), in plain C for src/ops. Each that can fail
 * returns 0 or a CUDA error code with a one-line message in err (errlen bytes). */
#ifndef GPUIMG_CUDA_REMAP_KERNELS_H
#define GPUIMG_CUDA_REMAP_KERNELS_H
#include "cuda/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out(x, y) = in(ax x + bx y + cx, ay x + by y + cy), coefficients in pixels. */
struct gpu_map { int ax, bx, cx, ay, by, cy; };
int gpu_remap(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out, const struct gpu_map *m,
              char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
