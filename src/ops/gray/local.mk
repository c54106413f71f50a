# gray: its CPU side here, its kernels in cuda/gray/ (Makefile.am's operation list includes this).
GPUIMG_OPS += gray
libgpuimg_a_SOURCES += src/ops/gray/gray.c cuda/gray/kernels.h
CUDA_SOURCES += cuda/gray/gray.cu
