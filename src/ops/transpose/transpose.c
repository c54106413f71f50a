/* gpuimg: transpose, one of the pixel remaps (ops/common/remap.h). */
#include <config.h>
#include "ops/common/remap.h"

extern const struct op_desc op_transpose;   /* this operation, defined at the end */

static int transpose_resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    return remap_resolve(M_TRANSPOSE, in, out);
}
static int transpose_cpu(const struct op_args *a, const struct image *in, struct image *out)
{
    return remap_cpu(M_TRANSPOSE, in, out);
}
static void transpose_region(const struct op_args *a, const struct geom *in, const struct geom *out,
                             const struct rect *want, struct rect *need, struct rect *yields)
{
    remap_region(M_TRANSPOSE, in, want, need, yields);
}
#ifdef HAVE_CUDA
static int transpose_gpu(const struct op_args *a, const void *state, const struct gpu_call *k, const struct gpu_image *in,
                         const struct gpu_image *out, const char **ran)
{
    return remap_gpu(&op_transpose, M_TRANSPOSE, k, in, out);
}
#endif
const struct op_desc op_transpose = {
    .name = "transpose",
    .summary = "swap rows and columns (mirror across the main diagonal)",
    .definition = "out(x, y) = in(y, x); a WxH image becomes HxW. Exact.",
    .resolve = transpose_resolve,
    .cpu = transpose_cpu,
    .region = transpose_region,
    GPU_FIELDS(REMAP_KERNELS, KV_TILED, NULL, transpose_gpu, NULL),
    .gpu_auto_for = remap_swap_auto_for,
    .gpu_auto_text = REMAP_SWAP_AUTO_TEXT,
    .fuses_as = FUSE_TRANSPOSE_OUT,
    .examples = EXAMPLES("transpose"),
};

