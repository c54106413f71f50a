/* gpuimg: transpose, rotate and flip, exact for every layout. The maps that swap axes (transpose,
 * rotate=90, rotate=270) are one remapping: output pixel (x', y') comes from source byte offset
 * base + x' * dx + y' * dy, walked in 32x32 tiles so that both the reads and the writes stay within
 * a few cache lines. The maps that keep rows whole (flips, rotate=180) copy or reverse rows. On
 * the GPU all six share one affine pixel map (cuda/geometry.cu). */
#include <config.h>
#include <string.h>
#include "error.h"
#include "ops.h"
#include "simd.h"

enum map { M_TRANSPOSE, M_ROT90, M_ROT180, M_ROT270, M_FLIPH, M_FLIPV };

static int swaps_axes(enum map m) { return m == M_TRANSPOSE || m == M_ROT90 || m == M_ROT270; }

static int resolve_map(enum map m, const struct geom *in, struct geom *out)
{
    *out = *in;
    if (swaps_axes(m)) {
        out->w = in->h;
        out->h = in->w;
    }
    return GPUIMG_OK;
}

#define TILE 32

#define DEFINE_REMAP(BPP)                                                                          \
    static void remap_##BPP(const struct image *in, struct image *out, ptrdiff_t base, ptrdiff_t dx, \
                            ptrdiff_t dy)                                                           \
    {                                                                                              \
        const int tw = (out->w + TILE - 1) / TILE, th = (out->h + TILE - 1) / TILE;                \
        _Pragma("omp parallel for schedule(static)")                                               \
        for (int t = 0; t < tw * th; t++) {                                                        \
            const int x0 = (t % tw) * TILE, y0 = (t / tw) * TILE;                                  \
            const int x1 = x0 + TILE < out->w ? x0 + TILE : out->w;                                \
            const int y1 = y0 + TILE < out->h ? y0 + TILE : out->h;                                \
            for (int y = y0; y < y1; y++) {                                                        \
                const uint8_t *s = in->data + base + (ptrdiff_t)y * dy + (ptrdiff_t)x0 * dx;       \
                uint8_t *d = out->data + (size_t)y * out->stride + (size_t)x0 * BPP;               \
                for (int x = x0; x < x1; x++, s += dx, d += BPP)                                   \
                    memcpy(d, s, BPP);                                                             \
            }                                                                                      \
        }                                                                                          \
    }
DEFINE_REMAP(1)
DEFINE_REMAP(2)
DEFINE_REMAP(3)
DEFINE_REMAP(4)
DEFINE_REMAP(6)
DEFINE_REMAP(8)

/* Maps that keep rows whole need no tiles: flip=v copies rows, flip=h and rotate=180 reverse
 * each row (BPP a constant, so the copy is one move per pixel). */
#define DEFINE_REVERSE(BPP)                                                                        \
    HOT static void reverse_##BPP(const struct image *in, struct image *out, int flip_rows)        \
    {                                                                                              \
        _Pragma("omp parallel for schedule(static)")                                               \
        for (int y = 0; y < out->h; y++) {                                                         \
            const uint8_t *s = in->data + (size_t)(flip_rows ? in->h - 1 - y : y) * in->stride;    \
            uint8_t *d = out->data + (size_t)y * out->stride;                                      \
            const int w = in->w;                                                                   \
            for (int x = 0; x < w; x++)                                                            \
                memcpy(d + (size_t)x * BPP, s + (size_t)(w - 1 - x) * BPP, BPP);                   \
        }                                                                                          \
    }
DEFINE_REVERSE(1)
DEFINE_REVERSE(2)
DEFINE_REVERSE(3)
DEFINE_REVERSE(4)
DEFINE_REVERSE(6)
DEFINE_REVERSE(8)

static int run_map(enum map m, const struct image *in, struct image *out)
{
    if (m == M_FLIPV) {
#pragma omp parallel for schedule(static)
        for (int y = 0; y < out->h; y++)
            memcpy(out->data + (size_t)y * out->stride, in->data + (size_t)(in->h - 1 - y) * in->stride, in->stride);
        return GPUIMG_OK;
    }
    if (m == M_FLIPH || m == M_ROT180) {
        const int rows = m == M_ROT180;
        switch (image_bpp(in)) {
        case 1: reverse_1(in, out, rows); break;
        case 2: reverse_2(in, out, rows); break;
        case 3: reverse_3(in, out, rows); break;
        case 4: reverse_4(in, out, rows); break;
        case 6: reverse_6(in, out, rows); break;
        default: reverse_8(in, out, rows); break;
        }
        return GPUIMG_OK;
    }
    const ptrdiff_t b = (ptrdiff_t)image_bpp(in), s = (ptrdiff_t)in->stride;
    const ptrdiff_t lastx = (ptrdiff_t)(in->w - 1) * b, lasty = (ptrdiff_t)(in->h - 1) * s;
    ptrdiff_t base = 0, dx = b, dy = s;
    switch (m) {
    case M_TRANSPOSE: dx = s; dy = b; break;
    case M_ROT90: base = lasty; dx = -s; dy = b; break;       /* clockwise */
    case M_ROT270: base = lastx; dx = s; dy = -b; break;      /* counter-clockwise */
    default: break;                                            /* row-keeping maps: handled above */
    }
    switch (b) {
    case 1: remap_1(in, out, base, dx, dy); break;
    case 2: remap_2(in, out, base, dx, dy); break;
    case 3: remap_3(in, out, base, dx, dy); break;
    case 4: remap_4(in, out, base, dx, dy); break;
    case 6: remap_6(in, out, base, dx, dy); break;
    case 8: remap_8(in, out, base, dx, dy); break;
    default: return gpuimg_fail(GPUIMG_EINTERNAL, "no remap for %d bytes per pixel", (int)b);
    }
    return GPUIMG_OK;
}

