/* gpuimg: composite, perpixel: a 2D grid over the whole image, one thread a pixel, copying it or
 * compositing the overlay's pixel on it. Also gpu_composite, which picks the family. */
#include "cuda/composite/composite.cuh"

template <typename T, int C>
__global__ void composite_perpixel(const T *in, T *out, int w, int h, const T *ov, composite_place p)
{
    constexpr int OC = (C == 2 || C == 4 ? C : C + 1);   /* the overlay's: the image's colours and alpha */
    for_perpixel(w, h, [&](int x, int y) {
        const size_t i = ((size_t)y * w + x) * C;
        const int sx = x - p.x, sy = y - p.y;
        if (ov && (unsigned)sx < (unsigned)p.ow && (unsigned)sy < (unsigned)p.oh)
            composite_one<T, C>(in + i, ov + ((size_t)sy * p.ow + sx) * OC, out + i, p.o, p.mode);
        else
#pragma unroll
            for (int k = 0; k < C; k++)
                out[i + k] = in[i + k];
    });
}

template <typename T, int C>
static int launch_perpixel(const gpu_call *k, const gpu_image *in, const gpu_image *out, const void *ov,
                           const composite_place &p, char *err, size_t errlen)
{
    const dim3 b = perpixel_block(k->shape);
    launch(composite_perpixel<T, C>, grid2d(in->w, in->h, b), b, 0, 1, (const T *)in->data, (T *)out->data, in->w,
           in->h, (const T *)ov, p);
    LAUNCH_TRY(err, errlen);
    return 0;
}

extern "C" int gpu_composite(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out,
                             const void *ov, int ow, int oh, int x, int y, uint32_t o, int mode, char *err,
                             size_t errlen)
{
    const composite_place p = { ow, oh, x, y, o, mode };
    const int x0 = x > 0 ? x : 0, y0 = y > 0 ? y : 0;
    const int x1 = (long)x + ow < in->w ? x + ow : in->w, y1 = (long)y + oh < in->h ? y + oh : in->h;
    const int any = ov && x0 < x1 && y0 < y1;
    if (k->variant == KV_PERPIXEL)
        return DISPATCH_TC(in->depth, in->c, launch_perpixel, k, in, out, any ? ov : NULL, p, err, errlen);
    return composite_coalesced(k, in, out, any ? ov : NULL, p, x0, y0, x1, y1, err, errlen);
}
