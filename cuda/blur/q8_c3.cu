/* gpuimg: blur, the one-pass kernel (q8.cuh) for RGB images. */
#include "cuda/blur/q8.cuh"

template int blur_q8_dispatch<3>(BLUR_ENTRY_ARGS);
