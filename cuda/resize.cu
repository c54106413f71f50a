/* gpuimg: nearest-neighbour resize kernels: out(x, y) = in(xs[x], ys[y]) with the index tables
 * src/ops/resize.c builds (OpenCV's INTER_NEAREST_EXACT), whole pixels copied. Bilinear and
 * area run through the separable filter kernels (sepfilter.cu). */
#include "common.cuh"

template <int BPP>
__global__ void nearest_perpixel(const typename PixT<BPP>::type *in, typename PixT<BPP>::type *out, int iw, int ow,
                                 int oh, const int32_t *xs, const int32_t *ys)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= ow)
        return;
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < oh; y += gridDim.y * blockDim.y)
        out[(size_t)y * ow + x] = in[(size_t)ys[y] * iw + xs[x]];
}

template <int BPP>
__global__ void nearest_coalesced(const typename PixT<BPP>::type *in, typename PixT<BPP>::type *out, int iw, int ow,
                                  int oh, const int32_t *xs, const int32_t *ys)
{
    const int x0 = blockIdx.x * blockDim.x * GPU_PPT + threadIdx.x;
    for (int y = blockIdx.y; y < oh; y += gridDim.y) {
        const typename PixT<BPP>::type *row = in + (size_t)ys[y] * iw;
#pragma unroll
        for (int k = 0; k < GPU_PPT; k++) {
            const int x = x0 + k * blockDim.x;
            if (x < ow)
                out[(size_t)y * ow + x] = row[xs[x]];
        }
    }
}

template <int BPP>
static int launch_nearest(int variant, const gpu_image *in, const gpu_image *out, const int32_t *xs,
                          const int32_t *ys, char *err, size_t errlen)
{
    typedef typename PixT<BPP>::type P;
    if (variant == KV_PERPIXEL) {
        dim3 b(32, 8);
        nearest_perpixel<BPP><<<grid2d(out->w, out->h, b), b>>>((const P *)in->data, (P *)out->data, in->w, out->w,
                                                                 out->h, xs, ys);
    } else {
        const unsigned gx = (unsigned)((out->w + 256 * GPU_PPT - 1) / (256 * GPU_PPT));
        nearest_coalesced<BPP><<<dim3(gx, out->h > 65535 ? 65535 : out->h), 256>>>(
            (const P *)in->data, (P *)out->data, in->w, out->w, out->h, xs, ys);
    }
    LAUNCH_TRY(err, errlen);
    return 0;
}

extern "C" int gpu_nearest(int variant, const struct gpu_image *in, const struct gpu_image *out, const int32_t *xs,
                           const int32_t *ys, char *err, size_t errlen)
{
    return DISPATCH_BPP(bpp_of(in), launch_nearest, variant, in, out, xs, ys, err, errlen);
}
