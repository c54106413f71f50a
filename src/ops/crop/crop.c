/* gpuimg: crop, a rectangle of the image: one of the pixel remaps on the GPU (an affine map with
 * an offset; vector: the copy engine's strided copy), row copies on the CPU. */
#include <config.h>
#include <string.h>
#include "core/error.h"
#include "core/op.h"
#include "ops/common/place.h"
#include "cuda/remap/kernels.h"

extern const struct op_desc op_crop;   /* this operation, defined at the end */

enum { P_SIZE, P_GRAVITY };
static const struct op_param params[] = {
    { "size", PARAM_SIZE, 0, 0, 0, NULL, NULL,
      "the rectangle: WxH+X+Y (its top left corner at X, Y), or WxH, Wx, xH or P% placed by gravity" },
    { "gravity", PARAM_CHOICE, 0, 0, 0, GRAVITY_CHOICES, "centre", GRAVITY_HELP " (without +X+Y)" },
};

static int side(int in, double pct)
{
    const int v = (int)(in * pct / 100 + 0.5);
    return v < 1 ? 1 : v > in ? in : v;
}

/* The rectangle, clipped to the image (as ImageMagick's crop), left in the arguments as WxH+X+Y
 * for the launch and the tiles. */
static int resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    struct size_spec *s = &a->v[P_SIZE].size;
    int w, h, x, y;
    if (s->kind == SIZE_PERCENT) {
        w = side(in->w, s->pct);
        h = side(in->h, s->pct);
    } else {
        w = s->w ? s->w : in->w;
        h = s->h ? s->h : in->h;
    }
    if (s->kind == SIZE_PIXELS && s->offset) {
        if (s->x >= in->w || s->y >= in->h)
            return gpuimg_fail(GPUIMG_EGEOMETRY, "crop: the corner +%d+%d lies outside the %dx%d image", s->x, s->y,
                               in->w, in->h);
        x = s->x;
        y = s->y;
        w = w < in->w - x ? w : in->w - x;
        h = h < in->h - y ? h : in->h - y;
    } else {
        w = w < in->w ? w : in->w;
        h = h < in->h ? h : in->h;
        x = gravity_offset(a->v[P_GRAVITY].choice, 0, in->w, w);
        y = gravity_offset(a->v[P_GRAVITY].choice, 1, in->h, h);
    }
    place_result(s, in, out, w, h, x, y);
    return GPUIMG_OK;
}

static int then(const struct op_args *a, char *text, size_t n)
{
    (void)text;
    (void)n;
    return place_no_flag("crop", &a->v[P_SIZE].size);
}

static int cpu(const struct op_args *a, const struct image *in, struct image *out)
{
    const struct size_spec *s = &a->v[P_SIZE].size;
    const size_t bpp = image_bpp(in), row = (size_t)out->w * bpp;
#pragma omp parallel for schedule(static)
    for (int y = 0; y < out->h; y++)
        memcpy(out->data + (size_t)y * out->stride, in->data + (size_t)(y + s->y) * in->stride + (size_t)s->x * bpp, row);
    return GPUIMG_OK;
}

/* A tile of the output is the same rectangle of the input, moved by the corner. */
static void region(const struct op_args *a, const struct geom *in, const struct geom *out, const struct rect *want,
                   struct rect *need, struct rect *yields)
{
    const struct size_spec *s = &a->v[P_SIZE].size;
    *need = (struct rect){ want->x + s->x, want->y + s->y, want->w, want->h };
    *yields = *want;
}

/* run on a tile's rectangle, the crop is all of it */
static void tile_args(struct op_args *a, const struct rect *yields, const struct geom *out)
{
    (void)yields;
    a->v[P_SIZE].size = (struct size_spec){ .kind = SIZE_PIXELS, .w = out->w, .h = out->h, .offset = 1 };
}

#ifdef HAVE_CUDA
static int gpu(const struct op_args *a, const void *state, const struct gpu_call *k, const struct gpu_image *in,
               const struct gpu_image *out, const char **ran)
{
    const struct size_spec *s = &a->v[P_SIZE].size;
    const size_t bpp = (size_t)in->c * (size_t)(in->depth / 8);
    char err[256];
    int r;
    if (k->variant == KV_VECTOR) {   /* whole rows of bytes: the copy engine's 2D copy */
        const uint8_t *src = (const uint8_t *)in->data + ((size_t)s->y * (size_t)in->w + (size_t)s->x) * bpp;
        r = gpu_copy2d(out->data, (size_t)out->w * bpp, src, (size_t)in->w * bpp, (size_t)out->w * bpp, (size_t)out->h,
                       GPU_D2D, err, sizeof err);
    } else {
        const struct gpu_map m = { 1, 0, s->x, 0, 1, s->y };
        r = gpu_remap(k, in, out, &m, err, sizeof err);
    }
    return r ? op_cuda_fail(&op_crop, k->variant, err) : GPUIMG_OK;
}
#endif

const struct op_desc op_crop = {
    .name = "crop",
    .summary = "a rectangle of the image (crop=640x480+10+20, crop=800x600 centred, crop=50%)",
    .definition =
        "out(x, y) = in(x + X, y + Y) for the rectangle WxH+X+Y; without +X+Y the rectangle is placed by gravity: "
        "X = 0 (west), in_w - W (east) or (in_w - W) / 2 rounded down (centre, north, south), and so for Y. A missing "
        "side is the image's; P% takes that share of each side (rounded, at least 1). The rectangle is clipped to "
        "the image (a corner outside it is an error). Exact.",
    .params = params,
    .nparams = 2,
    .resolve = resolve,
    .cpu = cpu,
    .then = then,
    .region = region,
    .tile_args = tile_args,
    GPU_FIELDS(KV_BIT(KV_PERPIXEL) | KV_BIT(KV_COALESCED) | KV_BIT(KV_TILED) | KV_BIT(KV_VECTOR), KV_VECTOR, NULL, gpu,
               NULL),
    .examples = EXAMPLES("crop=50%", "crop=90%:gravity=southeast"),
};
