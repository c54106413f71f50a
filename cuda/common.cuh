/* gpuimg: what the kernels share. DISPATCH_TC turns a run-time (depth, channels) into a call of a
 * host template FN<T, C>, so every kernel is compiled for 8 and 16 bits and 1 to 4 channels;
 * Pix<BPP> is a type that copies one pixel of BPP bytes in one access where alignment allows;
 * grid helpers keep grid.y within the hardware limit (kernels stride over rows). */
#ifndef GPUIMG_COMMON_CUH
#define GPUIMG_COMMON_CUH
#include <cstdint>
#include <type_traits>
#include "cuda/check.h"
#include "cuda/gpu.h"

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
template <> struct PixT<16> { typedef uint4 type; };

#define DISPATCH_BPP(bpp, FN, ...)                                                                 \
    ((bpp) == 1 ? FN<1>(__VA_ARGS__)                                                               \
   : (bpp) == 2 ? FN<2>(__VA_ARGS__)                                                               \
   : (bpp) == 3 ? FN<3>(__VA_ARGS__)                                                               \
   : (bpp) == 4 ? FN<4>(__VA_ARGS__)                                                               \
   : (bpp) == 6 ? FN<6>(__VA_ARGS__) : FN<8>(__VA_ARGS__))

/* C samples of type E in one access (PixT) where C * sizeof(E) is 2, 4, 8 or 16 bytes (the
 * pointer then aligned to that: pixels of such a size in a contiguous image, or shared arrays
 * declared __align__(16)), else one at a time. Pixels with alpha (2 and 4 samples) and their column
 * sums move so instead of a sample an instruction: a warp's 4-byte stores 16 bytes apart filled a
 * quarter of each sector apiece. */
template <int B> constexpr bool one_access = B == 2 || B == 4 || B == 8 || B == 16;
template <typename E, int C> __device__ __forceinline__ void ld_vec(const E *p, E (&v)[C])
{
    if constexpr (one_access<C * sizeof(E)>) {
        const typename PixT<C * sizeof(E)>::type w = *(const typename PixT<C * sizeof(E)>::type *)p;
        memcpy(v, &w, sizeof w);
    } else {
#pragma unroll
        for (int c = 0; c < C; c++)
            v[c] = p[c];
    }
}
template <typename E, int C> __device__ __forceinline__ void st_vec(E *p, const E (&v)[C])
{
    if constexpr (one_access<C * sizeof(E)>) {
        typename PixT<C * sizeof(E)>::type w;
        memcpy(&w, v, sizeof w);
        *(typename PixT<C * sizeof(E)>::type *)p = w;
    } else {
#pragma unroll
        for (int c = 0; c < C; c++)
            p[c] = v[c];
    }
}

/* Premultiplied colour back to straight: round(S / A), ties up, as the CPU writes it (q + (r >=
 * A - r), q and r of S / A), that is floor(n / 2A) with n = 2S + A, and 0 where A = 0. S <= top * A
 * (a weighted mean of colours at most top = 65535), so the quotient is below 2^16 and the float
 * S * rA, rA = rcp_approx(A), is within 2^-21 * 2^16 of S / A; with the fma's rounding (at most
 * 2^-8 below 2^16) e = trunc(S rA + 1/2 + 1/16) is the result q or q + 1, and t = n - 2eA < 0
 * tells which: one compare. t lies in [-2A, 2A), exact in the signed type with U wrapping (U:
 * uint64_t, or uint32_t where 2A < 2^31). A = 0 (so S = 0) gives rA = inf, NaN, e = 0 and t = 0.
 * Against the three compares (and the A = 0 select) that would correct a truncated S rA: 7
 * instructions a colour instead of 15 (sm_90 SASS); bench/div_check.cu checks both ranges on the
 * GPU. rA is computed once for a pixel's channels. A 64-bit division is a library loop of about a
 * hundred instructions: it would be most of the alpha kernels' time. */
__device__ __forceinline__ float rcp_approx(float x)
{
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}
template <typename U> __device__ __forceinline__ uint32_t div_round(U S, U A, float rA)
{
    typedef typename std::make_signed<U>::type I;
    const uint32_t e = __float2uint_rz(fmaf((float)S, rA, 0.5625f));   /* saturating: NaN -> 0, never UB */
    const I t = (I)(2 * S + A - (U)e * (2 * A));
    return e - (t < 0);
}

