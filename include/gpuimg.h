/* gpuimg: the library. Decoders, pipelines and encoders of the gpuimg command, from C.
 *
 *     gpuimg_ctx *ctx = gpuimg_ctx_new();
 *     gpuimg_image img, out;
 *     if (gpuimg_read(ctx, "in.jpg", &img) || gpuimg_run(ctx, "resize=800x,sharpen=1", &img, &out)
 *         || gpuimg_write(ctx, "out.webp", &out))
 *         fprintf(stderr, "%s\n", gpuimg_ctx_error(ctx));
 *     gpuimg_image_free(&img);
 *     gpuimg_image_free(&out);
 *     gpuimg_ctx_free(ctx);
 *
 * Link with `pkg-config --cflags --libs gpuimg`. Every function returning enum gpuimg_status
 * returns GPUIMG_OK (0) or a failure, whose one-line message (naming the file and the cause, as
 * the command prints it) gpuimg_ctx_error gives until the context's next call. Nothing here
 * prints, exits or reads the environment.
 *
 * Threads: a context is used by one thread at a time; contexts on different threads run at once.
 * The pixel work inside a call runs on the context's OpenMP threads ("threads"). What a process
 * shares: a GPU's CUDA context, its JPEG engines and the kernels' tuning, made at first use. */
#ifndef GPUIMG_H
#define GPUIMG_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && !defined(GPUIMG_STATIC_ONLY)
#define GPUIMG_API __attribute__((visibility("default")))
#else
#define GPUIMG_API
#endif

/* This header's version: the library answers gpuimg_version(). */
#define GPUIMG_VERSION_MAJOR 0
#define GPUIMG_VERSION_MINOR 2

typedef struct gpuimg_ctx gpuimg_ctx;

/* Every failure's class: the command's exit status is 2 for EUSAGE and EPARAM, 1 for the others. */
enum gpuimg_status {
    GPUIMG_OK = 0,
    GPUIMG_EUSAGE,      /* a bad option or value (a command line's, or gpuimg_ctx_set's) */
    GPUIMG_EPARAM,      /* a bad pipeline or operation parameter */
    GPUIMG_ENOMEM,      /* out of memory */
    GPUIMG_EOPEN,       /* cannot open or read an input */
    GPUIMG_EDECODE,     /* the input is not a readable image */
    GPUIMG_ETOOBIG,     /* an image over the pixel limit ("max-pixels"), or size arithmetic would overflow */
    GPUIMG_EEXISTS,     /* the output exists and "force" is not set */
    GPUIMG_EWRITE,      /* cannot create or write the output */
    GPUIMG_EENCODE,     /* the encoder failed */
    GPUIMG_ENOGPU,      /* no usable GPU where one was required */
    GPUIMG_ECUDA,       /* a CUDA call failed */
    GPUIMG_EUNSUPPORTED,/* valid, but this build cannot do it */
    GPUIMG_ENODEVMEM,   /* not enough device memory, even in tiles */
    GPUIMG_ECANCELED,   /* the run was given up */
    GPUIMG_EGEOMETRY,   /* the pipeline does not fit this image (a crop outside it, a pad smaller) */
    GPUIMG_EINTERNAL,
    GPUIMG_NSTATUS
};

/* "out of memory", "cannot decode image", ...: the class's words (static). */
GPUIMG_API const char *gpuimg_strerror(enum gpuimg_status s);
/* The library's version, "0.2.0" (static). */
GPUIMG_API const char *gpuimg_version(void);

/* An image: interleaved samples, rows stride bytes apart (at least width * channels * depth / 8;
 * the library's own are packed), 16-bit samples in host byte order. Where device >= 0, data is
 * memory of that CUDA device (cudaMalloc's), else host memory. owner is the library's: non-NULL
 * for an image it made, which gpuimg_image_free releases with its metadata (an image it read
 * keeps its file's ICC profile, EXIF, XMP, IPTC and comment for gpuimg_write). An image the
 * caller describes (owner NULL) stays the caller's: the library reads it and never frees it.
 * Device memory is used on the calling thread's default CUDA stream (per-thread), each call
 * returning with its work finished: a device input must be complete before the call (its
 * producer's stream synchronised), and a device image freed only once nothing uses it (its
 * memory returns to a stream-ordered pool after the work already queued on the legacy default
 * stream: work of the caller's other streams must be finished first). Each call gives the
 * calling thread's current CUDA device back as it found it. */
