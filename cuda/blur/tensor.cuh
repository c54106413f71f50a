/* gpuimg: blur, the tensor-core kernel (blur_tensor) and its launch, instantiated one channel count
 * and output form a file (tensor_c1.cu .. tensor_c4t.cu). */
#ifndef GPUIMG_CUDA_BLUR_TENSOR_CUH
#define GPUIMG_CUDA_BLUR_TENSOR_CUH
#include "cuda/blur/blur.cuh"

/* tensor: the same blur as two integer matrix products on the tensor cores (mma.sync m16n8k32,
 * u8 x u8 -> s32: exact), for 8-bit images whose Q8 weights are below 256 and kernels of up to
 * TN_MAXK1 taps (RGB past TN_MAXK3 as grey planes: tensor_planes; grey+alpha and RGBA up to
 * TN_MAXK2 and TN_MAXK4).
 * A block owns TN_W output bytes (16 column groups of 16: a tile need not hold whole pixels, every
 * byte is its own sum) x TH rows (32 or 64: launch_tall); warp w takes column groups w and w + 8.
 *  - stage: the tile's input rows (halo and border maps applied), each row realigned from its
 *    aligned 16-byte words and stored as 16-byte words: staged byte s of row r is byte column
 *    x0 - R*C + s of image row y0 - R + r;
 *  - across: for 16 output bytes, H^T (16 x 8 rows) = T (16 x K) * IN^T (K x 8 rows), T the banded
 *    Toeplitz matrix of the weights (T[m][m + C j] = w[j]), constant, held in registers; IN^T's
 *    fragments are 8 staged rows of 16 bytes each (ldmatrix). H <= 255 * 256 fits 16 bits;
 *  - down: out (16 rows x 8 bytes) = W (16 x K rows) * H (K rows x 8 bytes), done for H's low
 *    and high bytes (S = 256 hi + lo). The across step's accumulators hold, per thread, H of two
 *    consecutive rows for one byte: packed four at a time they are the down step's B fragments
 *    directly, with W's columns permuted to match (ro below), so H never goes through memory;
 *  - out: (S + 2^15) >> 16, bits 16..23 of lo + 256 hi, as byte pairs into a staging tile at the
 *    row's global alignment mod 16 rounded down to 4, copied out in aligned 16-byte words shifted
 *    by the rest (or, for a fused transpose, staged a pixel column a row and written as aligned
 *    4-byte words of the output rows: put_transposed).
 * RGBA and grey+alpha (PM) are blurred premultiplied, as the CPU does it: the realignment stages
 * each pixel's c a (< 2^16) as two byte planes, IN (low bytes and alpha) and IN2 (high bytes and
 * 0); across runs on both, H = H_lo + 256 H_hi < 2^24, and down on H's three bytes gives the exact
 * sums S < 2^32 that the epilogue divides by alpha's (the CPU's integers, so the same bits).
 * Blocks are persistent (the A fragments are built once a block, while the kernel before it in the
 * stream finishes: launch_early) and the next tile's rows are copied asynchronously while this
 * tile is computed: on sm_90 a bulk copy (the copy engine) a row, counted on an mbarrier, before
 * that 16-byte cp.async; the realignment to the tile's byte columns is a shared-to-shared step.
 * About 0.5 instructions a warp per output byte against the one-pass kernel's 2.8. */
#define TN_W 256
#define TN_THREADS 256

/* The compiled tap counts. The work of a tile steps with TN's KH and KV (32-byte and 32-row k
 * steps) more than with the taps: a kernel compiled for KS runs a smaller kernel centred in zeros
 * with the same staging and matrix products wherever KH and KV are the same. For grey+alpha and
 * RGBA each (KH, KV) is one size (the larger runs the smaller at its speed); grey and RGB keep
 * every small size, where the larger of a class is slower. Past 17 taps every size is the
 * largest of its class. Grey goes up
 * to where a block's shared memory still fits an SM. Grey+alpha and RGBA stop at 49 taps (sigma
 * 8; RGBA's KH 7): RGBA's 64-row tiles use 255 registers from 29 taps and spill 108 bytes at 49,
 * one block an SM, and are still 2.2x the two-pass kernel there, grey+alpha's 3.0x. RGB past 81
 * taps runs as three grey planes (tensor_planes): its own tiles past 81, one block an SM with 255
 * registers, measured slower than the planes, and at 65 and 81 faster. */
#define TN_SMALL(X) X(3) X(5) X(7) X(9) X(11) X(13) X(17)
#define TN_SIZES1(X) TN_SMALL(X) X(49) X(81) X(113) X(145) X(177)
#define TN_SIZES2(X) X(9) X(17) X(25) X(41) X(49)
#define TN_SIZES3(X) TN_SMALL(X) X(27) X(37) X(49) X(65) X(81)
#define TN_SIZES4(X) X(5) X(13) X(17) X(21) X(29) X(37) X(49)
#define TN_MAXK2 49
#define TN_MAXK4 49
#define TN_MAXK1 177
#define TN_MAXK3 81
/* sm_90's shared memory: an SM's 228 KiB (1 KiB reserved a block), a block's at most 227 KiB */
#define SM90_SMEM_SM 233472
#define SM90_SMEM_BLOCK 232448

