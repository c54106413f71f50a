/* gpuimg: the blur kernels. separable: two passes through a scratch buffer of exact column sums.
 * Pass 1 (down): a block owns 32 columns x 32 output rows; the input rows its window needs are
 * staged in shared memory 32 at a time (the halo comes through the same staging, mapped by the
 * border table), and each thread sums its 4 outputs' taps: V = sum_k kern[k] * in, exact (uint32,
 * or uint64 premultiplied with alpha). Pass 2 (across): a block owns 128 columns x 8 rows and
 * stages V 128 columns at a time likewise, then rounds once as the CPU does. Staging in chunks
 * keeps shared memory fixed for any sigma. tiled: one pass for 8-bit grey and RGB with kernels of
 * up to 33 taps (described below), separable otherwise. */
#include "common.cuh"

#define VT_W 32      /* pass 1: tile columns (one per thread.x) */
#define VT_H 32      /* pass 1: output rows per tile (4 per thread.y) */
#define HT_W 128     /* pass 2: output columns per tile (4 per thread.x) */
#define HT_H 8       /* pass 2: rows per tile (one per thread.y) */

template <int C, bool A> struct Acc { typedef uint32_t type; };
template <int C> struct Acc<C, true> { typedef uint64_t type; };

template <typename T, int C>
__global__ void blur_down(const T *in, int w, int h, typename Acc<C, C == 2 || C == 4>::type *V,
                          const uint32_t *kern, int ksize, const int32_t *by)
{
    constexpr bool ALPHA = (C == 2 || C == 4);
    typedef typename Acc<C, ALPHA>::type AT;
    __shared__ T rows[VT_H][VT_W * C];
    const int r = ksize / 2, tx = threadIdx.x, ty = threadIdx.y, x = blockIdx.x * VT_W + tx;
    const int ntiles = (h + VT_H - 1) / VT_H;
    for (int tb = blockIdx.y; tb < ntiles; tb += gridDim.y) {
        const int y0 = tb * VT_H;
        AT acc[4][C] = {};
        for (int base = y0 - r; base < y0 + VT_H + r; base += VT_H) {
            for (int i = ty; i < VT_H; i += blockDim.y) {
                const int p = base + i;   /* source row position, -r .. h+r-1 when in use */
                const int sr = (p >= -r && p < h + r && p <= y0 + VT_H - 1 + r) ? by[p + r] : -1;
#pragma unroll
                for (int c = 0; c < C; c++)
                    rows[i][tx * C + c] = (sr >= 0 && x < w) ? in[((size_t)sr * w + x) * C + c] : (T)0;
            }
            __syncthreads();
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int oy = y0 + ty + j * blockDim.y;
                const int klo = max(0, base - (oy - r)), khi = min(ksize, base + VT_H - (oy - r));
                for (int k = klo; k < khi; k++) {
                    const T *px = &rows[oy - r + k - base][tx * C];
                    const AT wk = kern[k];
                    if (ALPHA) {
                        const AT a = px[C - 1];
#pragma unroll
                        for (int c = 0; c < C - 1; c++)
                            acc[j][c] += wk * (px[c] * a);
                        acc[j][C - 1] += wk * a;
                    } else {
#pragma unroll
                        for (int c = 0; c < C; c++)
                            acc[j][c] += wk * px[c];
                    }
                }
            }
            __syncthreads();
        }
        if (x < w)
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int oy = y0 + ty + j * blockDim.y;
                if (oy < h)
#pragma unroll
                    for (int c = 0; c < C; c++)
                        V[((size_t)oy * w + x) * C + c] = acc[j][c];
            }
    }
}

