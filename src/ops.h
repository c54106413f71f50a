/* gpuimg: the table of operations. Each operation lives in src/ops/NAME.c (parameters, checks,
 * exact definition, OpenMP code) and cuda/NAME.cu (kernels). Its descriptor here is read by the
 * pipeline parser, --help, --list, the man page's OPERATIONS section and the tests: adding an
 * operation is one src/ops file, one cuda file, one row in gpuimg_ops[] and tests. */
#ifndef GPUIMG_OPS_H
#define GPUIMG_OPS_H
#include "image.h"

enum param_type {
    PARAM_NUMBER,   /* a real number in [min, max] (or (min, max] when min_open) */
    PARAM_CHOICE,   /* one of the '|'-separated words in choices */
    PARAM_SIZE      /* "P%", "WxH", "Wx" or "xH" */
};

struct op_param {
    const char *name;
    enum param_type type;
    double min, max;
    int min_open;
    const char *choices;
    const char *dflt;     /* NULL: the parameter must be given */
    const char *help;
};

enum size_kind { SIZE_PERCENT, SIZE_PIXELS };
struct size_spec {
    enum size_kind kind;
    double pct;           /* SIZE_PERCENT */
    int w, h;             /* SIZE_PIXELS; 0 keeps the aspect ratio on that axis */
};

struct param_value {
    int set;
    double num;           /* PARAM_NUMBER */
    int choice;           /* PARAM_CHOICE: index into choices */
    struct size_spec size;/* PARAM_SIZE */
};

#define OP_MAX_PARAMS 4
struct op_args {
    struct param_value v[OP_MAX_PARAMS];
};

struct gpu_variant;       /* kernel variants: the GPU backend's business */

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
    const struct gpu_variant *gpu;   /* NULL/0 until the operation has kernels */
    int ngpu;
};

extern const struct op_desc *const gpuimg_ops[];
extern const int gpuimg_nops;

const struct op_desc *op_find(const char *name);

/* The ops, defined in src/ops/. */
extern const struct op_desc op_gray, op_resize, op_blur, op_transpose, op_rotate, op_flip;

#endif