template <int C, int KS, int TH> struct TN {
    /* PM (RGBA, grey+alpha): colour premultiplied, P = c a < 2^16 staged as two byte planes (see
     * blur_tensor) */
    static constexpr bool PM = C == 2 || C == 4;
    static constexpr int NPL = PM ? 2 : 1;
    static constexpr int R = KS / 2, HB = R * C;
    static constexpr int KH = (16 + 2 * HB + 31) / 32;   /* across: 32-byte k steps for 16 outputs */
    static constexpr int KV = (15 + KS + 31) / 32;       /* down: 32-row k steps for 16 outputs */
    static constexpr int NT = TH / 8 - 2 + 4 * KV;       /* across: 8-row n tiles (TH / 16 m tiles down) */
    static constexpr int ROWS = 8 * NT;                  /* staged rows, >= TH + KS - 1 */
    static constexpr int NQ = 15 + 2 * KH;               /* staged 16-byte words a row: odd, so 8 rows
                                                            of one ldmatrix hit 8 different bank groups */
    static constexpr int PB = 16 * NQ;
    static constexpr int PR = PB + 16;                   /* raw rows: the aligned words the staged ones are cut from */
    static constexpr int PO = TN_W + 16;                 /* output staging pitch: 17 words */
    /* transposed (a fused transpose): the staging holds a tile pixel column a row, its TH rows' C
     * bytes each in output order, NPT rows (pixels a tile column band touches) of PT bytes; no
     * larger than the plain staging (more would cost a block an SM) */
    static constexpr int PT = TH * C, NPT = C == 1 ? TN_W : (TN_W + C - 1) / C + 1;
    static_assert(NPT * PT <= TH * PO, "transposed staging");
    static constexpr size_t SMEM = (size_t)ROWS * (NPL * PB + PR) + 16 + (size_t)TH * PO + 2 * ROWS * (8 + 4) + 16;
    /* FITS: a block's shared memory fits sm_90's; MINB: the blocks an SM it allows there, 1 to 4,
     * the register cap (4 for 32-row tiles and 3 for 64-row ones up to 17 taps, 3 to 1 beyond; with
     * the second plane, RGBA 4 or 3 and 2 up to 17 taps, then 2 or 1 and 1, grey+alpha 4 and 2,
     * then 2 and 1) */
    static constexpr bool FITS = SMEM <= SM90_SMEM_BLOCK;
    static constexpr int BY_SMEM = (int)(SM90_SMEM_SM / (SMEM + 1024));
    static constexpr int MINB = BY_SMEM < 1 ? 1 : BY_SMEM < 4 ? BY_SMEM : 4;
};

/* Weight j of the compiled KS taps (the ksize-tap kernel centred in zeros), Q8. */
template <int KS>
__device__ __forceinline__ uint32_t tn_weight(const uint32_t *kern, int ksize, int j)
{
    const int kk = j - (KS / 2 - ksize / 2);
    return j >= 0 && j < KS && kk >= 0 && kk < ksize ? __ldg(kern + kk) >> 8 : 0u;
}

/* Register r of a thread's A fragment (m16n8k32, u8): row m = g (+8 for registers 1 and 3), k = 4t
 * + byte (+16 for registers 2 and 3); entry (m, k) is weight tap(m, k) of the compiled taps (out of
 * range: 0). */
template <int KS, typename F>
__device__ __forceinline__ uint32_t a_frag(const uint32_t *kern, int ksize, int g, int t, int r, F tap)
{
    uint32_t v = 0;
#pragma unroll
    for (int i = 0; i < 4; i++)
        v |= tn_weight<KS>(kern, ksize, tap(g + 8 * (r & 1), 16 * (r >> 1) + 4 * t + i)) << (8 * i);
    return v;
}

__device__ __forceinline__ void mma_u8(uint32_t (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void ldsm_x4(uint32_t (&r)[4], const void *p)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
}

__device__ __forceinline__ void ldsm_x2(uint32_t (&r)[4], const void *p)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(s));
}

/* Bytes [a, b) of v, the value of the aligned 16-byte word at d (0 <= a < b <= 16, b - a < 16), in
 * the widest aligned pieces: at most 8 stores where a byte loop took up to 15 (byte by byte, the
 * tensor blur's row ends were 8% of its instructions). */