/* The six maps as source (x, y) = (ax x' + bx y' + cx, ay x' + by y' + cy) for output (x', y'),
 * on an input of w x h: the kernels' form, and the tiles' (region). */
static struct gpu_map map_coeffs(enum map m, int w, int h)
{
    const int w1 = w - 1, h1 = h - 1;
    switch (m) {
    case M_TRANSPOSE: return (struct gpu_map){ 0, 1, 0, 1, 0, 0 };
    case M_ROT90: return (struct gpu_map){ 0, 1, 0, -1, 0, h1 };
    case M_ROT180: return (struct gpu_map){ -1, 0, w1, 0, -1, h1 };
    case M_ROT270: return (struct gpu_map){ 0, -1, w1, 1, 0, 0 };
    case M_FLIPH: return (struct gpu_map){ -1, 0, w1, 0, 1, 0 };
    case M_FLIPV: return (struct gpu_map){ 1, 0, 0, 0, -1, h1 };
    }
    return (struct gpu_map){ 1, 0, 0, 0, 1, 0 };
}

/* A rectangle of the output comes from the rectangle its corners map to, and that rectangle,
 * mapped as a whole image, gives exactly the rectangle asked for. */
static void map_region(enum map m, const struct geom *in, const struct rect *want, struct rect *need,
                       struct rect *yields)
{
    const struct gpu_map g = map_coeffs(m, in->w, in->h);
    const int x0 = want->x, y0 = want->y, x1 = want->x + want->w - 1, y1 = want->y + want->h - 1;
    const int sx0 = g.ax * x0 + g.bx * y0 + g.cx, sx1 = g.ax * x1 + g.bx * y1 + g.cx;
    const int sy0 = g.ay * x0 + g.by * y0 + g.cy, sy1 = g.ay * x1 + g.by * y1 + g.cy;
    need->x = sx0 < sx1 ? sx0 : sx1;
    need->y = sy0 < sy1 ? sy0 : sy1;
    need->w = (sx0 < sx1 ? sx1 - sx0 : sx0 - sx1) + 1;
    need->h = (sy0 < sy1 ? sy1 - sy0 : sy0 - sy1) + 1;
    *yields = *want;
}

#ifdef HAVE_CUDA
static int gpu_run_map(const struct op_desc *op, enum map m, int variant, const struct gpu_image *in,
                       const struct gpu_image *out)
{
    const struct gpu_map g = map_coeffs(m, in->w, in->h);
    char err[256];
    return gpu_remap(variant, in, out, &g, err, sizeof err) ? op_cuda_fail(op, variant, err) : GPUIMG_OK;
}
#endif
/* vector: tiles of aligned 16-byte words for the maps that swap axes, mirrored row chunks for the
 * maps that keep rows whole */
#define GEOMETRY_KERNELS (KV_BIT(KV_PERPIXEL) | KV_BIT(KV_COALESCED) | KV_BIT(KV_TILED) | KV_BIT(KV_VECTOR))
/* Measured on an H200 (bench/RESULTS.md): vector wins for every pixel size up to 6 bytes, most for
 * rows that are not word-aligned; 8-byte pixels (RGBA 16-bit) move whole through tiled's tile faster. */
static int swap_auto_for(const struct geom *in) { return in->c * (in->depth / 8) == 8 ? KV_TILED : KV_VECTOR; }
#define SWAP_AUTO_TEXT "vector, but tiled for RGBA 16-bit"

