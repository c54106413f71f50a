/* gpuimg: TIFF through libtiff (HAVE_TIFF builds; otherwise each call refuses, saying why). The
 * first image of a file is read: grey and RGB, with or without alpha, 8 or 16 bits, in strips or
 * tiles, samples together or in planes, every compression libtiff decodes, straight from its
 * samples; any other kind (palette, CMYK, YCbCr, 1 to 4 bits, floats) through libtiff's RGBA
 * reader as 8-bit RGB or RGBA; a file whose strips (or tiles) cannot hold its pixels is refused
 * before they are allocated (tiff.c's strips_check). Every call returns a gpuimg_status naming
 * name. */
#ifndef GPUIMG_IO_TIFF_H
#define GPUIMG_IO_TIFF_H
#include <stdint.h>
#include <stdio.h>
#include "core/image.h"

struct io_meta;

int tiff_info(const char *name, const uint8_t *buf, size_t len, struct geom *g);
/* Decode into out (allocated here with g's geometry, which tiff_info gave; freed on failure). */
int tiff_decode(const char *name, const uint8_t *buf, size_t len, const struct geom *g, struct image *out);
/* The ICC profile and the resolution (in inches or centimetres) into m (zeroed first). */
int tiff_meta(const uint8_t *buf, size_t len, struct io_meta *m);
/* im to fp: deflate with the horizontal predictor, alpha as unassociated, with meta's profile
 * (where it fits), density and EXIF (an EXIF directory where libtiff takes any of its entries):
 * metadata never fails the file. */
int tiff_encode(FILE *fp, const char *name, const struct image *im, const struct io_meta *meta);
/* 0 once libtiff is loaded (at the first call: core/dynlib.h); else the failure, recorded for name */
int tiff_need(const char *name);
const char *tiff_codec_name(void);   /* "libtiff 4.5.0", or NULL without it */

#endif