__device__ __forceinline__ void put_part16(uint8_t *d, const uint4 &v, int a, int b)
{
    auto wd = [&](int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; };
    auto part = [&](int i) { return wd(i >> 2) >> (8 * (i & 3)); };
    if (a & 1) {
        d[a] = (uint8_t)part(a);
        a += 1;
    }
    if ((a & 2) && a + 2 <= b) {
        *(uint16_t *)(d + a) = (uint16_t)part(a);
        a += 2;
    }
    if ((a & 4) && a + 4 <= b) {
        *(uint32_t *)(d + a) = wd(a >> 2);
        a += 4;
    }
    if ((a & 8) && a + 8 <= b) {
        *(uint2 *)(d + a) = make_uint2(wd(a >> 2), wd((a >> 2) + 1));
        a += 8;
    }
    if (a + 8 <= b) {
        *(uint2 *)(d + a) = make_uint2(wd(a >> 2), wd((a >> 2) + 1));
        a += 8;
    }
    if (a + 4 <= b) {
        *(uint32_t *)(d + a) = wd(a >> 2);
        a += 4;
    }
    if (a + 2 <= b) {
        *(uint16_t *)(d + a) = (uint16_t)part(a);
        a += 2;
    }
    if (a < b)
        d[a] = (uint8_t)part(a);
}

/* 16 staged bytes from p - r3 (r3 < 4; p 16-byte aligned, p - 4 readable) */
__device__ __forceinline__ uint4 staged16(const uint8_t *p, int r3)
{
    const uint4 w = *(const uint4 *)p;
    const uint32_t m = *(const uint32_t *)(p - 4), s = 32 - 8 * r3;
    return make_uint4(__funnelshift_rc(m, w.x, s), __funnelshift_rc(w.x, w.y, s), __funnelshift_rc(w.y, w.z, s),
                      __funnelshift_rc(w.z, w.w, s));
}

/* PM: a word of pixels premultiplied, P = c a < 2^16 for each colour, as two words of byte planes.
 * RGBA (a pixel): the low bytes (P_r, P_g, P_b, a) and the high bytes (P_r >> 8, P_g >> 8, P_b >> 8,
 * 0); red and blue take one multiply (their products stay in their 16-bit halves). Grey+alpha (two
 * pixels, or one in the low half): (P_0, a_0, P_1, a_1) and (P_0 >> 8, 0, P_1 >> 8, 0), both P in
 * one word's halves. */
template <int C> __device__ __forceinline__ void premul(uint32_t px, uint32_t &pl, uint32_t &ph)
{
    if constexpr (C == 4) {
        const uint32_t a = px >> 24, rb = (px & 0x00ff00ffu) * a, g = __byte_perm(px, 0u, 0x4441) * a;
        pl = __byte_perm(rb, g, 0x7240) | (px & 0xff000000u);
        ph = __byte_perm(rb, g, 0x7351);
    } else {
        const uint32_t p = (px & 0xffu) * __byte_perm(px, 0u, 0x4441)
                           + ((__byte_perm(px, 0u, 0x4442) * (px >> 24)) << 16);
        pl = (p & 0x00ff00ffu) | (px & 0xff00ff00u);
        ph = __byte_perm(p, 0u, 0x4341);
    }
}

