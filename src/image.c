/* gpuimg: image allocation with size checks (see image.h). */
#include <config.h>
#include <stdint.h>
#include <stdlib.h>
#include "error.h"
#include "image.h"

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
}

void image_free(struct image *im)
{
    free(im->data);
    im->data = NULL;
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
