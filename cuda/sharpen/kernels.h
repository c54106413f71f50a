/* gpuimg: the sharpen kernels' launchers (cuda/sharpen/), in plain C for src/ops. Each that can fail
 * returns 0 or a CUDA error code with a one-line message in err (errlen bytes). */
#ifndef GPUIMG_CUDA_SHARPEN_KERNELS_H
#define GPUIMG_CUDA_SHARPEN_KERNELS_H
#include "cuda/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The unsharp mask's last step: out from in and blur (a packed device image of in's geometry),
 * each colour sample v, b its blur, d = v - b: v where |d| <= thr, else floor(v + amount * d + 0.5)
 * in double, each step rounded, clamped to 0..top; alpha copied from in. perpixel or coalesced
 * (k->variant), in k's launch shape. */
int gpu_sharpen_combine(const struct gpu_call *k, const struct gpu_image *in, const void *blur,
                        const struct gpu_image *out, double amount, int32_t thr, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
