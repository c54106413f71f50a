# composite: its CPU side here, its kernels in cuda/composite/ (Makefile.am's operation list includes this).
GPUIMG_OPS += composite
libgpuimg_a_SOURCES += src/ops/composite/composite.c cuda/composite/kernels.h
CUDA_SOURCES += cuda/composite/composite.cuh cuda/composite/perpixel.cu cuda/composite/coalesced.cu
