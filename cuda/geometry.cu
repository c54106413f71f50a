/* gpuimg: transpose, rotate and flip kernels: out(x, y) = in(ax x + bx y + cx, ay x + by y + cy),
 * whole pixels copied as one value of BPP bytes. perpixel: a 2D grid. coalesced: GPU_PPT pixels a
 * thread along an output row, warp-stride, so writes are contiguous (reads are too for flips).
 * tiled: a 32x32 tile of the source read row by row (coalesced) into shared memory, then written
 * row by row of the output; one padding column keeps a warp's column reads off a single bank.
 * vector: for the maps that swap axes, tiles moved as aligned 16-byte words (described below). */
#include "common.cuh"

__device__ __forceinline__ size_t src_index(const gpu_map &m, int w, int x, int y)
{
    return (size_t)(m.ay * x + m.by * y + m.cy) * w + (m.ax * x + m.bx * y + m.cx);
}

template <int BPP, bool COALESCED, int PPT = GPU_PPT>
__global__ void remap_direct(const typename PixT<BPP>::type *in, typename PixT<BPP>::type *out, int iw, int ow,
                             int oh, gpu_map m)
{
    auto px = [&](int x, int y) { out[(size_t)y * ow + x] = in[src_index(m, iw, x, y)]; };
    if (COALESCED)
        for_coalesced<PPT>(ow, oh, px);
    else
        for_perpixel(ow, oh, px);
}

#define TILE 32
#define TILE_ROWS 8

template <int BPP>
__global__ void remap_tiled(const typename PixT<BPP>::type *in, typename PixT<BPP>::type *out, int iw, int ih, int ow,
                            int oh, gpu_map m)
{
    typedef typename PixT<BPP>::type P;
    __shared__ P tile[TILE][TILE + 1];
    const int X0 = blockIdx.x * TILE, ntiles_y = (oh + TILE - 1) / TILE;
    for (int tyb = blockIdx.y; tyb < ntiles_y; tyb += gridDim.y) {
    const int Y0 = tyb * TILE;
    /* the source rectangle this output tile reads: the map is affine with unit coefficients */
    const int sx0 = m.cx + min(m.ax * X0, m.ax * (X0 + TILE - 1)) + min(m.bx * Y0, m.bx * (Y0 + TILE - 1));
    const int sy0 = m.cy + min(m.ay * X0, m.ay * (X0 + TILE - 1)) + min(m.by * Y0, m.by * (Y0 + TILE - 1));
    const int tx = threadIdx.x;
    for (int ly = threadIdx.y; ly < TILE; ly += blockDim.y) {
        const int sx = sx0 + tx, sy = sy0 + ly;
        if (sx >= 0 && sx < iw && sy >= 0 && sy < ih)
            tile[ly][tx] = in[(size_t)sy * iw + sx];
    }
    __syncthreads();
    for (int ly = threadIdx.y; ly < TILE; ly += blockDim.y) {
        const int x = X0 + tx, y = Y0 + ly;
        if (x < ow && y < oh) {
            const int sx = m.ax * x + m.bx * y + m.cx, sy = m.ay * x + m.by * y + m.cy;
            out[(size_t)y * ow + x] = tile[sy - sy0][sx - sx0];
        }
    }
    __syncthreads();   /* the tile is refilled for the next tile row */
    }
}

/* vector: the maps that swap axes (transpose, rotate=90/270), any pixel size, with the global side
 * moved in aligned 16-byte words although rows of 1-, 3- or 6-byte pixels are not aligned. A block
 * owns N source rows x N source columns (N * BPP >= 128 bytes, so every row segment spans whole
 * cache lines):
 *  - stage: IN row r (the source row of output column x0 + r) holds the aligned 16-byte words that
 *    cover the tile's columns, four loads in flight a thread; the row's byte shift (0..15) is kept;
 *  - turn: a thread takes 4 rows x 4 pixels, reads each row's 4*BPP bytes as BPP funnel-shifted
 *    words, regroups the bytes in registers (byte_perm) into the 4*BPP bytes of 4 output rows and
 *    stores them as words into OS (lanes are 16 pixel-groups x 2 row-groups; IN's pitch is 4 mod 8
 *    words and OS row c starts 16 (c / 4) bytes later than its pitch says, so neither side has
 *    more than 2-way bank conflicts);
 *  - copy out: each aligned 16-byte global word of an output row is cut out of two aligned 16-byte
 *    shared loads (word selects and a funnel shift by the row's offset modulo 16) and stored
 *    whole; only a row segment's two end words, shared with the neighbouring tiles, go in pieces.
 * The kernel was bound first by instruction issue (4-byte copy-out words with their index
 * arithmetic), then by shared-memory wavefronts (byte stores in the turn): this layout keeps
 * both sides of shared memory in words (bench/RESULTS.md). Flips come free: IN rows are staged
 * in output order, OS rows are picked in output order. */
