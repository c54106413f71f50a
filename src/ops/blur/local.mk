# blur: its CPU side here, its kernels in cuda/blur/ (one file a kernel family; the tensor-core
# kernel one file a channel count, so that make -j compiles them side by side).
GPUIMG_OPS += blur
libgpuimg_a_SOURCES += src/ops/blur/blur.c cuda/blur/kernels.h
CUDA_SOURCES += cuda/blur/blur.cuh cuda/blur/tensor.cuh cuda/blur/separable.cu cuda/blur/tiled.cu cuda/blur/q8.cu \
	cuda/blur/b16.cu cuda/blur/alpha.cu cuda/blur/tensor.cu cuda/blur/tensor_c1.cu cuda/blur/tensor_c2.cu \
	cuda/blur/tensor_c3.cu cuda/blur/tensor_c4.cu
