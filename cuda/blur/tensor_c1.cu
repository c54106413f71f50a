/* gpuimg: blur, the tensor-core kernel (tensor.cuh) for grey images, written straight. */
#include "cuda/blur/tensor.cuh"

template int blur_tensor_run<1, false>(BLUR_ENTRY_ARGS);
