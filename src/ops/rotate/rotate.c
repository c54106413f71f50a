/* gpuimg: rotate, one of the pixel remaps (ops/common/remap.h). */
#include <config.h>
#include "ops/common/remap.h"

extern const struct op_desc op_rotate;   /* this operation, defined at the end */

static const struct op_param rotate_params[] = {
    { "angle", PARAM_CHOICE, 0, 0, 0, "90|180|270", NULL, "degrees clockwise" },
};
static enum map rotate_map(const struct op_args *a)
{
    static const enum map m[] = { M_ROT90, M_ROT180, M_ROT270 };
    return m[a->v[0].choice];
}
static int rotate_resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    return remap_resolve(rotate_map(a), in, out);
}
static int rotate_cpu(const struct op_args *a, const struct image *in, struct image *out)
{
    return remap_cpu(rotate_map(a), in, out);
}
static void rotate_region(const struct op_args *a, const struct geom *in, const struct geom *out,
                          const struct rect *want, struct rect *need, struct rect *yields)
{
    remap_region(rotate_map(a), in, want, need, yields);
}
#ifdef HAVE_CUDA
static int rotate_gpu(const struct op_args *a, const void *state, const struct gpu_call *k, const struct gpu_image *in,
                      const struct gpu_image *out, const char **ran)
{
    return remap_gpu(&op_rotate, rotate_map(a), k, in, out);
}
#endif
const struct op_desc op_rotate = {
    .name = "rotate",
    .summary = "rotate clockwise by 90, 180 or 270 degrees (rotate=90)",
    .definition = "rotate=90: out(x, y) = in(y, H-1-x); rotate=180: out(x, y) = in(W-1-x, H-1-y); "
                  "rotate=270: out(x, y) = in(W-1-y, x). Exact.",
    .params = rotate_params,
    .nparams = 1,
    .resolve = rotate_resolve,
    .cpu = rotate_cpu,
    .region = rotate_region,
    GPU_FIELDS(REMAP_KERNELS, KV_TILED, NULL, rotate_gpu, NULL),
    .gpu_auto_for = remap_swap_auto_for,
    .gpu_auto_text = REMAP_SWAP_AUTO_TEXT,
    .examples = EXAMPLES("rotate=90"),
};

