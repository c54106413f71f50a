/* gpuimg: composite's per-pixel rule, one definition for src/ops/composite (the CPU) and the
 * kernels (cuda/composite/), and its kernels' launchers, in plain C. Each launcher returns 0 or
 * a CUDA error code with a one-line message in err (errlen bytes). */
#ifndef GPUIMG_CUDA_COMPOSITE_KERNELS_H
#define GPUIMG_CUDA_COMPOSITE_KERNELS_H
#include <stdint.h>
#include "cuda/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { COMPOSITE_OVER, COMPOSITE_MULTIPLY, COMPOSITE_SCREEN };

#ifdef __CUDACC__
#define COMPOSITE_HD __host__ __device__ __forceinline__
#else
#define COMPOSITE_HD static inline
#endif

/* The overlay's alpha a (0..M) at opacity o (round(opacity * 65536), 0..65536): (a o + 32768) >> 16,
 * at most 65535 * 65536 + 32768, below 2^32. */
COMPOSITE_HD uint32_t composite_alpha(uint32_t a, uint32_t o)
{
    return (a * o + 32768u) >> 16;
}

/* W3C Compositing: source-over with a separable blend mode, the overlay (colours s, alpha as) on
 * the image (colours b, alpha ab), all levels of 0..M, in integers exactly:
 *   Bn = s M (over), s b (multiply), (s + b) M - s b (screen)       B(b, s) M^2 / M
 *   X  = (M - ab) s M + ab Bn                                     ((1 - ab) s + ab B) M^3
 *   co = as X + ab b (M - as) M                                   premultiplied colour, M^4
 *   ao = as M + ab (M - as)                                       alpha, M^2
 *   out colour = (co + floor(M ao / 2)) / (M ao), out alpha = (ao + floor(M / 2)) / M
 * At 8 bits every term is below 2^32 (M^4 + M^3 / 2 < 2^32), at 16 bits below 2^64 (M^4 < 2^64);
 * U is uint32_t or uint64_t accordingly. cc colours, d the result's (and *da its alpha). The
 * caller takes as > 0 (then ao > 0); where as = 0 the image is unchanged. */
#define COMPOSITE_PIXEL(NAME, T, U, M)                                                                 \
    COMPOSITE_HD void NAME(const T *s, U as, const T *b, U ab, int cc, int mode, T *d, T *da)        \
    {                                                                                                  \
        const U ao = as * (M) + ab * ((M) - as), den = (M) * ao;                                       \
        for (int k = 0; k < cc; k++) {                                                                 \
            const U sv = s[k], bv = b[k];                                                              \
            const U bn = mode == COMPOSITE_MULTIPLY ? sv * bv                                          \
                         : mode == COMPOSITE_SCREEN ? (sv + bv) * (M) - sv * bv : sv * (M);              \
            const U x = ((M) - ab) * sv * (M) + ab * bn;                                               \
            const U co = as * x + ab * bv * ((M) - as) * (M);                                          \
            d[k] = (T)((co + den / 2) / den);                                                          \
        }                                                                                              \
        *da = (T)((ao + (M) / 2) / (M));                                                               \
    }
COMPOSITE_PIXEL(composite_px8, uint8_t, uint32_t, 255u)
COMPOSITE_PIXEL(composite_px16, uint16_t, uint64_t, 65535ull)

/* The overlay ov (ow x oh, the image's colours and an alpha: grey+alpha or RGBA, the image's
 * depth, on the device) at (x, y) of in (parts outside clipped), composited by mode at opacity o
 * into out, in's pixels elsewhere. perpixel: a 2D grid over the image, one thread a pixel, each
 * copying or compositing. coalesced: the copy engine copies the image, then a kernel over the
 * overlay's clipped rectangle only, GPU_PPT pixels a thread along its rows. */
int gpu_composite(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out, const void *ov,
                  int ow, int oh, int x, int y, uint32_t o, int mode, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
