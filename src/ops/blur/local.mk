# blur: its CPU side here, its kernels in cuda/blur/ (one file a kernel family; the tensor-core
# and one-pass kernels one file a layout, so that make -j compiles them side by side; the
# longest first).
GPUIMG_OPS += blur
libgpuimg_a_SOURCES += src/ops/blur/blur.c cuda/blur/kernels.h
CUDA_SOURCES += cuda/blur/blur.cuh cuda/blur/tensor.cuh cuda/blur/q8.cuh \
	cuda/blur/tensor_c3.cu cuda/blur/tensor_c3t.cu cuda/blur/tensor_c4.cu cuda/blur/tensor_c4t.cu \
	cuda/blur/tensor_c1.cu cuda/blur/tensor_c1t.cu cuda/blur/tensor_c2.cu cuda/blur/tensor_c2t.cu \
	cuda/blur/q8_c1.cu cuda/blur/q8_c3.cu cuda/blur/q8_c4.cu cuda/blur/alpha.cu cuda/blur/b16.cu \
	cuda/blur/separable.cu cuda/blur/tensor.cu cuda/blur/tiled.cu
