/* gpuimg: blur, the one-pass kernel of grey+alpha and 16-bit RGBA (blur_alpha). Exact. */
#include "cuda/blur/blur.cuh"

/* tiled for the alpha layouts the kernels above do not take: grey+alpha (8 and 16 bit) and 16-bit
 * RGBA. One pass over tiles of 128 / C pixels x B16_TH rows, the separable engine's integers with
 * colour premultiplied: staged P = c a (and a) in uint32; across H = sum w P < 2^48, kept in 32-bit
 * words (H >> 16 and H & 65535, so that every product of the down pass is one multiply-add, where
 * 64-bit H took five); down S = sum w H < 2^64; then alpha (S_a + 2^31) >> 32 and colour
 * div_round(S_c, S_a), 0 where S_a = 0: the CPU's integers summed in another order, so the same
 * bits. 8-bit: the same with the weights' common factor 256 cancelled both ways (as blur_q8), all
 * in 32 bits, mirrored taps added first. Both ways a thread makes 4 neighbouring sums of one
 * channel (sums4, sums4_sym), and a pixel's C channels lie on neighbouring lanes: across, a warp's
 * lanes are the channels of 32 / C rows, whose pitch (NS = C mod 32 words) puts them on distinct
 * banks; down, a warp's lanes are 32 neighbouring samples, the colour lanes taking S_a from their
 * pixel's alpha lane by a shuffle. The integer multiply-adds are the bound; the two-pass kernel,
 * which moves the column sums through global memory, is the slower up to onepass_max's taps. */
template <typename T, int C, int KS> struct BA {
    /* 8-bit: Q8 weights (the 8-bit kernels' are multiples of 256, as blur_q8 takes them), so
     * H < 2^24 and S < 2^32, all 32-bit; 16-bit: H < 2^48 in two uint32 planes (H >> 16 and
     * H & 65535), S < 2^64 */
    static constexpr int NH = sizeof(T) == 1 ? 1 : 2;
    typedef typename std::conditional<sizeof(T) == 1, uint32_t, uint64_t>::type ST;   /* sums, both ways */
    static constexpr int WS = sizeof(T) == 1 ? 8 : 0;        /* weight shift: 8-bit weights are Q8 */
    static constexpr ST HALF = (ST)1 << (2 * (16 - WS) - 1);
    static constexpr int TP = 128 / C;                       /* output pixels a tile row */
    static constexpr int TS = TP * C;                        /* output samples a tile row */
    static constexpr int NP = TP + KS - 1;                   /* staged pixel columns */
    static constexpr int ROWS = B16_TH + KS - 1;
    static constexpr int NS = (NP * C - C + 31) / 32 * 32 + C;   /* staged row pitch, words: C mod 32 */
    static constexpr int HP = TS + C;                        /* H row pitch, words: C mod 32 */
    static constexpr size_t SMEM = ((size_t)NH * HP + NS) * ROWS * 4;
};

