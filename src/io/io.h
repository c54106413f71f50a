/* gpuimg: reading and writing image files. Loading reads the whole file (or stdin), checks the
 * container (formats.h) and the header against the pixel limit before any large allocation,
 * then decodes (8 or 16 bits kept): PNG with pngdec (libdeflate, libpng), JPEG with
 * libjpeg-turbo, the other formats (and any, on request) with stb_image. Saving writes PNG with
 * pngenc (deflated on several threads, in libpng's container), JPEG with libjpeg-turbo, BMP and
 * TGA with stb_image_write, always into a temporary file beside the output that is renamed into
 * place only when complete; nothing is left behind on failure. */
#ifndef GPUIMG_IO_H
#define GPUIMG_IO_H
#include <stdint.h>
#include <stdio.h>
#include "core/image.h"
#include "io/formats.h"
#include "io/meta.h"
#include "io/output.h"

struct pngenc;   /* io/pngenc.h */

enum out_format { FMT_PNG, FMT_JPEG, FMT_BMP, FMT_TGA, FMT_PNM, FMT_WEBP, FMT_TIFF, FMT_HEIC, FMT_AVIF, FMT_JXL, FMT_COUNT };
/* The output extensions, for messages */
#define IO_OUTPUT_EXTENSIONS ".png, .jpg, .jpeg, .webp, .tif, .tiff, .heic, .heif, .avif, .jxl, .bmp, .tga, .ppm, .pgm or .pnm"

/* Which decoder takes a format: its library (libjpeg-turbo; for PNG libdeflate for the common
 * kinds, libpng for the rest), libpng alone (PNG), or stb_image, which reads every format. */
enum io_decoder { DEC_AUTO, DEC_STB, DEC_LIBPNG };

struct load_opts {
    uint64_t max_pixels;   /* refuse larger images (0: no limit) */
    enum io_decoder jpeg, png;
    int in_fd;             /* > 0: read this open file, not the path (which names it in messages) */
    unsigned max_expansion;   /* past IO_EXPANSION_FLOOR decoded bytes, refuse more than this many
                                 a byte of the file (a decompression bomb); 0: no limit */
    int threads;           /* threads a decoder may use (libjxl's); 0 or 1: one */
};
/* Decoded sizes up to this are never refused for their file's size: a flat 16-megapixel RGBA
 * image, a 22-megapixel RGB one. Past it an input under 1 MiB is refused. */
#define IO_EXPANSION_FLOOR (64ULL << 20)
#define IO_EXPANSION_DEFAULT 64   /* --max-expansion's */

struct save_opts {
    enum out_format fmt;
    int png_level;         /* zlib level 0..9 */
    int jpeg_quality;      /* 1..100 */
    int force;             /* replace an existing output */
    int threads;           /* threads the PNG and JPEG XL encoders may use (0 or 1: one) */
    int jpeg_sampling;     /* JPEG chroma 420, 422, 444; 0: 420 up to quality 90, 444 above */
    int jpeg_progressive;
    int out_fd;            /* > 0: write into this open file, from its offset, not into a temporary
                              file beside the path (which names it in messages); the server's */
    int webp_quality;      /* 0..100, lossy */
    int webp_lossless;
    int webp_effort;       /* 0..6: libwebp's method */
    int heif_quality;      /* 0..100: HEIC's and AVIF's */
    int heif_effort;       /* 0..9: the HEVC and AV1 encoders' speed is 9 less this */
    int jxl_distance;      /* JPEG XL's Butteraugli distance in thousandths, 0..25000; 0: lossless */
    int jxl_effort;        /* 1..9: libjxl's effort */
    int strip;             /* --strip's meta_piece mask: META_ALL, no metadata read or written; other
                              pieces dropped from what is read (meta_strip) */
    const struct io_meta *meta;   /* what PNG and JPEG outputs keep beside the pixels (io/meta.h),
                                     or NULL; the other formats hold none */
};

/* "-" is stdin / stdout. Both return a gpuimg_status. */
int io_load(const char *path, const struct load_opts *o, struct image *out);
/* io_load in two halves: read the file and check its container and header (geometry known,
 * nothing decoded), then decode with stb_image (which frees the bytes). Between the two a
 * caller may hand a JPEG's bytes to another decoder instead (then io_input_free). */
struct io_input {
    uint8_t *buf;
    size_t len;
    const char *name;    /* for messages */
    int jpeg;            /* the bytes are a JPEG (checked: complete marker structure) */
    struct jpeg_facts jpeg_facts;   /* a JPEG's: progressive (the GPU's engines take baseline files),
                                       four components (CMYK: never shrunk on load) */
    int kind;            /* formats.h's file_kind */
    enum io_decoder dec; /* load_opts' choice for this kind */
    struct geom g;       /* from the header; after io_shrink, the shrunk image's */
    int shrink;          /* 1, or the factor io_shrink set */
    int orient;          /* EXIF orientation, 1 (as stored) to 8; 1 for every format but JPEG */
    int frames;          /* an animation's frames (GIF, WebP, JPEG XL), of which the first is decoded; 1 */
    int threads;         /* load_opts' */
    struct png_facts png;   /* a PNG's, from its chunk walk */
    const char *codec;   /* the decoder that ran ("libdeflate", "stb_image", ...), set by io_decode */
};
int io_read(const char *path, const struct load_opts *o, struct io_input *in);
/* What io_read refuses in a stream (standard input, a pipe) as it reads it, for a reader of its
 * own (the server's client reads standard input whole before sending it): the stream's first
 * bytes (head, headlen: all read so far once that is IO_SNIFF_BYTES or more, else 0) starting as
 * no format gpuimg reads (GPUIMG_EDECODE: /dev/zero, text), or more than the 2 GiB a decoder
 * takes read in total (GPUIMG_ETOOBIG). Each names name; GPUIMG_OK: read on. */
