/* gpuimg: transpose, rotate and flip kernels: out(x, y) = in(ax x + bx y + cx, ay x + by y + cy),
 * whole pixels copied as one value of BPP bytes. perpixel: a 2D grid. coalesced: GPU_PPT pixels a
 * thread along an output row, warp-stride, so writes are contiguous (reads are too for flips).
 * tiled: a 32x32 tile of the source read row by row (coalesced) into shared memory, then written
 * row by row of the output; one padding column keeps a warp's column reads off a single bank.
 * vector: for the maps that swap axes, tiles moved as aligned 16-byte words through shared memory
 * (remap_swap), or on large images of 2- to 6-byte pixels as 4-byte words turned in registers
 * (remap_words); for the maps that keep rows whole, row chunks over aligned 16-byte words put in
 * mirrored order by byte permutes (mirror_rows); all described below. */
#include "cuda/common.cuh"
#include "cuda/remap/kernels.h"
#include <climits>

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
 * moved in aligned 16-byte words although rows of 1-, 3- or 6-byte pixels are not aligned. A tile
 * is N output rows x N output columns (N * BPP >= 128 bytes, so every row segment spans whole
 * cache lines):
 *  - stage: IN row r (the source row of output column x0 + r) holds the aligned 16-byte words that
 *    cover the tile's source columns, by cp.async; the row's byte shift (0..15) is kept;
 *  - turn: a thread takes 4 rows x 4 pixels (grey: 8 x 8), reads each row's 4*BPP bytes as BPP
 *    funnel-shifted words, regroups the bytes in registers (byte_perm) into the 4*BPP bytes of 4
 *    output rows and stores them as words into OS (lanes are 16 pixel-groups x 2 row-groups; IN's
 *    pitch is 4 mod 8 words and OS rows are skewed, so neither side has more than 2-way bank
 *    conflicts);
 *  - copy out: each aligned 16-byte global word is written whole, once, by the tile that holds its
 *    first byte, cut out of two aligned 16-byte shared loads (word selects and a funnel shift by
 *    the row's offset modulo 16). A word runs up to 15 bytes into the next tile, so a tile stages
 *    E more source rows than its N (output columns x0 + N ..); only words at an output row's two
 *    ends, shared with the rows before and after, go in pieces.
 * Bound by instruction issue otherwise: the copy-out's index arithmetic per 4-byte word, and every
 * tile writing its row segments' two end words in pieces (half of all instructions). Flips come
 * free: IN rows are staged in output order, OS rows are picked in output order. */
template <int BPP> struct SW {
    static constexpr int N = BPP == 1 ? 128 : 64;                    /* output pixels a tile side */
    static constexpr int E = ((15 + BPP - 1) / BPP + 7) / 8 * 8;     /* extra IN rows: 15 bytes, whole 8s */
    static constexpr int NR = N + E;                                 /* IN rows (output columns) */
    static constexpr int NQ = N * BPP / 16 + 1;                      /* 16-byte words a row, both sides */
    static constexpr int PIN = NQ * 4 + (NQ % 2 ? 0 : 4);            /* IN pitch, words, = 4 mod 8 */
    static constexpr int POS = ((NR * BPP + 16) / 16 + 1) * 4;       /* OS pitch, words: a 16-byte head */
    /* threads a block: 9 warps, so that the turn's 288 blocks (grey: (NR / 8) x (N / 8) of 8x8
     * pixels; others: (NR / 4) x (N / 4) of 4x4) are one round (with 8 warps, RGB's turn took a
     * second round for one warp while the others waited at the barrier: 3.5% of its time) */
    static constexpr int T = 288;
    /* OS row c starts skew(c) words past c POS (rising with c, the rows' spare words absorbing
     * it), so that a warp's turn stores meet different banks: grey stores 8 bytes of rows 8
     * apart, the others 4 bytes of rows 4 apart */
    static __device__ __forceinline__ int skew(int c) { return BPP == 1 ? 4 * (c >> 3) : 4 * (c >> 2); }
    /* IN, OS (with the rows' skew), each OS row's first word (16 bytes), IN rows' shifts */
    static constexpr size_t SMEM = ((size_t)NR * PIN + (size_t)N * POS + N + 4 * N) * 4 + NR;
};

/* Byte t of the 4*BPP bytes of output row j of a 4x4 block: byte (j*BPP + t % BPP) of source row t / BPP. */
template <int BPP>
__device__ __forceinline__ void turn4(const uint32_t (&s)[4][BPP], uint32_t (&d)[4][BPP])
{
    if constexpr (BPP == 1) {   /* two rounds of byte pairs, then halfword pairs: 8 permutes, not 16 */
        const uint32_t t0 = __byte_perm(s[0][0], s[1][0], 0x5140), t1 = __byte_perm(s[0][0], s[1][0], 0x7362);
        const uint32_t t2 = __byte_perm(s[2][0], s[3][0], 0x5140), t3 = __byte_perm(s[2][0], s[3][0], 0x7362);
        d[0][0] = __byte_perm(t0, t2, 0x5410);
        d[1][0] = __byte_perm(t0, t2, 0x7632);
        d[2][0] = __byte_perm(t1, t3, 0x5410);
        d[3][0] = __byte_perm(t1, t3, 0x7632);
    } else {
        /* each output word from the source words its 4 bytes lie in: a permute of the first two,
         * then one a further word (all indices are compile-time constants); byte b of output word
         * (j, k) is byte sb(b) of source word (row i(b), word sb(b) / 4), named id(b) */
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int k = 0; k < BPP; k++) {
                auto i_of = [&](int b) { return (4 * k + b) / BPP; };
                auto sb_of = [&](int b) { return j * BPP + (4 * k + b) % BPP; };
                auto id_of = [&](int b) { return i_of(b) * 8 + (sb_of(b) >> 2); };
                uint32_t v = 0;
                int done = 0;
#pragma unroll
                for (int p = 0; p < 4; p++) {
                    int fa = -1, fb = -1;   /* first byte not yet placed, and the first from another word */
#pragma unroll
                    for (int b = 0; b < 4; b++)
                        if (!(done >> b & 1) && fa < 0)
                            fa = b;
                        else if (!(done >> b & 1) && fb < 0 && fa >= 0 && id_of(b) != id_of(fa))
                            fb = b;
                    if (fa < 0)
                        break;
                    const int ida = id_of(fa), idb = id_of(fb < 0 ? fa : fb);
                    unsigned sel = 0;
#pragma unroll
                    for (int b = 0; b < 4; b++) {
                        const int id = id_of(b), lo = sb_of(b) & 3;
                        if (p == 0) {   /* from A (0..3) or B (4..7) */
                            if (id == ida) { sel |= (unsigned)lo << (4 * b); done |= 1 << b; }
                            else if (id == idb) { sel |= (4u + lo) << (4 * b); done |= 1 << b; }
                        } else {        /* keep v's byte b, or take it from A (4..7) */
                            if (!(done >> b & 1) && id == ida) { sel |= (4u + lo) << (4 * b); done |= 1 << b; }
                            else sel |= (unsigned)b << (4 * b);
                        }
                    }
                    v = p == 0 ? __byte_perm(s[ida / 8][ida % 8], s[idb / 8][idb % 8], sel)
                               : __byte_perm(v, s[ida / 8][ida % 8], sel);
                }
                d[j][k] = v;
            }
    }
}

