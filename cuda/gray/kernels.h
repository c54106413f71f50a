/* gpuimg: the gray kernels' launchers (cuda/gray/), in plain C for src/ops. Each that can fail
 * returns 0 or a CUDA error code with a one-line message in err (errlen bytes). */
#ifndef GPUIMG_CUDA_GRAY_KERNELS_H
#define GPUIMG_CUDA_GRAY_KERNELS_H
#include "cuda/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Y = (w[0] R + w[1] G + w[2] B + 16384) >> 15; in has 3 or 4 channels. */
int gpu_gray(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out, const uint32_t w[3], char *err,
             size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
