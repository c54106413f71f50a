# crop: its CPU side here; on the GPU the remap kernels (cuda/remap/) and the copy engine, and
# gravity=entropy's histograms and attention's cell sums (cuda/crop/).
GPUIMG_OPS += crop
libgpuimg_a_SOURCES += src/ops/crop/crop.c src/ops/crop/smart.c src/ops/crop/attention.c src/ops/crop/smart.h cuda/crop/kernels.h
CUDA_SOURCES += cuda/crop/hist.cu cuda/crop/cells.cu
