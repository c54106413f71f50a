/* gpuimg: blur, the one-pass kernel of 16-bit grey and RGB (blur16). Exact. */
#include "cuda/blur/blur.cuh"

/* tiled for 16-bit grey and RGB: one pass over tiles of TP pixels x B16_TH rows, the separable
 * engine's integers (Q16 weights: across H = sum w * in < 2^32 in uint32, down sum w * H in uint64,
 * rounded once). The tile's input (halo and border maps applied) is staged as samples, a thread a
 * sample column (its source offset worked out once for all rows) of every RG-th row, the rows'
 * byte offsets worked out once a tile; H of every staged row is made once into shared memory,
 * then down; both ways a thread makes 4 neighbouring sums from KS + 3 loads. The staging by row
 * offsets and row groups keeps every thread busy; the kernel is issue-bound. */
template <int C> struct B16 {
    static constexpr int TP = C == 1 ? 128 : 64;   /* output pixels a tile row */
};
template <int C, int KS>
__global__ void __launch_bounds__(256) blur16(const uint16_t *__restrict__ in, int w, int h, uint16_t *__restrict__ out,
                                              const uint32_t *__restrict__ kern, int ksize,
                                              const int32_t *__restrict__ bx, const int32_t *__restrict__ by)
{
    constexpr int R = KS / 2, TS = B16<C>::TP * C;     /* output samples a tile row */
    constexpr int NS = TS + (KS - 1) * C, ROWS = B16_TH + KS - 1;
    extern __shared__ __align__(16) unsigned char b16s[];
    uint16_t *IN = (uint16_t *)b16s;                       /* ROWS x NS samples */
    uint32_t *H = (uint32_t *)(b16s + ((size_t)ROWS * NS * 2 + 15) / 16 * 16);   /* ROWS x TS */
    __shared__ long long rowoff[ROWS];   /* a staged row's first byte in the image, -1: none */
    const int tid = threadIdx.x, rk = ksize / 2, pad = R - rk;
    const long long rowlen = (long long)w * C;
    uint32_t wk[KS];
#pragma unroll
    for (int k = 0; k < KS; k++) {
        const int kk = k - pad;
        wk[k] = kk >= 0 && kk < ksize ? kern[kk] : 0u;
    }
    const int x0 = blockIdx.x * B16<C>::TP;
    const int ns = min(TS, (w - x0) * C);   /* output samples of this tile's rows */
    for (int tb = blockIdx.y; tb * B16_TH < h; tb += gridDim.y) {
        const int y0 = tb * B16_TH;
        row_offsets(rowoff, ROWS, y0 - R, h, rk, by, 2 * rowlen);
        __syncthreads();
        /* stage: a thread a sample column of every RG-th row (RG row groups, so that all threads
         * take part where a row has fewer samples than the block threads), its source offset worked
         * out once, 4 rows at once */
        constexpr int RG = (256 + NS - 1) / NS;
        for (int e = tid; e < RG * NS; e += blockDim.x) {
            const int g = e / NS, q = e - g * NS;
            const int px = x0 - R + q / C;
            const int mx = px >= 0 && px < w ? px : border_pos(px, w, rk, bx);   /* (identity inside) */
            const int co = mx >= 0 ? 2 * (mx * C + q % C) : -1;   /* (bytes: no scaling a load) */
            for (int i0 = g; i0 < ROWS; i0 += 4 * RG) {
                uint16_t v[4];
#pragma unroll
                for (int u = 0; u < 4; u++) {
                    const int i = i0 + u * RG;
                    const long long ro = i < ROWS ? rowoff[i] : -1;
                    v[u] = ro >= 0 && co >= 0 ? *(const uint16_t *)((const char *)in + ro + co) : (uint16_t)0;
                }
#pragma unroll
                for (int u = 0; u < 4; u++)
                    if (i0 + u * RG < ROWS)
                        IN[(i0 + u * RG) * NS + q] = v[u];
            }
        }
        __syncthreads();
        /* across: a thread 4 neighbouring pixels' sums of one channel of a row, their taps' samples
         * read once (KS + 3 loads for 4 sums) */
        constexpr int GR = TS / 4;   /* groups a row */
        for (int e = tid; e < ROWS * GR; e += blockDim.x) {
            const int i = e / GR, g = e - i * GR, o = (g / C) * 4 * C + g % C;
            const uint16_t *p = IN + i * NS + o;
            uint32_t a[4] = {};
            sums4<C>(p, wk, a);
#pragma unroll
            for (int j = 0; j < 4; j++)
                H[i * TS + o + j * C] = a[j];
        }
        __syncthreads();
        /* down: a thread 4 rows of one output sample, the H column read once (KS + 3 loads; the
         * groups' reads stay inside the staged rows and columns: 4 sums need KS + 3 taps) */
        const int nr = min(B16_TH, h - y0);
        for (int e = tid; e < B16_TH / 4 * TS; e += blockDim.x) {
            const int y = e / TS * 4, o = e - y / 4 * TS;
            if (y >= nr || o >= ns)
                continue;
            const uint32_t *p = H + y * TS + o;
            uint64_t a[4] = { 1ull << 31, 1ull << 31, 1ull << 31, 1ull << 31 };
            sums4<TS>(p, wk, a);
            uint16_t *d = out + (y0 + y) * rowlen + x0 * C + o;
#pragma unroll
            for (int j = 0; j < 4; j++)
                if (y + j < nr)
                    d[j * rowlen] = (uint16_t)(a[j] >> 32);
        }
        __syncthreads();   /* the tile is refilled for the next tile row */
    }
}

template <int C, int KS> static constexpr size_t b16_smem()
{
    constexpr int TS = B16<C>::TP * C, NS = TS + (KS - 1) * C, ROWS = B16_TH + KS - 1;
    return ((size_t)ROWS * NS * 2 + 15) / 16 * 16 + (size_t)ROWS * TS * 4;
}

template <int C, int KS>
static int launch_b16(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize, const int32_t *bx,
                      const int32_t *by, char *err, size_t errlen)
{
    constexpr size_t SMEM = b16_smem<C, KS>();
    CUDA_TRY(cudaFuncSetAttribute(blur16<C, KS>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM), err, errlen);
    const unsigned ty = (unsigned)((in->h + B16_TH - 1) / B16_TH);
    launch(blur16<C, KS>, dim3((unsigned)((in->w + B16<C>::TP - 1) / B16<C>::TP), ty > 65535 ? 65535 : ty), 256, SMEM,
           B16<C>::TP * B16_TH / 256, (const uint16_t *)in->data, in->w, in->h, (uint16_t *)out->data, kern, ksize, bx,
           by);
    LAUNCH_TRY(err, errlen);
    return 0;
}

template <int C>
int blur16_dispatch(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize, const int32_t *bx,
                        const int32_t *by, char *err, size_t errlen)
{
    return by_tap_count(ksize, [&](auto K) {
        return launch_b16<C, decltype(K)::value>(in, out, kern, ksize, bx, by, err, errlen);
    });
}


template int blur16_dispatch<1>(BLUR_ENTRY_ARGS);
template int blur16_dispatch<3>(BLUR_ENTRY_ARGS);
