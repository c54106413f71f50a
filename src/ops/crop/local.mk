# crop: its CPU side here; on the GPU the remap kernels (cuda/remap/) and the copy engine.
GPUIMG_OPS += crop
libgpuimg_a_SOURCES += src/ops/crop/crop.c
