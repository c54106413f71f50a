/* gpuimg: flip, one of the pixel remaps (ops/common/remap.h). */
#include <config.h>
#include "ops/common/remap.h"

extern const struct op_desc op_flip;   /* this operation, defined at the end */

static const struct op_param flip_params[] = {
    { "axis", PARAM_CHOICE, 0, 0, 0, "h|v", NULL, "h: mirror left-right; v: mirror top-bottom" },
};
static int flip_resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    return remap_resolve(a->v[0].choice ? M_FLIPV : M_FLIPH, in, out);
}
static int flip_cpu(const struct op_args *a, const struct image *in, struct image *out)
{
    return remap_cpu(a->v[0].choice ? M_FLIPV : M_FLIPH, in, out);
}
static void flip_region(const struct op_args *a, const struct geom *in, const struct geom *out,
                        const struct rect *want, struct rect *need, struct rect *yields)
{
    remap_region(a->v[0].choice ? M_FLIPV : M_FLIPH, in, want, need, yields);
}
/* vector's mirrored chunks, but coalesced for 6-byte pixels (RGB 16-bit), where they are no
 * faster */
static int flip_auto_for(const struct geom *in) { return in->c * (in->depth / 8) == 6 ? KV_COALESCED : KV_VECTOR; }
#ifdef HAVE_CUDA
static int flip_gpu(const struct op_args *a, const void *state, const struct gpu_call *k, const struct gpu_image *in,
                    const struct gpu_image *out, const char **ran)
{
    return remap_gpu(&op_flip, a->v[0].choice ? M_FLIPV : M_FLIPH, k, in, out);
}
#endif
const struct op_desc op_flip = {
    .name = "flip",
    .summary = "mirror horizontally (flip=h) or vertically (flip=v)",
    .definition = "flip=h: out(x, y) = in(W-1-x, y); flip=v: out(x, y) = in(x, H-1-y). Exact.",
    .params = flip_params,
    .nparams = 1,
    .resolve = flip_resolve,
    .cpu = flip_cpu,
    .region = flip_region,
    GPU_FIELDS(REMAP_KERNELS, KV_VECTOR, NULL, flip_gpu, NULL),
    .gpu_auto_for = flip_auto_for,
    .gpu_auto_text = "vector, but coalesced for RGB 16-bit",
    .examples = EXAMPLES("flip=h"),
};
