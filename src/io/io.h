/* gpuimg: reading and writing image files. Loading reads the whole file (or stdin), checks the
 * container (formats.h) and the header against the pixel limit before any large allocation,
 * then decodes with stb_image (8 or 16 bits kept). Saving writes PNG with pngenc (a zlib stream
 * deflated on several threads, in libpng's container) and JPEG, BMP and TGA with stb_image_write, always into a temporary file beside the output that is renamed
 * into place only when complete; nothing is left behind on failure. */
#ifndef GPUIMG_IO_H
#define GPUIMG_IO_H
#include <stdint.h>
#include "core/image.h"

enum out_format { FMT_PNG, FMT_JPEG, FMT_BMP, FMT_TGA };

struct load_opts {
    uint64_t max_pixels;   /* refuse larger images (0: no limit) */
};

struct save_opts {
    enum out_format fmt;
    int png_level;         /* zlib level 0..9 */
    int jpeg_quality;      /* 1..100 */
    int force;             /* replace an existing output */
    int threads;           /* threads the PNG encoder may use (0 or 1: one) */
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
    struct geom g;       /* from the header */
};
int io_read(const char *path, const struct load_opts *o, struct io_input *in);
/* io_read's checks on bytes already in memory (buf: malloc'ed, owned by in from now on, freed
 * on failure); name is for messages and must outlive in. The fuzz targets start here. */
int io_parse(const char *name, uint8_t *buf, size_t len, const struct load_opts *o, struct io_input *in);
int io_decode(struct io_input *in, struct image *out);
void io_input_free(struct io_input *in);
int io_save(const char *path, const struct image *im, const struct save_opts *o);

/* Checks worth doing before decoding: the output's directory exists, the output does not
 * exist unless force, it is not a directory. */
int io_check_output(const char *path, const struct save_opts *o);

/* Whether f's encoder can write an image of g: JPEG and TGA store each side in 16 bits (at most
 * 65535 pixels), libpng writes at most 1000000 a side. GPUIMG_ETOOBIG, naming path, if not. */
int io_check_size(const char *path, enum out_format f, const struct geom *g);

/* The format named by a file name's extension or by a name ("png", "jpg", ...). */
int io_format_from_path(const char *path, enum out_format *f);
int io_format_from_name(const char *name, enum out_format *f);
const char *io_format_name(enum out_format f);

/* Remove half-written temporary outputs (every writer's) if the process is killed by SIGINT,
 * SIGTERM, SIGHUP or SIGPIPE. Call once before starting threads. */
void io_install_signal_cleanup(void);
/* Create the directories above path (mkdir -p of its dirname). */
int io_make_dirs(const char *path);

#endif
