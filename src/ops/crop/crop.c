/* gpuimg: crop, a rectangle of the image: one of the pixel remaps on the GPU (an affine map with
 * an offset; vector: the copy engine's strided copy), row copies on the CPU. gravity=entropy
 * places it by the image's content, as vips_smartcrop does (smart.c): the step measures its input
 * before it runs (op_desc.measure), on the GPU by histograms (cuda/crop/). */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/op.h"
#include "ops/common/place.h"
#include "ops/crop/smart.h"
#include "cuda/crop/kernels.h"
#include "cuda/remap/kernels.h"

extern const struct op_desc op_crop;   /* this operation, defined at the end */

enum { P_SIZE, P_GRAVITY };
enum { G_ENTROPY = 10, G_ATTENTION };   /* after GRAVITY_CHOICES' ten */
static const struct op_param params[] = {
    { "size", PARAM_SIZE, 0, 0, 0, NULL, NULL,
      "the rectangle: WxH+X+Y (its top left corner at X, Y), or WxH, Wx, xH or P% placed by gravity" },
    { "gravity", PARAM_CHOICE, 0, 0, 0, GRAVITY_CHOICES "|entropy|attention", "centre",
      GRAVITY_HELP ", or entropy or attention: by the content, as vips smartcrop (without +X+Y)" },
};

static int smart(const struct op_args *a) { return a->v[P_GRAVITY].choice >= G_ENTROPY; }
static int attention(const struct op_args *a) { return a->v[P_GRAVITY].choice == G_ATTENTION; }

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
    if (smart(a) && a->measured) {   /* the corner measure found (the size as before) */
        w = a->box.w;
        h = a->box.h;
        x = a->box.x;
        y = a->box.y;
    } else if (s->kind == SIZE_PIXELS && s->offset && !smart(a)) {
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
    if (smart(a) && a->v[P_SIZE].size.kind == SIZE_PIXELS && a->v[P_SIZE].size.offset)
        return gpuimg_fail(GPUIMG_EPARAM, "crop: gravity=%s places the rectangle itself (WxH, not WxH+X+Y)",
                           attention(a) ? "attention" : "entropy");
    return place_no_flag("crop", &a->v[P_SIZE].size);
}

/* gravity=entropy or attention: the corner found in the input; other gravities measure nothing. */
static int measure(struct op_args *a, const struct image *in)
{
    if (!smart(a))
        return GPUIMG_OK;
    const struct size_spec *s = &a->v[P_SIZE].size;   /* resolved: WxH+X+Y */
    if (attention(a)) {
        uint64_t sums[ATTN_N * ATTN_N * 3];
        smart_attention_sums_cpu(in, sums);
        int x, y;
        smart_attention_place(in->w, in->h, in->c, in->depth, s->w, s->h, sums, &x, &y);
        a->box = (struct rect){ x, y, s->w, s->h };
        a->measured = 1;
        return GPUIMG_OK;
    }
    int x, y, r = smart_entropy(in->w, in->h, in->c, in->depth, s->w, s->h, smart_hist_cpu, (void *)in, &x, &y);
    if (!r) {
        a->box = (struct rect){ x, y, s->w, s->h };
        a->measured = 1;
    }
    return r;
}

/* the content's place depends on the whole image */
static int tiles(const struct op_args *a) { return !smart(a); }

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
/* gravity=entropy: the two rectangles' histograms on the device (their memory the step's state);
 * attention: the cells' sums */
static int gpu_prepare(const struct op_args *a, const struct geom *in, const struct geom *out, int variant, void **state)
{
    (void)out;
    char err[256];
    *state = NULL;
    const size_t bytes = attention(a) ? ATTN_N * ATTN_N * 3 * sizeof(uint64_t)
                                      : 2 * (size_t)in->c * SMART_BINS(in->depth) * sizeof(uint32_t);
    if (smart(a) && gpu_malloc(state, bytes, err, sizeof err))
        return op_cuda_fail(&op_crop, variant, err);
    return GPUIMG_OK;
}

static void gpu_release(void *state) { gpu_free(state); }

struct hist_ctx {
    const struct gpu_call *k;
    const struct gpu_image *in;
    uint32_t *dhist;
};

