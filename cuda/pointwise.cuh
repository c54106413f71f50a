/* gpuimg: the pointwise template's kernels (src/ops/common/pointwise.h says what the template is).
 * An operation's .cu (cuda/invert/invert.cu is one) defines a struct with one device function,
 * the same as its CPU function, to the bit (pointwise.h: floating point there needs care),
 *     static __device__ uint32_t sample(uint32_t v, uint32_t top, const pw_args &p)
 * (each colour sample v, 0..top, to its result, 0..top), and POINTWISE_KERNELS(NAME, Struct)
 * makes its launcher gpu_pw_NAME with three variants, for 8 and 16 bits and 1 to 4 channels,
 * alpha copied: perpixel (a 2D grid, one thread a pixel, a pixel moved in one access where its
 * size allows), coalesced (GPU_PPT pixels a thread over the flattened image, thread t of a block
 * taking pixels t, t + blockDim, ..., so that at each step a warp's accesses are consecutive) and
 * vector (GPU_VPX pixels a thread moved as 16-byte words, gray's form). The table form's
 * operations have no .cu: cuda/pointwise_lut.cu runs these kernels on their tables. */
#ifndef GPUIMG_CUDA_POINTWISE_CUH
#define GPUIMG_CUDA_POINTWISE_CUH
#include "cuda/common.cuh"
#include "cuda/pointwise.h"

/* The kernels take the function's arguments as any type A: the step's pw_args, or the look-up
 * table of the table form (cuda/pointwise_lut.cu). */

/* The operation on one pixel v of C samples, the last one alpha where C is 2 or 4. */
template <class Op, typename T, int C, class A> __device__ __forceinline__ void pw_apply(T (&v)[C], const A &p)
{
    constexpr int NC = C == 2 || C == 4 ? C - 1 : C;
    constexpr uint32_t top = sizeof(T) == 1 ? 255u : 65535u;
#pragma unroll
    for (int c = 0; c < NC; c++)
        v[c] = (T)Op::sample(v[c], top, p);
}

template <class Op, typename T, int C, class A> __device__ __forceinline__ void pw_one(const T *in, T *out, size_t i, const A &p)
{
    T v[C];
    ld_vec<T, C>(in + i * C, v);
    pw_apply<Op, T, C>(v, p);
    st_vec<T, C>(out + i * C, v);
}

template <class Op, typename T, int C, class A> __global__ void pw_perpixel(const T *in, T *out, int w, int h, A p)
{
    for_perpixel(w, h, [&](int x, int y) { pw_one<Op, T, C>(in, out, (size_t)y * w + x, p); });
}

template <class Op, typename T, int C, class A, int PPT> __global__ void pw_coalesced(const T *in, T *out, size_t n, A p)
{
    const size_t base = (size_t)blockIdx.x * blockDim.x * PPT + threadIdx.x;
#pragma unroll
    for (int k = 0; k < PPT; k++) {
        const size_t i = base + (size_t)k * blockDim.x;
        if (i < n)
            pw_one<Op, T, C>(in, out, i, p);
    }
}

/* GPU_VPX pixels of any layout are a whole number of 16-byte words, and every block of them starts
 * 16-byte aligned; the tail that is not a whole block goes pixel by pixel. */
template <class Op, typename T, int C, class A> __global__ void pw_vector(const T *in, T *out, size_t n, A p)
{
    constexpr int W = GPU_VPX * C * (int)sizeof(T) / 16;
    const size_t nblk = n / GPU_VPX;
    for (size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x; b < nblk; b += (size_t)gridDim.x * blockDim.x) {
        uint4 w[W];
        const uint4 *src = (const uint4 *)(in + b * GPU_VPX * C);
#pragma unroll
        for (int i = 0; i < W; i++)
            w[i] = src[i];
        T *q = (T *)w;
#pragma unroll
        for (int k = 0; k < GPU_VPX; k++) {
            T v[C];
#pragma unroll
            for (int c = 0; c < C; c++)
                v[c] = q[k * C + c];
            pw_apply<Op, T, C>(v, p);
#pragma unroll
            for (int c = 0; c < C; c++)
                q[k * C + c] = v[c];
        }
        uint4 *dst = (uint4 *)(out + b * GPU_VPX * C);
#pragma unroll
        for (int i = 0; i < W; i++)
            dst[i] = w[i];
    }
    if (blockIdx.x == 0)
        for (size_t i = nblk * GPU_VPX + threadIdx.x; i < n; i += blockDim.x)
            pw_one<Op, T, C>(in, out, i, p);
}

