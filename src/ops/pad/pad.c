/* gpuimg: pad, the image on a larger canvas of one colour (ImageMagick's -extent, vips's embed). */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/op.h"
#include "core/color.h"
#include "ops/common/place.h"
#include "cuda/pad/kernels.h"

extern const struct op_desc op_pad;   /* this operation, defined at the end */

enum { P_SIZE, P_GRAVITY, P_COLOR };
static const struct op_param params[] = {
    { "size", PARAM_SIZE, 0, 0, 0, NULL, NULL,
      "the canvas: WxH (a missing side is the image's), P% of the image's sides, or WxH+X+Y with the image's "
      "top left corner at X, Y" },
    { "gravity", PARAM_CHOICE, 0, 0, 0, GRAVITY_CHOICES, "centre", GRAVITY_HELP " (without +X+Y)" },
    { "color", PARAM_COLOR, 0, 0, 0, NULL, "transparent",
      "the margins (transparent by default: transparent black, black without alpha; a colour given without "
      "alpha is opaque)" },
};

/* The canvas and the image's place on it, left in the arguments as WxH+X+Y. */
static int resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    struct size_spec *s = &a->v[P_SIZE].size;
    int w, h, x, y;
    if (s->kind == SIZE_PERCENT) {
        const double fw = in->w * s->pct / 100 + 0.5, fh = in->h * s->pct / 100 + 0.5;
        if (fw > 1 << 24 || fh > 1 << 24)
            return gpuimg_fail(GPUIMG_ETOOBIG, "pad: a canvas side over %d pixels", 1 << 24);
        w = (int)fw;
        h = (int)fh;
    } else {
        w = s->w ? s->w : in->w;
        h = s->h ? s->h : in->h;
    }
    if (s->kind == SIZE_PIXELS && s->offset) {
        x = s->x;
        y = s->y;
    } else {
        x = gravity_offset(a->v[P_GRAVITY].choice, 0, w, in->w);
        y = gravity_offset(a->v[P_GRAVITY].choice, 1, h, in->h);
    }
    if (x < 0 || y < 0 || (long)x + in->w > w || (long)y + in->h > h)
        return gpuimg_fail(GPUIMG_EGEOMETRY, "pad: the %dx%d image does not fit a %dx%d canvas at +%d+%d (crop makes it smaller)",
                           in->w, in->h, w, h, x < 0 ? 0 : x, y < 0 ? 0 : y);
    place_result(s, in, out, w, h, x, y);
    return GPUIMG_OK;
}

static int then(const struct op_args *a, char *text, size_t n)
{
    (void)text;
    (void)n;
    const struct size_spec *s = &a->v[P_SIZE].size;
    if (s->kind == SIZE_PERCENT && s->pct < 100)
        return gpuimg_fail(GPUIMG_EPARAM, "pad: %g%% would be smaller than the image (crop makes it smaller)", s->pct);
    return place_no_flag("pad", s);
}

/* The colour as one pixel of in's layout (bpp bytes), and whether its bytes are all one value (a
 * memset fills with it). */
static int fill_pixel(const struct op_args *a, const struct geom *g, uint8_t px[8])
{
    color_pixel(a->v[P_COLOR].color, g->c, g->depth, px);
    const size_t bpp = geom_bpp(g);
    for (size_t i = 1; i < bpp; i++)
        if (px[i] != px[0])
            return 0;
    return 1;
}

static int cpu(const struct op_args *a, const struct image *in, struct image *out)
{
    const struct size_spec *s = &a->v[P_SIZE].size;
    const size_t bpp = image_bpp(in), row = (size_t)in->w * bpp, left = (size_t)s->x * bpp;
    const size_t right = (size_t)out->w * bpp - left - row, orow = (size_t)out->w * bpp;
    uint8_t px[8];
    const struct geom g = image_geom(in);
    uint8_t *fill = malloc(orow);   /* one row of the colour: the margins are copied from it */
    if (!fill)
        return gpuimg_fail(GPUIMG_ENOMEM, "pad: out of memory");
    if (fill_pixel(a, &g, px))
        memset(fill, px[0], orow);
    else
        for (size_t i = 0; i < orow; i += bpp)
            memcpy(fill + i, px, bpp);
#pragma omp parallel for schedule(static)
    for (int y = 0; y < out->h; y++) {
        uint8_t *d = out->data + (size_t)y * out->stride;
        const int sy = y - s->y;
        if (sy < 0 || sy >= in->h) {
            memcpy(d, fill, orow);
            continue;
        }
        memcpy(d, fill, left);
        memcpy(d + left, in->data + (size_t)sy * in->stride, row);
        memcpy(d + left + row, fill, right);
    }
    free(fill);
    return GPUIMG_OK;
}

#ifdef HAVE_CUDA
static int gpu(const struct op_args *a, const void *state, const struct gpu_call *k, const struct gpu_image *in,
               const struct gpu_image *out, const char **ran)
{
    const struct size_spec *s = &a->v[P_SIZE].size;
    const struct geom g = { in->w, in->h, in->c, in->depth };
    uint8_t px[8];
    const int uniform = fill_pixel(a, &g, px);
    char err[256];
    if (k->variant == KV_VECTOR && !uniform)   /* the copy engine sets bytes: a kernel writes other colours */
        *ran = "coalesced";
    return gpu_pad(k, in, out, s->x, s->y, px, uniform, err, sizeof err) ? op_cuda_fail(&op_pad, k->variant, err)
                                                                         : GPUIMG_OK;
}
#endif

const struct op_desc op_pad = {
    .name = "pad",
    .summary = "the image on a larger canvas (pad=1920x1080 centred, pad=800x600:gravity=north:color=white)",
    .definition =
        "out(x, y) = in(x - X, y - Y) where that is in the image, else the colour: its samples, 16 bits v*257, a "
        "gray image its BT.601 luma at 8 bits as gray gives it, an image with alpha its alpha (transparent, the "
        "default, is every sample 0). Without +X+Y the image is placed by gravity: "
        "X = 0 (west), W - in_w (east) or (W - in_w) / 2 rounded down (centre, north, south), and so for Y. The "
        "canvas must hold the image. Exact.",
    .params = params,
    .nparams = 3,
    .resolve = resolve,
    .cpu = cpu,
    .then = then,
    GPU_FIELDS(KV_BIT(KV_PERPIXEL) | KV_BIT(KV_COALESCED) | KV_BIT(KV_VECTOR), KV_VECTOR, NULL, gpu, NULL),
    .examples = EXAMPLES("pad=150%", "pad=200%:gravity=southwest:color=white", "pad=130%:gravity=east:color=20,120,250,128"),
};
