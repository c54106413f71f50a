/* gpuimg: blur, the tensor-core kernel for 3-channel images (tensor.cuh). */
#include "cuda/blur/tensor.cuh"

template int blur_tensor_dispatch<uint8_t, 3>(BLUR_ENTRY_ARGS);
