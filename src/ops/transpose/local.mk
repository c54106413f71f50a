# transpose: one of the pixel remaps (src/ops/common/remap.c, cuda/remap/).
GPUIMG_OPS += transpose
libgpuimg_a_SOURCES += src/ops/transpose/transpose.c
