/* gpuimg: the PNG encoder that uses several threads for one image (see pngenc.c). */
#ifndef GPUIMG_PNGENC_H
#define GPUIMG_PNGENC_H
#include <stdio.h>
#include "core/image.h"

/* Write im as PNG to fp at zlib level 0..9 on up to threads threads. name is for messages. */
int pngenc_write(FILE *fp, const char *name, const struct image *im, int level, int threads);
/* The deflater pngenc_write uses for im on threads threads ("libdeflate", "zlib, strips joined"). */
const char *pngenc_name(const struct image *im, int threads);

#endif