template <int BPP> struct SW {
    static constexpr int N = BPP == 1 ? 128 : 64;                    /* pixels a tile side */
    static constexpr int NQ = N * BPP / 16 + 1;                      /* 16-byte words a row, both sides */
    static constexpr int PIN = NQ * 4 + (NQ % 2 ? 0 : 4);            /* IN pitch, words, = 4 mod 8 */
    static constexpr int POS = (NQ + 1) * 4;                         /* OS pitch, words: a 16-byte head */
    static constexpr size_t SMEM = (size_t)N * (PIN + POS) * 4 + 4 * N + N;
};

/* Byte t of the 4*BPP bytes of output row j of a 4x4 block: byte (j*BPP + t % BPP) of source row t / BPP. */
template <int BPP>
__device__ __forceinline__ void turn4(const uint32_t (&s)[4][BPP], uint32_t (&d)[4][BPP])
{
#pragma unroll
    for (int j = 0; j < 4; j++)
#pragma unroll
        for (int k = 0; k < BPP; k++) {
            uint32_t v = 0;
#pragma unroll
            for (int b = 0; b < 4; b++) {
                const int t = 4 * k + b, i = t / BPP, sb = j * BPP + t % BPP;
                /* keep v's bytes, take byte sb & 3 of the source word into position b */
                const unsigned sel = (0x3210u & ~(0xFu << (4 * b))) | ((4u + (sb & 3)) << (4 * b));
                v = __byte_perm(v, s[i][sb >> 2], sel);
            }
            d[j][k] = v;
        }
}

#define SW_T 256   /* threads a block */
#define SW_LD 4    /* 16-byte loads a thread has in flight */

template <int BPP>
__global__ void __launch_bounds__(SW_T) remap_swap(const uint8_t *__restrict__ in, uint8_t *__restrict__ out, int iw,
                                                   int ih, int ow, int oh, gpu_map m)
{
    typedef SW<BPP> G;
    constexpr int N = G::N;
    extern __shared__ __align__(16) uint32_t sws[];
    uint32_t *IN = sws, *OS = sws + (size_t)N * G::PIN;
    uint8_t *shift = (uint8_t *)(OS + (size_t)N * G::POS + N);
    const int tid = threadIdx.x, x0 = blockIdx.x * N;   /* output columns x0.. = IN rows */
    const long long total = (long long)iw * ih * BPP;
    const int nb = min(N, ow - x0) * BPP;               /* bytes of each output row segment */
    for (int tb = blockIdx.y; tb * N < oh; tb += gridDim.y) {
        const int y0 = tb * N;
        /* source columns of output rows y0 .. y0+N-1: bx y + cx, lowest first; OS row c holds
         * source column sxmin + c, which is output row bx (sxmin + c - cx) */
        const int sxmin = m.bx > 0 ? m.bx * y0 + m.cx : m.cx - (y0 + N - 1);
        for (int e0 = tid; e0 < N * G::NQ; e0 += SW_LD * SW_T) {
            uint4 v[SW_LD];
            int at[SW_LD];   /* where each load goes in IN (words) */
#pragma unroll
            for (int j = 0; j < SW_LD; j++) {
                const int e = e0 + j * SW_T, r = e / G::NQ, q = e - r * G::NQ;
                at[j] = e < N * G::NQ ? r * G::PIN + 4 * q : -1;
                v[j] = make_uint4(0, 0, 0, 0);
                if (e < N * G::NQ && x0 + r < ow) {
                    const int sy = m.ay * (x0 + r) + m.cy;
                    /* offsets from in, whose own address need not be 16-byte aligned */
                    const long long a = ((long long)sy * iw + sxmin) * BPP;
                    const int mis = (int)(((size_t)in + (size_t)a) & 15);
                    const long long a0 = a - mis + 16 * q;
                    if (q == 0)
                        shift[r] = (uint8_t)mis;
                    if (a0 >= 0 && a0 + 16 <= total) {
                        v[j] = __ldg((const uint4 *)(in + a0));
                    } else {
                        uint32_t w[4] = {};
#pragma unroll
                        for (int b = 0; b < 16; b++)
                            if (a0 + b >= 0 && a0 + b < total)
                                w[b >> 2] |= (uint32_t)in[a0 + b] << (8 * (b & 3));
                        v[j] = make_uint4(w[0], w[1], w[2], w[3]);
                    }
                } else if (e < N * G::NQ && q == 0) {
                    shift[r] = 0;
                }
            }
#pragma unroll
            for (int j = 0; j < SW_LD; j++)
                if (at[j] >= 0)
                    *(uint4 *)(IN + at[j]) = v[j];
        }
        __syncthreads();
        /* turn: 4x4-pixel blocks; lane = 16 pixel groups x 2 row groups */
        constexpr int GB = N / 64;   /* 16-wide pixel-group bands across the tile */
        for (int e = tid; e < (N / 4) * (N / 4); e += SW_T) {
            const int g = e >> 5, l = e & 31;
            const int a = (g / GB) * 2 + (l >> 4), b = (g % GB) * 16 + (l & 15);
            uint32_t s[4][BPP], d[4][BPP];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const int sb = shift[4 * a + i];
                const uint32_t *row = IN + (4 * a + i) * G::PIN + b * BPP + (sb >> 2);
                const unsigned sh = 8u * (sb & 3);
                uint32_t w0 = row[0];
#pragma unroll
                for (int k = 0; k < BPP; k++) {
                    const uint32_t w1 = row[k + 1];
                    s[i][k] = __funnelshift_r(w0, w1, sh);
                    w0 = w1;
                }
            }
            turn4<BPP>(s, d);
            /* output row j of the block is source pixel column c = 4b + j; its data starts after the
             * 16-byte head */
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int c = 4 * b + j;
#pragma unroll
                for (int k = 0; k < BPP; k++)
                    OS[c * G::POS + 4 * (c >> 2) + 4 + a * BPP + k] = d[j][k];
            }
        }
        __syncthreads();
        /* copy out: OS row c is output row y; global 16-byte word k of its segment starts at row
         * byte 16 k - s (s: the segment's address modulo 16), which is OS byte 16 (k + 1) - s */
        for (int e = tid; e < N * G::NQ; e += SW_T) {
            const int c = e / G::NQ, k = e - c * G::NQ, y = m.bx * (sxmin + c - m.cx);   /* y0 <= y < y0 + N */
            if (y >= oh)
                continue;
            uint8_t *g = out + ((size_t)y * ow + x0) * BPP;
            const int s = (int)((size_t)g & 15), lo = 16 * k - s;
            if (lo >= nb)
                continue;
            const int kb = k + (s == 0), sh = (16 - s) & 15;
            const uint32_t *rw = OS + c * G::POS + 4 * (c >> 2) + 4 * kb;
            store16_in(g + lo, cut16(*(const uint4 *)rw, *(const uint4 *)(rw + 4), sh), lo, nb);
        }
        __syncthreads();   /* IN, OS and the shifts are refilled for the next tile */
    }
}

