/* gpuimg: the operation registry (see op.h) and the helpers every operation uses. */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include "core/error.h"
#include "core/op.h"

const char *const kernel_names[KV_COUNT] = { "perpixel", "coalesced", "tiled",  "separable",
                                              "vector",   "texture",   "tensor" };

long op_gpu_tolerance(const struct op_desc *op, const struct op_args *a, const struct geom *in, int variant)
{
    return op->gpu_tolerance ? op->gpu_tolerance(a, in, variant) : 0;
}

void kernel_list(unsigned mask, char *buf, size_t n)
{
    buf[0] = 0;
    for (int v = 0; v < KV_COUNT; v++)
        if (mask & KV_BIT(v))
            snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? ", " : "", kernel_names[v]);
    if (!buf[0])
        snprintf(buf, n, "none in this build");
}

int op_cuda_fail(const struct op_desc *op, int variant, const char *msg)
{
    return gpuimg_fail(GPUIMG_ECUDA, "%s (%s kernel): %s", op->name,
                       variant >= 0 && variant < KV_COUNT ? kernel_names[variant] : "?", msg);
}

/* The table is Makefile.am's operation list (ops.def, generated from it: OP(name) a line, in the
 * order of --help); each operation defines op_NAME in src/ops/NAME/. */
#define OP(name) extern const struct op_desc op_##name;
#include "ops.def"
#undef OP
const struct op_desc *const gpuimg_ops[] = {
#define OP(name) &op_##name,
#include "ops.def"
#undef OP
};
const int gpuimg_nops = (int)(sizeof gpuimg_ops / sizeof gpuimg_ops[0]);

const struct op_desc *op_find(const char *name)
{
    for (int i = 0; i < gpuimg_nops; i++)
        if (strcmp(gpuimg_ops[i]->name, name) == 0)
            return gpuimg_ops[i];
    return NULL;
}

int op_examples(const char **out, int max, int tileable)
{
    int n = 0;
    for (int i = 0; i < gpuimg_nops; i++)
        for (const char *const *ex = gpuimg_ops[i]->examples; ex && *ex && n < max; ex++)
            if (!tileable || gpuimg_ops[i]->region)
                out[n++] = *ex;
    return n;
}

int op_upload_parts(const struct op_desc *op, int variant, void **block, int nparts, const void *const *host,
                    const size_t *bytes, void **part)
{
#ifdef HAVE_CUDA
    char err[256];
    int r = gpu_upload_parts(block, nparts, host, bytes, part, err, sizeof err);
    if (r)
        return r == GPU_ERR_NOMEM ? (int)gpuimg_fail(GPUIMG_ENODEVMEM, "%s: %s", op->name, err) : op_cuda_fail(op, variant, err);
    return GPUIMG_OK;
#else
    return gpuimg_fail(GPUIMG_EUNSUPPORTED, "%s: this build has no GPU", op->name);
#endif
}

void op_region_point(const struct op_args *a, const struct geom *in, const struct geom *out, const struct rect *want,
                     struct rect *need, struct rect *yields)
{
    *need = *want;
    *yields = *want;
}
