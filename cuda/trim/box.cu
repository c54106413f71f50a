/* gpuimg: trim's reduction, the bounding box of the pixels that are not background (kernels.h
 * states the rule, src/ops/trim/trim.c the CPU's same integers). perpixel: a 2D grid, a thread a
 * pixel; coalesced: GPU_PPT pixels a thread along a row, a warp's consecutive at each step. Each
 * thread keeps its own box, a block joins its threads' by warp shuffles and shared memory, and
 * one thread a block joins it to the image's by four atomics. */
#include <climits>
#include "cuda/common.cuh"
#include "cuda/trim/kernels.h"

struct trim_args {
    uint32_t thr, bg[3];
    int given;
};

template <typename T, int C>
__device__ __forceinline__ uint32_t flat(const T *in, int w, int h, int x, int y, int k, const uint32_t *bg)
{
    x = min(max(x, 0), w - 1);
    y = min(max(y, 0), h - 1);
    const T *p = in + ((size_t)y * w + x) * C;
    const uint32_t v = p[k];
    if constexpr (C == 2 || C == 4) {
        constexpr uint32_t top = sizeof(T) == 1 ? 255u : 65535u;
        const uint32_t a = p[C - 1];
        return (v * a + bg[k] * (top - a)) / top;   /* at most top^2: 32 bits */
    } else
        return v;
}

#define SORT2(a, b) do { const uint32_t lo_ = min(a, b), hi_ = max(a, b); a = lo_; b = hi_; } while (0)
__device__ __forceinline__ uint32_t med9(uint32_t (&p)[9])
{
    SORT2(p[1], p[2]); SORT2(p[4], p[5]); SORT2(p[7], p[8]); SORT2(p[0], p[1]); SORT2(p[3], p[4]);
    SORT2(p[6], p[7]); SORT2(p[1], p[2]); SORT2(p[4], p[5]); SORT2(p[7], p[8]); SORT2(p[0], p[3]);
    SORT2(p[5], p[8]); SORT2(p[4], p[7]); SORT2(p[3], p[6]); SORT2(p[1], p[4]); SORT2(p[2], p[5]);
    SORT2(p[4], p[7]); SORT2(p[4], p[2]); SORT2(p[6], p[4]); SORT2(p[4], p[2]);
    return p[4];
}

template <typename T, int C>
__device__ __forceinline__ bool differs(const T *in, int w, int h, int x, int y, const uint32_t *bg, uint32_t thr)
{
    constexpr int NC = C == 2 || C == 4 ? C - 1 : C;
#pragma unroll
    for (int k = 0; k < NC; k++) {
        uint32_t v[9];
#pragma unroll
        for (int j = 0; j < 9; j++)
            v[j] = flat<T, C>(in, w, h, x + j % 3 - 1, y + j / 3 - 1, k, bg);
        const uint32_t m = med9(v);
        if ((m > bg[k] ? m - bg[k] : bg[k] - m) > thr)
            return true;
    }
    return false;
}

/* The background's samples: given, or pixel (0, 0)'s colour samples. */
template <typename T, int C> __device__ __forceinline__ void background(const T *in, const trim_args &a, uint32_t (&bg)[3])
{
#pragma unroll
    for (int k = 0; k < 3; k++)
        bg[k] = a.given || k >= C ? a.bg[k] : (uint32_t)in[k];
}

