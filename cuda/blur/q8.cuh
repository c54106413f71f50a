/* gpuimg: blur, the one-pass kernel of 8-bit grey, RGB and RGBA (blur_q8). Exact. Instantiated one
 * channel count a file (q8_c1.cu, q8_c3.cu, q8_c4.cu). */
#ifndef GPUIMG_CUDA_BLUR_Q8_CUH
#define GPUIMG_CUDA_BLUR_Q8_CUH
#include "cuda/blur/blur.cuh"

/* tiled (q8): the one-pass kernel for 8-bit grey, RGB and RGBA, whose weights are Q8 (multiples of
 * 256 in the Q16 table: OpenCV's kernel). Every sum then stays below 2^24, so it is exact in the
 * arithmetic the SMs are fastest at:
 *  - the input tile (byte rows with their halo, border maps applied) is staged in shared memory as
 *    bytes, 4 a word, Q8_SU words a thread-step with their loads in flight together;
 *  - down: a thread owns one word column (4 samples) x Q8_RV rows; the bytes of a word are split
 *    into two words of two 16-bit lanes (bytes 0,2 and 1,3), mirrored taps are added first, and
 *    one 32-bit multiply-add applies a weight to two samples: V = sum w*p <= 255*256 never carries
 *    out of its lane;
 *  - across: V as floats; a thread owns Q8_CH consecutive output bytes of a row and sums
 *    S = sum w*V <= 2^24 in float FMAs (exact), then (S + 2^15) >> 16 by float tricks;
 *  - RGBA (a word is a pixel): down, the premultiplied samples c a (and a) summed in uint32,
 *    V <= 256 * 255 * 255; across, S = sum w*V < 2^32 in uint32 (mirrored taps added first both
 *    ways), alpha (A + 2^15) >> 16 and colour div_round(S, A): the separable engine's integers
 *    with both weights' factor 256 * 256 cancelled.
 * KS is the tap count rounded up to a compiled size; the kernel is centred in it with zeros. */
#define Q8_TH 32    /* output rows per tile */
#define Q8_TB 192   /* output bytes per tile row: 64 RGB pixels or 192 grey */
#define Q8_RV 8     /* rows per thread going down */
#define Q8_CH 16    /* output bytes per thread going across */
#define Q8_SU 4     /* staged words a thread-step */

template <int C, int KS> struct Q8 {
    static constexpr int R = KS / 2;
    static constexpr int NB = Q8_TB + (KS - 1) * C;    /* input bytes a tile row needs */
    static constexpr int PB = (NB + 15) & ~15;         /* row pitch, bytes (u8) and floats (V) */
    static constexpr int ROWS = Q8_TH + KS - 1;
    static constexpr int PV = PB / 16 * 20;            /* V row pitch, floats: 4 pad after every 16 */
    static constexpr int PO = Q8_TB + 16;              /* output staging row pitch, bytes */
    static constexpr size_t SMEM = (size_t)ROWS * PB + (size_t)Q8_TH * PV * 4 + (size_t)Q8_TH * PO;
};

/* An integer below 2^23 as a float, and back, without the slow conversion units. */
static __device__ __forceinline__ float u2f(uint32_t bits_with_exponent) { return __int_as_float(bits_with_exponent) - 8388608.f; }
static __device__ __forceinline__ uint32_t round16(float S)
{
    return __float_as_uint(__fadd_rd(fmaf(S, 1.f / 65536.f, 0.5f), 8388608.f)) & 255u;
}