template <typename T, int C>
__global__ void blur_across(const typename Acc<C, C == 2 || C == 4>::type *V, int w, int h, T *out,
                            const uint32_t *kern, int ksize, const int32_t *bx)
{
    constexpr bool ALPHA = (C == 2 || C == 4);
    typedef typename Acc<C, ALPHA>::type AT;
    __shared__ AT cols[HT_H][HT_W * C];
    const int r = ksize / 2, tx = threadIdx.x, ty = threadIdx.y, x0 = blockIdx.x * HT_W;
    const int ntiles = (h + HT_H - 1) / HT_H;
    for (int tb = blockIdx.y; tb < ntiles; tb += gridDim.y) {
        const int y = tb * HT_H + ty;
        uint64_t acc[4][C] = {};
        for (int base = x0 - r; base < x0 + HT_W + r; base += HT_W) {
            for (int i = tx; i < HT_W; i += blockDim.x) {
                const int p = base + i;
                const int sc = (p >= -r && p < w + r && p <= x0 + HT_W - 1 + r) ? bx[p + r] : -1;
#pragma unroll
                for (int c = 0; c < C; c++)
                    cols[ty][i * C + c] = (sc >= 0 && y < h) ? V[((size_t)y * w + sc) * C + c] : (AT)0;
            }
            __syncthreads();
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int ox = x0 + tx + j * blockDim.x;
                const int klo = max(0, base - (ox - r)), khi = min(ksize, base + HT_W - (ox - r));
                for (int k = klo; k < khi; k++) {
                    const AT *v = &cols[ty][(ox - r + k - base) * C];
                    const uint64_t wk = kern[k];
#pragma unroll
                    for (int c = 0; c < C; c++)
                        acc[j][c] += wk * v[c];
                }
            }
            __syncthreads();
        }
        if (y < h)
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int ox = x0 + tx + j * blockDim.x;
                if (ox >= w)
                    continue;
                T *o = out + ((size_t)y * w + ox) * C;
                if (ALPHA) {
                    const uint64_t A = acc[j][C - 1];
                    o[C - 1] = (T)((A + (1ull << 31)) >> 32);
#pragma unroll
                    for (int c = 0; c < C - 1; c++) {
                        const uint64_t S = acc[j][c];
                        o[c] = A ? (T)(S / A + (S % A >= A - S % A)) : (T)0;
                    }
                } else {
#pragma unroll
                    for (int c = 0; c < C; c++)
                        o[c] = (T)((acc[j][c] + (1ull << 31)) >> 32);
                }
            }
    }
}

template <typename T, int C>
static int launch_blur(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize, const int32_t *bx,
                       const int32_t *by, void *scratch, char *err, size_t errlen)
{
    typedef typename Acc<C, C == 2 || C == 4>::type AT;
    AT *V = (AT *)scratch;
    const unsigned t1 = (unsigned)((in->h + VT_H - 1) / VT_H), t2 = (unsigned)((in->h + HT_H - 1) / HT_H);
    launch(blur_down<T, C>, dim3((in->w + VT_W - 1) / VT_W, t1 > 65535 ? 65535 : t1), dim3(VT_W, 8), 0, 4,
           (const T *)in->data, in->w, in->h, V, kern, ksize, by);
    LAUNCH_TRY(err, errlen);
    launch(blur_across<T, C>, dim3((in->w + HT_W - 1) / HT_W, t2 > 65535 ? 65535 : t2), dim3(32, HT_H), 0, 4, V, in->w,
           in->h, (T *)out->data, kern, ksize, bx);
    LAUNCH_TRY(err, errlen);
    return 0;
}

/* tiled (q8): the one-pass kernel for 8-bit images without alpha, whose weights are Q8 (multiples of 256
 * in the Q16 table: OpenCV's kernel). Every sum then stays below 2^24, so it is exact in the
 * arithmetic the SMs are fastest at:
 *  - the input tile (byte rows with their halo, border maps applied) is staged in shared memory as
 *    bytes, 4 a word;
 *  - down: a thread owns one word column (4 samples) x Q8_RV rows; the bytes of a word are split
 *    into two words of two 16-bit lanes (bytes 0,2 and 1,3), mirrored taps are added first, and
 *    one 32-bit multiply-add applies a weight to two samples: V = sum w*p <= 255*256 never carries
 *    out of its lane;
 *  - across: V as floats; a thread owns Q8_CH consecutive output bytes of a row and sums
 *    S = sum w*V <= 2^24 in float FMAs (exact), then (S + 2^15) >> 16 by float tricks.
 * KS is the tap count rounded up to a compiled size; the kernel is centred in it with zeros. */
