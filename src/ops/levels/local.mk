# levels: the pointwise template's table form (its kernels are cuda/pointwise_lut.cu's).
GPUIMG_OPS += levels
libgpuimg_a_SOURCES += src/ops/levels/levels.c