#define IO_SNIFF_BYTES 64
int io_stream_check(const char *name, const uint8_t *head, size_t headlen, unsigned long long total);
/* io_read's checks on bytes already in memory (buf: malloc'ed, owned by in from now on, freed
 * on failure); name is for messages and must outlive in. The fuzz targets start here. */
int io_parse(const char *name, uint8_t *buf, size_t len, const struct load_opts *o, struct io_input *in);
int io_decode(struct io_input *in, struct image *out);
/* What in's file holds beside its pixels (before io_decode, which frees the bytes), into m
 * (zeroed first): meta_read's for JPEG and PNG, libwebp's and libtiff's for WebP and TIFF. */
int io_read_meta(const struct io_input *in, struct io_meta *m);
/* Whether in's decoder can shrink it on load (a JPEG going to libjpeg-turbo), and the request to
 * do so by f (2, 4 or 8): in->g becomes the shrunk geometry io_decode will give. */
int io_can_shrink(const struct io_input *in);
void io_shrink(struct io_input *in, int f);
/* io_decode telling rows as they are complete: as they come where io_can_stream (libjpeg-turbo),
 * all at the end otherwise (a PNG's rows could come from zlib's inflate row by row, but it is
 * slower than libdeflate's whole-image inflate by more than the overlap gains). Where
 * io_can_stream, out->data may be a buffer of in->g's geometry that the caller made and frees
 * (the rows' readers must be done first, failure or not); otherwise out->data must be NULL. */
int io_can_stream(const struct io_input *in);
int io_decode_rows(struct io_input *in, struct image *out, const struct image_rows *rows);
void io_input_free(struct io_input *in);
/* The JPEG chroma sampling o asks for: 420, 422 or 444 (jpeg_sampling 0: by the quality). */
int io_jpeg_sampling(const struct save_opts *o);
/* The encoder io_write uses for pixels of g with o, as -v names it ("libdeflate", "zlib, 8 strips", ...). */
const char *io_encoder_name(const struct geom *g, const struct save_opts *o);

/* The one writer. What the engine hands io to write, its format resolved (o->fmt): pixels to
 * encode, a PNG whose strips are deflated already (pngenc_begin's, from a streamed run), a
 * PNG's rows deflated elsewhere in chunks (pngenc_write_chunks': nvCOMP on the GPU), or a
 * JPEG's bytes encoded elsewhere (nvJPEG), into which o->meta is spliced. */
enum io_result_kind { IO_RESULT_PIXELS, IO_RESULT_PNG_STRIPS, IO_RESULT_PNG_CHUNKS, IO_RESULT_JPEG_BYTES };
struct io_result {
    enum io_result_kind kind;
    struct geom g;                      /* the image's */
    const struct image *img;            /* PIXELS */
    struct pngenc *strips;              /* PNG_STRIPS: every strip encoded */
    uint8_t *const *chunks;             /* PNG_CHUNKS: as pngenc_write_chunks takes them */
    const size_t *lens, *raw_lens;
    const uint8_t *const *raw;
    int nchunks;
    const unsigned char *bytes;         /* JPEG_BYTES */
    size_t len;
};
/* Write res to path (into a temporary file renamed into place; or into o->out_fd), or with hold
 * leave it written and closed there, unpublished, for io_pending_publish. Nothing is left
 * behind on failure. */
int io_write(const char *path, const struct io_result *res, const struct save_opts *o, struct io_pending *hold);
/* io_write's encoding alone into fp, an open stream (open_memstream's: the library's encode into
 * memory); name is for messages. */
int io_write_to(FILE *fp, const char *name, const struct io_result *res, const struct save_opts *o);
/* io_write of an image's pixels, published. */
int io_save(const char *path, const struct image *im, const struct save_opts *o);

/* Whether f's encoder can write an image of g: JPEG and TGA store each side in 16 bits (at most
 * 65535 pixels; libjpeg takes JPEG to 65500), libpng writes at most 1000000 a side
 * (GPUIMG_ETOOBIG, naming path, if not); an image with alpha in a format without
 * (GPUIMG_EUNSUPPORTED: nothing is dropped silently; a run flattens it first, run.h). */
int io_check_size(const char *path, enum out_format f, const struct geom *g);
/* Whether f holds alpha: JPEG and PNM do not; the others keep it (BMP as 32 bits a pixel,
 * grey+alpha as RGBA). */
int io_holds_alpha(enum out_format f);

/* The format named by a file name's extension or by a name ("png", "jpg", ...). */
int io_format_from_path(const char *path, enum out_format *f);
int io_format_from_name(const char *name, enum out_format *f);
const char *io_format_name(enum out_format f);
/* The codecs of this build, one line ("decoders: ...; encoders: ..."), for --version. */
void io_codecs(FILE *f);

#endif