/* (registers capped at the blocks an SM that its shared memory allows: TN::MINB) */
template <int C, int KS, bool TR, int TH>
__global__ void __launch_bounds__(TN_THREADS, TN<C, KS, TH>::MINB)
    blur_tensor(const uint8_t *__restrict__ in, int w, int h, uint8_t *__restrict__ out,
                const uint32_t *__restrict__ kern, int ksize, const int32_t *__restrict__ bx,
                const int32_t *__restrict__ by)
{
    typedef TN<C, KS, TH> G;
    extern __shared__ __align__(16) unsigned char tns[];
    uint8_t *IN = tns, *IN2 = IN + (size_t)G::ROWS * G::PB, *RAW = IN + (size_t)G::NPL * G::ROWS * G::PB,
            *OS = RAW + (size_t)G::ROWS * G::PR + 16;
    /* (IN2: PM's high-byte plane; 16 bytes between RAW and OS: staged16 reads 4 before a staging row)
     * staged row i of the tile (index k) and of the next one (k ^ 1): src, where the asynchronous copy
     * reads it (the first aligned word of its span) for a raw row, else the image row's offset (or -1:
     * the constant border's zeros); at, a raw row's RAW byte of staged byte 0 (i PR + the span's
     * shift), -1 for the others */
    long long(*src)[G::ROWS] = (long long(*)[G::ROWS])(OS + (size_t)TH * G::PO);
    int(*at)[G::ROWS] = (int(*)[G::ROWS])(src + 2);
    uint64_t *bar = (uint64_t *)(at + 2);   /* sm_90: the rows of buffer b have arrived on bar[b] */
    const int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5, g = lane >> 2, t = lane & 3;
    const int rk = ksize / 2;
    /* the constant A fragments: across, T[m][m + C j] = w[j]; down, W[m][k] = w[32 ks + ro(k) - m],
     * ro(k) the H row that k position holds in the packing below (16 (k / 16) + {0, 1, 8, 9}[k % 4]
     * + 2 ((k / 4) % 4)) */
    uint32_t a1[G::KH][4], a2[G::KV][4];
#pragma unroll
    for (int r = 0; r < 4; r++) {
#pragma unroll
        for (int ks = 0; ks < G::KH; ks++)
            a1[ks][r] = a_frag<KS>(kern, ksize, g, t, r, [&](int m, int k) {
                const int d = 32 * ks + k - m;
                return d >= 0 && d % C == 0 ? d / C : -1;
            });
#pragma unroll
        for (int ks = 0; ks < G::KV; ks++)
            a2[ks][r] = a_frag<KS>(kern, ksize, g, t, r, [&](int m, int k) {
                return 32 * ks + (k & 16) + 8 * ((k & 3) >> 1) + 2 * ((k >> 2) & 3) + (k & 1) - m;
            });
    }
    /* int: rows are at most 2^27 bytes and the launcher keeps the tile count below 2^31 */
    const int rowbytes = w * C, ncol = (rowbytes + TN_W - 1) / TN_W, nrow = (h + TH - 1) / TH;
    const long long total = (long long)rowbytes * h;
    /* The rows of a tile. Staged row i belongs to thread 32 (i % 8) + i / 8 (every warp fills in
     * and issues a few): map_row gives its image row through the border map (loaded a tile ahead,
     * its latency hidden behind a realignment), fill_row where it comes from. A row comes through
     * the asynchronous copy when its aligned span of NQ + 1 words lies inside the image, even where
     * the span runs past the row's ends: in a tile at the image's left or right edge the HB staged
     * bytes past the row's end (the only ones an output reads) are then put right by fix_edges. */
    static_assert(G::ROWS <= TN_THREADS, "a thread a staged row");
    const int myrow = 8 * lane + wid;
    auto map_row = [&](int y0) {
        const int p = y0 - G::R + myrow;
        /* border_pos written out: through the helper this kernel compiled 8 instructions longer */
        return myrow < G::ROWS && p >= -rk && p < h + rk ? by[p + rk] : -1;
    };
    auto fill_row = [&](int b, int xb0, int sr) {
        if (myrow < G::ROWS) {
            const long long ro = sr >= 0 ? (long long)sr * rowbytes : -1, a = ro + xb0 - G::HB;
            const int sh = (int)(((size_t)in + (size_t)a) & 15);
            const bool raw = ro >= 0 && a - sh >= 0 && a - sh + G::PR <= total;
            src[b][myrow] = raw ? (long long)(size_t)(in + (a - sh)) : ro;
            at[b][myrow] = raw ? myrow * G::PR + sh : -1;
        }
    };
    /* the raw rows into RAW: on sm_90 one bulk copy a row by the thread that filled it in, its bytes
     * counted on bar[b] (all ROWS threads arrive), so the block issues 80 copies, not 1600 16-byte
     * ones (those were 9% of the instructions); before sm_90, 16-byte copies by the
     * whole block */
    auto issue = [&](int b) {
#if __CUDA_ARCH__ >= 900
        if (myrow < G::ROWS) {
            if (at[b][myrow] >= 0) {
                mbar_arrive_tx(&bar[b], G::PR);
                bulk_g2s(RAW + myrow * G::PR, (const void *)(size_t)src[b][myrow], G::PR, &bar[b]);
            } else
                mbar_arrive(&bar[b]);
        }
#else
        for (int e = tid; e < G::ROWS * (G::NQ + 1); e += TN_THREADS) {
            const int i = e / (G::NQ + 1), j = e - i * (G::NQ + 1);
            if (at[b][i] >= 0)
                cp_async16(RAW + i * G::PR + 16 * j, (const uint8_t *)(size_t)src[b][i] + 16 * j);
        }
        cp_async_commit();
#endif
    };
    /* persistent blocks (the fragments above are built once), consecutive ones on neighbouring
     * tiles of a row band, the next tile's rows in flight while this one is computed; tile (ty, tx)
     * steps by the grid without a division */
    int k = 0, ty = (int)blockIdx.x / ncol, tx = (int)blockIdx.x - ty * ncol;
    const int sq = (int)gridDim.x / ncol, sx = (int)gridDim.x - sq * ncol;
#if __CUDA_ARCH__ >= 900
    if (tid == 0) {
        mbar_init(&bar[0], G::ROWS);
        mbar_init(&bar[1], G::ROWS);
        mbar_init_fence();
    }
#endif
    /* launched early (launch_early): the fragments and barriers above are made while the kernel
     * before finishes; nothing global is read or written before this wait. */
    griddep_wait();
    if (ty < nrow) {
        fill_row(0, tx * TN_W, map_row(ty * TH));
        __syncthreads();
        issue(0);
    }
    /* Two barriers a tile (three in an edge tile, before fix_edges): after the realignment (IN
     * whole, RAW free for the next tile's copies, OS free of the last tile's copy-out) and before
     * the copy-out (OS whole); on sm_90 every thread waits for the rows on the mbarrier itself */
    for (int n = 0; ty < nrow; n++) {
        const int y0 = ty * TH, xb0 = tx * TN_W;   /* the tile's first row and output byte column */
        const int nbytes = min(TN_W, rowbytes - xb0);
        int nty = ty + sq, ntx = tx + sx;
        if (ntx >= ncol) {
            ntx -= ncol;
            nty++;
        }
        const bool more = nty < nrow;
        const int nsr = more ? map_row(nty * TH) : -1;   /* used after the realignment */
#if __CUDA_ARCH__ >= 900
        mbar_wait(&bar[k], (n >> 1) & 1);
#else
        cp_async_wait_all();
        __syncthreads();
#endif
        /* realign: staged word c of row i (its 16-byte word e of IN, as PB = 16 NQ) is raw bytes
         * sh + 16c .. of the row's aligned span; consecutive threads on consecutive words */
        for (int e = tid; e < G::ROWS * G::NQ; e += TN_THREADS) {
            const int i = e / G::NQ, c = e - i * G::NQ, f = at[k][i];
            uint4 v = make_uint4(0, 0, 0, 0);
            if (f >= 0) {
                const uint8_t *rw = RAW + (f & ~15) + 16 * c;
                v = cut16(*(const uint4 *)rw, *(const uint4 *)(rw + 16), f & 15);
            } else if (src[k][i] >= 0) {
                const uint8_t *row = in + src[k][i];
                const int q0 = xb0 - G::HB + 16 * c;   /* byte column of the word's first byte */
                uint32_t wd[4] = {};
#pragma unroll
                for (int b = 0; b < 16; b++)
                    wd[b >> 2] |= border_byte<C>(row, q0 + b, w, rk, bx) << (8 * (b & 3));
                v = make_uint4(wd[0], wd[1], wd[2], wd[3]);
            }
            if constexpr (G::PM) {   /* a staged word is whole pixels (tiles and halo: whole pixels) */
                uint4 pl, ph;
                premul<C>(v.x, pl.x, ph.x);
                premul<C>(v.y, pl.y, ph.y);
                premul<C>(v.z, pl.z, ph.z);
                premul<C>(v.w, pl.w, ph.w);
                *(uint4 *)(IN + 16 * e) = pl;
                *(uint4 *)(IN2 + 16 * e) = ph;
            } else
                *(uint4 *)(IN + 16 * e) = v;
        }
        /* fix_edges: a tile whose outputs read columns past a row's ends: copied rows get the
         * border map's bytes at the HB columns before byte 0 and after the row's last, where they
         * fall inside the staging (the rest past the ends is read by no output). Byte by byte
         * through the border map, whole edge tiles were 5% of the instructions and made their
         * blocks the stragglers. */
        if (xb0 < G::HB || xb0 + nbytes + G::HB > rowbytes) {
            __syncthreads();
            /* a byte at a time (PM: a pixel, premultiplied as above): NU units each side of a row */
            constexpr int U = G::PM ? C : 1, NU = G::HB / U;
            for (int e = tid; e < G::ROWS * 2 * NU; e += TN_THREADS) {
                const int i = e / (2 * NU), j = e - i * 2 * NU, f = at[k][i];
                const int q = U * (j < NU ? j - NU : (G::PM ? w : rowbytes) + j - NU), s = q - xb0 + G::HB;
                if (f >= 0 && s >= 0 && s < G::PB) {
                    const long long ro = src[k][i] - (long long)(size_t)in + (f - i * G::PR) - xb0 + G::HB;
                    if constexpr (G::PM) {   /* pixel q / C through the map once, in one load */
                        const int mx = border_pos(q / C, w, rk, bx);
                        uint32_t px = 0, pl, ph;
                        if (mx >= 0) {   /* (in + ro is the row's start, C-aligned) */
                            uint8_t pb[C];
                            ld_vec<uint8_t, C>(in + ro + (long long)mx * C, pb);
                            memcpy(&px, pb, C);
                        }
                        premul<C>(px, pl, ph);
                        if constexpr (C == 4) {
                            *(uint32_t *)(IN + i * G::PB + s) = pl;
                            *(uint32_t *)(IN2 + i * G::PB + s) = ph;
                        } else {
                            *(uint16_t *)(IN + i * G::PB + s) = (uint16_t)pl;
                            *(uint16_t *)(IN2 + i * G::PB + s) = (uint16_t)ph;
                        }
                    } else
                        IN[i * G::PB + s] = (uint8_t)border_byte<C>(in + ro, q, w, rk, bx);
                }
            }
        }
        if (more)
            fill_row(k ^ 1, ntx * TN_W, nsr);
        __syncthreads();
        if (more)
            issue(k ^ 1);
        const int r0 = xb0 % C;   /* transposed: the tile's first byte is channel r0 of its first pixel */
        /* not transposed, the outputs leave the down step as pairs of bytes (2t, 2t + 1 of a row's
         * 8-byte half), one 2-byte store each: a row is staged at its global address mod 16
         * rounded down to 4 bytes (the same 16 rows apart) and the copy-out shifts the rest. Byte
         * stores were 35% of the shared-memory wavefronts, 2.3-way conflicted. */
        const unsigned ob = (unsigned)(size_t)out + (unsigned)xb0, rb = (unsigned)rowbytes;
        uint8_t *const ost0 = OS + g * G::PO + (int)((ob + (unsigned)(y0 + g) * rb) & 12u) + 2 * t;
        uint8_t *const ost1 = OS + (g + 8) * G::PO + (int)((ob + (unsigned)(y0 + g + 8) * rb) & 12u) + 2 * t;
        uint8_t *const ostp = t & 1 ? ost1 - 2 : ost0;   /* PM: this lane's pixel (see below) */
#pragma unroll 1
        for (int cg = wid; cg < TN_W / 16; cg += 8) {
            /* across: n tile nt holds H of rows 8 nt + 2t, +1 for bytes g (d[0], d[1]) and g + 8 (d[2], d[3]) */
            uint32_t d1[G::NT][4];
            auto across = [&](const uint8_t *row, uint32_t(&d)[4]) {
                d[0] = d[1] = d[2] = d[3] = 0;
#pragma unroll
                for (int ks = 0; ks < G::KH; ks += 2) {
                    uint32_t b[4];
                    if (ks + 1 < G::KH) {
                        ldsm_x4(b, row + 32 * ks);
                        mma_u8(d, a1[ks], b[0], b[1]);
                        mma_u8(d, a1[ks + 1], b[2], b[3]);
                    } else {
                        ldsm_x2(b, row + 32 * ks);
                        mma_u8(d, a1[ks], b[0], b[1]);
                    }
                }
            };
#pragma unroll
            for (int nt = 0; nt < G::NT; nt++) {
                const int ro = (8 * nt + (lane & 7)) * G::PB + 16 * cg + 16 * (lane >> 3);
                across(IN + ro, d1[nt]);
                if constexpr (G::PM) {   /* H = H(low bytes) + 256 H(high bytes) < 2^24 */
                    uint32_t dh[4];
                    across(IN2 + ro, dh);
#pragma unroll
                    for (int r = 0; r < 4; r++)
                        d1[nt][r] += dh[r] << 8;
                }
            }
            /* down's B fragments: rows 16q + {2t, 2t+1, 8+2t, 9+2t} of byte g (nb 0) or g + 8 (nb 1),
             * bytes 0 and 1 of H (PM: and byte 2) */
            uint32_t blo[G::NT / 2][2], bhi[G::NT / 2][2], b2[G::PM ? G::NT / 2 : 1][2];
#pragma unroll
            for (int q = 0; q < G::NT / 2; q++)
#pragma unroll
                for (int nb = 0; nb < 2; nb++) {
                    const uint32_t x = __byte_perm(d1[2 * q][2 * nb], d1[2 * q][2 * nb + 1], 0x5140);
                    const uint32_t y = __byte_perm(d1[2 * q + 1][2 * nb], d1[2 * q + 1][2 * nb + 1], 0x5140);
                    blo[q][nb] = __byte_perm(x, y, 0x5410);
                    bhi[q][nb] = __byte_perm(x, y, 0x7632);
                    if constexpr (G::PM)
                        b2[q][nb] = __byte_perm(__byte_perm(d1[2 * q][2 * nb], d1[2 * q][2 * nb + 1], 0x7362),
                                                __byte_perm(d1[2 * q + 1][2 * nb], d1[2 * q + 1][2 * nb + 1], 0x7362),
                                                0x5410);
                }
#pragma unroll
            for (int mt = 0; mt < TH / 16; mt++)
#pragma unroll
                for (int nb = 0; nb < 2; nb++) {
                    /* PM: the exact sum S; else S + 2^15 for the rounding */
                    const uint32_t r0s = G::PM ? 0u : 32768u;
                    uint32_t lo[4] = { r0s, r0s, r0s, r0s }, hi[4] = { 0, 0, 0, 0 }, h2[4] = { 0, 0, 0, 0 };
#pragma unroll
                    for (int ks = 0; ks < G::KV; ks++) {
                        const int q = mt + 2 * ks;
                        mma_u8(lo, a2[ks], blo[q][nb], blo[q + 1][nb]);
                        mma_u8(hi, a2[ks], bhi[q][nb], bhi[q + 1][nb]);
                        if constexpr (G::PM)
                            mma_u8(h2, a2[ks], b2[q][nb], b2[q + 1][nb]);
                    }
                    /* lo, hi: rows 16 mt + g (+8 for 2, 3), bytes 16 cg + 8 nb + 2t (+1 for 1, 3); the
                     * output byte is bits 16..23 of lo + 256 hi (S + 2^15 < 2^24) */
                    uint32_t sb[4];
#pragma unroll
                    for (int r = 0; r < 4; r++)
                        sb[r] = lo[r] + (hi[r] << 8) + (G::PM ? h2[r] << 16 : 0u);
                    if constexpr (G::PM && C == 2) {
                        /* S = lo + 256 hi + 65536 h2 < 2^32 for each byte; bytes 2t and 2t + 1 of a
                         * row are one pixel (grey, alpha), 2 bytes out */
                        const int xb = 16 * cg + 8 * nb + 2 * t;
#pragma unroll
                        for (int hr = 0; hr < 2; hr++) {
                            const uint32_t A = sb[2 * hr + 1], S1[1] = { sb[2 * hr] };
                            const uint16_t px = (uint16_t)straight8<2>((A + 32768u) >> 16, S1, A);
                            if (TR)
                                *(uint16_t *)(OS + xb / 2 * G::PT + 2 * (16 * mt + g + 8 * hr)) = px;
                            else
                                *(uint16_t *)((hr ? ost1 : ost0) + 16 * mt * G::PO + 16 * cg + 8 * nb) = px;
                        }
                    } else if constexpr (G::PM) {
                        /* S = lo + 256 hi + 65536 h2 < 2^32 for each byte: lanes t and t ^ 1 hold two
                         * pixels (rows g and g + 8; t even channels 0, 1, t odd 2 and alpha), swapped so
                         * that each holds one whole pixel (even lanes row g, odd ones g + 8), whose three
                         * colours share one reciprocal of A: alpha (A + 2^15) >> 16, colour
                         * round(S / A). Dividing two channels a lane, as they come, is slower. */
                        const bool odd = t & 1;
                        const uint32_t y0 = __shfl_xor_sync(0xffffffffu, odd ? sb[0] : sb[2], 1);
                        const uint32_t y1 = __shfl_xor_sync(0xffffffffu, odd ? sb[1] : sb[3], 1);
                        const uint32_t A = odd ? sb[3] : y1;
                        const uint32_t S3[3] = { odd ? y0 : sb[0], odd ? y1 : sb[1], odd ? sb[2] : y0 };
                        const uint32_t px = straight8<4>((A + 32768u) >> 16, S3, A);
                        const int y = 16 * mt + g + (odd ? 8 : 0), xb = 16 * cg + 8 * nb + 2 * (t & 2);
                        if (TR)   /* (a tile starts on a pixel: r0 = 0) */
                            *(uint32_t *)(OS + xb / 4 * G::PT + 4 * y) = px;
                        else
                            *(uint32_t *)(ostp + 16 * mt * G::PO + 16 * cg + 8 * nb) = px;
                    } else if (TR) {   /* pixel column xl of the tile, byte y C + ch of its output row */
#pragma unroll
                        for (int r = 0; r < 4; r++) {
                            const int y = 16 * mt + g + 8 * (r >> 1), xb = 16 * cg + 8 * nb + 2 * t + (r & 1);
                            const int xl = (r0 + xb) / C, ch = r0 + xb - C * xl;
                            OS[xl * G::PT + y * C + ch] = (uint8_t)(sb[r] >> 16);
                        }
                    } else {
                        const int o = 16 * mt * G::PO + 16 * cg + 8 * nb;
                        *(uint16_t *)(ost0 + o) = (uint16_t)__byte_perm(sb[0], sb[1], 0x62);
                        *(uint16_t *)(ost1 + o) = (uint16_t)__byte_perm(sb[2], sb[3], 0x62);
                    }
                }
        }
        __syncthreads();
        const int nr = min(TH, h - y0);
        if (TR) {
            const long long p0 = xb0 / C;
            put_transposed<C, TH>(OS, G::PT, out, h, p0, (int)((xb0 + nbytes - 1) / C - p0 + 1), y0, nr, xb0,
                                    xb0 + nbytes);
        } else {
            /* whole aligned 16-byte words: row y's global bytes from xb0 are staged from its address
             * mod 16 (sh, the same 16 rows apart) rounded down to 4, so the aligned word at lo of the
             * staging row is the 16 bytes from lo - sh % 4; a thread a word slot of rows y, y + 16,
             * ..., the slots starting after a partial head */
            {
                const int y = tid >> 4;
                uint8_t *row = out + (long long)(y0 + y) * rowbytes + xb0;
                const int sh = (int)((size_t)row & 15), lo = 16 * ((tid & 15) + (sh != 0));
                if (lo + 16 <= sh + nbytes)
#pragma unroll
                    for (int j = 0; j < TH / 16; j++)
                        if (y + 16 * j < nr)
                            *(uint4 *)(row - sh + lo + 16LL * j * rowbytes) = staged16(OS + (y + 16 * j) * G::PO + lo, sh & 3);
            }
            /* the partial words at the two ends of each row (shared with the neighbouring tiles):
             * the head's bytes [sh, min(16, end)), the tail's [0, end % 16) */
            if (tid < 2 * TH && (tid >> 1) < nr) {
                const int y = tid >> 1;
                uint8_t *row = out + (long long)(y0 + y) * rowbytes + xb0;
                const int sh = (int)((size_t)row & 15), end = sh + nbytes, K = end >> 4;
                const bool head = !(tid & 1);
                const int lo = head ? 0 : 16 * K;
                if (head ? sh != 0 : (end & 15) != 0 && (K > 0 || sh == 0))
                    put_part16(row - sh + lo, staged16(OS + y * G::PO + lo, sh & 3), head ? sh : 0,
                               head ? min(16, end) : end & 15);
            }
        }
        ty = nty;
        tx = ntx;
        k ^= 1;
    }
}

