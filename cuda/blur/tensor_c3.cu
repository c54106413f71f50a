/* gpuimg: blur, the tensor-core kernel (tensor.cuh) for RGB images, written straight. */
#include "cuda/blur/tensor.cuh"

template int blur_tensor_run<3, false>(BLUR_ENTRY_ARGS);
