/* gpuimg: PNG decoding. The common kinds (8 and 16 bits, grey, grey+alpha, RGB, RGBA, not
 * interlaced, no tRNS) are inflated whole by libdeflate, which checks the Adler-32, and
 * unfiltered in place; every other kind (palette, 1/2/4 bits, tRNS, Adam7), and every file
 * with force_libpng, goes through libpng. Both give what stb_image gives: palette and tRNS
 * expanded to RGB(A), low bit depths scaled to 8 bits, 16-bit samples in host order. */
#ifndef GPUIMG_PNGDEC_H
#define GPUIMG_PNGDEC_H
#include <stddef.h>
#include <stdint.h>
#include "core/image.h"
#include "io/formats.h"

/* Decode buf (a PNG whose chunk walk passed: formats.h's png_check, which found f) into out,
 * which must come out with the geometry want the header gave. *codec names the decoder that
 * ran. Returns a gpuimg_status naming name. */
int png_decode(const char *name, const uint8_t *buf, size_t len, const struct geom *want, const struct png_facts *f,
               int force_libpng, struct image *out, const char **codec);
const char *png_libpng_name(void);   /* "libpng 1.6.39" */

#endif
