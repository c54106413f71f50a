/* gpuimg: rotate. Multiples of 90 degrees are pixel remaps (ops/common/remap.h), exact; any other
 * angle interpolates onto a canvas that holds the whole rotated image (cuda/rotate/sample.h: the
 * arithmetic, shared with the kernels in cuda/rotate/). */
#include <config.h>
#include <math.h>
#include <stdint.h>
#include "core/color.h"
#include "core/error.h"
#include "ops/common/remap.h"
#include "cuda/rotate/kernels.h"

extern const struct op_desc op_rotate;   /* this operation, defined at the end */

enum { P_ANGLE, P_INTERP, P_COLOR };
static const struct op_param rotate_params[] = {
    { "angle", PARAM_NUMBER, -1e15, 1e15, 0, NULL, NULL,
      "degrees clockwise, reduced modulo 360; 0, 90, 180 and 270 are exact remaps" },
    { "interp", PARAM_CHOICE, 0, 0, 0, "bilinear|bicubic|nearest", "bilinear",
      "how other angles sample the source (bicubic: Catmull-Rom, a = -0.5)" },
    { "color", PARAM_COLOR, 0, 0, 0, NULL, "transparent",
      "the corners the image leaves uncovered at other angles (transparent by default: transparent black, "
      "black without alpha)" },
};

/* The angle in [0, 360). */
static double turn_of(const struct op_args *a)
{
    double t = fmod(a->v[P_ANGLE].num, 360);
    if (t < 0)
        t += 360;
    return t >= 360 ? 0 : t;
}

/* The remap of a multiple of 90 degrees; 0 where the angle is none. */
static int exact_map(const struct op_args *a, enum map *m)
{
    const double t = turn_of(a);
    if (t == 0)
        *m = M_COPY;
    else if (t == 90)
        *m = M_ROT90;
    else if (t == 180)
        *m = M_ROT180;
    else if (t == 270)
        *m = M_ROT270;
    else
        return 0;
    return 1;
}

#define ONE32 ((int64_t)1 << 32)

/* The canvas (*W x *H) and, with r, the walk of sample.h for a w x h input of c channels. */
static void rot_setup(const struct op_args *a, int w, int h, int c, int depth, int64_t *W, int64_t *H,
                      struct gpu_rot *r)
{
    const double rad = turn_of(a) * (M_PI / 180);
    const int64_t Cq = llround(cos(rad) * 0x1p32), Sq = llround(sin(rad) * 0x1p32);
    const int64_t ac = Cq < 0 ? -Cq : Cq, as = Sq < 0 ? -Sq : Sq;
    *W = ((int64_t)w * ac + (int64_t)h * as + ONE32 / 2) >> 32;
    *H = ((int64_t)w * as + (int64_t)h * ac + ONE32 / 2) >> 32;
    if (!r)
        return;
    r->x0 = Cq * (1 - *W) + Sq * (1 - *H) + (int64_t)(w - 1) * ONE32;
    r->y0 = -Sq * (1 - *W) + Cq * (1 - *H) + (int64_t)(h - 1) * ONE32;
    r->xdx = 2 * Cq;
    r->ydx = -2 * Sq;
    r->xdy = 2 * Sq;
    r->ydy = 2 * Cq;
    r->interp = a->v[P_INTERP].choice;
    uint16_t px[4] = { 0, 0, 0, 0 };
    uint8_t px8[4] = { 0, 0, 0, 0 };
    if (depth == 8)
        color_pixel(a->v[P_COLOR].color, c, depth, px8);
    else
        color_pixel(a->v[P_COLOR].color, c, depth, px);
    for (int k = 0; k < 4; k++)
        r->bg[k] = depth == 8 ? px8[k] : px[k];
    rot_fill(r, c);
}

static int rotate_resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    enum map m;
    if (exact_map(a, &m))
        return remap_resolve(m, in, out);
    int64_t W, H;
    rot_setup(a, in->w, in->h, in->c, in->depth, &W, &H, NULL);
    if (W > 1 << 24 || H > 1 << 24)
        return gpuimg_fail(GPUIMG_ETOOBIG, "rotate: a canvas side over %d pixels", 1 << 24);
    *out = *in;
    out->w = (int)W;
    out->h = (int)H;
    return GPUIMG_OK;
}