/* round(S / A), ties up, and 0 where A = 0, for small sums: A <= 4095 and S <= 255 A (the exact
 * 1:2 resize's). floor((2S + A) / 2A) by a float quotient: r1 = 1 / 2A to float precision (the
 * approximate reciprocal and one Newton step), so n r1 (n = 2S + A < 2^22, exact as a float) is
 * within 3.1e-5 of n / 2A below 257; adding 2^-14 before the floor lifts an exact quotient that
 * came out just below its integer, and keeps every other below the next one (its distance at least
 * 1 / 2A > 1.2e-4). Three instructions a colour against div_round's eleven; bench/div_check.cu
 * checks every (S, A) of the range on the GPU. A = 0 gives NaN, which converts to 0. */
__device__ __forceinline__ float rcp_refined(float d)
{
    const float r0 = rcp_approx(d);
    return fmaf(r0, fmaf(-d, r0, 1.0f), r0);
}
__device__ __forceinline__ uint32_t div_small(uint32_t S, float A, float r1)
{
    return __float2uint_rd(fmaf(fmaf(2.0f, (float)S, A), r1, 0x1p-14f));
}
/* An 8-bit pixel of C samples (2 or 4) in one word: the rounded alpha on top, below it the C - 1
 * colours S[c] / A (div_round, one reciprocal for all). */
template <int C, typename U>
__device__ __forceinline__ uint32_t straight8(uint32_t alpha, const U (&S)[C - 1], U A)
{
    const float rA = rcp_approx((float)A);
    uint32_t px = alpha << (8 * (C - 1));
#pragma unroll
    for (int c = 0; c < C - 1; c++)
        px |= div_round(S[c], A, rA) << (8 * c);
    return px;
}

static inline int bpp_of(const struct gpu_image *im) { return im->c * (im->depth / 8); }

/* An attribute of the current device, or fallback where it cannot be read. */
static inline int dev_attr(cudaDeviceAttr what, int fallback)
{
    int dev = 0, v = fallback;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&v, what, dev) != cudaSuccess)
        v = fallback;
    return v;
}

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

template <int PPT = GPU_PPT, typename F> __device__ __forceinline__ void for_coalesced(int w, int h, F f)
{
    const int x0 = blockIdx.x * blockDim.x * PPT + threadIdx.x;
    for (int y = blockIdx.y; y < h; y += gridDim.y) {
#pragma unroll
        for (int k = 0; k < PPT; k++) {
            const int x = x0 + k * blockDim.x;
            if (x < w)
                f(x, y);
        }
    }
}

/* Launch shapes. The defaults (perpixel: 32x8 blocks; coalesced and vector: 256 threads a block,
 * GPU_PPT pixels a thread) are overridden by the shape the host asks for this launch (gpu_call:
 * gpuimg tune and its cache); launchers record what they launched (note_launch) for the tune's
 * time model. */
static inline dim3 perpixel_block(const gpu_shape &s) { return s.bx ? dim3(s.bx, s.by) : dim3(32, 8); }
static inline unsigned threads1d(const gpu_shape &s) { return s.bx ? (unsigned)(s.bx * s.by) : 256u; }
static inline int ppt_choice(const gpu_shape &s) { return s.ppt ? s.ppt : GPU_PPT; }
void note_launch(const void *fn, dim3 grid, dim3 block, size_t smem, int px_per_thread);

/* Launch kernel k (grid g, block b, smem dynamic bytes) and record it for gpu_last_launch: one
 * name for both, so the record cannot describe another kernel than the one that ran. Check with
 * LAUNCH_TRY afterwards as for any launch. */
template <typename... P, typename... A>
static inline void launch(void (*k)(P...), dim3 g, dim3 b, size_t smem, int px_per_thread, A... args)
{
    note_launch((const void *)k, g, b, smem, px_per_thread);
    k<<<g, b, smem>>>(static_cast<P>(args)...);
}

/* launch, the kernel allowed to start while the kernel before it in the stream finishes
 * (programmatic dependent launch): its blocks may be placed as that kernel's blocks retire, so k
 * must call griddep_wait() before it touches global memory that kernel may read or write. Only
 * where k was compiled for sm_90 or later (its PTX version: a compute_80 build JIT-compiled on an
 * sm_90 GPU has no wait in it); elsewhere an ordinary launch. */
template <typename... P, typename... A>
static inline void launch_early(void (*k)(P...), dim3 g, dim3 b, size_t smem, int px_per_thread, A... args)
{
    cudaFuncAttributes fa;   /* (asked each launch: two GPUs may run different images of k) */
    if (cudaFuncGetAttributes(&fa, k) != cudaSuccess || fa.ptxVersion < 90) {
        (void)cudaGetLastError();   /* (a failed query is not the launch's error) */
        launch(k, g, b, smem, px_per_thread, args...);
        return;
    }
    note_launch((const void *)k, g, b, smem, px_per_thread);
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = g;
    cfg.blockDim = b;
    cfg.dynamicSmemBytes = smem;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    cudaLaunchKernelEx(&cfg, k, static_cast<P>(args)...);   /* (an error is left for LAUNCH_TRY) */
}

