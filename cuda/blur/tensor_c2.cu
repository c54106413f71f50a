/* gpuimg: blur, the tensor-core kernel (tensor.cuh) for grey+alpha images, written straight. */
#include "cuda/blur/tensor.cuh"

template int blur_tensor_run<2, false>(BLUR_ENTRY_ARGS);
