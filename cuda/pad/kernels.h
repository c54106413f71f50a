/* gpuimg: the pad kernels' launchers (cuda/pad/), in plain C for src/ops. Each returns 0 or a
 * CUDA error code with a one-line message in err (errlen bytes). */
#ifndef GPUIMG_CUDA_PAD_KERNELS_H
#define GPUIMG_CUDA_PAD_KERNELS_H
#include "cuda/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out(x, y) = in(x - X, y - Y) where that lies in in, else the pixel fill (its bytes as in the
 * image, bpp of them; uniform: all one value). perpixel and coalesced: one kernel; vector: the
 * copy engine (the image's rows copied, the four margins set) where the fill is uniform, else the
 * coalesced kernel. */
int gpu_pad(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out, int x, int y,
            const unsigned char *fill, int uniform, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
