/* gpuimg: what the kernels share. DISPATCH_TC turns a run-time (depth, channels) into a call of a
 * host template FN<T, C>, so every kernel is compiled for 8 and 16 bits and 1 to 4 channels;
 * Pix<BPP> is a type that copies one pixel of BPP bytes in one access where alignment allows;
 * grid helpers keep grid.y within the hardware limit (kernels stride over rows). */
#ifndef GPUIMG_COMMON_CUH
#define GPUIMG_COMMON_CUH
#include <cstdint>
#include "check.h"
#include "gpu.h"

#define DISPATCH_C(T, c, FN, ...)                                                                  \
    ((c) == 1 ? FN<T, 1>(__VA_ARGS__)                                                              \
              : (c) == 2 ? FN<T, 2>(__VA_ARGS__) : (c) == 3 ? FN<T, 3>(__VA_ARGS__) : FN<T, 4>(__VA_ARGS__))
#define DISPATCH_TC(depth, c, FN, ...)                                                             \
    ((depth) == 8 ? DISPATCH_C(uint8_t, c, FN, __VA_ARGS__) : DISPATCH_C(uint16_t, c, FN, __VA_ARGS__))

template <int BPP> struct PixT;
template <> struct PixT<1> { typedef uint8_t type; };
template <> struct PixT<2> { typedef uint16_t type; };
template <> struct PixT<3> { typedef uchar3 type; };
template <> struct PixT<4> { typedef uint32_t type; };
template <> struct PixT<6> { typedef ushort3 type; };
template <> struct PixT<8> { typedef uint2 type; };

#define DISPATCH_BPP(bpp, FN, ...)                                                                 \
    ((bpp) == 1 ? FN<1>(__VA_ARGS__)                                                               \
   : (bpp) == 2 ? FN<2>(__VA_ARGS__)                                                               \
   : (bpp) == 3 ? FN<3>(__VA_ARGS__)                                                               \
   : (bpp) == 4 ? FN<4>(__VA_ARGS__)                                                               \
   : (bpp) == 6 ? FN<6>(__VA_ARGS__) : FN<8>(__VA_ARGS__))

static inline int bpp_of(const struct gpu_image *im) { return im->c * (im->depth / 8); }

/* 2D launch for perpixel kernels: 32x8 blocks; rows beyond grid.y are strided over. */
static inline dim3 grid2d(int w, int h, dim3 block)
{
    unsigned gy = (unsigned)((h + block.y - 1) / block.y);
    return dim3((unsigned)((w + block.x - 1) / block.x), gy > 65535u ? 65535u : gy);
}

/* The two thread layouts over a w x h output, f(x, y) called once per pixel. perpixel: a 2D
 * grid of blocks, one thread a pixel. coalesced: GPU_PPT pixels a thread along a row, thread t
 * of a block taking x0 + t, x0 + t + blockDim.x, ..., so that at each step a warp touches
 * consecutive pixels. Rows beyond the grid are strided over. */
template <typename F> __device__ __forceinline__ void for_perpixel(int w, int h, F f)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= w)
        return;
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += gridDim.y * blockDim.y)
        f(x, y);
}

template <typename F> __device__ __forceinline__ void for_coalesced(int w, int h, F f)
{
    const int x0 = blockIdx.x * blockDim.x * GPU_PPT + threadIdx.x;
    for (int y = blockIdx.y; y < h; y += gridDim.y) {
#pragma unroll
        for (int k = 0; k < GPU_PPT; k++) {
            const int x = x0 + k * blockDim.x;
            if (x < w)
                f(x, y);
        }
    }
}

/* Launch shapes for the two layouts (perpixel: 32x8 blocks; coalesced: 256 threads a block). */
#define PERPIXEL_BLOCK dim3(32, 8)
static inline dim3 grid_coalesced(int w, int h)
{
    return dim3((unsigned)((w + 256 * GPU_PPT - 1) / (256 * GPU_PPT)), h > 65535 ? 65535u : (unsigned)h);
}

/* 1D launch for coalesced kernels over n items, GPU_PPT per thread. */
static inline unsigned grid1d(size_t n, unsigned threads)
{
    size_t per_block = (size_t)threads * GPU_PPT;
    return (unsigned)((n + per_block - 1) / per_block);
}

#endif
