/* gpuimg: what the resize kernel families share (the .cu files of cuda/resize/): the exact two-tap rounding
 * and the gray step read through 16 pixels at a time (warp.cu, rows.cu). */
#ifndef GPUIMG_CUDA_RESIZE_CUH
#define GPUIMG_CUDA_RESIZE_CUH
#include "cuda/common.cuh"
#include "cuda/resize/kernels.h"

/* (a b + c d + half) >> 32 of 32-bit factors, half (2^31) the first multiply-add's addend. half
 * comes from the host: a compile-time 2^31 the compiler adds after the products, two more
 * instructions an output byte. */
__device__ __forceinline__ uint32_t mad_round32(uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint64_t half)
{
    return (uint32_t)(((uint64_t)a * b + half + (uint64_t)c * d) >> 32);
}

/* The Y of 16 source pixels from the 48 bytes in w, as the 16 bytes of a word. With the weights
 * doubled as 16-bit halves (g01 = 2 wr | 2 wg << 16, g2 = 2 wb: each below 65536, the launchers
 * check w < 32768), two 16 x 8-bit dot products (dp2a) give 2 (w . RGB + 16384) for a pixel at
 * any byte of its word: each takes a word's low or high byte pair, and the weight pairs put 0 on
 * the bytes of the pixels beside it (gr = 0 | 2 wr << 16, gb = 2 wg | 2 wb << 16 for pixels that
 * start at byte 1 or 3), so that no pixel needs its bytes shifted into place. Y, the result >> 16,
 * is byte 2, and byte permutes pack four of them: the gray step's integers. (A funnel shift a
 * pixel and two dp4a of the weights split in bytes and a multiply-add did the same with two more
 * instructions a pixel.) */
__device__ __forceinline__ uint4 gray16_words(const uint32_t (&w)[12], uint32_t g01, uint32_t g2)
{
    const uint32_t gr = g01 << 16, gb = g01 >> 16 | g2 << 16;
    uint32_t y[16];
#pragma unroll
    for (int k = 0; k < 16; k++) {
        const int j = 3 * k >> 2, r = 3 * k & 3;   /* the pixel's word and first byte */
        y[k] = r == 0   ? __dp2a_lo(g01, w[j], __dp2a_hi(g2, w[j], 32768u))          /* R G | B - */
               : r == 1 ? __dp2a_lo(gr, w[j], __dp2a_hi(gb, w[j], 32768u))           /* - R | G B */
               : r == 2 ? __dp2a_hi(g01, w[j], __dp2a_lo(g2, w[j + 1], 32768u))      /* R G, then B - */
                        : __dp2a_hi(gr, w[j], __dp2a_lo(gb, w[j + 1], 32768u));      /* - R, then G B */
    }
    uint32_t q[4];
#pragma unroll
    for (int i = 0; i < 4; i++)
        q[i] = __byte_perm(__byte_perm(y[4 * i], y[4 * i + 1], 0x62), __byte_perm(y[4 * i + 2], y[4 * i + 3], 0x62),
                           0x5410);
    return make_uint4(q[0], q[1], q[2], q[3]);
}
/* the doubled gray weights as gray16_words takes them */
static inline void gray_pairs(const uint32_t w[3], uint32_t *g01, uint32_t *g2)
{
    *g01 = 2 * w[0] | 2 * w[1] << 16;
    *g2 = 2 * w[2];
}

#define VH_ROUND 65536u   /* VH: the rounding term of (I0 + I1 + 65536) >> 17 (out_byte's shift) */

#endif
