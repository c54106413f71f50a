# copy: the identity, one of the pixel remaps (src/ops/common/remap.c, cuda/remap/).
GPUIMG_OPS += copy
libgpuimg_a_SOURCES += src/ops/copy/copy.c