/* Stage the IN rows of a tile: row r holds the aligned 16-byte words around the tile's source
 * columns (from sxmin) of the source row that output column x0 + r reads. Words wholly inside the
 * image go by cp.async (the caller commits); a word crossing the buffer's ends is read bytewise. */
template <int BPP>
__device__ __forceinline__ void swap_stage(const uint8_t *__restrict__ in, uint32_t *IN, uint8_t *shift, int x0,
                                           int sxmin, int iw, int ow, long long total, const gpu_map &m)
{
    typedef SW<BPP> G;
    for (int e = threadIdx.x; e < G::NR * G::NQ; e += G::T) {
        const int r = e / G::NQ, q = e - r * G::NQ;
        uint32_t *at = IN + r * G::PIN + 4 * q;
        if (x0 + r >= ow) {   /* past the image: bytes no output word takes */
            if (q == 0)
                shift[r] = 0;
            continue;
        }
        const int sy = m.ay * (x0 + r) + m.cy;
        /* offsets from in, whose own address need not be 16-byte aligned */
        const long long a = ((long long)sy * iw + sxmin) * BPP;
        const int mis = (int)(((size_t)in + (size_t)a) & 15);
        const long long a0 = a - mis + 16 * q;
        if (q == 0)
            shift[r] = (uint8_t)mis;
        if (a0 >= 0 && a0 + 16 <= total) {
            cp_async16(at, in + a0);
        } else {
            *(uint4 *)at = load16_in((uintptr_t)in + a0, (uintptr_t)in, (uintptr_t)in + total);
        }
    }
}

/* The lowest source column a tile of output rows y0 .. y0 + N - 1 reads: OS row c holds source
 * column sxmin + c, which is output row bx (sxmin + c - cx). */
__device__ __forceinline__ int swap_sxmin(const gpu_map &m, int y0, int N)
{
    return m.bx > 0 ? m.bx * y0 + m.cx : m.cx - (y0 + N - 1);
}

/* Persistent: the grid is what the GPU holds at once and block b takes tiles b, b + grid, ... (so
 * tiles that share cache lines run at the same time). The next tile is staged by cp.async into IN
 * as soon as this one is turned, and its loads are in flight while this one is written. */