template <int C, int KS, bool TR>
__global__ void __launch_bounds__(256) blur_q8(const uint8_t *__restrict__ in, int w, int h, uint8_t *__restrict__ out,
                                               const uint32_t *__restrict__ kern, int ksize,
                                               const int32_t *__restrict__ bx, const int32_t *__restrict__ by)
{
    typedef Q8<C, KS> G;
    constexpr bool ALPHA = C == 4;
    extern __shared__ __align__(16) unsigned char q8s[];
    uint8_t *IN = q8s;
    float *V = (float *)(q8s + (size_t)G::ROWS * G::PB);
    uint8_t *OS = (uint8_t *)(V + (size_t)Q8_TH * G::PV);
    __shared__ int rowsrc[G::ROWS];
    const int tid = threadIdx.x, rk = ksize / 2, pad = G::R - rk;
    uint32_t wi[KS];
    float wf[KS];
#pragma unroll
    for (int k = 0; k < KS; k++) {
        const int kk = k - pad;
        wi[k] = kk >= 0 && kk < ksize ? kern[kk] >> 8 : 0u;
        wf[k] = (float)wi[k];
    }
    const size_t rowbytes = (size_t)w * C, total = rowbytes * h;
    const int x0 = blockIdx.x * (Q8_TB / C), bc0 = (x0 - G::R) * C;   /* byte column of IN column 0 */
    const bool inside = x0 - G::R >= 0 && x0 - G::R + G::NB / C <= w;
    for (int tb = blockIdx.y; tb * Q8_TH < h; tb += gridDim.y) {
        const int y0 = tb * Q8_TH;
        for (int i = tid; i < G::ROWS; i += blockDim.x) {
            const int p = y0 - G::R + i;
            rowsrc[i] = border_pos(p, h, rk, by);
        }
        __syncthreads();
        /* stage the tile: shared words, Q8_SU a thread-step, their global loads all issued before any
         * is used (a word at a time, each thread waited out one load's latency after another) */
        constexpr int NWS = G::ROWS * (G::PB / 4);
        for (int e0 = tid; e0 < NWS; e0 += Q8_SU * blockDim.x) {
            uint32_t lo[Q8_SU], hi[Q8_SU], sh[Q8_SU];
#pragma unroll
            for (int u = 0; u < Q8_SU; u++) {
                const int e = e0 + u * blockDim.x, i = e / (G::PB / 4), q = e - i * (G::PB / 4);
                lo[u] = hi[u] = sh[u] = 0;
                const int sr = e < NWS ? rowsrc[i] : -1;
                if (sr >= 0 && 4 * q < G::NB) {
                    const size_t a = (size_t)sr * rowbytes + bc0 + 4 * q;   /* valid when inside */
                    const size_t a0 = a & ~(size_t)3;
                    if (inside && a0 + 8 <= total) {
                        const uint32_t *g = (const uint32_t *)(in + a0);
                        lo[u] = __ldg(g);
                        hi[u] = __ldg(g + 1);
                        sh[u] = 8 * (unsigned)(a & 3);
                    } else {
#pragma unroll
                        for (int b = 0; b < 4; b++)
                            if (4 * q + b < G::NB)
                                lo[u] |= border_byte<C>(in + (size_t)sr * rowbytes, bc0 + 4 * q + b, w, rk, bx)
                                         << (8 * b);
                    }
                }
            }
#pragma unroll
            for (int u = 0; u < Q8_SU; u++) {
                const int e = e0 + u * blockDim.x, i = e / (G::PB / 4), q = e - i * (G::PB / 4);
                if (e < NWS)
                    ((uint32_t *)(IN + (size_t)i * G::PB))[q] = __funnelshift_r(lo[u], hi[u], sh[u]);
            }
        }
        __syncthreads();
        /* down: word column q, rows g*Q8_RV .. +Q8_RV-1, two samples a multiply-add */
        for (int e = tid; e < (G::PB / 4) * (Q8_TH / Q8_RV); e += blockDim.x) {
            const int g = e / (G::PB / 4), q = e - g * (G::PB / 4);
            if constexpr (ALPHA) {   /* a word is a pixel: c a and a */
                uint32_t pm[Q8_RV + KS - 1][4];
#pragma unroll
                for (int i = 0; i < Q8_RV + KS - 1; i++) {
                    const uint32_t wd = ((const uint32_t *)(IN + (size_t)(g * Q8_RV + i) * G::PB))[q], a = wd >> 24;
                    pm[i][0] = (wd & 255u) * a;
                    pm[i][1] = ((wd >> 8) & 255u) * a;
                    pm[i][2] = ((wd >> 16) & 255u) * a;
                    pm[i][3] = a;
                }
#pragma unroll
                for (int j = 0; j < Q8_RV; j++) {
                    uint32_t v[4];
#pragma unroll
                    for (int c = 0; c < 4; c++) {
                        v[c] = wi[G::R] * pm[j + G::R][c];
#pragma unroll
                        for (int k = 0; k < G::R; k++)
                            v[c] += wi[k] * (pm[j + k][c] + pm[j + KS - 1 - k][c]);
                    }
                    ((uint4 *)(V + (size_t)(g * Q8_RV + j) * G::PV))[q + q / 4] = make_uint4(v[0], v[1], v[2], v[3]);
                }
            } else {
                uint32_t lo[Q8_RV + KS - 1], hi[Q8_RV + KS - 1];
#pragma unroll
                for (int i = 0; i < Q8_RV + KS - 1; i++) {
                    const uint32_t wd = ((const uint32_t *)(IN + (size_t)(g * Q8_RV + i) * G::PB))[q];
                    lo[i] = wd & 0x00FF00FFu;
                    hi[i] = (wd >> 8) & 0x00FF00FFu;
                }
#pragma unroll
                for (int j = 0; j < Q8_RV; j++) {
                    uint32_t al = wi[G::R] * lo[j + G::R], ah = wi[G::R] * hi[j + G::R];
#pragma unroll
                    for (int k = 0; k < G::R; k++) {
                        al += wi[k] * (lo[j + k] + lo[j + KS - 1 - k]);
                        ah += wi[k] * (hi[j + k] + hi[j + KS - 1 - k]);
                    }
                    float4 v;   /* lanes back in byte order: 0 = al.lo, 1 = ah.lo, 2 = al.hi, 3 = ah.hi */
                    v.x = u2f(__byte_perm(al, 0x4B000000u, 0x7610));
                    v.y = u2f(__byte_perm(ah, 0x4B000000u, 0x7610));
                    v.z = u2f(__byte_perm(al, 0x4B000000u, 0x7632));
                    v.w = u2f(__byte_perm(ah, 0x4B000000u, 0x7632));
                    ((float4 *)(V + (size_t)(g * Q8_RV + j) * G::PV))[q + q / 4] = v;
                }
            }
        }
        __syncthreads();
        /* across: row y, output bytes m*Q8_CH .. +Q8_CH-1 of the tile, into the staging rows at the
         * byte offset the row has in global memory mod 4, so that the copy-out moves aligned words */
        constexpr int NV = (Q8_CH + (KS - 1) * C + 3) / 4, NM = Q8_TB / Q8_CH;
        for (int e = tid; e < Q8_TH * NM; e += blockDim.x) {
            const int y = e / NM, m = e - y * NM;
            float vals[4 * NV];
            /* logical float column 16m + 4t sits at float4 5m + t + t/4: 8 lanes cover all banks */
            const float4 *src = (const float4 *)(V + (size_t)y * G::PV) + 5 * m;
#pragma unroll
            for (int t = 0; t < NV; t++) {
                const float4 f = src[t + t / 4];
                vals[4 * t] = f.x;
                vals[4 * t + 1] = f.y;
                vals[4 * t + 2] = f.z;
                vals[4 * t + 3] = f.w;
            }
            const int sh = TR ? 0 : (int)(((size_t)(y0 + y) * rowbytes + (size_t)x0 * C) & 3);
            uint8_t *o = OS + y * G::PO + sh + m * Q8_CH;
            if constexpr (ALPHA) {   /* S = sum w V < 2^32 exact, A < 2^24; colour = round(S / A) */
                uint32_t S[Q8_CH];
#pragma unroll
                for (int b = 0; b < Q8_CH; b++) {
                    S[b] = wi[G::R] * __float_as_uint(vals[b + G::R * C]);
#pragma unroll
                    for (int k = 0; k < G::R; k++)
                        S[b] += wi[k]
                                * (__float_as_uint(vals[b + k * C]) + __float_as_uint(vals[b + (KS - 1 - k) * C]));
                }
#pragma unroll
                for (int b = 0; b < Q8_CH; b += 4) {
                    const uint32_t A = S[b + 3], Sc[3] = { S[b], S[b + 1], S[b + 2] };
                    *(uint32_t *)(o + b) = straight8<4>((A + 32768u) >> 16, Sc, A);
                }
            } else {
#pragma unroll
                for (int b = 0; b < Q8_CH; b++) {
                    float S = 0.f;
#pragma unroll
                    for (int k = 0; k < KS; k++)
                        S = fmaf(wf[k], vals[b + k * C], S);
                    o[b] = (uint8_t)round16(S);
                }
            }
        }
        __syncthreads();
        if (TR) {
            /* copy out transposed: tile column x becomes output row x; consecutive threads write
             * consecutive bytes of it (the tile's rows, C bytes each) */
            const int np = min(Q8_TB / C, w - x0), nr = min(Q8_TH, h - y0);
            for (int e = tid; e < np * Q8_TH * C; e += blockDim.x) {
                const int x = e / (Q8_TH * C), j = e - x * (Q8_TH * C), y = j / C, ch = j - y * C;
                if (y < nr)
                    out[((size_t)(x0 + x) * h + y0 + y) * C + ch] = OS[y * G::PO + x * C + ch];
            }
        } else {
            /* copy out: whole aligned words, bytes only at the two ends of a row */
            const int nb = min(Q8_TB, (int)(rowbytes - (size_t)x0 * C));
            for (int e = tid; e < Q8_TH * (Q8_TB / 4 + 1); e += blockDim.x) {
                const int y = e / (Q8_TB / 4 + 1), k = e - y * (Q8_TB / 4 + 1), oy = y0 + y;
                if (oy >= h)
                    continue;
                const size_t g0 = (size_t)oy * rowbytes + (size_t)x0 * C;
                const int sh = (int)(g0 & 3), lo = 4 * k, hi = lo + 4;   /* staging bytes of this word */
                if (hi <= sh || lo >= sh + nb)
                    continue;
                uint8_t *gw = out + (g0 - sh) + lo;
                const uint8_t *sw = OS + y * G::PO + lo;
                if (lo >= sh && hi <= sh + nb)
                    *(uint32_t *)gw = *(const uint32_t *)sw;
                else
                    for (int b = max(lo, sh); b < min(hi, sh + nb); b++)
                        gw[b - lo] = sw[b - lo];
            }
        }
        __syncthreads();   /* the tile is refilled for the next tile row */
    }
}

