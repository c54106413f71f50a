# invert: the pointwise template's function here, its kernels in cuda/invert/ (Makefile.am's
# operation list includes this).
GPUIMG_OPS += invert
libgpuimg_a_SOURCES += src/ops/invert/invert.c
CUDA_SOURCES += cuda/invert/invert.cu
