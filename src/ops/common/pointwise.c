/* gpuimg: the pointwise template's functions shared by its operations (pointwise.h). */
#include <config.h>
#include <string.h>
#include "ops/common/pointwise.h"

int pointwise_resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    *out = *in;
    return GPUIMG_OK;
}

void pointwise_args(const struct op_args *a, struct pw_args *p)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < OP_MAX_PARAMS; i++) {
        p->num[i] = a->v[i].num;
        p->choice[i] = a->v[i].choice;
    }
}

#ifdef HAVE_CUDA
int pointwise_gpu(const struct op_desc *op, pw_launcher *fn, const struct op_args *a, const struct gpu_call *k,
                  const struct gpu_image *in, const struct gpu_image *out)
{
    struct pw_args p;
    pointwise_args(a, &p);
    char err[256];
    return fn(k, in, out, &p, err, sizeof err) ? op_cuda_fail(op, k->variant, err) : GPUIMG_OK;
}
#endif