template <int BPP>
__global__ void __launch_bounds__(SW<BPP>::T)
    remap_swap(const uint8_t *__restrict__ in, uint8_t *__restrict__ out, int iw, int ih, int ow, int oh, gpu_map m)
{
    typedef SW<BPP> G;
    constexpr int N = G::N;
    extern __shared__ __align__(16) uint32_t sws[];
    uint32_t *const IN = sws, *const OS = sws + G::NR * G::PIN;
    int4 *const RI = (int4 *)(OS + N * G::POS + N);   /* OS row c's first word: address, row byte, OS byte */
    uint8_t *const shift = (uint8_t *)(RI + N);
    const int tid = threadIdx.x, ntx = (ow + N - 1) / N, ntiles = ntx * ((oh + N - 1) / N);
    const long long total = (long long)iw * ih * BPP;
    const int rowbytes = ow * BPP;
    int t = blockIdx.x;
    if (t < ntiles)
        swap_stage<BPP>(in, IN, shift, (t % ntx) * N, swap_sxmin(m, (t / ntx) * N, N), iw, ow, total, m);
    cp_async_commit();
    for (; t < ntiles; t += gridDim.x) {
        cp_async_wait_all();
        __syncthreads();
        const int x0 = (t % ntx) * N, y0 = (t / ntx) * N, sxmin = swap_sxmin(m, y0, N);
        const int lo_b = x0 * BPP, hi_b = min(x0 + N, ow) * BPP;
        /* OS row c is output row y, OS byte 16 + j its byte x0 BPP + j. The tile writes the aligned
         * words that start in [x0 BPP, x0 BPP + N BPP), and at x0 = 0 the one holding the row's
         * first byte too: each row's first such word, worked out once here for the copy-out */
        if (tid < N) {
            const int y = m.bx * (sxmin + tid - m.cx);
            uint8_t *row = out + (size_t)y * rowbytes;
            const int s = (int)(((size_t)row + lo_b) & 15);   /* byte lo_b's place in its word */
            const int o0 = y < oh ? lo_b + (x0 == 0 ? -s : (16 - s) & 15) : INT_MAX / 2;
            const size_t wp = y < oh ? (size_t)(row + o0) : 0;   /* rows past the image: no word */
            RI[tid] = make_int4((int)(unsigned)wp, (int)(unsigned)(wp >> 32), o0, 16 + o0 - lo_b);
        }
        if constexpr (BPP == 1) {
            /* turn, grey: a thread an 8x8 block; lane bit 0 picks one of the warp's two 8-row
             * groups, bits 1-4 the 8-column group, so a half-warp's 8-byte stores fill 8 OS rows x
             * 16 bytes on different banks. Half the instructions of 4x4 blocks a thread. */
            static_assert(G::NR / 8 * (N / 8) == G::T, "one 8x8 block a thread");
            const int a = 2 * (tid >> 5) + (tid & 1), b = (tid & 31) >> 1;
            const uint2 sh8 = *(const uint2 *)(shift + 8 * a);   /* the 8 rows' shifts */
            uint32_t s[8][2];
#pragma unroll
            for (int i = 0; i < 8; i++) {
                const int sb = ((i < 4 ? sh8.x : sh8.y) >> (8 * (i & 3))) & 15;
                load_shifted<2, false>(IN + (8 * a + i) * G::PIN + 2 * b + (sb >> 2), 8u * (sb & 3), s[i]);
            }
            /* output row j of the block takes source rows 0-3 (its word 0) and 4-7 (word 1) of
             * source column j: 4x4 turns of the source's column halves */
#pragma unroll
            for (int h = 0; h < 2; h++) {
                uint32_t d[2][4][1];
#pragma unroll
                for (int rh = 0; rh < 2; rh++) {
                    const uint32_t q[4][1] = { { s[4 * rh][h] }, { s[4 * rh + 1][h] }, { s[4 * rh + 2][h] },
                                               { s[4 * rh + 3][h] } };
                    turn4<1>(q, d[rh]);
                }
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    const int c = 8 * b + 4 * h + j;
                    *(uint2 *)(OS + c * G::POS + G::skew(c) + 4 + 2 * a) = make_uint2(d[0][j][0], d[1][j][0]);
                }
            }
        } else {
            /* turn: a thread a 4x4-pixel block; lane = 16 pixel groups x 2 row groups */
            static_assert(G::NR / 4 * (N / 4) == G::T, "one 4x4 block a thread");
            const int a = 2 * (tid >> 5) + ((tid & 31) >> 4), b = tid & 15;
            const uint32_t sh4 = *(const uint32_t *)(shift + 4 * a);   /* the 4 rows' shifts */
            uint32_t s[4][BPP], d[4][BPP];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const int sb = (sh4 >> (8 * i)) & 15;
                load_shifted<BPP, false>(IN + (4 * a + i) * G::PIN + b * BPP + (sb >> 2), 8u * (sb & 3), s[i]);
            }
            turn4<BPP>(s, d);
            /* output row j of the block is source pixel column c = 4b + j; its data starts after
             * the 16-byte head */
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int c = 4 * b + j;
#pragma unroll
                for (int k = 0; k < BPP; k++)
                    OS[c * G::POS + G::skew(c) + 4 + a * BPP + k] = d[j][k];
            }
        }
        __syncthreads();   /* OS is whole and IN free: stage the next tile */
        if (t + (int)gridDim.x < ntiles) {
            const int tn = t + gridDim.x;
            swap_stage<BPP>(in, IN, shift, (tn % ntx) * N, swap_sxmin(m, (tn / ntx) * N, N), iw, ow, total, m);
        }
        cp_async_commit();
        /* copy out: word k of OS row c; consecutive lanes take consecutive words of a row */
        for (int e = tid; e < N * G::NQ; e += G::T) {
            const int c = e / G::NQ, k = e - c * G::NQ;
            const int4 ri = RI[c];
            const int o = ri.z + 16 * k;
            if (o >= hi_b)
                continue;
            uint8_t *g = (uint8_t *)(((size_t)(unsigned)ri.y << 32) | (unsigned)ri.x) + 16 * k;
            const uint32_t *rw = OS + c * G::POS + G::skew(c) + 4 * (ri.w >> 4) + 4 * k;
            store16_in(g, cut16(*(const uint4 *)rw, *(const uint4 *)(rw + 4), ri.w & 15), o, rowbytes);
        }
        /* the next turn writes OS and RI only after the next iteration's barrier */
    }
    cp_async_wait_all();
}

