/* gpuimg: the PNG encoder that uses several threads for one image (see pngenc.c). */
#ifndef GPUIMG_PNGENC_H
#define GPUIMG_PNGENC_H
#include <stdio.h>
#include "core/image.h"

struct io_meta;   /* io/meta.h: what goes in beside the pixels; NULL: nothing */

/* Write im as PNG to fp at zlib level 0..9 on up to threads threads, with meta's profile, EXIF
 * and density (meta may be NULL). name is for messages. */
int pngenc_write(FILE *fp, const char *name, const struct image *im, int level, int threads, const struct io_meta *meta);
/* Deflate with zlib even where libdeflate is built in (a measuring knob, GPUIMG_PNG_ZLIB); set
 * once, before any work. */
void pngenc_use_zlib(int on);
/* The deflater pngenc_write uses for an image of g on threads threads ("libdeflate", "zlib, strips joined"). */
const char *pngenc_name(const struct geom *g, int threads);

/* pngenc_write in its parts, for rows that come over time: begin cuts an image of g into the
 * strips pngenc_write would (the file is the same byte for byte); pngenc_strip encodes strip k
 * from im's rows y0 - 1 .. y1 - 1 (the row above is the first row's filter context), on any
 * thread, each strip once; pngenc_end writes the file once every strip is encoded. */
struct pngenc;
int pngenc_begin(struct pngenc **e, const char *name, const struct geom *g, int level, int threads,
                 const struct io_meta *meta);
int pngenc_strips(const struct pngenc *e);
void pngenc_strip_rows(const struct pngenc *e, int k, int *y0, int *y1);
int pngenc_strip(struct pngenc *e, const struct image *im, int k);
int pngenc_end(struct pngenc *e, FILE *fp, const char *name);
void pngenc_free(struct pngenc *e);

/* A PNG from rows filtered and deflated elsewhere (nvCOMP's batched deflate on the GPU):
 * chunks[k], lens[k] bytes, is a complete raw deflate stream (ending in a final block) of the
 * next part of the filtered rows ((1 + w * bytes a pixel) a row, its filter type first). Each but
 * the last is made to continue as a strip is, in place: its buffer needs 6 bytes of room after
 * lens[k]. Where raw (may be NULL) gives a chunk's filtered bytes, raw[k] (raw_lens[k] bytes), they
 * are deflated here at level too and the smaller stream kept. Inflating every chunk (on up to
 * threads threads) finds its blocks, gives the Adler-32 of the data and checks that the chunks
 * hold exactly the rows. */
int pngenc_write_chunks(FILE *fp, const char *name, const struct geom *g, int level, uint8_t *const *chunks,
                        const size_t *lens, const uint8_t *const *raw, const size_t *raw_lens, int n, int threads,
                        const struct io_meta *meta);

#endif