typedef struct gpuimg_image {
    void *data;
    size_t stride;
    int width, height;
    int channels;   /* 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA */
    int depth;      /* bits a sample: 8 or 16 */
    int device;     /* -1: host memory; else the CUDA device's index */
    void *owner;
} gpuimg_image;

/* An image of the caller's memory (owner NULL), host memory where device is -1; stride 0: packed rows. */
GPUIMG_API gpuimg_image gpuimg_image_wrap(void *data, int width, int height, int channels, int depth,
                                          size_t stride, int device);
/* A copy of in, packed, in host memory (device -1) or on a CUDA device (the same as in's, or in
 * host memory): how an image goes up to the GPU and comes down, its metadata kept; out may be in. */
GPUIMG_API enum gpuimg_status gpuimg_image_copy(gpuimg_ctx *ctx, const gpuimg_image *in, int device,
                                                gpuimg_image *out);
/* Release what the library made for img (nothing for the caller's own) and clear it. */
GPUIMG_API void gpuimg_image_free(gpuimg_image *img);

/* A context with every option at the command's default (backend auto: the GPU where usable).
 * NULL when out of memory. */
GPUIMG_API gpuimg_ctx *gpuimg_ctx_new(void);
GPUIMG_API void gpuimg_ctx_free(gpuimg_ctx *ctx);
/* Set an option by the command's long name and value as the command line takes it: "backend"
 * "cpu", "jpeg-quality" "85", "strip" "gps,xmp", "max-pixels" "100000000", "force" "1" (a flag:
 * "1" sets it, "0" clears it). Every option that changes what a run does is here (man gpuimg,
 * OPTIONS: those a request to the server carries), "threads" (unset: OpenMP's default, every core
 * or OMP_NUM_THREADS) and "force". EUSAGE for an unknown option or a bad value, the context
 * unchanged. Every function taking a context returns EUSAGE for a NULL one. */
GPUIMG_API enum gpuimg_status gpuimg_ctx_set(gpuimg_ctx *ctx, const char *option, const char *value);
/* An option's value as last set on ctx ("85" for "jpeg-quality"), or NULL where it was never set
 * (its default holds: man gpuimg) or is not an option the library takes (valid until it is set
 * again or the context freed). */
GPUIMG_API const char *gpuimg_ctx_get(const gpuimg_ctx *ctx, const char *option);
/* Ask the call running on ctx (from another thread: the one thread-safe use of a context) to stop:
 * it returns GPUIMG_ECANCELED before its next step (a batch: before its next input, those not begun
 * ECANCELED in status), having written nothing more. A call begun after it runs normally: with
 * no call running it has no effect. */
GPUIMG_API void gpuimg_ctx_cancel(gpuimg_ctx *ctx);
/* The last failure's message, "" after a success (valid until the context's next call). */
GPUIMG_API const char *gpuimg_ctx_error(const gpuimg_ctx *ctx);
/* Where the last run went and why, as -v says it: "cpu", "gpu"; and the reason auto took the CPU
 * ("no usable GPU: ...") or "" (valid until the context's next call). */
GPUIMG_API const char *gpuimg_ctx_backend(const gpuimg_ctx *ctx);
GPUIMG_API const char *gpuimg_ctx_note(const gpuimg_ctx *ctx);

/* What a file holds, from its header and metadata, no pixels decoded (a JPEG's first scan and a
 * JPEG XL's frames are never read): gpuimg_info_read, as `gpuimg info` prints it. */
