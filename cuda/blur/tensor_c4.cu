/* gpuimg: blur, the tensor-core kernel (tensor.cuh) for RGBA images, written straight. */
#include "cuda/blur/tensor.cuh"

template int blur_tensor_run<4, false>(BLUR_ENTRY_ARGS);