/* In a kernel launched by launch_early: wait until the kernel before it has finished and its
 * memory is visible. In the kernel before: let a dependent kernel's blocks be placed from now on
 * (they wait in griddep_wait; an ordinary launch after it is not affected). Both nothing before
 * sm_90. */
__device__ __forceinline__ void griddep_wait()
{
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void griddep_launch()
{
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

static inline dim3 grid_coalesced(int w, int h, unsigned threads, int ppt)
{
    return dim3((unsigned)((w + threads * ppt - 1) / (threads * ppt)), h > 65535 ? 65535u : (unsigned)h);
}

/* 1D launch for coalesced kernels over n items, ppt per thread. */
static inline unsigned grid1d(size_t n, unsigned threads, int ppt)
{
    size_t per_block = (size_t)threads * ppt;
    return (unsigned)((n + per_block - 1) / per_block);
}

/* Run STMT with constexpr int P set to the pixels per thread the shape asks for (1, 2, 4, 8). */
#define PPT_SWITCH(ppt, ...)                                                                       \
    switch (ppt) {                                                                                 \
    case 1: { constexpr int P = 1; __VA_ARGS__; } break;                                           \
    case 2: { constexpr int P = 2; __VA_ARGS__; } break;                                           \
    case 8: { constexpr int P = 8; __VA_ARGS__; } break;                                           \
    default: { constexpr int P = 4; __VA_ARGS__; } break;                                          \
    }

/* NW words that start sh bits into the aligned word g: NW + 1 aligned loads, funnel-shifted (the
 * caller checks that they lie inside the buffer). GLOBAL: g is read-only global memory (__ldg);
 * otherwise plain loads (shared memory). */
template <int NW, bool GLOBAL = true>
__device__ __forceinline__ void load_shifted(const uint32_t *g, unsigned sh, uint32_t (&w)[NW])
{
    uint32_t prev = GLOBAL ? __ldg(g) : g[0];
#pragma unroll
    for (int i = 0; i < NW; i++) {
        const uint32_t next = GLOBAL ? __ldg(g + i + 1) : g[i + 1];
        w[i] = __funnelshift_r(prev, next, sh);
        prev = next;
    }
}

/* The 16 bytes that start at byte s (0..15) of the 32 bytes A, B (two aligned 16-byte words, A
 * first): two levels of word selects and a funnel shift, all in registers (an indexed array would
 * go to local memory). */
__device__ __forceinline__ uint4 cut16(const uint4 &A, const uint4 &B, int s)
{
    const uint32_t W[8] = { A.x, A.y, A.z, A.w, B.x, B.y, B.z, B.w };
    const int q = s >> 2;
    uint32_t Y[7], Z[5];
#pragma unroll
    for (int i = 0; i < 7; i++)
        Y[i] = q & 1 ? W[i + 1] : W[i];
#pragma unroll
    for (int i = 0; i < 5; i++)
        Z[i] = q & 2 ? Y[i + 2] : Y[i];
    const unsigned sh = 8u * (unsigned)(s & 3);
    return make_uint4(__funnelshift_r(Z[0], Z[1], sh), __funnelshift_r(Z[1], Z[2], sh), __funnelshift_r(Z[2], Z[3], sh),
                      __funnelshift_r(Z[3], Z[4], sh));
}

/* 16 bytes v to the aligned address g, which holds bytes lo .. lo + 15 of an output run of n bytes:
 * only those inside [0, n) are written (a run's end words are shared with its neighbours), as one
 * 16-byte store when all are, else as whole 4-byte words and single bytes. */
__device__ __forceinline__ void store16_in(uint8_t *g, const uint4 &v, int lo, int n)
{
    if (lo >= 0 && lo + 16 <= n) {
        *(uint4 *)g = v;
        return;
    }
    const uint32_t w[4] = { v.x, v.y, v.z, v.w };
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int l0 = lo + 4 * i;
        if (l0 >= 0 && l0 + 4 <= n)
            *(uint32_t *)(g + 4 * i) = w[i];
        else
            for (int b = max(0, -l0); b < min(4, n - l0); b++)
                g[4 * i + b] = (uint8_t)(w[i] >> (8 * b));
    }
}

/* The NW 4-byte words at address p, bytes outside [lo, hi) zero, read one at a time: words at a
 * buffer's ends, where a whole-word load would reach past it (or the buffer is not aligned). */
template <int NW>
__device__ __forceinline__ void load_words_in(uintptr_t p, uintptr_t lo, uintptr_t hi, uint32_t (&w)[NW])
{
    for (int i = 0; i < NW; i++)
        w[i] = 0;
    for (int e = 0; e < 4 * NW; e++)
        if (p + e >= lo && p + e < hi)
            w[e >> 2] |= (uint32_t)*(const uint8_t *)(p + e) << (8 * (e & 3));
}
/* the same for one 16-byte word */
__device__ __forceinline__ uint4 load16_in(uintptr_t p, uintptr_t lo, uintptr_t hi)
{
    uint32_t w[4];
    load_words_in<4>(p, lo, hi, w);
    return make_uint4(w[0], w[1], w[2], w[3]);
}

/* How many blocks of kernel k (threads, smem dynamic bytes) the current GPU holds at once: the
 * grid of a persistent kernel (at least one block an SM). */
template <typename K> static inline cudaError_t resident_blocks(K k, int threads, size_t smem, long long *n)
{
    int per_sm = 0;
    const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, threads, smem);
    *n = (long long)(per_sm > 0 ? per_sm : 1) * dev_attr(cudaDevAttrMultiProcessorCount, 132);
    return e;
}

