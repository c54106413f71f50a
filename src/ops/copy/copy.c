/* gpuimg: copy, the identity, one of the pixel remaps (ops/common/remap.h): the step that lets a
 * command only change the format (gpuimg copy in.png out.jpg, or gpuimg in.png out.jpg). */
#include <config.h>
#include "ops/common/remap.h"

extern const struct op_desc op_copy;   /* this operation, defined at the end */

static int copy_resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    return remap_resolve(M_COPY, in, out);
}
static int copy_cpu(const struct op_args *a, const struct image *in, struct image *out)
{
    return remap_cpu(M_COPY, in, out);
}
static void copy_region(const struct op_args *a, const struct geom *in, const struct geom *out, const struct rect *want,
                        struct rect *need, struct rect *yields)
{
    remap_region(M_COPY, in, want, need, yields);
}
#ifdef HAVE_CUDA
static int copy_gpu(const struct op_args *a, const void *state, const struct gpu_call *k, const struct gpu_image *in,
                    const struct gpu_image *out, const char **ran)
{
    return remap_gpu(&op_copy, M_COPY, k, in, out);
}
#endif
const struct op_desc op_copy = {
    .name = "copy",
    .summary = "the image unchanged: a format conversion (also: gpuimg INPUT OUTPUT)",
    .definition = "out(x, y) = in(x, y). Exact. gpuimg INPUT OUTPUT with no PIPELINE runs copy.",
    .params = NULL,
    .nparams = 0,
    .resolve = copy_resolve,
    .cpu = copy_cpu,
    .region = copy_region,
    GPU_FIELDS(REMAP_KERNELS, KV_VECTOR, NULL, copy_gpu, NULL),
    .examples = EXAMPLES("copy"),
};
