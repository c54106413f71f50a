/* gpuimg: the blur kernels' launchers (cuda/blur/), in plain C for src/ops. Each that can fail
 * returns 0 or a CUDA error code with a one-line message in err (errlen bytes). */
#ifndef GPUIMG_CUDA_BLUR_KERNELS_H
#define GPUIMG_CUDA_BLUR_KERNELS_H
#include "cuda/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* a symmetric kernel (ksize Q16 weights) in two passes through scratch (gpu_blur_scratch
 * bytes: w*c columns of h rounded up to 32 words of 4 bytes, 8 for 16-bit with alpha); bx, by map
 * source positions -r..n+r-1 (offset by r) to a source index or -1 for the constant border. */
size_t gpu_blur_scratch(int w, int h, int c, int depth);
int gpu_blur_separable(const struct gpu_image *in, const struct gpu_image *out, const uint32_t *kern, int ksize,
                       const int32_t *bx, const int32_t *by, void *scratch, char *err, size_t errlen);
/* one pass over shared-memory tiles with their halo, for every layout with kernels of up
 * to 21 to 33 taps by layout (gpu_blur_tiled_scratchless); larger kernels go through
 * gpu_blur_separable (same bits), which is why it takes the same scratch. */
int gpu_blur_tiled(const struct gpu_image *in, const struct gpu_image *out, const uint32_t *kern, int ksize,
                   const int32_t *bx, const int32_t *by, void *scratch, const char **ran, char *err, size_t errlen);
int gpu_blur_onepass_applies(int c, int depth, int ksize);   /* also: takes transposed outputs */
int gpu_blur_tiled_scratchless(int c, int depth, int ksize);   /* whether gpu_blur_tiled runs in one pass */
/* the tensor-core kernel for 8-bit images (with alpha premultiplied) and kernels of up to
 * 177 taps (RGB past 81 as three grey planes through scratch; grey+alpha and RGBA up to 49)
 * whose Q8 weights are all below 256 (the flag says whether they are), where its shared memory fits
 * the GPU; gpu_blur_tensor_applies: 0 where it does not take the blur, 1 where it does, 2 where it
 * does only given the scratch (gpu_blur_scratch). Anything else goes through gpu_blur_tiled (same
 * bits). gpu_blur_tensor_transposes: whether it takes a transposed output (where it takes the blur
 * itself, 1, else where the one-pass kernel does). Both set *ran to the kernel that ran when it is
 * another: "tensor-planes" (RGB as three grey planes), "tiled" (one pass), "separable" (two
 * passes). */
int gpu_blur_tensor_applies(int c, int depth, int ksize, int weights_below_256, int w, int h);
int gpu_blur_tensor_transposes(int c, int depth, int ksize, int weights_below_256, int w, int h);
int gpu_blur_tensor(const struct gpu_image *in, const struct gpu_image *out, const uint32_t *kern, int ksize,
                    int weights_below_256, const int32_t *bx, const int32_t *by, void *scratch, const char **ran,
                    char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
