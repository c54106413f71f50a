/* gpuimg: the pixel remaps that transpose, rotate and flip share, exact for every layout. The maps
 * that swap axes (transpose, rotate=90, rotate=270) are one remapping: output pixel (x', y') comes
 * from source byte offset base + x' * dx + y' * dy, walked in 32x32 tiles so that both the reads and
 * the writes stay within a few cache lines. The maps that keep rows whole (flips, rotate=180) copy
 * or reverse rows. On the GPU all six share one affine pixel map (cuda/remap/). */
#include <config.h>
#include <string.h>
#include "core/error.h"
#include "ops/common/remap.h"
#include "ops/common/simd.h"
#include "cuda/remap/kernels.h"

static int swaps_axes(enum map m) { return m == M_TRANSPOSE || m == M_ROT90 || m == M_ROT270; }

int remap_resolve(enum map m, const struct geom *in, struct geom *out)
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

int remap_cpu(enum map m, const struct image *in, struct image *out)
{
    if (m == M_FLIPV || m == M_COPY) {
        const int flip = m == M_FLIPV;
#pragma omp parallel for schedule(static)
        for (int y = 0; y < out->h; y++)
            memcpy(out->data + (size_t)y * out->stride, in->data + (size_t)(flip ? in->h - 1 - y : y) * in->stride,
                   in->stride);
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
    case M_COPY: break;
    }
    return (struct gpu_map){ 1, 0, 0, 0, 1, 0 };
}

/* A rectangle of the output comes from the rectangle its corners map to, and that rectangle,
 * mapped as a whole image, gives exactly the rectangle asked for. */
void remap_region(enum map m, const struct geom *in, const struct rect *want, struct rect *need,
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
int remap_gpu(const struct op_desc *op, enum map m, const struct gpu_call *k, const struct gpu_image *in,
              const struct gpu_image *out)
{
    const struct gpu_map g = map_coeffs(m, in->w, in->h);
    char err[256];
    return gpu_remap(k, in, out, &g, err, sizeof err) ? op_cuda_fail(op, k->variant, err) : GPUIMG_OK;
}
#endif