/* One loop per layout and interpolation, so that they are constants in sample.h's arithmetic.
 * Each row walks X and Y by adding the column steps: the same integers as X(i, j) multiplied out. */
#define DEFINE_ROWS_I(D, C, I)                                                                     \
    static void rows_##D##_##C##_##I(const struct gpu_rot *r, const struct image *in, struct image *out) \
    {                                                                                              \
        _Pragma("omp parallel for schedule(dynamic, 8)")                                           \
        for (int j = 0; j < out->h; j++) {                                                         \
            int64_t X = r->x0 + r->xdy * j, Y = r->y0 + r->ydy * j;                                \
            uint8_t *d = out->data + (size_t)j * out->stride;                                      \
            for (int i = 0; i < out->w; i++, X += r->xdx, Y += r->ydx, d += (C) * (D) / 8) {       \
                uint32_t v[4];                                                                     \
                rot_value(r, I, in->data, in->stride, in->w, in->h, D, C, X, Y, v);                \
                rot_store(d, D, C, v);                                                             \
            }                                                                                      \
        }                                                                                          \
    }
#define DEFINE_ROWS(D, C)                                                                          \
    DEFINE_ROWS_I(D, C, ROT_BILINEAR)                                                              \
    DEFINE_ROWS_I(D, C, ROT_BICUBIC)                                                               \
    DEFINE_ROWS_I(D, C, ROT_NEAREST)                                                               \
    static void rows_##D##_##C(const struct gpu_rot *r, const struct image *in, struct image *out)  \
    {                                                                                              \
        if (r->interp == ROT_BICUBIC)                                                              \
            rows_##D##_##C##_ROT_BICUBIC(r, in, out);                                              \
        else if (r->interp == ROT_NEAREST)                                                         \
            rows_##D##_##C##_ROT_NEAREST(r, in, out);                                              \
        else                                                                                       \
            rows_##D##_##C##_ROT_BILINEAR(r, in, out);                                             \
    }
DEFINE_ROWS(8, 1)
DEFINE_ROWS(8, 2)
DEFINE_ROWS(8, 3)
DEFINE_ROWS(8, 4)
DEFINE_ROWS(16, 1)
DEFINE_ROWS(16, 2)
DEFINE_ROWS(16, 3)
DEFINE_ROWS(16, 4)

static int rotate_cpu(const struct op_args *a, const struct image *in, struct image *out)
{
    enum map m;
    if (exact_map(a, &m))
        return remap_cpu(m, in, out);
    struct gpu_rot r;
    int64_t W, H;
    rot_setup(a, in->w, in->h, in->c, in->depth, &W, &H, &r);
    static void (*const rows[2][4])(const struct gpu_rot *, const struct image *, struct image *) = {
        { rows_8_1, rows_8_2, rows_8_3, rows_8_4 }, { rows_16_1, rows_16_2, rows_16_3, rows_16_4 }
    };
    rows[in->depth == 16][in->c - 1](&r, in, out);
    return GPUIMG_OK;
}

/* Multiples of 90: the remap's rectangles. Other angles run whole (rotate_tiles); asked anyway, the
 * rectangle is the whole image. */
static void rotate_region(const struct op_args *a, const struct geom *in, const struct geom *out,
                          const struct rect *want, struct rect *need, struct rect *yields)
{
    enum map m;
    if (exact_map(a, &m)) {
        remap_region(m, in, want, need, yields);
        return;
    }
    *need = (struct rect){ 0, 0, in->w, in->h };
    *yields = (struct rect){ 0, 0, out->w, out->h };
}
/* Other angles: every output pixel depends on where the whole image's centre lies. */
static int rotate_tiles(const struct op_args *a)
{
    enum map m;
    return exact_map(a, &m);
}

