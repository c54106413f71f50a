/* gpuimg tests: write a TIFF with libtiff itself (not gpuimg's writer), and beside it the PNG of
 * the pixels gpuimg must read from it. mktiff W H CHANNELS DEPTH OUT.tif SEED LAYOUT
 * LAYOUT: strips (deflate), tiles (16x16, LZW), planar (planes apart), assoc (associated alpha:
 * alpha the maximum but 0 on columns [w/4, w/2), where the colour stored and expected is 0),
 * palette (8-bit grey as indices into a colour map: libtiff's RGBA reader, expected as RGB). The
 * PNG is OUT.tif with .png for .tif. */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include "core/error.h"
#include "io/io.h"
#include "testutil.h"

/* 8-bit grey as indices into a colour map where index i is (i, 255 - i, 7i mod 256); im becomes
 * the RGB it stands for */
static int write_palette(TIFF *t, struct image *im)
{
    const struct geom g0 = image_geom(im), *g = &g0;
    uint16_t map[3][256];
    for (int i = 0; i < 256; i++) {
        map[0][i] = (uint16_t)(i * 257);
        map[1][i] = (uint16_t)((255 - i) * 257);
        map[2][i] = (uint16_t)((i * 7 & 255) * 257);
    }
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, (uint32_t)g->w);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, (uint32_t)g->h);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_PALETTE);
    TIFFSetField(t, TIFFTAG_COLORMAP, map[0], map[1], map[2]);
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 5u);
    int bad = 0;
    for (int y = 0; y < g->h; y++)
        bad |= TIFFWriteScanline(t, im->data + (size_t)y * im->stride, (uint32_t)y, 0) < 0;
    struct image rgb;
    const struct geom g3 = { g->w, g->h, 3, 8 };
    if (bad || image_alloc(&rgb, &g3))
        return 1;
    for (int y = 0; y < g->h; y++)
        for (int x = 0; x < g->w; x++)
            for (int k = 0; k < 3; k++)
                rgb.data[(size_t)y * rgb.stride + (size_t)x * 3 + k] =
                    (uint8_t)(map[k][im->data[(size_t)y * im->stride + x]] >> 8);
    image_free(im);
    *im = rgb;
    return 0;
}

static int write_samples(TIFF *t, const struct image *im, const char *layout)
{
    const struct geom g0 = image_geom(im), *g = &g0;
    const int bps = g->depth / 8, alpha = g->c == 2 || g->c == 4;
    const int planar = !strcmp(layout, "planar"), tiles = !strcmp(layout, "tiles");
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, (uint32_t)g->w);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, (uint32_t)g->h);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, (uint16_t)g->depth);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)g->c);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, g->c <= 2 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, planar ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_COMPRESSION, tiles ? COMPRESSION_LZW : COMPRESSION_ADOBE_DEFLATE);
    if (alpha) {
        const uint16_t extra[1] = { !strcmp(layout, "assoc") ? EXTRASAMPLE_ASSOCALPHA : EXTRASAMPLE_UNASSALPHA };
        TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, extra);
    }
    const size_t bpp = (size_t)g->c * bps;
    int bad = 0;
    if (tiles) {
        const uint32_t n = 16;
        TIFFSetField(t, TIFFTAG_TILEWIDTH, n);
        TIFFSetField(t, TIFFTAG_TILELENGTH, n);
        uint8_t *tile = calloc((size_t)n * n, bpp);
        for (uint32_t y = 0; y < (uint32_t)g->h; y += n)
            for (uint32_t x = 0; x < (uint32_t)g->w; x += n) {
                memset(tile, 0, (size_t)n * n * bpp);
                for (uint32_t r = 0; r < n && y + r < (uint32_t)g->h; r++)
                    memcpy(tile + (size_t)r * n * bpp, im->data + (size_t)(y + r) * im->stride + x * bpp,
                           (x + n <= (uint32_t)g->w ? n : g->w - x) * bpp);
                bad |= TIFFWriteTile(t, tile, x, y, 0, 0) < 0;
            }
        free(tile);
    } else {
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 7u);
        uint8_t *row = malloc((size_t)g->w * bpp);
        for (int s = 0; s < (planar ? g->c : 1); s++)
            for (int y = 0; y < g->h; y++) {
                const uint8_t *src = im->data + (size_t)y * im->stride;
                if (planar)   /* sample s of each pixel */
                    for (int x = 0; x < g->w; x++)
                        memcpy(row + (size_t)x * bps, src + (size_t)x * bpp + (size_t)s * bps, (size_t)bps);
                else
                    memcpy(row, src, (size_t)g->w * bpp);
                bad |= TIFFWriteScanline(t, row, (uint32_t)y, (uint16_t)s) < 0;
            }
        free(row);
    }
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 8) {
        fprintf(stderr, "usage: mktiff W H CHANNELS DEPTH OUT.tif SEED strips|tiles|planar|assoc|palette\n");
        return 2;
    }
    const struct geom g = { atoi(argv[1]), atoi(argv[2]), atoi(argv[3]), atoi(argv[4]) };
    const char *layout = argv[7];
    struct image im;
    if (test_make_image(&im, &g, (uint32_t)atoi(argv[6]))) {
        fprintf(stderr, "mktiff: %s\n", gpuimg_errmsg());
        return 1;
    }
    const int bps = g.depth / 8, alpha = g.c == 2 || g.c == 4, max = g.depth == 16 ? 65535 : 255;
    if (!strcmp(layout, "assoc") && alpha)   /* alpha max or 0; colour 0 under 0 */
        for (int y = 0; y < g.h; y++)
            for (int x = 0; x < g.w; x++)
                for (int k = 0; k < g.c; k++) {
                    const int zero = x >= g.w / 4 && x < g.w / 2;
                    const int v = k == g.c - 1 ? (zero ? 0 : max) : -1;
                    uint8_t *p = im.data + (size_t)y * im.stride + ((size_t)x * g.c + k) * bps;
                    if (v >= 0 || zero) {
                        const uint16_t w16 = (uint16_t)(v < 0 ? 0 : v);
                        if (bps == 2)
                            memcpy(p, &w16, 2);
                        else
                            *p = (uint8_t)w16;
                    }
                }
    TIFF *t = TIFFOpen(argv[5], "w");
    if (!t)
        return 1;
    if (!strcmp(layout, "palette") && (g.c != 1 || g.depth != 8))
        return 2;
    const int bad = !strcmp(layout, "palette") ? write_palette(t, &im) : write_samples(t, &im, layout);
    TIFFClose(t);
    char png[4096];
    snprintf(png, sizeof png, "%.*s.png", (int)(strlen(argv[5]) - 4), argv[5]);
    struct save_opts so = { .fmt = FMT_PNG, .png_level = 6, .jpeg_quality = 90, .force = 1 };
    if (bad || io_save(png, &im, &so)) {
        fprintf(stderr, "mktiff: %s\n", bad ? "libtiff failed" : gpuimg_errmsg());
        return 1;
    }
    image_free(&im);
    return 0;
}
