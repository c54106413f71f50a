/* gpuimg: blur, the tensor-core kernel (tensor.cuh) for grey images, written transposed (a fused transpose). */
#include "cuda/blur/tensor.cuh"

template int blur_tensor_run<1, true>(BLUR_ENTRY_ARGS);