/* words: the maps that swap axes, a tile moved through registers as 4-byte words. A tile is 128
 * source columns (output rows) x 128 output columns (source rows, in output order, so flips come
 * free). A lane takes 4 columns of a warp's rows: each row's BPP words by coalesced 4-byte loads
 * (the row's byte shift undone by a funnel shift with the next lane's first word), a 4x4-pixel
 * turn in registers (turn4), stores into OS (pitch 32 BPP words; word q of row c at q ^ (c / 4),
 * so neither a warp's stores nor its row reads meet a bank twice). One barrier, then a warp writes
 * whole output rows: each aligned 4-byte word of the row whose first byte lies in the tile's
 * first TH columns is cut from two OS words and written whole, once (it runs up to 3 bytes into
 * the 4 columns past TH, which the tile loads for that); only the row's two ends, shared with the
 * rows before and after, go in bytes. One tile a block, tiles numbered down the output columns
 * first, so the blocks resident at once write whole output rows (numbered the other way, each
 * output row was written in pieces far apart in time, which is slower).
 * `vector` takes it for 2- to 6-byte pixels from WORDS_MIN_TILES tiles; below that, and for grey at
 * every size, remap_swap is faster. */
template <int BPP> struct WT {
    static constexpr int WARPS = 8;              /* a warp's rows: 16 */
    static constexpr int RP = 8;                 /* rows a load phase (registers: RP (BPP + 2) words) */
    static constexpr int NR = 16 * WARPS;        /* tile rows: output columns */
    static constexpr int TH = NR - 4;            /* the output columns a tile owns */
    static constexpr int NC = 128;               /* tile columns: 4 a lane (8, measured on grey: no faster) */
    static constexpr int MINB = 3;               /* blocks an SM: 80 registers (4 spilled and ran slower) */
    static constexpr int P = NR * BPP / 4;       /* OS words a row (a multiple of 32) */
    static constexpr int OWN = TH * BPP / 4;     /* aligned words an output row takes from a tile */
    static constexpr int T = 32 * WARPS;
    static constexpr size_t SMEM = (size_t)NC * P * 4;
};

#define WORDS_MIN_TILES 2500   /* between 2100 (7680x4320: slower) and 2923 (10109x4542: faster) */

template <int BPP> static inline long long words_tiles(const gpu_image *in, const gpu_image *out)
{
    return (long long)((in->w + WT<BPP>::NC - 1) / WT<BPP>::NC) * ((out->w + WT<BPP>::TH - 1) / WT<BPP>::TH);
}

/* One word by load_words_in, out of line: rows at the buffer's ends, rare. */
__device__ __noinline__ uint32_t word_in(uintptr_t p, uintptr_t lo, uintptr_t hi)
{
    uint32_t w[1];
    load_words_in<1>(p, lo, hi, w);
    return w[0];
}

