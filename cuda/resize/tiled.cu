/* gpuimg: resize, tiled: bilinear over shared-memory tiles, 8-bit grey or RGB. Exact. */
#include "cuda/common.cuh"
#include "cuda/resize/kernels.h"

/* tiled (bilinear, 8-bit, one or three channels, no alpha): a block owns RT_W output pixels x
 * RT_H rows. The source rectangle its taps reach is staged in shared memory (aligned words,
 * funnel-shifted so that every staged row starts at its first byte), the tile's taps beside it;
 * then a thread makes the 4 output bytes of one aligned word of an output row (bytes only at the
 * row's two ends). The CPU's integers: inner = wx0 p0 + wx1 p1 < 2^24, acc = wy0 inner0 +
 * wy1 inner1 in 64 bits, (acc + 2^31) >> 32. The host checks that the largest rectangle fits
 * (gpu_resize_tiled_pitch); otherwise perpixel runs. */
#define RT_W 64
#define RT_H 16
#define RT_SMEM (46 * 1024)

template <int C>
__global__ void __launch_bounds__(256) resize_tiled(const uint8_t *__restrict__ in, int iw, int ih,
                                                    uint8_t *__restrict__ out, int ow, int oh,
                                                    const int32_t *__restrict__ xi, const uint32_t *__restrict__ xw,
                                                    const int32_t *__restrict__ yi, const uint32_t *__restrict__ yw,
                                                    int pitch)
{
    extern __shared__ __align__(16) unsigned char S[];
    __shared__ int tx0[RT_W], tx1[RT_W], ty0[RT_H], ty1[RT_H];
    __shared__ uint32_t wx0[RT_W], wx1[RT_W], wy0[RT_H], wy1[RT_H];
    const int tid = threadIdx.x, x0 = blockIdx.x * RT_W, nw = min(RT_W, ow - x0);
    const size_t rowbytes = (size_t)iw * C, total = rowbytes * ih;
    const int c0 = xi[2 * x0], c1 = xi[2 * (x0 + nw - 1) + 1], nbytes = (c1 - c0 + 1) * C;
    if (tid < nw) {
        tx0[tid] = (xi[2 * (x0 + tid)] - c0) * C;
        tx1[tid] = (xi[2 * (x0 + tid) + 1] - c0) * C;
        wx0[tid] = xw[2 * (x0 + tid)];
        wx1[tid] = xw[2 * (x0 + tid) + 1];
    }
    for (int tb = blockIdx.y; tb * RT_H < oh; tb += gridDim.y) {
        const int y0 = tb * RT_H, nh = min(RT_H, oh - y0);
        const int r0 = yi[2 * y0], nrows = yi[2 * (y0 + nh - 1) + 1] - r0 + 1;
        __syncthreads();   /* the previous tile is done with S and the row taps */
        if (tid < nh) {
            ty0[tid] = (yi[2 * (y0 + tid)] - r0) * pitch;
            ty1[tid] = (yi[2 * (y0 + tid) + 1] - r0) * pitch;
            wy0[tid] = yw[2 * (y0 + tid)];
            wy1[tid] = yw[2 * (y0 + tid) + 1];
        }
        const int nq = (nbytes + 3) / 4;
        for (int e = tid; e < nrows * nq; e += blockDim.x) {
            const int i = e / nq, q = e - i * nq;
            const size_t a = (size_t)(r0 + i) * rowbytes + (size_t)c0 * C + 4 * q, a0 = a & ~(size_t)3;
            uint32_t word = 0;
            if (a0 + 8 <= total) {
                const uint32_t *g = (const uint32_t *)(in + a0);
                word = __funnelshift_r(__ldg(g), __ldg(g + 1), 8 * (unsigned)(a & 3));
            } else {
                for (int b = 0; b < 4; b++)
                    if (a + b < total)
                        word |= (uint32_t)in[a + b] << (8 * b);
            }
            *(uint32_t *)(S + (size_t)i * pitch + 4 * q) = word;
        }
        __syncthreads();
        const int nwb = nw * C, nk = RT_W * C / 4 + 1;
        for (int e = tid; e < nh * nk; e += blockDim.x) {
            const int r = e / nk, k = e - r * nk;
            const size_t g0 = ((size_t)(y0 + r) * ow + x0) * C;
            const int sh = (int)(g0 & 3), lo = 4 * k - sh;   /* tile byte of this word's first byte */
            if (lo + 4 <= 0 || lo >= nwb)
                continue;
            const unsigned char *s0 = S + ty0[r], *s1 = S + ty1[r];
            const uint64_t v0 = wy0[r], v1 = wy1[r];
            uint32_t word = 0;
#pragma unroll
            for (int b = 0; b < 4; b++) {
                const int j = lo + b;
                if (j < 0 || j >= nwb)
                    continue;
                const int px = j / C, ch = j - px * C, a = tx0[px] + ch, bb = tx1[px] + ch;
                const uint32_t in0 = wx0[px] * s0[a] + wx1[px] * s0[bb], in1 = wx0[px] * s1[a] + wx1[px] * s1[bb];
                const uint64_t acc = v0 * in0 + v1 * in1;
                word |= (uint32_t)((acc + (1ull << 31)) >> 32) << (8 * b);
            }
            uint8_t *gw = out + (g0 - sh) + 4 * k;
            if (lo >= 0 && lo + 4 <= nwb)
                *(uint32_t *)gw = word;
            else
                for (int b = 0; b < 4; b++)
                    if (lo + b >= 0 && lo + b < nwb)
                        gw[b] = (uint8_t)(word >> (8 * b));
        }
    }
}

