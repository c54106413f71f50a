/* gpuimg: invert's kernels, the pointwise template's (cuda/pointwise.cuh) with src/ops/invert's
 * function. */
#include "cuda/pointwise.cuh"
struct Invert {
    static __device__ uint32_t sample(uint32_t v, uint32_t top, const pw_args &p) { return top - v; }
};
POINTWISE_KERNELS(invert, Invert)