template <int C, int KS, bool TR>
static int launch_q8t(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize, const int32_t *bx,
                      const int32_t *by, char *err, size_t errlen)
{
    typedef Q8<C, KS> G;
    CUDA_TRY(cudaFuncSetAttribute(blur_q8<C, KS, TR>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)G::SMEM), err,
             errlen);
    const unsigned ty = (unsigned)((in->h + Q8_TH - 1) / Q8_TH);
    launch(blur_q8<C, KS, TR>, dim3((unsigned)((in->w + Q8_TB / C - 1) / (Q8_TB / C)), ty > 65535 ? 65535 : ty), 256,
           G::SMEM, Q8_TB * Q8_TH / C / 256, (const uint8_t *)in->data, in->w, in->h, (uint8_t *)out->data, kern, ksize,
           bx, by);
    LAUNCH_TRY(err, errlen);
    return 0;
}

template <int C, int KS>
static int launch_q8(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize, const int32_t *bx,
                     const int32_t *by, char *err, size_t errlen)
{
    return out->transposed ? launch_q8t<C, KS, true>(in, out, kern, ksize, bx, by, err, errlen)
                           : launch_q8t<C, KS, false>(in, out, kern, ksize, bx, by, err, errlen);
}


template <int C>
int blur_q8_dispatch(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize, const int32_t *bx,
                       const int32_t *by, char *err, size_t errlen)
{
    return by_tap_count(ksize, [&](auto K) {
        return launch_q8<C, decltype(K)::value>(in, out, kern, ksize, bx, by, err, errlen);
    });
}

#endif
