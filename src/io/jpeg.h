/* gpuimg: JPEG through libjpeg-turbo (HAVE_LIBJPEG builds; stb_image otherwise and for
 * --jpeg-decoder=stb). Both return a gpuimg_status naming name. */
#ifndef GPUIMG_JPEG_H
#define GPUIMG_JPEG_H
#include <stdint.h>
#include <stdio.h>
#include "core/image.h"

struct io_meta;

/* Decode len bytes into out (8 bits; grey 1 channel, colour and CMYK 3), shrunk by the DCT
 * scaling by 1/denom (1, 2, 4 or 8: ceil(w / denom) x ceil(h / denom)), which must come out with
 * the geometry want; a file whose data ends early or is corrupt is an error. rows (may be NULL)
 * is told as rows are complete. out->data not NULL: a buffer of want's geometry to decode into,
 * which stays the caller's (a failure leaves it allocated: others may be reading its rows);
 * NULL: allocated here, freed on failure. */
int jpeg_decode(const char *name, const uint8_t *buf, size_t len, int denom, const struct geom *want,
                struct image *out, const struct image_rows *rows);

struct jpeg_opts {
    int quality;        /* 1..100 */
    int sampling;       /* chroma: 420, 422 or 444 */
    int progressive;
    const struct io_meta *meta;   /* density, EXIF and profile to write (io/meta.h), or NULL */
};
/* im (grey or RGB, 8 or 16 bits, rounded to 8) to fp: grey as one component, RGB as YCbCr (an
 * image with alpha is flattened before: io_check_size). The metadata goes in as
 * meta_jpeg_segments makes it. */
int jpeg_encode(FILE *fp, const char *name, const struct image *im, const struct jpeg_opts *o);
const char *jpeg_codec_name(void);   /* "libjpeg-turbo 2.1.5" */

#endif
