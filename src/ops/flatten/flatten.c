/* gpuimg: flatten, alpha composited over an opaque background and removed (ImageMagick's -flatten
 * and -alpha remove, vips's flatten, sharp's flatten). Each colour sample v of alpha a over the
 * background's sample b: (v a + b (top - a) + top / 2) / top, rounded to nearest (top = 255 or
 * 65535 is odd: no ties), in 32-bit integers (the sum is at most top^2 + top / 2). */
#include <config.h>
#include <string.h>
#include "core/color.h"
#include "core/error.h"
#include "core/hot.h"
#include "core/op.h"
#include "cuda/flatten/kernels.h"

extern const struct op_desc op_flatten;   /* this operation, defined at the end */

enum { P_COLOR };
static const struct op_param params[] = {
    { "color", PARAM_COLOR, 0, 0, 0, NULL, "white",
      "the background, opaque (white by default, as ImageMagick's)" },
};

static int resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    *out = *in;
    if (has_alpha(in->c))
        out->c = in->c - 1;   /* grey+alpha -> grey, RGBA -> RGB */
    return GPUIMG_OK;
}

/* The alpha it removes leaves nothing to show through: a background must be opaque. */
static int then(const struct op_args *a, char *text, size_t n)
{
    (void)text;
    (void)n;
    const struct color c = a->v[P_COLOR].color;
    if (c.a == 255)
        return GPUIMG_OK;
    char t[16];
    color_text(c, t, sizeof t);
    return gpuimg_fail(GPUIMG_EPARAM, "flatten: color must be opaque (the result has no alpha), not %s", t);
}

/* The background as samples of the result's layout at the image's depth: 1 (grey: the colour's
 * BT.601 luma) or 3. */
static void background(const struct op_args *a, const struct geom *in, uint32_t b[3])
{
    uint16_t px[4] = { 0 };
    uint8_t px8[4] = { 0 };
    const int c = in->c - 1;
    if (in->depth == 16)
        color_pixel(a->v[P_COLOR].color, c, 16, px);
    else
        color_pixel(a->v[P_COLOR].color, c, 8, px8);
    for (int k = 0; k < 3; k++)
        b[k] = k < c ? (in->depth == 16 ? px[k] : px8[k]) : 0;
}

/* One row, the layout and depth constants so that the loop vectorises and the division is a
 * multiply. */
#define DEFINE_FLATTEN_ROW(T, SUF, CI, TOP)                                                           \
    HOT static void flatten_row_##SUF##_##CI(const T *restrict s, T *restrict d, int w, const uint32_t *b) \
    {                                                                                                 \
        for (int x = 0; x < w; x++) {                                                                 \
            const uint32_t al = s[x * CI + CI - 1];                                                   \
            for (int k = 0; k < CI - 1; k++)                                                          \
                d[x * (CI - 1) + k] = (T)color_over(s[x * CI + k], al, b[k], TOP);                    \
        }                                                                                             \
    }
DEFINE_FLATTEN_ROW(uint8_t, u8, 2, 255u)
DEFINE_FLATTEN_ROW(uint8_t, u8, 4, 255u)
DEFINE_FLATTEN_ROW(uint16_t, u16, 2, 65535u)
DEFINE_FLATTEN_ROW(uint16_t, u16, 4, 65535u)

static int cpu(const struct op_args *a, const struct image *in, struct image *out)
{
    if (!has_alpha(in->c)) {   /* nothing to flatten */
        memcpy(out->data, in->data, in->stride * (size_t)in->h);
        return GPUIMG_OK;
    }
    uint32_t b[3];
    const struct geom g = image_geom(in);
    background(a, &g, b);
#pragma omp parallel for schedule(static)
    for (int y = 0; y < in->h; y++) {
        const uint8_t *s = in->data + (size_t)y * in->stride;
        uint8_t *d = out->data + (size_t)y * out->stride;
        if (in->depth == 8) {
            if (in->c == 2)
                flatten_row_u8_2(s, d, in->w, b);
            else
                flatten_row_u8_4(s, d, in->w, b);
        } else if (in->c == 2)
            flatten_row_u16_2((const uint16_t *)s, (uint16_t *)d, in->w, b);
        else
            flatten_row_u16_4((const uint16_t *)s, (uint16_t *)d, in->w, b);
    }
    return GPUIMG_OK;
}

#ifdef HAVE_CUDA
static int gpu_launch(const struct op_args *a, const void *state, const struct gpu_call *k, const struct gpu_image *in,
                      const struct gpu_image *out, const char **ran)
{
    char err[256];
    int rc;
    if (!has_alpha(in->c))
        rc = gpu_copy_d2d(out->data, in->data, (size_t)in->w * in->h * in->c * (in->depth / 8), err, sizeof err);
    else {
        uint32_t b[3];
        const struct geom g = { in->w, in->h, in->c, in->depth };
        background(a, &g, b);
        rc = gpu_flatten(k, in, out, b, err, sizeof err);
    }
    return rc ? op_cuda_fail(&op_flatten, k->variant, err) : GPUIMG_OK;
}
#endif

const struct op_desc op_flatten = {
    .name = "flatten",
    .summary = "alpha composited over a background and removed (flatten, flatten=black, flatten=#336699)",
    .definition =
        "Each colour sample v of alpha a over the background's sample b: (v*a + b*(top - a) + top/2) / top in "
        "integers, top 255 or 65535, rounded to nearest (top is odd: no ties). RGBA gives RGB, gray+alpha gives "
        "gray, whose background is the colour's BT.601 luma at 8 bits, (9798*R + 19235*G + 3735*B + 16384) >> 15, "
        "as gray gives it; 16 bits take each 8-bit value v as v*257. The colour must be opaque. Images without "
        "alpha pass through unchanged. Exact.",
    .params = params,
    .nparams = 1,
    .resolve = resolve,
    .cpu = cpu,
    .then = then,
    .region = op_region_point,
    GPU_FIELDS(KV_BIT(KV_PERPIXEL) | KV_BIT(KV_COALESCED) | KV_BIT(KV_VECTOR), KV_VECTOR, NULL, gpu_launch, NULL),
    .gpu_shape = { [KV_VECTOR] = SHAPE_1D },
    .copies_on = 1u << 1 | 1u << 3,
    .examples = EXAMPLES("flatten"),
};
