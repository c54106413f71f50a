/* gpuimg: colour converted to sRGB through LittleCMS 2 (HAVE_LCMS2 builds; otherwise the
 * conversion is refused, saying why): --profile=srgb. The pixels go from the input's embedded
 * ICC profile to sRGB, relative colorimetric intent without black point compensation (vips's
 * icc_transform's defaults), 8 or 16 bits kept, alpha copied; the output then carries LittleCMS's
 * sRGB profile. Inputs without a profile, or grey ones, are taken as they are. */
#ifndef GPUIMG_IO_ICC_H
#define GPUIMG_IO_ICC_H
#include <stdint.h>
#include "core/image.h"

struct io_meta;
struct icc_xform;

/* The transform for images of g described by m's profile, into *x (NULL where none is needed:
 * no profile, a grey image, or a profile that does not describe RGB); then m's profile becomes
 * sRGB's. A profile LittleCMS cannot read is an error naming name. */
int icc_srgb_prepare(const char *name, struct io_meta *m, const struct geom *g, struct icc_xform **x);
/* im's pixels through x, in place, on every thread. */
void icc_apply(struct icc_xform *x, struct image *im);
void icc_free(struct icc_xform *x);
const char *icc_codec_name(void);   /* "LittleCMS 2.14", or NULL without it */

/* A CMYK JPEG's colours through its embedded profile (icc, len bytes) to sRGB, relative
 * colorimetric as above: the transform of rows of Adobe's inverted CMYK samples (255: no ink, as
 * libjpeg gives them) to 8-bit RGB, or NULL where there is no profile, it is not CMYK, LittleCMS
 * cannot read it, or this build has no LittleCMS (the caller then scales each colour by the
 * black). */
struct icc_xform *icc_cmyk_prepare(const uint8_t *icc, size_t len);
void icc_cmyk_row(struct icc_xform *x, const uint8_t *in, uint8_t *out, int w);

#endif
