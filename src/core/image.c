/* gpuimg: image allocation with size checks (see image.h). */
#include <config.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/image.h"

int geom_bytes(const struct geom *g, size_t *bytes)
{
    if (g->w <= 0 || g->h <= 0)
        return gpuimg_fail(GPUIMG_EINTERNAL, "image of %dx%d pixels", g->w, g->h);
    if (g->c < 1 || g->c > 4 || (g->depth != 8 && g->depth != 16))
        return gpuimg_fail(GPUIMG_EINTERNAL, "unsupported layout: %d channels, %d bits", g->c, g->depth);
    size_t row = (size_t)g->w * geom_bpp(g);
    if (row / geom_bpp(g) != (size_t)g->w || (size_t)g->h > SIZE_MAX / row)
        return gpuimg_fail(GPUIMG_ETOOBIG, "%dx%d pixels: size does not fit in memory arithmetic", g->w, g->h);
    *bytes = row * (size_t)g->h;
    return GPUIMG_OK;
}

int image_alloc(struct image *im, const struct geom *g)
{
    size_t n;
    int st = geom_bytes(g, &n);
    if (st)
        return st;
    void *p = malloc(n);
    if (!p)
        return gpuimg_fail(GPUIMG_ENOMEM, "out of memory allocating a %dx%d %s %d-bit image (%zu bytes)",
                           g->w, g->h, layout_name(g->c), g->depth, n);
    image_wrap(im, g, p);
    return GPUIMG_OK;
}

void image_wrap(struct image *im, const struct geom *g, void *data)
{
    im->w = g->w;
    im->h = g->h;
    im->c = g->c;
    im->depth = g->depth;
    im->stride = (size_t)g->w * geom_bpp(g);
    im->data = data;
    im->borrowed = 0;
}

void image_free(struct image *im)
{
    if (!im->borrowed)
        free(im->data);
    im->data = NULL;
    im->borrowed = 0;
}

const char *layout_name(int channels)
{
    static const char *const n[] = { "?", "gray", "gray+alpha", "RGB", "RGBA" };
    return (channels >= 1 && channels <= 4) ? n[channels] : "?";
}

double geom_size(const struct geom *g)
{
    size_t b = 0;
    geom_bytes(g, &b);
    return (double)b;
}

/* A row is tested as 8-byte words ANDed together: a pixel is 2, 4 or 8 bytes and rows start on a
 * pixel, so the alpha bytes sit at the same places of every word (mask); the loop vectorises. */
static int row_opaque(const uint8_t *p, size_t n, const uint8_t mask[8])
{
    uint64_t m, acc = ~(uint64_t)0;
    memcpy(&m, mask, 8);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, p + i, 8);
        acc &= v;
        if ((i & 4095) == 4088 && (acc & m) != m)   /* stop early on transparency */
            return 0;
    }
    for (; i < n; i++)   /* the row's last pixels when it is not whole words */
        if (mask[i & 7] && p[i] != 0xff)
            return 0;
    return (acc & m) == m;
}

int image_opaque_rows(const struct image *im, uint8_t *flags)
{
    const size_t bpp = image_bpp(im), sample = (size_t)im->depth / 8;
    uint8_t mask[8];
    for (int i = 0; i < 8; i++)   /* the alpha sample is a pixel's last */
        mask[i] = has_alpha(im->c) && (size_t)i % bpp >= bpp - sample ? 0xff : 0;
    int count = 0;
#pragma omp parallel for schedule(static) reduction(+ : count)
    for (int y = 0; y < im->h; y++) {
        flags[y] = (uint8_t)row_opaque(im->data + (size_t)y * im->stride, (size_t)im->w * bpp, mask);
        count += flags[y];
    }
    return count;
}
