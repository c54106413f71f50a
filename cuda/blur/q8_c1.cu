/* gpuimg: blur, the one-pass kernel (q8.cuh) for grey images. */
#include "cuda/blur/q8.cuh"

template int blur_q8_dispatch<1>(BLUR_ENTRY_ARGS);
