/* gpuimg: the sepfilter kernels' launchers (cuda/sepfilter/), in plain C for src/ops. Each that can fail
 * returns 0 or a CUDA error code with a one-line message in err (errlen bytes). */
#ifndef GPUIMG_CUDA_SEPFILTER_KERNELS_H
#define GPUIMG_CUDA_SEPFILTER_KERNELS_H
#include "cuda/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the separable engine of src/ops/sepfilter.h, evaluated directly per output pixel
 * (perpixel, coalesced; vector: bilinear 8-bit with alpha only): Q16 tap tables (nx and ny taps
 * per output coordinate). */
int gpu_bilerp_applies(int c, int depth, int iw, int ih);   /* vector's layouts and sizes (bilinear) */
int gpu_sepfilter(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out, const int32_t *xi,
                  const uint32_t *xw, int nx, const int32_t *yi, const uint32_t *yw, int ny, char *err,
                  size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
