# resize: its CPU side here, its kernels in cuda/resize/ (one file a kernel family).
GPUIMG_OPS += resize
libgpuimg_a_SOURCES += src/ops/resize/resize.c src/ops/resize/interp.c src/ops/resize/interp.h cuda/resize/kernels.h
CUDA_SOURCES += cuda/resize/resize.cuh cuda/resize/nearest.cu cuda/resize/half.cu cuda/resize/double.cu \
	cuda/resize/texture.cu cuda/resize/tiled.cu cuda/resize/warp.cu cuda/resize/rows.cu cuda/resize/interp.cu
