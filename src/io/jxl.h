/* gpuimg: JPEG XL through libjxl (HAVE_JXL builds; otherwise each call refuses, saying why). The
 * first displayed frame is read, turned and mirrored as its codestream's orientation asks (libjxl
 * applies it; EXIF's orientation is informative in JPEG XL, so it is made 1). All return a
 * gpuimg_status naming name. */
#ifndef GPUIMG_IO_JXL_H
#define GPUIMG_IO_JXL_H
#include <stdint.h>
#include <stdio.h>
#include "core/image.h"

struct io_meta;

/* The header's geometry, as displayed: grey, grey+alpha, RGB or RGBA as the image has; 8 bits,
 * or 16 where its samples have more than 8 bits or are floating point (libjxl scales them to the
 * 16-bit range; floats clamped to 0..1). An animation's frames are counted into *frames (1 for a
 * still), walking their headers: a file that ends before its last frame is refused here. *hold:
 * the bytes a pixel libjxl may hold beside the pixels it hands over: three planes of 4-byte
 * samples for the colour, whatever its channels (XYB; grey too), and 16 bytes for each extra
 * channel (alpha among them: its 32-bit integers, then floats), twice that for an animation (the
 * canvas its frames are composed on). It decodes every channel, those it does not hand over too. */
int jxl_info(const char *name, const uint8_t *buf, size_t len, struct geom *g, int *frames, unsigned *hold);
/* The first displayed frame into out (allocated here with g's geometry; freed on failure), on
 * threads threads (libjxl's thread runner; 0 or 1: this one). Colour as its profile says it,
 * but for XYB-coded (lossy) pixels whose profile is an ICC one: those come as sRGB. */
int jxl_decode(const char *name, const uint8_t *buf, size_t len, const struct geom *g, int threads,
               struct image *out);
/* The ICC profile of the pixels jxl_decode gives (none for plain sRGB), the Exif box's EXIF
 * (orientation made 1) and the "xml " box's XMP into m (zeroed first); a broken file leaves m
 * empty. */
int jxl_meta(const uint8_t *buf, size_t len, struct io_meta *m);
/* gpuimg info from a file's first len bytes (size: the whole file's): jxl_info's geometry and
 * frames and jxl_meta's pieces where those bytes hold them all (the header; a container's
 * metadata boxes before a codestream box that ends the file; a still image), GPUIMG_OK; else
 * non-zero, m left empty, and the whole file must be read. */
int jxl_head(const uint8_t *buf, size_t len, size_t size, struct geom *g, int *frames, struct io_meta *m);
/* im to fp: lossy at Butteraugli distance distance / 1000 (1000: cjxl's default), or lossless
 * (distance 0: the samples exactly, the profile as it is), at effort 1..9 (libjxl's), on threads
 * threads; meta's ICC profile (where it fits and libjxl takes it, else sRGB), EXIF and XMP
 * (as Exif and "xml " boxes, in the container) put in. */
int jxl_encode(FILE *fp, const char *name, const struct image *im, int distance, int effort, int threads,
               const struct io_meta *meta);
/* 0 once libjxl and libjxl_threads are loaded (at the first call: core/dynlib.h); else the
 * failure, recorded for name */
int jxl_need(const char *name);
const char *jxl_codec_name(void);   /* "libjxl 0.7.0", or NULL without it */
/* Once, before any thread starts: stderr (the variable) becomes a stream to the same place that
 * drops the lines libjxl prints of its own (its failures: gpuimg says one line of each file). */
void jxl_quiet_stderr(void);

#endif
