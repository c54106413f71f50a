# flatten: its CPU side here, its kernels in cuda/flatten/ (Makefile.am's operation list includes this).
GPUIMG_OPS += flatten
libgpuimg_a_SOURCES += src/ops/flatten/flatten.c cuda/flatten/kernels.h
CUDA_SOURCES += cuda/flatten/flatten.cu