/* transpose */
static int transpose_resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    return resolve_map(M_TRANSPOSE, in, out);
}
static int transpose_cpu(const struct op_args *a, const struct image *in, struct image *out)
{
    return run_map(M_TRANSPOSE, in, out);
}
static void transpose_region(const struct op_args *a, const struct geom *in, const struct geom *out,
                             const struct rect *want, struct rect *need, struct rect *yields)
{
    map_region(M_TRANSPOSE, in, want, need, yields);
}
#ifdef HAVE_CUDA
static int transpose_gpu(const struct op_args *a, const struct gpu_tables *t, int variant, const struct gpu_image *in,
                         const struct gpu_image *out)
{
    return gpu_run_map(&op_transpose, M_TRANSPOSE, variant, in, out);
}
#endif
const struct op_desc op_transpose = {
    .name = "transpose",
    .summary = "swap rows and columns (mirror across the main diagonal)",
    .definition = "out(x, y) = in(y, x); a WxH image becomes HxW. Exact.",
    .resolve = transpose_resolve,
    .cpu = transpose_cpu,
    .region = transpose_region,
    GPU_FIELDS(GEOMETRY_KERNELS, KV_TILED, NULL, transpose_gpu),
    .gpu_auto_for = swap_auto_for,
    .gpu_auto_text = SWAP_AUTO_TEXT,
};

/* rotate */
static const struct op_param rotate_params[] = {
    { "angle", PARAM_CHOICE, 0, 0, 0, "90|180|270", NULL, "degrees clockwise" },
};
static enum map rotate_map(const struct op_args *a)
{
    static const enum map m[] = { M_ROT90, M_ROT180, M_ROT270 };
    return m[a->v[0].choice];
}
static int rotate_resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    return resolve_map(rotate_map(a), in, out);
}
static int rotate_cpu(const struct op_args *a, const struct image *in, struct image *out)
{
    return run_map(rotate_map(a), in, out);
}
static void rotate_region(const struct op_args *a, const struct geom *in, const struct geom *out,
                          const struct rect *want, struct rect *need, struct rect *yields)
{
    map_region(rotate_map(a), in, want, need, yields);
}
#ifdef HAVE_CUDA
static int rotate_gpu(const struct op_args *a, const struct gpu_tables *t, int variant, const struct gpu_image *in,
                      const struct gpu_image *out)
{
    return gpu_run_map(&op_rotate, rotate_map(a), variant, in, out);
}
#endif
const struct op_desc op_rotate = {
    .name = "rotate",
    .summary = "rotate clockwise by 90, 180 or 270 degrees (rotate=90)",
    .definition = "rotate=90: out(x, y) = in(y, H-1-x); rotate=180: out(x, y) = in(W-1-x, H-1-y); "
                  "rotate=270: out(x, y) = in(W-1-y, x). Exact.",
    .params = rotate_params,
    .nparams = 1,
    .resolve = rotate_resolve,
    .cpu = rotate_cpu,
    .region = rotate_region,
    GPU_FIELDS(GEOMETRY_KERNELS, KV_TILED, NULL, rotate_gpu),
    .gpu_auto_for = swap_auto_for,
    .gpu_auto_text = SWAP_AUTO_TEXT,
};

/* flip */
static const struct op_param flip_params[] = {
    { "axis", PARAM_CHOICE, 0, 0, 0, "h|v", NULL, "h: mirror left-right; v: mirror top-bottom" },
};
static int flip_resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    return resolve_map(a->v[0].choice ? M_FLIPV : M_FLIPH, in, out);
}
static int flip_cpu(const struct op_args *a, const struct image *in, struct image *out)
{
    return run_map(a->v[0].choice ? M_FLIPV : M_FLIPH, in, out);
}
static void flip_region(const struct op_args *a, const struct geom *in, const struct geom *out,
                        const struct rect *want, struct rect *need, struct rect *yields)
{
    map_region(a->v[0].choice ? M_FLIPV : M_FLIPH, in, want, need, yields);
}
/* Measured on an H200 (bench/RESULTS.md, 20th session): vector's mirrored chunks at 82-98% of the
 * device copy where coalesced reached 33-72%, but no faster for RGB 16-bit (6-byte pixels). */
static int flip_auto_for(const struct geom *in) { return in->c * (in->depth / 8) == 6 ? KV_COALESCED : KV_VECTOR; }
#ifdef HAVE_CUDA
static int flip_gpu(const struct op_args *a, const struct gpu_tables *t, int variant, const struct gpu_image *in,
                    const struct gpu_image *out)
{
    return gpu_run_map(&op_flip, a->v[0].choice ? M_FLIPV : M_FLIPH, variant, in, out);
}
#endif
const struct op_desc op_flip = {
    .name = "flip",
    .summary = "mirror horizontally (flip=h) or vertically (flip=v)",
    .definition = "flip=h: out(x, y) = in(W-1-x, y); flip=v: out(x, y) = in(x, H-1-y). Exact.",
    .params = flip_params,
    .nparams = 1,
    .resolve = flip_resolve,
    .cpu = flip_cpu,
    .region = flip_region,
    GPU_FIELDS(GEOMETRY_KERNELS, KV_VECTOR, NULL, flip_gpu),
    .gpu_auto_for = flip_auto_for,
    .gpu_auto_text = "vector, but coalesced for RGB 16-bit",
};