template <typename T, int C, int KS>
__global__ void __launch_bounds__(256) blur_alpha(const T *__restrict__ in, int w, int h, T *__restrict__ out,
                                                  const uint32_t *__restrict__ kern, int ksize,
                                                  const int32_t *__restrict__ bx, const int32_t *__restrict__ by)
{
    typedef BA<T, C, KS> G;
    static_assert(C == 2 || C == 4, "the alpha lane is lane | (C - 1)");
    constexpr int R = KS / 2;
    extern __shared__ __align__(16) unsigned char bas[];
    uint32_t *H = (uint32_t *)bas;                            /* NH planes of ROWS x HP */
    uint32_t *IN = H + (size_t)G::NH * G::ROWS * G::HP;       /* ROWS x NS */
    __shared__ long long rowoff[G::ROWS];   /* a staged row's first byte in the image, -1: none */
    const int tid = threadIdx.x, lane = tid & 31, rk = ksize / 2, pad = R - rk;
    uint32_t wk[KS];
#pragma unroll
    for (int k = 0; k < KS; k++) {
        const int kk = k - pad;
        wk[k] = kk >= 0 && kk < ksize ? kern[kk] >> G::WS : 0u;
    }
    const size_t rowel = (size_t)w * C;
    const int x0 = blockIdx.x * G::TP;
    const int ns = min(G::TS, (w - x0) * C);   /* output samples of this tile's rows */
    for (int tb = blockIdx.y; tb * B16_TH < h; tb += gridDim.y) {
        const int y0 = tb * B16_TH;
        row_offsets(rowoff, G::ROWS, y0 - R, h, rk, by, (long long)(rowel * sizeof(T)));
        __syncthreads();
        /* stage: a thread a pixel column x 4 rows, the 4 loads in flight together, premultiplied;
         * the rows' byte offsets worked out once a tile, the column's once a thread (as blur16:
         * no 64-bit multiply a load) */
        constexpr int RG = (G::ROWS + 3) / 4;
        for (int e = tid; e < G::NP * RG; e += blockDim.x) {
            const int q = e % G::NP, i0 = e / G::NP * 4, px = x0 - R + q;
            const int mx = px >= 0 && px < w ? px : border_pos(px, w, rk, bx);   /* (identity inside) */
            const int co = mx >= 0 ? mx * C * (int)sizeof(T) : -1;
            T v[4][C];
#pragma unroll
            for (int u = 0; u < 4; u++) {
                const long long ro = i0 + u < G::ROWS ? rowoff[i0 + u] : -1;
                if (ro >= 0 && co >= 0)
                    ld_vec<T, C>((const T *)((const char *)in + ro + co), v[u]);
                else
#pragma unroll
                    for (int c = 0; c < C; c++)
                        v[u][c] = 0;
            }
#pragma unroll
            for (int u = 0; u < 4; u++)
                if (i0 + u < G::ROWS) {
                    const uint32_t a = v[u][C - 1];
                    uint32_t pm[C];
#pragma unroll
                    for (int c = 0; c < C - 1; c++)
                        pm[c] = v[u][c] * a;
                    pm[C - 1] = a;
                    st_vec<uint32_t, C>(IN + (i0 + u) * G::NS + q * C, pm);
                }
        }
        __syncthreads();
        /* across: channel e % C of row e / C % ROWS, pixels 4g .. 4g + 3 */
        for (int e = tid; e < G::ROWS * G::TS / 4; e += blockDim.x) {
            const int c = e % C, i = e / C % G::ROWS, o = e / (C * G::ROWS) * 4 * C + c;
            typename G::ST a[4] = {};
            if constexpr (G::NH == 1)
                sums4_sym<C>(IN + i * G::NS + o, wk, a);   /* P < 2^16: pairs fit */
            else
                sums4<C>(IN + i * G::NS + o, wk, a);
#pragma unroll
            for (int j = 0; j < 4; j++) {
                H[i * G::HP + o + j * C] = (uint32_t)(a[j] >> (G::NH == 2 ? 16 : 0));
                if (G::NH == 2)
                    H[(G::ROWS + i) * G::HP + o + j * C] = (uint32_t)a[j] & 65535u;
            }
        }
        __syncthreads();
        /* down: sample o of rows y .. y + 3 (every thread the same number of steps: the shuffle) */
        const int nr = min(B16_TH, h - y0);
        static_assert(B16_TH / 4 * G::TS % 256 == 0, "whole warps");
        for (int e = tid; e < B16_TH / 4 * G::TS; e += blockDim.x) {
            const int o = e % G::TS, y = e / G::TS * 4;
            typename G::ST a[4] = {};
            /* 8-bit: H < 2^24, pairs fit; 16-bit: S = 2^16 sum w (H >> 16) + sum w (H & 65535) */
            if constexpr (G::NH == 1)
                sums4_sym<G::HP>(H + y * G::HP + o, wk, a);
            else
                sums4<G::HP>(H + y * G::HP + o, wk, a);
            if constexpr (G::NH == 2) {
                uint32_t l[4] = {};
                sums4<G::HP>(H + (G::ROWS + y) * G::HP + o, wk, l);
#pragma unroll
                for (int j = 0; j < 4; j++)
                    a[j] = (a[j] << 16) + l[j];
            }
            T *d = out + (size_t)(y0 + y) * rowel + (size_t)x0 * C + o;
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const typename G::ST A = __shfl_sync(0xffffffffu, a[j], lane | (C - 1));
                const uint32_t v = o % C == C - 1 ? (uint32_t)((a[j] + G::HALF) >> (2 * (16 - G::WS)))
                                                  : div_round(a[j], A, rcp_approx((float)A));
                if (y + j < nr && o < ns)
                    d[(size_t)j * rowel] = (T)v;
            }
        }
        __syncthreads();   /* the tile is refilled for the next tile row */
    }
}

template <typename T, int C, int KS>
static int launch_ba(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize, const int32_t *bx,
                     const int32_t *by, char *err, size_t errlen)
{
    typedef BA<T, C, KS> G;
    CUDA_TRY(cudaFuncSetAttribute(blur_alpha<T, C, KS>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)G::SMEM),
             err, errlen);
    const unsigned ty = (unsigned)((in->h + B16_TH - 1) / B16_TH);
    launch(blur_alpha<T, C, KS>, dim3((unsigned)((in->w + G::TP - 1) / G::TP), ty > 65535 ? 65535 : ty), 256,
           G::SMEM, G::TP * B16_TH / 256, (const T *)in->data, in->w, in->h, (T *)out->data, kern, ksize, bx, by);
    LAUNCH_TRY(err, errlen);
    return 0;
}

template <typename T, int C>
int blur_alpha_dispatch(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize, const int32_t *bx,
                       const int32_t *by, char *err, size_t errlen)
{
    return by_tap_count(ksize, [&](auto K) {
        return launch_ba<T, C, decltype(K)::value>(in, out, kern, ksize, bx, by, err, errlen);
    });
}


template int blur_alpha_dispatch<uint8_t, 2>(BLUR_ENTRY_ARGS);
template int blur_alpha_dispatch<uint16_t, 2>(BLUR_ENTRY_ARGS);
template int blur_alpha_dispatch<uint16_t, 4>(BLUR_ENTRY_ARGS);
