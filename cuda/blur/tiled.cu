/* gpuimg: blur, tiled: which one-pass kernel takes a blur, two passes past it. Exact. */
#include "cuda/blur/blur.cuh"

/* blur_alpha's layouts (8-bit RGBA through it measured level with blur_q8, which also writes
 * transposed) */
static int alpha_onepass(int c, int depth) { return c == 2 || (c == 4 && depth == 16); }

/* The most taps a layout blurs in one pass (blur_q8 for 8-bit grey, RGB, RGBA; blur16 for 16-bit
 * grey, RGB; blur_alpha), past which the two-pass kernel is the faster. */
static int onepass_max(int c, int depth)
{
    return depth == 8 ? (c == 4 ? 21 : Q8_MAXK) : (c == 1 ? Q8_MAXK : 25);
}

extern "C" int gpu_blur_tiled_scratchless(int c, int depth, int ksize)
{
    return ksize > 1 && ksize <= onepass_max(c, depth);
}

extern "C" int gpu_blur_onepass_applies(int c, int depth, int ksize)
{
    return depth == 8 && (c == 1 || c == 3 || c == 4) && gpu_blur_tiled_scratchless(c, depth, ksize);
}

extern "C" int gpu_blur_tiled(const struct gpu_image *in, const struct gpu_image *out, const uint32_t *kern, int ksize,
                              const int32_t *bx, const int32_t *by, void *scratch, const char **ran, char *err,
                              size_t errlen)
{
    if (in->gray_from || (out->transposed && !gpu_blur_onepass_applies(in->c, in->depth, ksize))) {
        snprintf(err, errlen, "gpu_blur_tiled: no fused kernel for this image");
        return (int)cudaErrorInvalidValue;
    }
    if (!out->transposed && gpu_blur_tiled_scratchless(in->c, in->depth, ksize)) {
        if (in->depth == 16 && (in->c == 1 || in->c == 3))
            return in->c == 1 ? blur16_dispatch<1>(in, out, kern, ksize, bx, by, err, errlen)
                              : blur16_dispatch<3>(in, out, kern, ksize, bx, by, err, errlen);
        if (alpha_onepass(in->c, in->depth))
            return in->depth == 8 ? blur_alpha_dispatch<uint8_t, 2>(in, out, kern, ksize, bx, by, err, errlen)
                   : in->c == 2   ? blur_alpha_dispatch<uint16_t, 2>(in, out, kern, ksize, bx, by, err, errlen)
                                  : blur_alpha_dispatch<uint16_t, 4>(in, out, kern, ksize, bx, by, err, errlen);
    }
    if (!gpu_blur_onepass_applies(in->c, in->depth, ksize)) {   /* same bits, two passes */
        *ran = "separable";
        return gpu_blur_separable(in, out, kern, ksize, bx, by, scratch, err, errlen);
    }
    return in->c == 1   ? blur_q8_dispatch<1>(in, out, kern, ksize, bx, by, err, errlen)
           : in->c == 3 ? blur_q8_dispatch<3>(in, out, kern, ksize, bx, by, err, errlen)
                        : blur_q8_dispatch<4>(in, out, kern, ksize, bx, by, err, errlen);
}
