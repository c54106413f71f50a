/* gpuimg: resize, nearest: out(x, y) = in(xs[x], ys[y]) with the index tables src/ops/resize builds
 * (OpenCV's INTER_NEAREST_EXACT), whole pixels copied. Exact. */
#include "cuda/common.cuh"
#include "cuda/resize/kernels.h"

template <int BPP, bool COALESCED>
__global__ void nearest_kernel(const typename PixT<BPP>::type *in, typename PixT<BPP>::type *out, int iw, int ow,
                               int oh, const int32_t *xs, const int32_t *ys)
{
    auto px = [&](int x, int y) { out[(size_t)y * ow + x] = in[(size_t)ys[y] * iw + xs[x]]; };
    if (COALESCED)
        for_coalesced(ow, oh, px);
    else
        for_perpixel(ow, oh, px);
}

template <int BPP>
static int launch_nearest(const gpu_call *k, const gpu_image *in, const gpu_image *out, const int32_t *xs,
                          const int32_t *ys, char *err, size_t errlen)
{
    typedef typename PixT<BPP>::type P;
    const P *s = (const P *)in->data;
    P *d = (P *)out->data;
    if (k->variant == KV_PERPIXEL) {
        const dim3 b = perpixel_block(k->shape), g = grid2d(out->w, out->h, b);
        launch(nearest_kernel<BPP, false>, g, b, 0, 1, s, d, in->w, out->w, out->h, xs, ys);
    } else {
        const unsigned th = threads1d(k->shape);
        launch(nearest_kernel<BPP, true>, grid_coalesced(out->w, out->h, th, GPU_PPT), th, 0, GPU_PPT, s, d, in->w, out->w,
               out->h, xs, ys);
    }
    LAUNCH_TRY(err, errlen);
    return 0;
}

extern "C" int gpu_nearest(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out, const int32_t *xs,
                           const int32_t *ys, char *err, size_t errlen)
{
    return DISPATCH_BPP(bpp_of(in), launch_nearest, k, in, out, xs, ys, err, errlen);
}