/* The blocks of blur_tensor<C, KS, TR, TH> resident at once (its shared memory allowed first). */
template <int C, int KS, bool TR, int TH> static cudaError_t tensor_resident(long long *resident)
{
    const cudaError_t e = cudaFuncSetAttribute(blur_tensor<C, KS, TR, TH>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)TN<C, KS, TH>::SMEM);
    return e != cudaSuccess ? e : resident_blocks(blur_tensor<C, KS, TR, TH>, TN_THREADS, TN<C, KS, TH>::SMEM, resident);
}

/* persistent: at most the resident blocks (tensor_resident's count) */
template <int C, int KS, bool TR, int TH>
static int launch_tensor(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize,
                         const int32_t *bx, const int32_t *by, long long resident, char *err, size_t errlen)
{
    const long long ntiles = ((long long)in->w * C + TN_W - 1) / TN_W * ((in->h + TH - 1) / TH);
    launch_early(blur_tensor<C, KS, TR, TH>, dim3((unsigned)min(ntiles, resident)), TN_THREADS, TN<C, KS, TH>::SMEM,
                 TN_W * TH / C / 256, (const uint8_t *)in->data, in->w, in->h, (uint8_t *)out->data, kern, ksize,
                 bx, by);
    LAUNCH_TRY(err, errlen);
    return 0;
}

