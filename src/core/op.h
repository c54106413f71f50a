/* gpuimg: an operation's descriptor and the registry of them. Each operation lives in two folders:
 * src/ops/NAME/ (parameters, checks, exact definition, OpenMP and SIMD code, GPU host side) and
 * cuda/NAME/ (its kernel families and the plain-C header of their launchers). Its descriptor is
 * read by the pipeline parser, --help, --list, the man page's OPERATIONS section, fusion, tune,
 * the benchmarks and the tests: adding an operation is its two folders, one line in Makefile.am's
 * operation list and its reference (HACKING.md). */
#ifndef GPUIMG_CORE_OP_H
#define GPUIMG_CORE_OP_H
#include "cuda/gpu.h"     /* plain C: kernel variant ids, gpu_image, gpu_call */
#include "core/color.h"
#include "core/image.h"
#include "core/opfile.h"

enum param_type {
    PARAM_NUMBER,   /* a real number in [min, max] (or (min, max] when min_open) */
    PARAM_CHOICE,   /* one of the '|'-separated words in choices */
    PARAM_SIZE,     /* "P%", "WxH", "Wx" or "xH"; WxH may end in one of ! ^ > < or in +X+Y */
    PARAM_COLOR,    /* a colour as color_parse reads it */
    PARAM_FILE      /* a file's path, read when the pipeline is parsed (core/opfile.h); no ',' or ':' */
};

struct op_param {
    const char *name;
    enum param_type type;
    double min, max;
    int min_open;
    const char *choices;
    const char *dflt;     /* NULL: the parameter must be given; "(...)": a description, the parameter
                             left unset (param_value.set 0) for the operation to work out */
    const char *help;
};

enum size_kind { SIZE_PERCENT, SIZE_PIXELS };
struct size_spec {
    enum size_kind kind;
    double pct;           /* SIZE_PERCENT */
    int w, h;             /* SIZE_PIXELS; 0 keeps the aspect ratio on that axis */
    char flag;            /* after WxH, as ImageMagick's geometry: '!' exactly, '^' covering the box,
                             '>' only shrinking, '<' only enlarging; 0: none */
    int offset, x, y;     /* after WxH: +X+Y was given (a crop's corner) */
};

struct param_value {
    int set;              /* given, or its default parsed (0: a "(...)" default) */
    double num;           /* PARAM_NUMBER */
    int choice;           /* PARAM_CHOICE: index into choices */
    struct size_spec size;/* PARAM_SIZE */
    struct color color;   /* PARAM_COLOR */
    struct op_file *file; /* PARAM_FILE: the file, read once for the process (opfile.h) */
};

#define OP_MAX_PARAMS 8
struct op_args {
    struct param_value v[OP_MAX_PARAMS];
    /* A step that measures its input (op_desc.measure): once measured, the rectangle of the input
     * it keeps (box); 0 before, when resolve gives the largest output the step can make. */
    int measured;
    struct rect box;
};


