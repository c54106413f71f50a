/* gpuimg: one file through the whole chain, decode -> plan -> backend -> encode, with every
 * stage timed into a run_report. The single-file command and each worker of a batch call it;
 * it records errors (naming the file) and never prints. */
#ifndef GPUIMG_RUN_H
#define GPUIMG_RUN_H
#include "engine/backend.h"
#include "io/io.h"
#include "core/plan.h"
#include "core/timing.h"

/* --shrink-on-load and --exact: where a JPEG decoder that scales is asked to shrink for a resize */
enum shrink_mode {
    SHRINK_AUTO = -1,   /* the default: unless the GPU decodes the file (its JPEG engines, ready) */
    SHRINK_NEVER = 0,   /* --exact: the full decode (the reference's pixels) */
    SHRINK_ALWAYS = 1,  /* --shrink-on-load: on the CPU even where the GPU's engines would take it */
};

struct run_ctx {
    const struct plan *plan;      /* parsed; resolved afresh for each input */
    enum backend_kind kind;       /* BACKEND_CPU or BACKEND_GPU, already selected */
    struct gpu_run_opts gpu;
    uint64_t max_pixels;
    unsigned max_expansion;       /* load_opts' */
    struct save_opts save;        /* save.fmt is the format of every output unless per_file_format */
    uint32_t background;          /* 0xRRGGBB (--background): a result with alpha is flattened onto
                                     it for a format without (io_holds_alpha), the plan's last step */
    int per_file_format;          /* take each output's format from its extension */
    const char *fallback;         /* said in the timing line ("no usable GPU"), or NULL */
    enum io_decoder load_jpeg, load_png;   /* the decoders chosen (--decoder, --jpeg-decoder, ...) */
    enum shrink_mode shrink_on_load;   /* when a JPEG decoder shrinks for a resize */
    int jpeg_split;               /* the GPU path's JPEGs go to the engines or the cores, whichever
                                     is predicted to finish first (else the engines when ready) */
    struct io_pending *hold;      /* non-NULL: the output is left written here, unpublished */
    int no_auto_orient;           /* --no-auto-orient: leave a JPEG as stored, whatever its EXIF says */
    int profile_srgb;             /* --profile=srgb: pixels from the input's ICC profile to sRGB */
    int in_fd;                    /* > 0: the input is this open file (the path names it); with
                                     save.out_fd, the server's run of a client's files */
    const void *in_buf;           /* non-NULL: the input is these in_len bytes (the path names them):
                                     the library's decode from memory */
    size_t in_len;
    enum encoder_choice png_encoder, jpeg_encoder;   /* where PNG and JPEG outputs are encoded */
    int shared_encode;            /* a batch's file (the server's requests, a batch that started the
                                     GPU's codecs): jpeg_encoder auto shares JPEG outputs with nvJPEG */
    const atomic_int *abandoned;  /* non-NULL: the run stops once it is set (struct plan's) */
};

/* run_file's load and plan, then the decode, for --compare: in decoded (whole, unless
 * --shrink-on-load) and the plan resolved for it (into *pl), the output's settings into *so (its
 * format resolved, its metadata in *meta, zeroed by the caller, who frees it with meta_free), the
 * decode timed. The input is read whole before anything is written, so with save.force an output
 * may be the input itself (an existing output is refused earlier without it: io_check_output, the
 * batch's checks). */
int run_load(const struct run_ctx *c, const char *in, const char *out, struct image *img, struct plan *pl,
             struct save_opts *so, struct io_meta *meta, struct run_report *r);
/* Write img to out with so (or with c->hold, left there for the caller to publish), timing it. */
int run_save(const struct run_ctx *c, const char *out, const struct image *img, const struct save_opts *so,
             struct run_report *r);
/* One file: load (its bytes, header and metadata) -> plan (resolved for it, the output's format
 * once) -> run (decoded and processed where the backend says: streamed, on the GPU's JPEG
 * engines, or decoded then run) -> write (io_write, the one writer). On success the report is
 * complete. */
int run_file(const struct run_ctx *c, const char *in, const char *out, struct run_report *r);

/* One file to an image in memory: load -> plan -> run, nothing written (the library's read and,
 * with c->in_buf, decode). *meta (zeroed by the caller, who frees it) gets what the file holds
 * beside its pixels, as an output would keep it. */
int run_image(const struct run_ctx *c, const char *in, struct image *img, struct io_meta *meta, struct run_report *r);
/* An image in memory written to out (its format: out's extension where c->per_file_format, else
 * c->save.fmt), or with fp encoded into fp alone (out names it): the library's write and encode.
 * meta (may be NULL) is what the output keeps, less what c->save.strip names; an image with alpha
 * for a format without is flattened onto c->background first, on the CPU. */
int run_write_image(const struct run_ctx *c, const char *out, FILE *fp, const struct image *img,
                    const struct io_meta *meta, struct run_report *r);

#endif
