# rotate: one of the pixel remaps (src/ops/common/remap.c, cuda/remap/).
GPUIMG_OPS += rotate
libgpuimg_a_SOURCES += src/ops/rotate/rotate.c
