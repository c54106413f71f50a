# trim: the box measured on the CPU here, on the GPU by the reduction in cuda/trim/ (Makefile.am's
# operation list includes this).
GPUIMG_OPS += trim
libgpuimg_a_SOURCES += src/ops/trim/trim.c cuda/trim/kernels.h
CUDA_SOURCES += cuda/trim/box.cu
