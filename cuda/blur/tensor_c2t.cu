/* gpuimg: blur, the tensor-core kernel (tensor.cuh) for grey+alpha images, written transposed (a fused transpose). */
#include "cuda/blur/tensor.cuh"

template int blur_tensor_run<2, true>(BLUR_ENTRY_ARGS);
