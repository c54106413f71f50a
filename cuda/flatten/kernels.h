/* gpuimg: the flatten kernels' launchers (cuda/flatten/), in plain C for src/ops. Each returns 0
 * or a CUDA error code with a one-line message in err (errlen bytes). */
#ifndef GPUIMG_CUDA_FLATTEN_KERNELS_H
#define GPUIMG_CUDA_FLATTEN_KERNELS_H
#include "cuda/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* in grey+alpha or RGBA, out grey or RGB: each colour sample v of alpha a over the background
 * sample b[k] (at the image's depth), (v a + b (top - a) + top / 2) / top, alpha dropped. */
int gpu_flatten(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out, const uint32_t b[3],
                char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