template <int BPP>
__global__ void __launch_bounds__(WT<BPP>::T, WT<BPP>::MINB)
    remap_words(const uint8_t *__restrict__ in, uint8_t *__restrict__ out, int iw, int ih, int ow, int oh, gpu_map m)
{
    typedef WT<BPP> G;
    extern __shared__ __align__(16) uint32_t OS[];
    const int lane = threadIdx.x & 31, wi = threadIdx.x >> 5;
    const uintptr_t lo = (uintptr_t)in, hi = lo + (size_t)iw * ih * BPP;
    const size_t inrow = (size_t)iw * BPP;
    const int rowbytes = ow * BPP;
    const int nty = (ow + G::TH - 1) / G::TH;   /* one tile a block: output-column tiles first */
    const int sx0 = (int)(blockIdx.x / nty) * G::NC, x0 = (int)(blockIdx.x % nty) * G::TH;
    /* a warp's 16 rows in phases of RP: every row's loads issued before any is used. Rows
     * past the image are clamped to its last (their bytes are never stored), so the loads
     * carry no branch; a phase whose span reaches past the buffer reads bytewise. */
    constexpr int RP = G::RP;
#pragma unroll
    for (int ph = 0; ph < 16 / RP; ph++) {
        const int r0 = wi * 16 + ph * RP;
        auto rowp = [&](int r) {
            const int x = min(x0 + r, ow - 1);
            return lo + (size_t)(m.ay * x + m.cy) * inrow + (size_t)sx0 * BPP;
        };
        const uintptr_t pa = rowp(r0), pb = rowp(r0 + RP - 1);
        const bool fast = (min(pa, pb) & ~(uintptr_t)3) >= lo &&
                          (max(pa, pb) & ~(uintptr_t)3) + 4 * (32 * BPP + 1) <= hi;
        uint32_t raw[RP][BPP + 1], ext[RP];
        unsigned sh[RP];
        if (fast) {
#pragma unroll
            for (int i = 0; i < RP; i++) {
                const uintptr_t p = rowp(r0 + i);
                sh[i] = 8u * (unsigned)(p & 3);
                const uint32_t *b = (const uint32_t *)(p & ~(uintptr_t)3);
#pragma unroll
                for (int k = 0; k < BPP; k++)
                    raw[i][k] = __ldg(b + BPP * lane + k);
                ext[i] = __ldg(b + 32 * BPP);   /* the same word for all lanes: one access */
            }
        } else {
#pragma unroll
            for (int i = 0; i < RP; i++) {
                const uintptr_t p = rowp(r0 + i);
                sh[i] = 8u * (unsigned)(p & 3);
                const uintptr_t b = p & ~(uintptr_t)3;
#pragma unroll
                for (int k = 0; k < BPP; k++)
                    raw[i][k] = word_in(b + 4 * (BPP * lane + k), lo, hi);
                ext[i] = word_in(b + 4 * 32 * BPP, lo, hi);
            }
        }
#pragma unroll
        for (int i = 0; i < RP; i++) {
            const uint32_t nx = __shfl_down_sync(0xffffffffu, raw[i][0], 1);
            raw[i][BPP] = lane == 31 ? ext[i] : nx;
        }
#pragma unroll
        for (int g = 0; g < RP / 4; g++) {
            uint32_t s4[4][BPP];
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int k = 0; k < BPP; k++)
                    s4[i][k] = __funnelshift_r(raw[4 * g + i][k], raw[4 * g + i][k + 1], sh[4 * g + i]);
            uint32_t d[4][BPP];
            turn4<BPP>(s4, d);
            const int q0 = BPP * ((r0 >> 2) + g);   /* the group's first OS word */
#pragma unroll
            for (int j = 0; j < 4; j++)
#pragma unroll
                for (int k = 0; k < BPP; k++)
                    OS[(4 * lane + j) * G::P + ((q0 + k) ^ lane)] = d[j][k];
        }
    }
    __syncthreads();
    /* copy out: a warp NC / WARPS whole output rows; OS row c's swizzle is c / 4 */
    constexpr int RW = G::NC / G::WARPS;
    const int c0 = wi * RW;
    if (x0 > 0 && (x0 + G::NR) * BPP <= rowbytes && sx0 + c0 + RW <= iw) {
        /* inside the row and the image: every owned word whole; rows stepped, swizzle fixed
         * for 4 rows, OS offsets compile-time */
        const long long step = (long long)m.bx * rowbytes;
        uint8_t *S = out + (long long)m.bx * (sx0 + c0 - m.cx) * rowbytes + (size_t)x0 * BPP + 4 * lane;
        const uint32_t *rows = OS + c0 * G::P;
#pragma unroll
        for (int q = 0; q < RW / 4; q++) {
            const int sw = (c0 >> 2) + q;
            int k0[BPP], k1[BPP];
#pragma unroll
            for (int mm = 0; mm < BPP; mm++) {
                k0[mm] = (lane + 32 * mm) ^ sw;
                k1[mm] = min(lane + 32 * mm + 1, G::P - 1) ^ sw;   /* the last lane owns no word */
            }
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const uint32_t *row = rows + (4 * q + j) * G::P;
                const unsigned u = (unsigned)(-(uintptr_t)S) & 3;
#pragma unroll
                for (int mm = 0; mm < BPP; mm++) {
                    const uint32_t v = __funnelshift_r(row[k0[mm]], row[k1[mm]], 8u * u);
                    if (lane + 32 * mm < G::OWN)
                        *(uint32_t *)(S + u + 128 * mm) = v;
                }
                S += step;
            }
        }
    } else {
        const int lim = rowbytes - x0 * BPP;   /* bytes of the row from the tile's first */
#pragma unroll 1
        for (int ii = 0; ii < RW; ii++) {
            const int c = c0 + ii;
            if (sx0 + c >= iw)
                break;
            const int y = m.bx * (sx0 + c - m.cx);
            uint8_t *S = out + (size_t)y * rowbytes + (size_t)x0 * BPP;
            const unsigned u = (4u - (unsigned)((uintptr_t)S & 3)) & 3;
            const uint32_t *row = OS + c * G::P;
            const int sw = c >> 2;
#pragma unroll
            for (int mm = 0; mm < BPP; mm++) {
                const int k = lane + 32 * mm;
                if (k < G::OWN) {
                    const uint32_t v = __funnelshift_r(row[k ^ sw], row[(k + 1) ^ sw], 8u * u);
                    const int o = (int)u + 4 * k;
                    if (o + 4 <= lim)
                        *(uint32_t *)(S + o) = v;
                    else
                        for (int e = 0; e < 4 && o + e < lim; e++)
                            S[o + e] = (uint8_t)(v >> (8 * e));
                }
            }
            if (x0 == 0 && u && lane == 31) {   /* the row's first bytes, before its first aligned word */
                const uint32_t v = row[sw];
                for (int e = 0; e < (int)u && e < lim; e++)
                    S[e] = (uint8_t)(v >> (8 * e));
            }
        }
    }
}

