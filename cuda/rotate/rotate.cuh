/* gpuimg: rotate's kernels' shared part: the pixel arithmetic of sample.h, its rounded division by
 * div_round (the same integer, no 64-bit division), specialised by depth and channels. */
#ifndef GPUIMG_ROTATE_CUH
#define GPUIMG_ROTATE_CUH
#include "cuda/common.cuh"
#define ROT_DIV(S, A) div_round<uint64_t>((uint64_t)(S), (uint64_t)(A), rcp_approx((float)(A)))
#include "cuda/rotate/kernels.h"

template <typename T, int C>
__device__ __forceinline__ void rot_pixel(const gpu_rot &r, const T *in, int iw, int ih, T *out, int ow, int x, int y)
{
    const int64_t X = r.x0 + r.xdx * x + r.xdy * y, Y = r.y0 + r.ydx * x + r.ydy * y;
    uint32_t v[4];
    rot_value(&r, r.interp, in, (size_t)iw * C * sizeof(T), iw, ih, 8 * (int)sizeof(T), C, X, Y, v);
    T px[C];
#pragma unroll
    for (int c = 0; c < C; c++)
        px[c] = (T)v[c];
    st_vec<T, C>(out + ((size_t)y * ow + x) * C, px);
}

/* The plain-C launcher NAME (kernels.h) of a family whose host template LAUNCH<T, C> launches it. */
#define ROTATE_LAUNCHER(NAME, LAUNCH)                                                              \
    extern "C" int NAME(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out, \
                        const struct gpu_rot *r, char *err, size_t errlen)                          \
    {                                                                                              \
        DISPATCH_TC(in->depth, in->c, LAUNCH, k, in, out, r);                                      \
        LAUNCH_TRY(err, errlen);                                                                   \
        return 0;                                                                                  \
    }

#endif