static int hist_gpu(void *ctx, const struct rect r[2], uint32_t *hist)
{
    const struct hist_ctx *h = ctx;
    const int rr[8] = { r[0].x, r[0].y, r[0].w, r[0].h, r[1].x, r[1].y, r[1].w, r[1].h };
    char err[256];
    if (gpu_crop_hist(h->k, h->in, rr, h->dhist, hist, err, sizeof err))
        return op_cuda_fail(&op_crop, h->k->variant, err);
    return GPUIMG_OK;
}

static int gpu_measure(struct op_args *a, const void *state, const struct gpu_call *k, const struct gpu_image *in)
{
    if (!smart(a))
        return GPUIMG_OK;
    const struct size_spec *s = &a->v[P_SIZE].size;
    if (attention(a)) {   /* the cells' sums on the device (any variant: one reduction), scored here */
        uint64_t sums[ATTN_N * ATTN_N * 3];
        char err[256];
        if (gpu_crop_cells(in, (uint64_t *)state, sums, err, sizeof err))
            return op_cuda_fail(&op_crop, k->variant, err);
        int x, y;
        smart_attention_place(in->w, in->h, in->c, in->depth, s->w, s->h, sums, &x, &y);
        a->box = (struct rect){ x, y, s->w, s->h };
        a->measured = 1;
        return GPUIMG_OK;
    }
    struct hist_ctx h = { k, in, (uint32_t *)state };
    int x, y, r = smart_entropy(in->w, in->h, in->c, in->depth, s->w, s->h, hist_gpu, &h, &x, &y);
    if (!r) {
        a->box = (struct rect){ x, y, s->w, s->h };
        a->measured = 1;
    }
    return r;
}

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
        "the image (a corner outside it is an error). gravity=entropy places it as vips 8.14's smartcrop with "
        "interesting=entropy: from the whole image, while it is wider (or taller) than the rectangle, a slice of "
        "at most max(ceil((in_w - W) / 8), ceil((in_h - H) / 8)) columns is cut from the end whose slice has the "
        "lower entropy (the right one on a tie), then so for rows; a slice's entropy is -sum(p*log2(p)) over its "
        "samples' values in every band together (with alpha, colour premultiplied as vips does, "
        "trunc(v*(float)(a/top)), and alpha a band of its own). The counts are integers on the CPU and the GPU "
        "alike. gravity=attention follows vips 8.14's smartcrop with interesting=attention, on a map of 32x32 "
        "cells (cell i of an axis of n pixels: [i*n/32, (i+1)*n/32), at least one pixel) holding each cell's mean "
        "colour (premultiplied by alpha; summed in integers on the CPU and the GPU alike), in double: sRGB decoded "
        "to linear and to XYZ (Y up to 100); the score is |5 * the Laplacian of Y| (4 Y minus its four "
        "neighbours, edges repeated) plus, where Y > 5, the skin score 100 - 100*|XYZ/|XYZ| - (0.78, 0.57, 0.44)| "
        "and Lab's a (D65); it is blurred by vips's gaussian (taps rint(20*exp(-k^2/(2 s^2))) for the k whose "
        "exp is at least 0.2, s = max(sqrt((32 W / in_w)^2 + (32 H / in_h)^2) / 10, 1), edges repeated), and "
        "the first maximum (in raster order) at cell (i, j) gives X = clamp(trunc(i / (32 / in_w)) - W / 2, 0, "
        "in_w - W) and so Y. vips shrinks with its own resize and converts colour in float, which this does not "
        "repeat: against vips 8.14 on 7 photographs (640x400 to 5120x2880, 9 rectangle sizes each) the corner "
        "was vips's in 58 of 63 cases and one cell (in_w / 32 or in_h / 32 px) off in the other 5. The corner is measured on the "
        "step's input before the step runs, so it runs whole. Exact (entropy: as vips).",
    .params = params,
    .nparams = 2,
    .resolve = resolve,
    .cpu = cpu,
    .then = then,
    .region = region,
    .tile_args = tile_args,
    .tiles = tiles,
    .measure = measure,
#ifdef HAVE_CUDA
    .gpu_measure = gpu_measure,
#endif
    GPU_FIELDS(KV_BIT(KV_PERPIXEL) | KV_BIT(KV_COALESCED) | KV_BIT(KV_TILED) | KV_BIT(KV_VECTOR), KV_VECTOR,
               gpu_prepare, gpu, gpu_release),
    .examples = EXAMPLES("crop=50%", "crop=90%:gravity=southeast", "crop=60%:gravity=entropy",
                         "crop=60%:gravity=attention"),
};