/* The grid of a kernel whose threads walk runs of rows (the gathering resizes): gx x ceil(n /
 * rows) blocks of threads, rows 8 or fewer where the grid would then be under two blocks for each
 * one the GPU holds (a thread's column taps then serve 8 rows). */
template <typename K>
static inline cudaError_t walk_grid(K k, unsigned threads, unsigned gx, int n, int *rows, dim3 *grid)
{
    long long resident = 0;
    const cudaError_t e = resident_blocks(k, (int)threads, 0, &resident);
    *rows = 8;
    while (*rows > 1 && (long long)gx * ((n + *rows - 1) / *rows) < 2 * resident)
        *rows /= 2;
    const unsigned gy = (unsigned)((n + *rows - 1) / *rows);
    *grid = dim3(gx, gy > 65535u ? 65535u : gy);
    return e;
}
/* Asynchronous 16-byte copies global -> shared (cp.async, Ampere on), in groups: wait_n<N> waits
 * for all but the latest N committed groups. */
__device__ __forceinline__ void cp_async16(void *smem, const void *gmem)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"((unsigned)__cvta_generic_to_shared(smem)),
                 "l"(gmem));
}
/* the same with the shared address already converted (loops keep it in a register) */
__device__ __forceinline__ void cp_async16_s(unsigned saddr, const void *gmem)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(saddr), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait_n() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

/* Hopper on (sm_90): a bulk copy global -> shared by the copy engine (16-byte aligned ends, a size
 * a multiple of 16) whose bytes arrive on an mbarrier; the mbarrier's arrivals and phase wait. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ void mbar_init(uint64_t *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"((unsigned)__cvta_generic_to_shared(bar)), "r"(count));
}
/* the inits seen by the copy engine before any copy signals them */
__device__ __forceinline__ void mbar_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }
__device__ __forceinline__ void mbar_arrive(uint64_t *bar)
{
    asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [%0];\n}\n" ::"r"(
                     (unsigned)__cvta_generic_to_shared(bar))
                 : "memory");
}
/* an arrival that also expects bytes more to come before the phase completes. The forms taking
 * shared-window addresses (unsigned) let a kernel keep them in registers; the compiler otherwise
 * rebuilds each from the generic pointer at every use. */
__device__ __forceinline__ void mbar_arrive_tx(unsigned bar, unsigned bytes)
{
    asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n}\n" ::"r"(bar), "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void mbar_arrive_tx(uint64_t *bar, unsigned bytes)
{
    mbar_arrive_tx((unsigned)__cvta_generic_to_shared(bar), bytes);
}
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity)
{
    unsigned done = 0;
    while (!done)
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t *bar, unsigned parity)
{
    mbar_wait((unsigned)__cvta_generic_to_shared(bar), parity);
}
/* generic-proxy writes to shared memory ordered before later copies by the copy engine there */
__device__ __forceinline__ void async_proxy_fence() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
__device__ __forceinline__ void bulk_g2s(unsigned smem, const void *gmem, unsigned bytes, unsigned bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(smem),
                 "l"(gmem), "r"(bytes), "r"(bar)
                 : "memory");
}
__device__ __forceinline__ void bulk_g2s(void *smem, const void *gmem, unsigned bytes, uint64_t *bar)
{
    bulk_g2s((unsigned)__cvta_generic_to_shared(smem), gmem, bytes, (unsigned)__cvta_generic_to_shared(bar));
}
#endif

#endif
