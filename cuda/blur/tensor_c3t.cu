/* gpuimg: blur, the tensor-core kernel (tensor.cuh) for RGB images, written transposed (a fused transpose). */
#include "cuda/blur/tensor.cuh"

template int blur_tensor_run<3, true>(BLUR_ENTRY_ARGS);
