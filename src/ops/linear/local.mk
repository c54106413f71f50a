# linear: the pointwise template's table form (its kernels are cuda/pointwise_lut.cu's).
GPUIMG_OPS += linear
libgpuimg_a_SOURCES += src/ops/linear/linear.c
