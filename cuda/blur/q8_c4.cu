/* gpuimg: blur, the one-pass kernel (q8.cuh) for RGBA images. */
#include "cuda/blur/q8.cuh"

template int blur_q8_dispatch<4>(BLUR_ENTRY_ARGS);
