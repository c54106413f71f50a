/* gpuimg: the pointwise template's plain-C face, shared by its kernels (cuda/pointwise.cuh) and its
 * host side (src/ops/common/pointwise.h): a step's parameters as the operation's function sees
 * them, the launcher each pointwise operation's .cu defines (POINTWISE_KERNELS), and the table
 * form's one launcher. */
#ifndef GPUIMG_CUDA_POINTWISE_H
#define GPUIMG_CUDA_POINTWISE_H
#include "cuda/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The step's parameters in the order of op_desc.params: numbers, and choices as indices. */
#define PW_MAX_PARAMS 8
struct pw_args {
    double num[PW_MAX_PARAMS];
    int choice[PW_MAX_PARAMS];
};

/* gpu_pw_NAME: variant k of the operation from in to out (the same geometry, packed). Returns 0
 * or a CUDA error code with a one-line message in err (errlen bytes). */
typedef int pw_launcher(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out,
                        const struct pw_args *p, char *err, size_t errlen);

/* The table form's launcher (cuda/pointwise_lut.cu), one for every operation that takes it: each
 * colour sample v of in to table[v] in out, alpha copied; table (device memory) holds 256 bytes
 * for 8-bit images, 65536 uint16_t for 16-bit ones. Returns as pw_launcher. */
int gpu_pw_lut(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out, const void *table,
               char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
