# flip: one of the pixel remaps (src/ops/common/remap.c, cuda/remap/).
GPUIMG_OPS += flip
libgpuimg_a_SOURCES += src/ops/flip/flip.c
