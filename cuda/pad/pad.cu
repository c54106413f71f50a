/* gpuimg: pad kernels: the image at (X, Y) on a canvas of one fill pixel. perpixel: a 2D grid, one
 * thread a pixel; coalesced: GPU_PPT pixels a thread along a row, a warp's accesses consecutive;
 * vector: no kernel, the copy engine's 2D copy of the image and 2D sets of the margins, where the
 * fill pixel is one byte repeated (else the coalesced kernel). */
#include <string.h>
#include "cuda/check.h"
#include "cuda/common.cuh"
#include "cuda/pad/kernels.h"

template <int BPP, bool COALESCED, int PPT = GPU_PPT>
__global__ void pad_px(const typename PixT<BPP>::type *in, typename PixT<BPP>::type *out, int iw, int ih, int ow,
                       int oh, int x0, int y0, typename PixT<BPP>::type fill)
{
    auto px = [&](int x, int y) {
        const int sx = x - x0, sy = y - y0;
        out[(size_t)y * ow + x] = (unsigned)sx < (unsigned)iw && (unsigned)sy < (unsigned)ih ? in[(size_t)sy * iw + sx] : fill;
    };
    if (COALESCED)
        for_coalesced<PPT>(ow, oh, px);
    else
        for_perpixel(ow, oh, px);
}

template <int BPP>
static int launch_pad(const gpu_call *k, const gpu_image *in, const gpu_image *out, int x, int y,
                      const unsigned char *fill, char *err, size_t errlen)
{
    typedef typename PixT<BPP>::type P;
    P f;
    memcpy(&f, fill, sizeof f);
    const P *s = (const P *)in->data;
    P *d = (P *)out->data;
    if (k->variant != KV_PERPIXEL) {
        const unsigned th = threads1d(k->shape);
        PPT_SWITCH(ppt_choice(k->shape), launch(pad_px<BPP, true, P>, grid_coalesced(out->w, out->h, th, P), th, 0, P, s,
                                                d, in->w, in->h, out->w, out->h, x, y, f));
    } else {
        const dim3 b = perpixel_block(k->shape);
        launch(pad_px<BPP, false>, grid2d(out->w, out->h, b), b, 0, 1, s, d, in->w, in->h, out->w, out->h, x, y, f);
    }
    LAUNCH_TRY(err, errlen);
    return 0;
}

/* The margins set (top and bottom bands, then the left and right strips beside the image) and
 * the image's rows copied, each a 2D operation of the copy engine on the stream. */
static int pad_engine(const gpu_image *in, const gpu_image *out, int x, int y, unsigned char fill, char *err,
                      size_t errlen)
{
    const size_t b = (size_t)bpp_of(in), op = (size_t)out->w * b, ip = (size_t)in->w * b;
    uint8_t *d = (uint8_t *)out->data;
    const int below = out->h - y - in->h, right = out->w - x - in->w;
    if (y > 0)
        CUDA_TRY(cudaMemset2DAsync(d, op, fill, op, (size_t)y, 0), err, errlen);
    if (below > 0)
        CUDA_TRY(cudaMemset2DAsync(d + (size_t)(y + in->h) * op, op, fill, op, (size_t)below, 0), err, errlen);
    if (x > 0)
        CUDA_TRY(cudaMemset2DAsync(d + (size_t)y * op, op, fill, (size_t)x * b, (size_t)in->h, 0), err, errlen);
    if (right > 0)
        CUDA_TRY(cudaMemset2DAsync(d + (size_t)y * op + (size_t)(x + in->w) * b, op, fill, (size_t)right * b,
                                   (size_t)in->h, 0), err, errlen);
    CUDA_TRY(cudaMemcpy2DAsync(d + (size_t)y * op + (size_t)x * b, op, in->data, ip, ip, (size_t)in->h,
                               cudaMemcpyDeviceToDevice, 0), err, errlen);
    return 0;
}

extern "C" int gpu_pad(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out, int x, int y,
                       const unsigned char *fill, int uniform, char *err, size_t errlen)
{
    if (k->variant == KV_VECTOR && uniform)
        return pad_engine(in, out, x, y, fill[0], err, errlen);
    return DISPATCH_BPP(bpp_of(in), launch_pad, k, in, out, x, y, fill, err, errlen);
}