struct op_desc {
    const char *name;
    const char *summary;      /* one line for --help */
    const char *definition;   /* the exact definition, plain text, for the man page and --list */
    const struct op_param *params;   /* params[0] is the one "name=VALUE" sets */
    int nparams;
    /* Check the parameters against the input, fill in derived values (e.g. resize's automatic
     * filter) and compute the output geometry. Returns a gpuimg_status. */
    int (*resolve)(struct op_args *a, const struct geom *in, struct geom *out);
    /* The OpenMP reference: out is allocated by the caller with the resolved geometry. */
    int (*cpu)(const struct op_args *a, const struct image *in, struct image *out);
    /* The GPU: the kernel variants it has (bits 1 << KV_*) and the one --kernel=auto takes (the
     * fastest measured). In CUDA builds: gpu_prepare builds the step's state for a variant on this
     * geometry, the operation's own struct (its device tables and the choices made for them;
     * *state NULL: none needed), which the engine holds opaque and returns to gpu_launch and
     * gpu_fuse, and frees with gpu_release; gpu_launch runs the variant and launch shape of k on
     * device images, and sets *ran to the kernel family that ran when that is not the variant's
     * own (resize's vector: "rows"), by name for the reports. Both return a gpuimg_status;
     * gpu_launch is NULL in CPU-only builds. */
    unsigned gpu_variants;
    int gpu_auto;
    int (*gpu_prepare)(const struct op_args *a, const struct geom *in, const struct geom *out, int variant,
                       void **state);
    int (*gpu_launch)(const struct op_args *a, const void *state, const struct gpu_call *k, const struct gpu_image *in,
                      const struct gpu_image *out, const char **ran);
    void (*gpu_release)(void *state);
    /* 1: gpu_prepare's state depends on the parameters, geometries and variant alone and is only
     * read after it is made, so a batch worker keeps it for its next file of the same step (the
     * tables resize and blur copy up) */
    int gpu_state_reuse;
    /* Fusion, by roles (FUSE_* bits). fuses_as: how this step can run inside a neighbour:
     * FUSE_GRAY_IN, read through by the next step (fuse_read says whether it can be on this input
     * and, given a gpu_image, sets the form the next step's input takes: gpu_image.gray_from and
     * gray_w); FUSE_TRANSPOSE_OUT, written by the step before (gpu_image.transposed). gpu_fuse:
     * the fused forms the launch of a variant takes for this step, given the state gpu_prepare
     * built for it (so that the choice is the launch's); NULL: none. The pipeline then skips the
     * neighbour's own launch. */
    unsigned fuses_as;
    int (*fuse_read)(const struct op_args *a, const struct geom *in, struct gpu_image *next_in);
    unsigned (*gpu_fuse)(const struct op_args *a, const struct geom *in, const struct geom *out, int variant,
                         const void *state);
    /* The largest difference from the OpenMP result a variant may give for this step, in levels;
     * NULL: 0, every variant exact. */
    long (*gpu_tolerance)(const struct op_args *a, const struct geom *in, int variant);
    /* The built-in automatic variant per layout when it differs from gpu_auto (NULL: gpu_auto
     * always), and the words --list prints for it. A tune cache entry overrides both. */
    int (*gpu_auto_for)(const struct geom *in);
    const char *gpu_auto_text;
    /* What the launch of each variant honours of gpu_call.shape (SHAPE_*; gpuimg tune sweeps it),
     * SHAPE_USUAL where it is the variant's usual: perpixel and texture 2D blocks, coalesced 1D
     * blocks and pixels a thread, tiled rows a block, the others fixed by their shared memory. */
    unsigned char gpu_shape[KV_COUNT];
    /* Channel counts (bit c) on which the step only copies its input (gray on grey): tune and the
     * benchmarks skip them. */
    unsigned copies_on;
    /* One-step pipelines, NULL-terminated, that tune, the benchmarks and the tests run on every
     * layout; the first is the operation's typical use. No commas (key=value instead): the
     * benchmarks' CSV holds them. */
    const char *const *examples;
    /* At parse time, before any image: check what the parameters say together, and write the
     * steps this one implies after it as pipeline text into text (n bytes; "" for none): resize's
     * fit=cover is a resize and a crop. Returns a gpuimg_status. NULL: nothing to check or add. */
    int (*then)(const struct op_args *a, char *text, size_t n);
    /* Tiling (tile.h): for the rectangle *want of the output, the rectangle of the input the
     * step needs (*need, clipped to the input) and the rectangle of the output that running the
     * step on *need as a whole image gives (*yields, which contains *want, every pixel of *want
     * in it exact). NULL: the operation cannot run in tiles. */
    void (*region)(const struct op_args *a, const struct geom *in, const struct geom *out, const struct rect *want,
                   struct rect *need, struct rect *yields);
    /* Where region is set: 0 when these parameters cannot run in tiles after all (rotate at an
     * angle that is not a multiple of 90: every pixel depends on the whole image's centre).
     * NULL: they always can. */
    int (*tiles)(const struct op_args *a);
    /* For a step whose output size or placing is a parameter (resize, crop, composite): set a so that
     * resolve on a tile gives out, the rectangle yields of the whole output that region said it
     * yields (composite moves its overlay by yields' corner). NULL: nothing follows from the tile. */
    void (*tile_args)(struct op_args *a, const struct rect *yields, const struct geom *out);
    /* Shrink on load (--shrink-on-load): the largest factor, 2, 4 or 8, by which a decoder that
     * scales (libjpeg-turbo's DCT scaling gives ceil(w / f) x ceil(h / f)) may shrink this step's
     * input, in for out, with the step still making out from it; 1: none. a holds the step's
     * parameters as parsed: where it returns more than 1 it rewrites them so that out is made
     * from the shrunk input. NULL: the step takes no shrunk input. */
    int (*load_shrink)(struct op_args *a, const struct geom *in, const struct geom *out);
    /* Data-dependent steps: where the output's size or place follows from the input's pixels (trim's
     * box, crop's gravity=attention or entropy). The rule: resolve before any pixels (a->measured
     * 0) gives the largest output the step can make, and the plan's later steps are sized from it;
     * each backend, just before running the step, calls measure on its actual input (the GPU
     * gpu_measure on the device image: a reduction whose few numbers come back to the host), which
     * sets a->box and a->measured (or leaves measured 0 where these parameters measure nothing:
     * crop's other gravities); plan_measured then resolves the step and the steps after it again,
     * and the run goes on with the true sizes. measure and gpu_measure give the same box (integer
     * rules). Such a step runs whole, never in tiles or bands (region NULL, or tiles returning 0
     * for these parameters), and takes no part in fusion; its gpu_prepare may not depend on its
     * output's size (the state is made for the bound). NULL: the output follows from the
     * geometry. */
    int (*measure)(struct op_args *a, const struct image *in);
    int (*gpu_measure)(struct op_args *a, const void *state, const struct gpu_call *k, const struct gpu_image *in);
};
/* region for operations that map each pixel to the same place (gray). */
void op_region_point(const struct op_args *a, const struct geom *in, const struct geom *out, const struct rect *want,
                     struct rect *need, struct rect *yields);