/* Tiles of 64 rows where they are at least TN_WAVES times the blocks resident at once, 32 below.
 * A 64-row tile stages and filters across 76 rows for 64 outputs (80 rows staged, against 96 for two
 * 32-row tiles) and has half the barriers an output. Its 70 KiB of shared memory leave 3 blocks an
 * SM, not 4, and it makes half the tiles; one wave of them is enough. */
#define TN_WAVES 1
template <int C, int KS, bool TR>
static int launch_tall(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize,
                       const int32_t *bx, const int32_t *by, char *err, size_t errlen)
{
    long long resident = 0;
    if constexpr (TN<C, KS, 64>::FITS) {
        if (TN<C, KS, 64>::SMEM <= (size_t)dev_attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, 0)) {
            CUDA_TRY((tensor_resident<C, KS, TR, 64>(&resident)), err, errlen);
            const long long tiles = ((long long)in->w * C + TN_W - 1) / TN_W * ((in->h + 63) / 64);
            if (tiles >= TN_WAVES * resident)
                return launch_tensor<C, KS, TR, 64>(in, out, kern, ksize, bx, by, resident, err, errlen);
        }
    }
    CUDA_TRY((tensor_resident<C, KS, TR, 32>(&resident)), err, errlen);
    return launch_tensor<C, KS, TR, 32>(in, out, kern, ksize, bx, by, resident, err, errlen);
}