template <class Op, typename T, int C, class A>
static int pw_launch_tc(const gpu_call *k, const gpu_image *in, const gpu_image *out, const A &p, char *err,
                        size_t errlen)
{
    const T *s = (const T *)in->data;
    T *d = (T *)out->data;
    const size_t n = (size_t)in->w * in->h;
    if (k->variant == KV_PERPIXEL) {
        const dim3 b = perpixel_block(k->shape), g = grid2d(in->w, in->h, b);
        launch(pw_perpixel<Op, T, C, A>, g, b, 0, 1, s, d, in->w, in->h, p);
    } else if (k->variant == KV_VECTOR) {
        const unsigned th = threads1d(k->shape), blocks = (unsigned)((n / GPU_VPX + th - 1) / th);
        launch(pw_vector<Op, T, C, A>, blocks ? blocks : 1, th, 0, GPU_VPX, s, d, n, p);
    } else if (k->variant == KV_COALESCED) {
        const unsigned th = threads1d(k->shape);
        PPT_SWITCH(ppt_choice(k->shape), launch(pw_coalesced<Op, T, C, A, P>, grid1d(n, th, P), th, 0, P, s, d, n, p));
    } else {
        snprintf(err, errlen, "no pointwise kernel for variant %d", k->variant);
        return (int)cudaErrorInvalidValue;
    }
    LAUNCH_TRY(err, errlen);
    return 0;
}

template <class Op>
static int pw_launch(const gpu_call *k, const gpu_image *in, const gpu_image *out, const pw_args *p, char *err,
                     size_t errlen)
{
    switch ((in->depth == 16 ? 4 : 0) + in->c) {
    case 1: return pw_launch_tc<Op, uint8_t, 1>(k, in, out, *p, err, errlen);
    case 2: return pw_launch_tc<Op, uint8_t, 2>(k, in, out, *p, err, errlen);
    case 3: return pw_launch_tc<Op, uint8_t, 3>(k, in, out, *p, err, errlen);
    case 4: return pw_launch_tc<Op, uint8_t, 4>(k, in, out, *p, err, errlen);
    case 5: return pw_launch_tc<Op, uint16_t, 1>(k, in, out, *p, err, errlen);
    case 6: return pw_launch_tc<Op, uint16_t, 2>(k, in, out, *p, err, errlen);
    case 7: return pw_launch_tc<Op, uint16_t, 3>(k, in, out, *p, err, errlen);
    case 8: return pw_launch_tc<Op, uint16_t, 4>(k, in, out, *p, err, errlen);
    }
    snprintf(err, errlen, "no pointwise kernel for %d channels of %d bits", in->c, in->depth);
    return (int)cudaErrorInvalidValue;
}

/* The launcher gpu_pw_NAME that src/ops/NAME's POINTWISE_SAMPLES calls. */
#define POINTWISE_KERNELS(NAME, OP)                                                                        \
    extern "C" pw_launcher gpu_pw_##NAME;                                                                  \
    extern "C" int gpu_pw_##NAME(const struct gpu_call *k, const struct gpu_image *in,                     \
                                 const struct gpu_image *out, const struct pw_args *p, char *err, size_t errlen) \
    {                                                                                                      \
        return pw_launch<OP>(k, in, out, p, err, errlen);                                                  \
    }

#endif