/* op->gpu_tolerance, or 0. */
long op_gpu_tolerance(const struct op_desc *op, const struct op_args *a, const struct geom *in, int variant);
enum { SHAPE_USUAL, SHAPE_FIXED, SHAPE_2D, SHAPE_1D, SHAPE_ROWS };
#define EXAMPLES(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define FUSE_GRAY_IN 1u        /* reads RGB through the gray step before it */
#define FUSE_TRANSPOSE_OUT 2u  /* writes transposed for the transpose step after it */

#ifdef HAVE_CUDA
#define GPU_FIELDS(mask, auto_, prepare, launch, release) \
    .gpu_variants = (mask), .gpu_auto = (auto_), .gpu_prepare = (prepare), .gpu_launch = (launch), \
    .gpu_release = (release)
#else   /* the variants are still listed (docs are the same for every build); no functions */
#define GPU_FIELDS(mask, auto_, prepare, launch, release) .gpu_variants = (mask), .gpu_auto = (auto_)
#endif
#define KV_BIT(v) (1u << (v))
#ifdef HAVE_CUDA
#define GPU_FUSE(fn) .gpu_fuse = (fn)
#else
#define GPU_FUSE(fn) .gpu_fuse = NULL
#endif

extern const char *const kernel_names[KV_COUNT];
/* "perpixel, coalesced" for a mask; "none in this build" for 0 */
void kernel_list(unsigned mask, char *buf, size_t n);
/* A CUDA failure inside an operation, as a gpuimg error naming the operation and the variant. */
int op_cuda_fail(const struct op_desc *op, int variant, const char *msg);
/* gpu_upload_parts() with the failure reported as op_cuda_fail(). */
int op_upload_parts(const struct op_desc *op, int variant, void **block, int nparts, const void *const *host,
                    const size_t *bytes, void **part);

extern const struct op_desc *const gpuimg_ops[];
extern const int gpuimg_nops;

const struct op_desc *op_find(const char *name);
/* Every operation's examples (op_desc.examples), in registry order, at most max; with tileable
 * set, only those of operations that run in tiles. Returns the count. */
int op_examples(const char **out, int max, int tileable);


#endif