template <int BPP>
static int launch_swap(const gpu_image *in, const gpu_image *out, const gpu_map *m, char *err, size_t errlen)
{
    typedef SW<BPP> G;
    CUDA_TRY(cudaFuncSetAttribute(remap_swap<BPP>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)G::SMEM), err,
             errlen);
    const unsigned ty = (unsigned)((out->h + G::N - 1) / G::N);
    launch(remap_swap<BPP>, dim3((unsigned)((out->w + G::N - 1) / G::N), ty > 65535 ? 65535 : ty), SW_T, G::SMEM,
           G::N * G::N / SW_T, (const uint8_t *)in->data, (uint8_t *)out->data, in->w, in->h, out->w, out->h, *m);
    LAUNCH_TRY(err, errlen);
    return 0;
}

template <int BPP>
static int launch_remap(int variant, const gpu_image *in, const gpu_image *out, const gpu_map *m, char *err,
                        size_t errlen)
{
    typedef typename PixT<BPP>::type P;
    const P *s = (const P *)in->data;
    P *d = (P *)out->data;
    if (variant == KV_PERPIXEL) {
        const dim3 b = perpixel_block(), g = grid2d(out->w, out->h, b);
        launch(remap_direct<BPP, false>, g, b, 0, 1, s, d, in->w, out->w, out->h, *m);
    } else if (variant == KV_VECTOR && m->ax == 0 && m->by == 0) {
        return launch_swap<BPP>(in, out, m, err, errlen);
    } else if (variant == KV_COALESCED || variant == KV_VECTOR) {   /* vector keeping rows whole (rotate=180):
                                                                       nothing to turn, the coalesced kernel */
        const unsigned th = threads1d();
        PPT_SWITCH(ppt_choice(), launch(remap_direct<BPP, true, P>, grid_coalesced(out->w, out->h, th, P), th, 0, P, s, d,
                                        in->w, out->w, out->h, *m));
    } else {
        /* 32 columns; the rows a block has (by of the shape, 8 by default) stride over the tile */
        const int rows = g_shape.by > 0 && g_shape.by <= TILE ? g_shape.by : TILE_ROWS;
        const unsigned ty = (unsigned)((out->h + TILE - 1) / TILE);
        dim3 b(TILE, rows), g((out->w + TILE - 1) / TILE, ty > 65535 ? 65535 : ty);
        launch(remap_tiled<BPP>, g, b, 0, TILE / rows, s, d, in->w, in->h, out->w, out->h, *m);
    }
    LAUNCH_TRY(err, errlen);
    return 0;
}

extern "C" int gpu_remap(int variant, const struct gpu_image *in, const struct gpu_image *out,
                         const struct gpu_map *m, char *err, size_t errlen)
{
    return DISPATCH_BPP(bpp_of(in), launch_remap, variant, in, out, m, err, errlen);
}
