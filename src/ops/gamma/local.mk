# gamma: the pointwise template's table form (its kernels are cuda/pointwise_lut.cu's).
GPUIMG_OPS += gamma
libgpuimg_a_SOURCES += src/ops/gamma/gamma.c