#ifdef HAVE_CUDA
/* Other angles: coalesced runs coalesced.cu, the others perpixel.cu (the faster: RESULTS, Kernel choices). */
static int rotate_gpu(const struct op_args *a, const void *state, const struct gpu_call *k, const struct gpu_image *in,
                      const struct gpu_image *out, const char **ran)
{
    enum map m;
    if (exact_map(a, &m))
        return remap_gpu(&op_rotate, m, k, in, out);
    struct gpu_rot r;
    int64_t W, H;
    rot_setup(a, in->w, in->h, in->c, in->depth, &W, &H, &r);
    const int perpixel = k->variant != KV_COALESCED;
    if (k->variant != KV_PERPIXEL && k->variant != KV_COALESCED)
        *ran = perpixel ? "perpixel" : "coalesced";
    char err[256];
    const int e = perpixel ? gpu_rotate_perpixel(k, in, out, &r, err, sizeof err)
                           : gpu_rotate_coalesced(k, in, out, &r, err, sizeof err);
    return e ? op_cuda_fail(&op_rotate, k->variant, err) : GPUIMG_OK;
}
#endif

const struct op_desc op_rotate = {
    .name = "rotate",
    .summary = "rotate clockwise by any angle, multiples of 90 exactly (rotate=90, rotate=-12.5:color=white)",
    .definition =
        "The angle is reduced modulo 360. rotate=90: out(x, y) = in(y, H-1-x); rotate=180: out(x, y) = in(W-1-x, H-1-y); "
        "rotate=270: out(x, y) = in(W-1-y, x); 0: a copy. Exact. Other angles: Cq, Sq = round(2^32 cos), round(2^32 sin) "
        "of the angle; the canvas holds the whole rotated w x h image as vips rotate's does, W = (w|Cq| + h|Sq| + 2^31) >> 32 "
        "by H = (w|Sq| + h|Cq| + 2^31) >> 32, centre on centre: output pixel (i, j) samples the source at (X, Y) / 2^33 "
        "(pixel centres at whole numbers), X = Cq(2i+1-W) + Sq(2j+1-H) + (w-1)2^32, Y = -Sq(2i+1-W) + Cq(2j+1-H) + (h-1)2^32; "
        "taps outside the image read color; >> floors. nearest: pixel ((X + 2^32) >> 33, (Y + 2^32) >> 33). "
        "bilinear and bicubic: per axis the position rounded to 1/16384, q = (X + 2^18) >> 19, t = q & 16383; "
        "bilinear: taps q >> 14 and the next, weights 16384 - t and t; bicubic (Catmull-Rom, vips's): taps (q >> 14) - 1 to + 2, "
        "w0 = (-t^3 + 2^15 t^2 - 2^28 t + 2^28) >> 29, w1 = (3t^3 - 5 2^14 t^2 + 2^43 + 2^28) >> 29, "
        "w3 = (t^3 - 2^14 t^2 + 2^28) >> 29, w2 = 16384 - w0 - w1 - w3. S = sum wy sum wx in, exactly; the sample is "
        "clamp((S + 2^27) >> 28). With alpha the colour is summed premultiplied: alpha from its sum A so, colour C / A rounded "
        "(ties up; 0 where A or C <= 0, the top where C >= top A). vips 8.14 turns about the top left corner, a pixel "
        "off the centre (its rotate 90 drops the first row); given that offset (its idx, idy, odx, ody), its float path is within "
        "1 level of bilinear at 8 bits (4 at 16; 24 with alpha), inside and on the antialiased edges alike, equal to nearest, "
        "and within 3 levels of bicubic (it rounds positions to 1/64). Such a step runs whole, never in tiles.",
    .params = rotate_params,
    .nparams = 3,
    .resolve = rotate_resolve,
    .cpu = rotate_cpu,
    .region = rotate_region,
    .tiles = rotate_tiles,
    GPU_FIELDS(REMAP_KERNELS, KV_TILED, NULL, rotate_gpu, NULL),
    .gpu_auto_for = remap_swap_auto_for,
    .gpu_auto_text = REMAP_SWAP_AUTO_TEXT "; at other angles vector and tiled run perpixel",
    .examples = EXAMPLES("rotate=90", "rotate=30", "rotate=-12.5:color=#1478fa80", "rotate=200:interp=bicubic",
                         "rotate=75:interp=nearest:color=white"),
};
