/* gpuimg: rotate's launchers for angles that are not a multiple of 90 degrees (cuda/rotate/), in
 * plain C for src/ops/rotate. The multiples of 90 run the shared remaps (cuda/remap/). Returns 0
 * or a CUDA error code with a one-line message in err (errlen bytes). */
#ifndef GPUIMG_CUDA_ROTATE_KERNELS_H
#define GPUIMG_CUDA_ROTATE_KERNELS_H
#include "cuda/gpu.h"
#include "cuda/rotate/sample.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out from in by r (sample.h); family KV_PERPIXEL (perpixel.cu) or KV_COALESCED (coalesced.cu),
 * k's shape as those variants take it. */
int gpu_rotate_perpixel(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out,
                        const struct gpu_rot *r, char *err, size_t errlen);
int gpu_rotate_coalesced(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out,
                         const struct gpu_rot *r, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
