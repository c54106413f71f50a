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

enum out_format { FMT_PNG, FMT_JPEG, FMT_BMP, FMT_TGA, FMT_PNM, FMT_WEBP, FMT_TIFF, FMT_COUNT };
/* The output extensions, for messages */
#define IO_OUTPUT_EXTENSIONS ".png, .jpg, .jpeg, .webp, .tif, .tiff, .bmp, .tga, .ppm, .pgm or .pnm"

/* Which decoder takes a format: its library (libjpeg-turbo; for PNG libdeflate for the common
 * kinds, libpng for the rest), libpng alone (PNG), or stb_image, which reads every format. */
enum io_decoder { DEC_AUTO, DEC_STB, DEC_LIBPNG };

struct load_opts {
    uint64_t max_pixels;   /* refuse larger images (0: no limit) */
    enum io_decoder jpeg, png;
    int in_fd;             /* > 0: read this open file, not the path (which names it in messages) */
};

struct save_opts {
    enum out_format fmt;
    int png_level;         /* zlib level 0..9 */
    int jpeg_quality;      /* 1..100 */
    int force;             /* replace an existing output */
    int threads;           /* threads the PNG encoder may use (0 or 1: one) */
    int jpeg_sampling;     /* JPEG chroma 420, 422, 444; 0: 420 up to quality 90, 444 above */
    int jpeg_progressive;
    int out_fd;            /* > 0: write into this open file, from its offset, not into a temporary
                              file beside the path (which names it in messages); the server's */
    int webp_quality;      /* 0..100, lossy */
    int webp_lossless;
    int strip;             /* --strip: no metadata read or written */
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
    int kind;            /* formats.h's file_kind */
    enum io_decoder dec; /* load_opts' choice for this kind */
    struct geom g;       /* from the header; after io_shrink, the shrunk image's */
    int shrink;          /* 1, or the factor io_shrink set */
    int orient;          /* EXIF orientation, 1 (as stored) to 8; 1 for every format but JPEG */
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
int io_save(const char *path, const struct image *im, const struct save_opts *o);
/* The JPEG chroma sampling o asks for: 420, 422 or 444 (jpeg_sampling 0: by the quality). */
int io_jpeg_sampling(const struct save_opts *o);
/* The encoder io_save uses for im with o, as -v names it ("libdeflate", "zlib, 8 strips", ...). */
const char *io_encoder_name(const struct image *im, const struct save_opts *o);

/* Checks worth doing before decoding: the output's directory exists, the output does not
 * exist unless force, it is not a directory. */
int io_check_output(const char *path, const struct save_opts *o);

/* Outputs (output.c): an output is written into a temporary file ".NAME.XXXXXX" beside it, NAME
 * cut to fit the directory's longest name (standard output and devices: straight, nothing
 * pending), and put in place by publish: link()
 * without force, so a file that appeared meanwhile is not replaced, rename() with it; a replaced
 * file keeps its permissions. A signal that ends the process removes the temporary files being
 * written (io_install_signal_cleanup); SIGKILL cannot be caught and leaves its file. */
struct io_pending {
    const char *path;    /* the destination (not copied) */
    char *tmp;           /* the temporary file, NULL when written straight */
    FILE *fp;            /* open for writing until closed */
    int slot, force;
};
int io_pending_open(const char *path, int force, struct io_pending *p);
/* Writing into fd (a duplicate of it, closed by close/publish/discard): nothing to rename. */
int io_pending_fd(int fd, const char *path, struct io_pending *p);
int io_pending_close(struct io_pending *p);      /* flush and close, reporting write errors */
int io_pending_publish(struct io_pending *p);    /* close, then put in place (or remove) */
void io_pending_discard(struct io_pending *p);   /* remove the temporary file */
/* io_save without the publish: the encoded image waits in p for io_pending_publish. */
int io_save_pending(const char *path, const struct image *im, const struct save_opts *o, struct io_pending *p);
/* The same for an image of g whose bytes write(fp, name, arg) writes (an encoder driven by its
 * caller, as the streamed run drives pngenc). */
int io_write_pending(const char *path, const struct geom *g, const struct save_opts *o, struct io_pending *p,
                     int (*write)(FILE *fp, const char *name, void *arg), void *arg);
/* "<stdin>" / "<stdout>" for "-", else path. */
const char *io_display_name(const char *path, int out);

/* What a path names, to tell whether two paths are one file: the absolute name with the part of
 * its directory that exists resolved (symbolic links, ".", "..") and the rest taken as written,
 * and for an existing file its device and inode (after links). Paths are the same file when
 * either agrees. */
struct io_file_id {
    char *name;
    int exists;
    uint64_t dev, ino;
};
int io_file_id(const char *path, struct io_file_id *id);
void io_file_id_free(struct io_file_id *id);
int io_same_file(const struct io_file_id *a, const struct io_file_id *b);
/* GPUIMG_EUSAGE naming what and path if path is the same file as one of files[0..n) (NULL and
 * "-" entries skipped). */
int io_refuse_same(const char *what, const char *path, const char *const *files, long n);

/* Whether f's encoder can write an image of g: JPEG and TGA store each side in 16 bits (at most
 * 65535 pixels; libjpeg takes JPEG to 65500), libpng writes at most 1000000 a side
 * (GPUIMG_ETOOBIG, naming path, if not); PNM holds no alpha (GPUIMG_EUNSUPPORTED: nothing is
 * dropped silently). */
int io_check_size(const char *path, enum out_format f, const struct geom *g);

/* The format named by a file name's extension or by a name ("png", "jpg", ...). */
int io_format_from_path(const char *path, enum out_format *f);
int io_format_from_name(const char *name, enum out_format *f);
const char *io_format_name(enum out_format f);
/* The codecs of this build, one line ("decoders: ...; encoders: ..."), for --version. */
void io_codecs(FILE *f);

/* Remove half-written temporary outputs (every writer's) when a signal ends the process (every
 * one that can be caught: SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
 * ...), and turn the file size limit's SIGXFSZ into a write error (EFBIG). Call once before
 * starting threads. */
void io_install_signal_cleanup(void);
/* Create the directories above path (mkdir -p of its dirname); created (may be NULL) is told
 * each directory made, parents first. */
int io_make_dirs(const char *path, void (*created)(const char *dir, void *arg), void *arg);
/* A directory made for outputs (as io_make_dirs tells it), removed where empty, newest first, by
 * io_remove_made_dirs or by a signal that ends the process (after its temporary files). */
int io_track_dir(const char *dir);
void io_remove_made_dirs(void);   /* and forgets them */

#endif
