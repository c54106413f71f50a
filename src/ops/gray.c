/* gpuimg: grayscale. Luma in 15-bit fixed point, Y = (wr R + wg G + wb B + 16384) >> 15, with
 * BT.601 weights (9798, 19235, 3735) by default, bit-exact to OpenCV 4's cvtColor RGB2GRAY for
 * 8 and 16 bits, or BT.709 (6966, 23436, 2366). Both sets sum to 32768, so white stays white.
 * RGBA gives gray+alpha with alpha copied; gray and gray+alpha inputs pass through. */
#include <config.h>
#include <string.h>
#include "error.h"
#include "ops.h"

enum { P_STANDARD };
static const struct op_param params[] = {
    { "standard", PARAM_CHOICE, 0, 0, 0, "601|709", "601", "luma weights: ITU-R BT.601 or BT.709" },
};

static const uint32_t weights[2][3] = { { 9798, 19235, 3735 }, { 6966, 23436, 2366 } };

static int resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    *out = *in;
    if (in->c >= 3)
        out->c = in->c - 2;   /* RGB -> Y, RGBA -> YA */
    return GPUIMG_OK;
}

#define DEFINE_GRAY(T, SUF)                                                                   \
    static void gray_##SUF(const struct image *in, struct image *out, const uint32_t *wt)     \
    {                                                                                         \
        const int ci = in->c, co = out->c;                                                    \
        const uint32_t wr = wt[0], wg = wt[1], wb = wt[2];                                    \
        _Pragma("omp parallel for schedule(static)")                                          \
        for (int y = 0; y < in->h; y++) {                                                     \
            const T *s = (const T *)(in->data + (size_t)y * in->stride);                      \
            T *d = (T *)(out->data + (size_t)y * out->stride);                                \
            for (int x = 0; x < in->w; x++) {                                                 \
                d[x * co] = (T)((wr * s[x * ci] + wg * s[x * ci + 1] + wb * s[x * ci + 2] + 16384u) >> 15); \
                if (ci == 4)                                                                  \
                    d[x * co + 1] = s[x * ci + 3];                                            \
            }                                                                                 \
        }                                                                                     \
    }
DEFINE_GRAY(uint8_t, u8)
DEFINE_GRAY(uint16_t, u16)

static int cpu(const struct op_args *a, const struct image *in, struct image *out)
{
    if (in->c <= 2) {
        memcpy(out->data, in->data, in->stride * (size_t)in->h);
        return GPUIMG_OK;
    }
    const uint32_t *wt = weights[a->v[P_STANDARD].choice];
    if (in->depth == 8)
        gray_u8(in, out, wt);
    else
        gray_u16(in, out, wt);
    return GPUIMG_OK;
}

#ifdef HAVE_CUDA
static int gpu_launch(const struct op_args *a, const struct gpu_tables *t, int variant, const struct gpu_image *in,
                      const struct gpu_image *out)
{
    char err[256];
    int rc = in->c <= 2 ? gpu_copy_d2d(out->data, in->data, (size_t)in->w * in->h * in->c * (in->depth / 8), err,
                                       sizeof err)
                        : gpu_gray(variant, in, out, weights[a->v[P_STANDARD].choice], err, sizeof err);
    return rc ? op_cuda_fail(&op_gray, variant, err) : GPUIMG_OK;
}
#endif

const struct op_desc op_gray = {
    .name = "gray",
    .summary = "convert to grayscale (gray=601 or gray=709)",
    .definition =
        "Y = (wr*R + wg*G + wb*B + 16384) >> 15 in integers, for 8 and 16 bits alike. "
        "BT.601 (default): wr, wg, wb = 9798, 19235, 3735, bit-exact to OpenCV's cvtColor(RGB2GRAY). "
        "BT.709: 6966, 23436, 2366. RGB gives gray, RGBA gives gray+alpha with alpha unchanged; "
        "gray and gray+alpha inputs pass through unchanged.",
    .params = params,
    .nparams = 1,
    .resolve = resolve,
    .cpu = cpu,
    GPU_FIELDS(KV_BIT(KV_PERPIXEL) | KV_BIT(KV_COALESCED), KV_COALESCED, NULL, gpu_launch),
};