/* The block's box (threads' boxes b[4]: min x, max x, min y, max y) joined into dbox. */
__device__ __forceinline__ void block_join(int (&b)[4], int *dbox)
{
    __shared__ int part[32][4];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        b[0] = min(b[0], __shfl_xor_sync(0xffffffffu, b[0], o));
        b[1] = max(b[1], __shfl_xor_sync(0xffffffffu, b[1], o));
        b[2] = min(b[2], __shfl_xor_sync(0xffffffffu, b[2], o));
        b[3] = max(b[3], __shfl_xor_sync(0xffffffffu, b[3], o));
    }
    const int t = threadIdx.y * blockDim.x + threadIdx.x, nw = (blockDim.x * blockDim.y + 31) / 32;
    if ((t & 31) == 0)
        for (int k = 0; k < 4; k++)
            part[t >> 5][k] = b[k];
    __syncthreads();
    if (t == 0) {
        for (int w = 1; w < nw; w++) {
            b[0] = min(b[0], part[w][0]);
            b[1] = max(b[1], part[w][1]);
            b[2] = min(b[2], part[w][2]);
            b[3] = max(b[3], part[w][3]);
        }
        if (b[1] >= 0) {   /* the block saw a pixel that differs */
            atomicMin(&dbox[0], b[0]);
            atomicMax(&dbox[1], b[1]);
            atomicMin(&dbox[2], b[2]);
            atomicMax(&dbox[3], b[3]);
        }
    }
}

__device__ __forceinline__ void grow(int (&b)[4], int x, int y)
{
    b[0] = min(b[0], x);
    b[1] = max(b[1], x);
    b[2] = min(b[2], y);
    b[3] = max(b[3], y);
}

/* (block sizes are whole warps: the shuffles take every lane, those past the image with an empty box) */
template <typename T, int C>
__global__ void trim_perpixel(const T *in, int w, int h, trim_args a, int *dbox)
{
    uint32_t bg[3];
    background<T, C>(in, a, bg);
    int b[4] = { INT_MAX, -1, INT_MAX, -1 };
    for_perpixel(w, h, [&](int x, int y) {
        if (differs<T, C>(in, w, h, x, y, bg, a.thr))
            grow(b, x, y);
    });
    block_join(b, dbox);
}

template <typename T, int C, int PPT>
__global__ void trim_coalesced(const T *in, int w, int h, trim_args a, int *dbox)
{
    uint32_t bg[3];
    background<T, C>(in, a, bg);
    int b[4] = { INT_MAX, -1, INT_MAX, -1 };
    for_coalesced<PPT>(w, h, [&](int x, int y) {
        if (differs<T, C>(in, w, h, x, y, bg, a.thr))
            grow(b, x, y);
    });
    block_join(b, dbox);
}

template <typename T, int C>
static int launch_trim(const gpu_call *k, const gpu_image *in, const trim_args &a, int *dbox, char *err, size_t errlen)
{
    const T *s = (const T *)in->data;
    if (k->variant == KV_PERPIXEL) {
        dim3 bl = perpixel_block(k->shape);
        if ((bl.x * bl.y) % 32)   /* whole warps */
            bl = dim3(32, 8);
        launch(trim_perpixel<T, C>, grid2d(in->w, in->h, bl), bl, 0, 1, s, in->w, in->h, a, dbox);
    } else {
        unsigned th = threads1d(k->shape);
        th = th % 32 || th > 1024 ? 256u : th;
        PPT_SWITCH(ppt_choice(k->shape), launch(trim_coalesced<T, C, P>, grid_coalesced(in->w, in->h, th, P), th, 0, P,
                                                s, in->w, in->h, a, dbox));
    }
    LAUNCH_TRY(err, errlen);
    return 0;
}

extern "C" int gpu_trim_box(const struct gpu_call *k, const struct gpu_image *in, int bg_given, const uint32_t bg[3],
                            uint32_t thr, int *dbox, int box[4], char *err, size_t errlen)
{
    const int init[4] = { INT_MAX, -1, INT_MAX, -1 };
    const trim_args a = { thr, { bg[0], bg[1], bg[2] }, bg_given };
    CUDA_TRY(cudaMemcpyAsync(dbox, init, sizeof init, cudaMemcpyHostToDevice, 0), err, errlen);
    const int r = DISPATCH_TC(in->depth, in->c, launch_trim, k, in, a, dbox, err, errlen);
    if (r)
        return r;
    CUDA_TRY(cudaMemcpy(box, dbox, 4 * sizeof(int), cudaMemcpyDeviceToHost), err, errlen);
    return 0;
}
