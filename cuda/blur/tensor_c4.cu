/* gpuimg: blur, the tensor-core kernel for 4-channel images (tensor.cuh). */
#include "cuda/blur/tensor.cuh"

template int blur_tensor_dispatch<uint8_t, 4>(BLUR_ENTRY_ARGS);