extern "C" int gpu_resize_tiled_pitch(int c, int depth, int ow, int oh, const int32_t *xi, const int32_t *yi)
{
    if (depth != 8 || (c != 1 && c != 3))
        return 0;
    int maxb = 0, maxr = 0;
    for (int x0 = 0; x0 < ow; x0 += RT_W) {
        const int last = (x0 + RT_W < ow ? x0 + RT_W : ow) - 1;
        const int b = (xi[2 * last + 1] - xi[2 * x0] + 1) * c;
        maxb = b > maxb ? b : maxb;
    }
    for (int y0 = 0; y0 < oh; y0 += RT_H) {
        const int last = (y0 + RT_H < oh ? y0 + RT_H : oh) - 1;
        const int r = yi[2 * last + 1] - yi[2 * y0] + 1;
        maxr = r > maxr ? r : maxr;
    }
    const int pitch = (maxb + 15) & ~15;
    return (size_t)pitch * maxr <= RT_SMEM ? pitch * 65536 + maxr : 0;   /* pitch and rows, packed */
}

extern "C" int gpu_resize_tiled(const struct gpu_image *in, const struct gpu_image *out, const int32_t *xi,
                                const uint32_t *xw, const int32_t *yi, const uint32_t *yw, int fit, char *err,
                                size_t errlen)
{
    const int pitch = fit / 65536, rows = fit % 65536;
    const size_t smem = (size_t)pitch * rows;
    const unsigned ty = (unsigned)((out->h + RT_H - 1) / RT_H);
    const dim3 g((unsigned)((out->w + RT_W - 1) / RT_W), ty > 65535 ? 65535 : ty);
    const uint8_t *s = (const uint8_t *)in->data;
    uint8_t *d = (uint8_t *)out->data;
    if (in->c == 1) {
        CUDA_TRY(cudaFuncSetAttribute(resize_tiled<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem), err, errlen);
        launch(resize_tiled<1>, g, 256, smem, RT_W * RT_H / 256, s, in->w, in->h, d, out->w, out->h, xi, xw, yi, yw, pitch);
    } else {
        CUDA_TRY(cudaFuncSetAttribute(resize_tiled<3>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem), err, errlen);
        launch(resize_tiled<3>, g, 256, smem, RT_W * RT_H / 256, s, in->w, in->h, d, out->w, out->h, xi, xw, yi, yw, pitch);
    }
    LAUNCH_TRY(err, errlen);
    return 0;
}

