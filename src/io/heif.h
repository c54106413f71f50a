/* gpuimg: HEIF (HEIC: HEVC inside) and AVIF (AV1 inside) through libheif (HAVE_HEIF builds;
 * otherwise each call refuses, saying why). The primary image is read, with the turns and
 * mirrors its container asks for applied (HEIF's own orientation: EXIF's is informative there,
 * so it is made 1). All return a gpuimg_status naming name. */
#ifndef GPUIMG_IO_HEIF_H
#define GPUIMG_IO_HEIF_H
#include <stdint.h>
#include <stdio.h>
#include "core/image.h"

struct io_meta;

/* The primary image's geometry: RGB, or RGBA where it has alpha; 8 bits, or 16 where its luma
 * has more than 8 (10 and 12-bit samples are scaled to 16 bits, v * 65535 / (2^bits - 1),
 * rounded). */
int heif_info(const char *name, const uint8_t *buf, size_t len, struct geom *g);
/* Decode into out (allocated here with g's geometry; freed on failure). */
int heif_decode(const char *name, const uint8_t *buf, size_t len, const struct geom *g, struct image *out);
/* The primary image's ICC profile and EXIF into m (zeroed first); a broken container leaves m
 * empty. */
int heif_meta(const uint8_t *buf, size_t len, struct io_meta *m);
/* im (grey as RGB, 16 bits rounded to 8) to fp as HEIC (avif 0: HEVC, x265) or AVIF (avif 1:
 * AV1, aom) at quality 0..100 and effort 0..9 (aom's speed 9 - effort; x265's preset ultrafast
 * to placebo, medium at 4), 4:2:0; meta's profile (where it fits) and EXIF put in. */
int heif_encode(FILE *fp, const char *name, const struct image *im, int avif, int quality, int effort,
                const struct io_meta *meta);
/* 0 once libheif is loaded (at the first call: core/dynlib.h); else the failure, recorded for name */
int heif_need(const char *name);
const char *heif_codec_name(void);      /* "libheif 1.15.1", or NULL without it */
int heif_can_write(int avif);           /* whether libheif has an encoder for HEIC (0) or AVIF (1) */

#endif
