# rotate: multiples of 90 degrees are pixel remaps (src/ops/common/remap.c, cuda/remap/); other
# angles interpolate, their kernels in cuda/rotate/ (Makefile.am's operation list includes this).
GPUIMG_OPS += rotate
libgpuimg_a_SOURCES += src/ops/rotate/rotate.c cuda/rotate/kernels.h cuda/rotate/sample.h
CUDA_SOURCES += cuda/rotate/rotate.cuh cuda/rotate/perpixel.cu cuda/rotate/coalesced.cu
