# sharpen: its CPU side here (the blur through ops/common's gaussian and separable engine), its
# combine kernels in cuda/sharpen/ (the blur's are cuda/sepfilter's); Makefile.am's operation list
# includes this.
GPUIMG_OPS += sharpen
libgpuimg_a_SOURCES += src/ops/sharpen/sharpen.c cuda/sharpen/kernels.h
CUDA_SOURCES += cuda/sharpen/sharpen.cu