/* Grey+alpha and RGBA: no two compiled sizes share a (KH, KV), the larger doing the smaller's work
 * at its speed (measured). */
template <int C, int... K> constexpr bool tn_distinct()
{
    constexpr int kh[] = { TN<C, K, 32>::KH... }, kv[] = { TN<C, K, 32>::KV... };
    for (int i = 0; i + 1 < (int)sizeof...(K); i++)
        if (kh[i] == kh[i + 1] && kv[i] == kv[i + 1])
            return false;
    return true;
}
#define TN_LIST(K) , K
static_assert(tn_distinct<2 TN_SIZES2(TN_LIST)>() && tn_distinct<4 TN_SIZES4(TN_LIST)>(),
              "two compiled tensor sizes with the same work");
#undef TN_LIST

/* f(std::integral_constant<int, K>()) for the smallest compiled tensor size K that holds ksize taps
 * of C channels (as by_tap_count for the one-pass kernels); none where there is none */
template <int C, typename R, typename F> static R by_tensor_size(int ksize, R none, F f)
{
#define TN_TRY(K)                                                                                  \
    if (ksize <= K)                                                                                \
        return f(std::integral_constant<int, K>());
    if constexpr (C == 1) {
        TN_SIZES1(TN_TRY)
    } else if constexpr (C == 2) {
        TN_SIZES2(TN_TRY)
    } else if constexpr (C == 3) {
        TN_SIZES3(TN_TRY)
    } else {
        TN_SIZES4(TN_TRY)
    }
#undef TN_TRY
    return none;
}

/* The launch for the smallest compiled size K that holds ksize taps of C channels, written
 * straight or transposed (TR); -1 where no size holds them. Instantiated one (C, TR) a file:
 * tensor_cN.cu and tensor_cNt.cu, so that make -j compiles them side by side. */
template <int C, bool TR> int blur_tensor_run(BLUR_ENTRY_ARGS)
{
    return by_tensor_size<C>(ksize, -1, [&](auto K) {
        return launch_tall<C, decltype(K)::value, TR>(in, out, kern, ksize, bx, by, err, errlen);
    });
}

#endif
