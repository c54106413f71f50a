/* gpuimg: WebP through libwebp (HAVE_WEBP builds; otherwise each call refuses, saying why). All
 * return a gpuimg_status naming name. */
#ifndef GPUIMG_IO_WEBP_H
#define GPUIMG_IO_WEBP_H
#include <stdint.h>
#include <stdio.h>
#include "core/image.h"

struct io_meta;

/* The header's geometry: RGB, or RGBA where the file has alpha, 8 bits; an animation's canvas,
 * RGBA, its frame count in *frames (1 for a still). */
int webp_info(const char *name, const uint8_t *buf, size_t len, struct geom *g, int *frames);
/* Decode into out (allocated here with g's geometry; freed on failure): an animation's first
 * frame on its canvas, as libwebpdemux's animation decoder composes it. */
int webp_decode(const char *name, const uint8_t *buf, size_t len, const struct geom *g, struct image *out);
/* The ICCP and EXIF chunks into m (zeroed first); a broken container leaves m empty. */
int webp_meta(const uint8_t *buf, size_t len, struct io_meta *m);
/* im (grey as RGB, 16 bits rounded to 8: WebP holds neither) to fp: lossy at quality 0..100, or
 * lossless, at effort 0..6 (libwebp's method); meta's profile (where it fits) and EXIF as chunks. */
int webp_encode(FILE *fp, const char *name, const struct image *im, int quality, int lossless, int effort,
                const struct io_meta *meta);
const char *webp_codec_name(void);   /* "libwebp 1.2.4", or NULL without it */

#endif
