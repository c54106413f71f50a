# What several operations share: the separable filter engine (resize, blur, sharpen), the gaussian
# (blur, sharpen), the pixel remaps (transpose, rotate, flip, copy, crop), placing by gravity, the
# SIMD switches, the pointwise template (its kernels are instantiated in each user's own .cu, the
# table form's in cuda/pointwise_lut.cu); and their kernel families.
libgpuimg_a_SOURCES += src/ops/common/sepfilter.c src/ops/common/sepfilter.h src/ops/common/gauss.c \
	src/ops/common/gauss.h src/ops/common/simd.c \
	src/ops/common/simd.h src/ops/common/remap.c src/ops/common/remap.h src/ops/common/place.c src/ops/common/place.h cuda/sepfilter/kernels.h cuda/remap/kernels.h
CUDA_SOURCES += cuda/sepfilter/sepfilter.cu cuda/remap/remap.cu
libgpuimg_a_SOURCES += src/ops/common/pointwise.c src/ops/common/pointwise.h cuda/pointwise.h
CUDA_SOURCES += cuda/pointwise.cuh
CUDA_SOURCES += cuda/pointwise_lut.cu