#define Q8_TH 32    /* output rows per tile */
#define Q8_TB 192   /* output bytes per tile row: 64 RGB pixels or 192 grey */
#define Q8_RV 8     /* rows per thread going down */
#define Q8_CH 16    /* output bytes per thread going across */
#define Q8_MAXK 33

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
            rowsrc[i] = p >= -rk && p < h + rk ? by[p + rk] : -1;
        }
        __syncthreads();
        /* stage the tile: one shared word a thread-step */
        for (int e = tid; e < G::ROWS * (G::PB / 4); e += blockDim.x) {
            const int i = e / (G::PB / 4), q = e - i * (G::PB / 4), sr = rowsrc[i];
            uint32_t word = 0;
            if (sr >= 0 && 4 * q < G::NB) {
                const size_t a = (size_t)sr * rowbytes + bc0 + 4 * q;   /* valid when inside */
                const size_t a0 = a & ~(size_t)3;
                if (inside && a0 + 8 <= total) {
                    const uint32_t *g = (const uint32_t *)(in + a0);
                    word = __funnelshift_r(__ldg(g), __ldg(g + 1), 8 * (unsigned)(a & 3));
                } else {
#pragma unroll
                    for (int b = 0; b < 4; b++) {
                        const int j = 4 * q + b, px = x0 - G::R + j / C, ch = j - (j / C) * C;
                        const int mx = px >= -rk && px < w + rk ? bx[px + rk] : -1;
                        if (j < G::NB && mx >= 0)
                            word |= (uint32_t)in[(size_t)sr * rowbytes + (size_t)mx * C + ch] << (8 * b);
                    }
                }
            }
            ((uint32_t *)(IN + (size_t)i * G::PB))[q] = word;
        }
        __syncthreads();
        /* down: word column q, rows g*Q8_RV .. +Q8_RV-1, two samples a multiply-add */
        for (int e = tid; e < (G::PB / 4) * (Q8_TH / Q8_RV); e += blockDim.x) {
            const int g = e / (G::PB / 4), q = e - g * (G::PB / 4);
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
#pragma unroll
            for (int b = 0; b < Q8_CH; b++) {
                float S = 0.f;
#pragma unroll
                for (int k = 0; k < KS; k++)
                    S = fmaf(wf[k], vals[b + k * C], S);
                o[b] = (uint8_t)round16(S);
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

/* The compiled tap counts (a kernel runs in the smallest that holds it). */
#define Q8_SIZES(X) X(3) X(5) X(7) X(9) X(11) X(13) X(17) X(21) X(25) X(33)

template <int C>
static int dispatch_q8(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize, const int32_t *bx,
                       const int32_t *by, char *err, size_t errlen)
{
#define Q8_TRY(K)                                                                                  \
    if (ksize <= K)                                                                                \
        return launch_q8<C, K>(in, out, kern, ksize, bx, by, err, errlen);
    Q8_SIZES(Q8_TRY)
#undef Q8_TRY
    return -1;
}

extern "C" int gpu_blur_onepass_applies(int c, int depth, int ksize)
{
    return depth == 8 && (c == 1 || c == 3) && ksize > 1 && ksize <= Q8_MAXK;
}

extern "C" int gpu_blur_tiled(const struct gpu_image *in, const struct gpu_image *out, const uint32_t *kern, int ksize,
                              const int32_t *bx, const int32_t *by, void *scratch, char *err, size_t errlen)
{
    if (in->gray_from || (out->transposed && !gpu_blur_onepass_applies(in->c, in->depth, ksize))) {
        snprintf(err, errlen, "gpu_blur_tiled: no fused kernel for this image");
        return (int)cudaErrorInvalidValue;
    }
    if (!gpu_blur_onepass_applies(in->c, in->depth, ksize))   /* same bits, two passes */
        return gpu_blur_separable(in, out, kern, ksize, bx, by, scratch, err, errlen);
    return in->c == 1 ? dispatch_q8<1>(in, out, kern, ksize, bx, by, err, errlen)
                      : dispatch_q8<3>(in, out, kern, ksize, bx, by, err, errlen);
}

extern "C" int gpu_blur_separable(const struct gpu_image *in, const struct gpu_image *out, const uint32_t *kern,
                                  int ksize, const int32_t *bx, const int32_t *by, void *scratch, char *err,
                                  size_t errlen)
{
    return DISPATCH_TC(in->depth, in->c, launch_blur, in, out, kern, ksize, bx, by, scratch, err, errlen);
}