/* vector, for the maps that keep rows whole (flip=h, flip=v, rotate=180): the output as chunks of
 * L bytes (32; 48 for 3- and 6-byte pixels, so that every chunk of a row starts at the same phase
 * within a pixel) laid on aligned 16-byte words, each chunk written whole by the row its first byte
 * lies in. A chunk inside its row reads the aligned 16-byte words under its source bytes, whose
 * byte shift is the same along a row, shifts them into place (a funnel shift, and a word offset
 * chosen once a row) and picks its bytes in a pattern fixed at compile time for each phase. Chunks
 * that cross a row's end or the image's go byte by byte (mr_slow). The coalesced kernel moves a
 * pixel a thread: 1-byte accesses for grey, 3x the device copy's time. */
template <int BPP, bool MIRROR> struct MR {
    static constexpr int L = BPP == 3 || BPP == 6 ? 48 : 32;
    /* the most source bytes a chunk reads: whole pixels, over the phases of its first byte */
    static constexpr int win()
    {
        int m = L;
        for (int f = 0; MIRROR && f < BPP; f++)
            m = (f + L - 1) / BPP * BPP + BPP > m ? (f + L - 1) / BPP * BPP + BPP : m;
        return m;
    }
    static constexpr int WIN = win(), NV = (15 + WIN + 15) / 16, NA = 4 * NV, NW = (WIN + 3) / 4;
};

/* Source byte (within the chunk's window) of output byte i of a chunk whose first byte is at phase
 * PHI of its pixel: pixels in reverse order, bytes in order. */
template <int BPP, bool MIRROR, int PHI> __device__ __forceinline__ constexpr int mr_pos(int i)
{
    return MIRROR ? ((PHI + MR<BPP, MIRROR>::L - 1) / BPP - (PHI + i) / BPP) * BPP + (PHI + i) % BPP : i;
}

/* The chunk from its loaded words a (the window starting 4 Q + sh / 8 bytes in), to d. */
template <int BPP, bool MIRROR, int Q, int PHI>
__device__ __forceinline__ void mr_emit(const uint32_t (&a)[MR<BPP, MIRROR>::NA], unsigned sh, uint8_t *d)
{
    typedef MR<BPP, MIRROR> G;
    uint32_t win[G::NW];
#pragma unroll
    for (int k = 0; k < G::NW; k++)
        win[k] = __funnelshift_r(a[min(k + Q, G::NA - 1)], a[min(k + Q + 1, G::NA - 1)], sh);
    uint32_t o[G::L / 4];
#pragma unroll
    for (int q = 0; q < G::L / 4; q++) {
        /* one byte permute where the word's 4 bytes lie in two window words (all but a few), else one
         * a byte; all folded at compile time */
        int p[4], k = 1 << 20, kmax = 0;
#pragma unroll
        for (int e = 0; e < 4; e++) {
            p[e] = mr_pos<BPP, MIRROR, PHI>(4 * q + e);
            k = min(k, p[e] >> 2);
            kmax = max(kmax, p[e] >> 2);
        }
        uint32_t r = 0;
        if (kmax <= k + 1) {
            unsigned sel = 0;
#pragma unroll
            for (int e = 0; e < 4; e++)
                sel |= (unsigned)(p[e] - 4 * k) << (4 * e);
            r = sel == 0x3210 ? win[k] : __byte_perm(win[k], win[min(k + 1, G::NW - 1)], sel);
        } else {
#pragma unroll
            for (int e = 0; e < 4; e++)
                r = __byte_perm(r, win[p[e] >> 2], (0x3210 & ~(0xf << (4 * e))) | (4 + (p[e] & 3)) << (4 * e));
        }
        o[q] = r;
    }
#pragma unroll
    for (int q = 0; q < G::L / 16; q++)
        ((uint4 *)d)[q] = make_uint4(o[4 * q], o[4 * q + 1], o[4 * q + 2], o[4 * q + 3]);
}