typedef struct gpuimg_info {
    char format[16];          /* "JPEG", "PNG", "WebP", "TIFF", "HEIC", "AVIF", "JPEG XL", ... */
    int width, height;        /* as stored (orientation not applied) */
    int channels, depth;      /* as gpuimg_read gives them: 1 to 4; 8 or 16 */
    int orientation;          /* EXIF's, 1 (upright) to 8 */
    int frames;               /* 1 for a still image */
    int progressive;          /* a JPEG: 1 progressive, 0 baseline; -1 for other formats */
    int cmyk;                 /* a CMYK or YCCK JPEG (read as RGB) */
    size_t icc, exif, xmp, iptc, comment;   /* each piece's bytes, 0 where the file has none */
    double xres, yres;        /* dots per inch, 0 where the file states none */
    size_t bytes;             /* the file's */
} gpuimg_info;
/* Describe path ("-": standard input) into *info. */
GPUIMG_API enum gpuimg_status gpuimg_info_read(gpuimg_ctx *ctx, const char *path, gpuimg_info *info);

/* Decode a file ("-": standard input) upright (its EXIF orientation applied unless
 * "no-auto-orient"; with "profile" "srgb", converted to sRGB) into *out, host memory, checked as
 * the command checks its inputs (the pixel and expansion limits). */
GPUIMG_API enum gpuimg_status gpuimg_read(gpuimg_ctx *ctx, const char *path, gpuimg_image *out);
/* The same from len bytes at buf (a file's whole contents); name (may be NULL) names it in messages. */
GPUIMG_API enum gpuimg_status gpuimg_decode(gpuimg_ctx *ctx, const void *buf, size_t len, const char *name,
                                            gpuimg_image *out);
/* A file (format by its extension, or the "format" option) from img, as the command writes its
 * outputs: into a temporary file renamed into place, not over an existing file unless "force",
 * an image with alpha flattened onto "background" for a format without; the metadata of an image
 * the library read kept unless "strip" says otherwise. img may be host or device memory. */
GPUIMG_API enum gpuimg_status gpuimg_write(gpuimg_ctx *ctx, const char *path, const gpuimg_image *img);
/* The same into memory: *buf (malloc'ed, the caller frees it with free), *len bytes, in format
 * ("png", "jpg", "webp", ... as an extension names it). */
GPUIMG_API enum gpuimg_status gpuimg_encode(gpuimg_ctx *ctx, const gpuimg_image *img, const char *format,
                                            void **buf, size_t *len);
/* Run a pipeline ("gray,resize=50%", the command's syntax) on in into *out, in is left as it
 * was, or out may be in: the result replaces it (the library's input freed). On the backend the context names: for a host image, the OpenMP path or the GPU (one upload,
 * one download), out in host memory; for a device image, the GPU, out on the same device. out
 * keeps in's metadata where in is the library's. */
GPUIMG_API enum gpuimg_status gpuimg_run(gpuimg_ctx *ctx, const char *pipeline, const gpuimg_image *in,
                                         gpuimg_image *out);
/* n inputs decoded (and run through pipeline, or NULL) into outs[0..n-1] at once, each as
 * gpuimg_decode (or gpuimg_read) makes it: input i is the file paths[i], or where bufs[i] is
 * non-NULL its lens[i] bytes (paths and bufs may each be NULL). On device >= 0 the results are
 * left in that GPU's memory (the GPU's JPEG engines decoding the JPEGs they take, in batched
 * calls), else in host memory. The context's "jobs" inputs are in flight at once (default: one a
 * core; four a core on the GPU, so that the engines' calls fill), its "threads" (OpenMP's default
 * unless set) shared out among them. status[i] (may be NULL) gets each input's status; outs[i] is empty
 * where it failed. Returns GPUIMG_OK, or the first failure's status with its message. */
GPUIMG_API enum gpuimg_status gpuimg_decode_batch(gpuimg_ctx *ctx, int n, const char *const *paths,
                                                  const void *const *bufs, const size_t *lens,
                                                  const char *pipeline, int device, gpuimg_image *outs,
                                                  int *status);
/* A file through a pipeline to a file, as `gpuimg PIPELINE IN OUT --no-server` does: decoded,
 * processed and encoded where the engines and backend say (the GPU's JPEG engines, the CPU
 * streaming bands), the same bytes. */
GPUIMG_API enum gpuimg_status gpuimg_convert(gpuimg_ctx *ctx, const char *pipeline, const char *in,
                                             const char *out);

#ifdef __cplusplus
}
#endif
#endif
