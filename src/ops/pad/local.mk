# pad: its CPU side here, its kernels in cuda/pad/ (Makefile.am's operation list includes this).
GPUIMG_OPS += pad
libgpuimg_a_SOURCES += src/ops/pad/pad.c cuda/pad/kernels.h
CUDA_SOURCES += cuda/pad/pad.cu