/* the phase, then the word offset, as compile-time constants (both the same along a row) */
template <int BPP, bool MIRROR, int PHI = 0>
__device__ __forceinline__ void mr_dispatch(const uint32_t (&a)[MR<BPP, MIRROR>::NA], int d, int phi, uint8_t *dst)
{
    if constexpr (PHI + 1 < (MIRROR ? BPP : 1))
        if (phi != PHI)
            return mr_dispatch<BPP, MIRROR, PHI + 1>(a, d, phi, dst);
    const unsigned sh = 8u * (unsigned)(d & 3);
    switch (d >> 2) {
    case 0: mr_emit<BPP, MIRROR, 0, PHI>(a, sh, dst); break;
    case 1: mr_emit<BPP, MIRROR, 1, PHI>(a, sh, dst); break;
    case 2: mr_emit<BPP, MIRROR, 2, PHI>(a, sh, dst); break;
    default: mr_emit<BPP, MIRROR, 3, PHI>(a, sh, dst); break;
    }
}

/* A chunk at g that crosses a row's end (or the image's): each byte from its own row, only the
 * image's bytes written. */
template <int BPP, bool MIRROR>
__device__ __noinline__ void mr_slow(const uint8_t *in, uint8_t *out, int w, long long total, int by, int cy,
                                     uint8_t *g)
{
    const long long rb = (long long)w * BPP;
    for (int e = 0; e < MR<BPP, MIRROR>::L; e++) {
        const long long f = (long long)(g + e - out);
        if (f < 0 || f >= total)
            continue;
        const long long y = f / rb, j = f - y * rb, x = j / BPP;
        const long long sx = MIRROR ? w - 1 - x : x, sy = by * y + cy;
        out[f] = in[sy * rb + sx * BPP + (j - x * BPP)];
    }
}

template <int BPP, bool MIRROR>
__global__ void __launch_bounds__(128) mirror_rows(const uint8_t *__restrict__ in, uint8_t *__restrict__ out, int w,
                                                   int h, int by, int cy)
{
    typedef MR<BPP, MIRROR> G;
    constexpr int L = G::L;
    const long long rb = (long long)w * BPP, total = rb * h;
    const uintptr_t ob = (uintptr_t)out, g0 = ob & ~(uintptr_t)15, ilo = (uintptr_t)in, ihi = ilo + total;
    for (int y = blockIdx.y; y < h; y += gridDim.y) {
        const uintptr_t rs = ob + (uintptr_t)y * rb, re = rs + rb;
        /* the chunks whose first byte lies in this row (row 0: also the one over its start) */
        const uintptr_t c0 = y ? (rs - g0 + L - 1) / L : 0, c1 = (re - g0 + L - 1) / L;
        const uintptr_t c = c0 + blockIdx.x * blockDim.x + threadIdx.x;
        if (c >= c1)
            continue;
        uint8_t *g = (uint8_t *)(g0 + c * L);
        if ((uintptr_t)g < rs || (uintptr_t)g + L > re) {
            mr_slow<BPP, MIRROR>(in, out, w, total, by, cy, g);
            continue;
        }
        const long long j0 = (long long)((uintptr_t)g - rs);
        const long long xl = MIRROR ? w - 1 - (j0 + L - 1) / BPP : 0;   /* the window's first pixel */
        const int phi = MIRROR ? (int)(j0 % BPP) : 0;
        const uintptr_t s = ilo + (uintptr_t)((by * y + cy) * rb + (MIRROR ? xl * BPP : j0));
        const int d = (int)(s & 15);
        uint32_t a[G::NA];
#pragma unroll
        for (int k = 0; k < G::NV; k++) {
            const uintptr_t p = s - d + 16 * k;
            const uint4 v = p >= ilo && p + 16 <= ihi ? __ldg((const uint4 *)p) : load16_in(p, ilo, ihi);
            a[4 * k] = v.x;
            a[4 * k + 1] = v.y;
            a[4 * k + 2] = v.z;
            a[4 * k + 3] = v.w;
        }
        mr_dispatch<BPP, MIRROR>(a, d, phi, g);
    }
}

