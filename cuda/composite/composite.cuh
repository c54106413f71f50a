/* gpuimg: what composite's kernel families share: one pixel by the rule of kernels.h, and the
 * launch of each family (perpixel.cu holds gpu_composite, which picks one). */
#ifndef GPUIMG_CUDA_COMPOSITE_CUH
#define GPUIMG_CUDA_COMPOSITE_CUH
#include "cuda/common.cuh"
#include "cuda/composite/kernels.h"

/* The overlay's placing: its size and corner in the image, and the blend. */
struct composite_place {
    int ow, oh, x, y;
    uint32_t o;
    int mode;
};

/* Pixel (x, y) of the image: b the image's pixel, s the overlay's (C colours less alpha, plus
 * alpha), d the result's. */
template <typename T, int C>
__device__ __forceinline__ void composite_one(const T *b, const T *s, T *d, uint32_t o, int mode)
{
    constexpr int A = C == 2 || C == 4, CC = C - A;
    const uint32_t as = composite_alpha(s[CC], o);
    if (!as) {
#pragma unroll
        for (int k = 0; k < C; k++)
            d[k] = b[k];
        return;
    }
    T da;
    if (sizeof(T) == 1)
        composite_px8((const uint8_t *)s, as, (const uint8_t *)b, A ? b[CC] : 255u, CC, mode, (uint8_t *)d,
                      (uint8_t *)&da);
    else
        composite_px16((const uint16_t *)s, as, (const uint16_t *)b, A ? b[CC] : 65535u, CC, mode, (uint16_t *)d,
                       (uint16_t *)&da);
    if (A)
        d[CC] = da;
}

int composite_coalesced(const gpu_call *k, const gpu_image *in, const gpu_image *out, const void *ov,
                        const composite_place &p, int x0, int y0, int x1, int y1, char *err, size_t errlen);

#endif