template <int BPP>
static int launch_mirror(const gpu_image *in, const gpu_image *out, const gpu_map *m, char *err, size_t errlen)
{
    constexpr int L = MR<BPP, true>::L;
    const long long chunks = (long long)out->w * BPP / L + 2;
    const unsigned th = chunks >= 128 ? 128u : (unsigned)(chunks + 31) / 32 * 32;
    const dim3 g((unsigned)((chunks + th - 1) / th), out->h > 65535 ? 65535u : (unsigned)out->h);
    if (m->ax < 0)
        launch(mirror_rows<BPP, true>, g, th, 0, L / BPP, (const uint8_t *)in->data, (uint8_t *)out->data, in->w,
               in->h, m->by, m->cy);
    else
        launch(mirror_rows<BPP, false>, g, th, 0, L / BPP, (const uint8_t *)in->data, (uint8_t *)out->data, in->w,
               in->h, m->by, m->cy);
    LAUNCH_TRY(err, errlen);
    return 0;
}

template <int BPP>
static int launch_words(const gpu_image *in, const gpu_image *out, const gpu_map *m, char *err, size_t errlen)
{
    typedef WT<BPP> G;
    CUDA_TRY(cudaFuncSetAttribute(remap_words<BPP>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)G::SMEM), err,
             errlen);
    launch(remap_words<BPP>, dim3((unsigned)words_tiles<BPP>(in, out)), G::T, G::SMEM, G::NC * G::TH / G::T,
           (const uint8_t *)in->data, (uint8_t *)out->data, in->w, in->h, out->w, out->h, *m);
    LAUNCH_TRY(err, errlen);
    return 0;
}

template <int BPP>
static int launch_swap(const gpu_image *in, const gpu_image *out, const gpu_map *m, char *err, size_t errlen)
{
    typedef SW<BPP> G;
    CUDA_TRY(cudaFuncSetAttribute(remap_swap<BPP>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)G::SMEM), err,
             errlen);
    const long long ntiles = (long long)((out->w + G::N - 1) / G::N) * ((out->h + G::N - 1) / G::N);
    long long resident = 0;
    CUDA_TRY(resident_blocks(remap_swap<BPP>, G::T, G::SMEM, &resident), err, errlen);
    launch(remap_swap<BPP>, dim3((unsigned)min(ntiles, resident)), G::T, G::SMEM, G::N * G::N / G::T,
           (const uint8_t *)in->data, (uint8_t *)out->data, in->w, in->h, out->w, out->h, *m);
    LAUNCH_TRY(err, errlen);
    return 0;
}

template <int BPP>
static int launch_remap(const gpu_call *k, const gpu_image *in, const gpu_image *out, const gpu_map *m, char *err,
                        size_t errlen)
{
    typedef typename PixT<BPP>::type P;
    const P *s = (const P *)in->data;
    P *d = (P *)out->data;
    if (k->variant == KV_PERPIXEL) {
        const dim3 b = perpixel_block(k->shape), g = grid2d(out->w, out->h, b);
        launch(remap_direct<BPP, false>, g, b, 0, 1, s, d, in->w, out->w, out->h, *m);
    } else if (k->variant == KV_VECTOR && m->ax == 0 && m->by == 0) {
        if constexpr (BPP >= 2 && BPP <= 6)
            if (words_tiles<BPP>(in, out) >= WORDS_MIN_TILES)
                return launch_words<BPP>(in, out, m, err, errlen);
        return launch_swap<BPP>(in, out, m, err, errlen);
    } else if (k->variant == KV_VECTOR) {   /* the maps that keep rows whole */
        return launch_mirror<BPP>(in, out, m, err, errlen);
    } else if (k->variant == KV_COALESCED) {
        const unsigned th = threads1d(k->shape);
        PPT_SWITCH(ppt_choice(k->shape), launch(remap_direct<BPP, true, P>, grid_coalesced(out->w, out->h, th, P), th, 0, P, s, d,
                                        in->w, out->w, out->h, *m));
    } else {
        /* 32 columns; the rows a block has (by of the shape, 8 by default) stride over the tile */
        const int rows = k->shape.by > 0 && k->shape.by <= TILE ? k->shape.by : TILE_ROWS;
        const unsigned ty = (unsigned)((out->h + TILE - 1) / TILE);
        dim3 b(TILE, rows), g((out->w + TILE - 1) / TILE, ty > 65535 ? 65535 : ty);
        launch(remap_tiled<BPP>, g, b, 0, TILE / rows, s, d, in->w, in->h, out->w, out->h, *m);
    }
    LAUNCH_TRY(err, errlen);
    return 0;
}

extern "C" int gpu_remap(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out,
                         const struct gpu_map *m, char *err, size_t errlen)
{
    return DISPATCH_BPP(bpp_of(in), launch_remap, k, in, out, m, err, errlen);
}
