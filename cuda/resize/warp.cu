/* gpuimg: resize, warp: two taps an axis, a warp a row segment (vector's kernel at most ratios). Exact. */
#include "cuda/resize/resize.cuh"

/* warp (two taps an axis, 8-bit grey or RGB, any ratio whose source span fits): what vector runs
 * outside exact 1:2, and outside exact 2:1 for grey (RGB at 2:1 too: faster than half_u8
 * there). A warp owns a segment of 256 pixels (RGB 248, see WS) of a row and walks down a run
 * of rows, so each lane's horizontal taps (the source offsets and weights of its output bytes) are
 * read once and kept in registers. Each row, with no block barrier (barriers with the loads
 * exposed behind them were the staged kernel's cost for RGB):
 *  - the span of the two source rows comes into the warp's own shared buffer as aligned 16-byte
 *    chunks (RGB on sm_90: a bulk copy a row, see issue; else cp.async), the next row's while this
 *    one is computed (no realignment: readers add the row's 0..15 byte shift); the row table
 *    entry is read a row earlier still;
 *  - each lane computes PL pixels of the segment (a pixel's taps serve its C bytes): I = wx0 a +
 *    wx1 b for each row, wy0 I0 + wy1 I1 + 2^31 in two 64-bit multiply-adds (the rounding term
 *    their first addend), the CPU's integers, the result the high word; grey reads a byte a tap,
 *    RGB a pixel's two taps of a row as three words and gets I by 16-bit dot products (rgb_pairs:
 *    half the shared loads), a lane's two pixels whose taps lie 6 bytes apart as four words
 *    (rgb_pair2); at an exact 2:1 down (VH)
 *    the rows' sums round in 32 bits (rgb_out); the bytes go into a shared output row placed at
 *    the global row's alignment (RGB pixel pairs as halfwords);
 *  - the row leaves in aligned 16-byte words, each written whole by the segment its first byte
 *    lies in (so a segment also computes the XP pixels, up to 15 bytes, past its end); only the
 *    words at an image row's two ends, shared with the rows before and after, go in pieces.
 * The second tap is always the first + C bytes: at the right edge, where the tables repeat the
 * last pixel, its weight is 0, so the byte it reads (staged past the row, or zero) counts nothing.
 * The grid is what fits the GPU at once. Its warps go in groups of one warp a segment, and each
 * group takes an even share of the rows, so that warps running side by side read whole source
 * rows between them (faster than runs of tasks split in segment-major order). gpu_resize_warp_fits
 * checks on the host that every span fits SPAN. 128-pixel segments spent half their instructions
 * on the per-row work (staging, the copy-out's partial words at both ends): hence 256 and
 * whole-word ownership. (resize_rows, not this kernel, reads RGB through a gray step.) */
#define WS_WARPS 8
/* pixels a lane (PL: 8, placed by ws_pixel; 4 measured slower), a segment (SP), pixels
 * past it that its last word may take (XP: lanes 0 .. XP - 1 take one more); 16-byte chunks a lane
 * stages of a source row (CH), staged bytes a source row (SPAN), the output row (O: up to 15 bytes
 * of shift, whole 16-byte chunks) */
template <int C> struct WS {
    static constexpr int PL = 8, XP = (15 + C - 1) / C;
    /* RGB: a segment 8 pixels short of the lanes' 32 PL, so that the XP past it come from the
     * last pass of the lanes rather than a pass of their own (XPASS: for 5 lanes, 7% of the RGB
     * 2:1 kernel's instructions) */
    static constexpr int SP = 32 * PL - (C == 3 ? 8 : 0);
    static constexpr bool XPASS = SP + XP > 32 * PL;
    static constexpr int SPAN = C == 1 ? 1024 : 2048, CH = (SPAN + 511) / 512;
    static constexpr int O = (15 + (XPASS ? SP + XP : 32 * PL) * C + 15) / 16 * 16;
    /* rgb_pairs reads up to 6 bytes past a pixel's taps, rgb_pair2 up to 10 past the first pixel's
     * where the second is past those computed (else 4 past the second's) */
    static constexpr int RMARGIN = C == 3 ? 10 : 0;
    static constexpr int W = (4 * SPAN + O) * WS_WARPS <= 48 * 1024 ? WS_WARPS : WS_WARPS / 2;   /* warps a block */
    static constexpr int MINB = W == WS_WARPS ? 3 : 6;   /* blocks an SM that shared memory allows */
};


/* Pixel m of a lane in its segment: K = 1: lane + 32 m; K = 2: pixel pairs (2 lane, 2 lane + 1), 64
 * pixels a step, so that at about 2:1 RGB the lanes' byte loads lie 12 bytes (3 words) apart, on
 * 32 different banks, where 6 bytes apart two lanes share a bank. m = PL: the pixels past the
 * segment. */
template <int PL, int K> __device__ __forceinline__ int ws_pixel(int m, int lane)
{
    return m < PL ? 32 * K * (m / K) + K * lane + m % K : 32 * PL + lane;
}

/* Chunks q = lane, lane + 32, ... < nch of a span that reaches past the image (its last rows, or an
 * input not 16-byte aligned): bytes outside [lo, hi) are zero, never weighted. */
__device__ __noinline__ void ws_edge(uint8_t *d, uintptr_t g, int nch, uintptr_t lo, uintptr_t hi)
{
    for (int q = (int)(threadIdx.x & 31); q < nch; q += 32)
        *(uint4 *)(d + 16 * q) = load16_in(g + 16 * (size_t)q, lo, hi);
}


/* RGB: the two taps' 6 bytes from the staged row at byte i of row buffer R as three aligned
 * word loads and two funnel shifts (half the shared loads of a byte load a tap), then byte
 * permutes into the pairs the 16-bit dot products take: P[0] = (a0, b0, a1, b1), P[1] = (a2, b2,
 * -, -) for sel (the pixel's pattern, see ws_taps3, in its low 16 bits: the caller keeps the tap
 * offset above them). */
__device__ __forceinline__ void rgb_pairs(const uint8_t *R, int i, unsigned sel, uint32_t (&P)[2])
{
    const uint32_t *w = (const uint32_t *)(R + (i & ~3));
    const unsigned s = 8u * (unsigned)i;   /* the funnel shift takes it modulo 32 */
    const uint32_t x = __funnelshift_r(w[0], w[1], s), y = __funnelshift_r(w[1], w[2], s);
    /* prmt itself: __byte_perm masks the selector with 0x7777 first, an instruction each */
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(P[0]) : "r"(x), "r"(y), "r"(sel));
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(P[1]) : "r"(x), "r"(y), "r"(sel + 0x22));
}

/* RGB: a pixel's taps for rgb_pairs and __dp2a: the weights as two 16-bit halves and the byte
 * pattern (a_c at window byte c, b_c at 3 + c). A weight of 65536 (the other then 0) does not
 * fit 16 bits: 65536 a is 32768 a + 32768 a, both taps on the same pixel. */
__device__ __forceinline__ void ws_taps3(uint32_t w0, uint32_t w1, uint32_t &wp, unsigned &sel)
{
    sel = w0 > 65535 ? 0x1100u : w1 > 65535 ? 0x4433u : 0x4130u;
    wp = w0 > 65535 || w1 > 65535 ? 0x80008000u : w0 | w1 << 16;
}

/* RGB, K = 2: a lane's pixels m, m + 1 whose taps lie 6 bytes apart (all but one pair a row near
 * 2:1): their 12 bytes of a staged row (a0 a1 a2 b0 | b1 b2 c0 c1 | c2 d0 d1 d2, a b the taps of
 * m, c d those of m + 1) as four aligned word loads and three funnel shifts, where rgb_pairs takes
 * six and four; byte permutes give P[0] = (a0, b0, a1, b1), P[1] = (c0, d0, c1, d1) and P[2] =
 * (a2, b2, c2, d2). j0: pixel m's off word (pattern, offset above it); j1: pair2_sel of m + 1's.
 * The patterns move with the window: m + 1's pairs sit 2 bytes on in (x1, x2), channel 2 at 2 and
 * 5 of (x0, x1) and at 0 and 3 of x2 (its pattern's taps + 4 in the second permute's numbering). */
__device__ __forceinline__ void rgb_pair2(const uint8_t *R, int i, unsigned j0, unsigned j1, uint32_t (&P)[3])
{
    const uint32_t *w = (const uint32_t *)(R + (i & ~3));
    const unsigned s = 8u * (unsigned)i;
    const uint32_t x0 = __funnelshift_r(w[0], w[1], s), x1 = __funnelshift_r(w[1], w[2], s),
                   x2 = __funnelshift_r(w[2], w[3], s);
    uint32_t t;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(P[0]) : "r"(x0), "r"(x1), "r"(j0));
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(P[1]) : "r"(x1), "r"(x2), "r"(j1));
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(t) : "r"(x0), "r"(x1), "r"(j0 + 0x22u));
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(P[2]) : "r"(t), "r"(x2), "r"(j1 >> 16));
}

/* rgb_pair2's j1 from pixel m + 1's off word, once a segment: its pattern moved 2 bytes on (low
 * half) and the channel-2 permute's selector (high half) */
__device__ __forceinline__ unsigned pair2_sel(unsigned off1)
{
    return ((off1 + 0x2222u) & 0xffffu) | (0x10u | ((off1 & 0xffu) + 0x44u) << 8) << 16;
}

/* An RGB output byte from the 16-bit weights w and the two rows' byte pairs p0, p1 (the low or the
 * high pair: HI), as out_byte and out_pair read it. VH (every output row weighs its two source rows
 * 32768 each, an exact 2:1 down): (32768 (I0 + I1) + 2^31) >> 32 is (I0 + I1 + 65536) >> 17 with
 * I0 + I1 < 2^25, so the second dot product accumulates onto the first, no 64-bit multiply-add,
 * and the byte is left in bits 17..24 (two of them make a halfword in three instructions, not
 * four). */
template <bool VH, bool HI>
__device__ __forceinline__ uint32_t rgb_out(uint32_t w, uint32_t p0, uint32_t p1, uint2 v, uint64_t half)
{
    if (VH)
        return HI ? __dp2a_hi(w, p0, __dp2a_hi(w, p1, VH_ROUND)) : __dp2a_lo(w, p0, __dp2a_lo(w, p1, VH_ROUND));
    return mad_round32(v.x, HI ? __dp2a_hi(w, p0, 0u) : __dp2a_lo(w, p0, 0u), v.y,
                       HI ? __dp2a_hi(w, p1, 0u) : __dp2a_lo(w, p1, 0u), half);
}
template <bool VH> __device__ __forceinline__ uint32_t out_byte(uint32_t r) { return VH ? r >> 17 : r; }
template <bool VH> __device__ __forceinline__ uint32_t out_pair(uint32_t a, uint32_t b)
{
    return VH ? a >> 17 | (b >> 9 & 0xff00u) : a | b << 8;
}

/* blocks an SM: what shared memory allows (registers capped to match) */
template <int C, int K, bool VH>
__global__ void __launch_bounds__(32 * WS<C>::W, WS<C>::MINB)
    resize_warp(const uint8_t *__restrict__ in, int iw, int ih, uint8_t *__restrict__ out, int ow, int oh,
                const int32_t *__restrict__ xi, const uint32_t *__restrict__ xw, const int32_t *__restrict__ yi,
                const uint32_t *__restrict__ yw, uint64_t half)
{
    typedef WS<C> G;
    constexpr int PL = G::PL, SP = G::SP, WS_SPAN = G::SPAN, CI = C;
    __shared__ __align__(16) uint8_t S[G::W][2][2 * WS_SPAN];
    __shared__ __align__(16) uint8_t SO[G::W][G::O];
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    griddep_launch();   /* a kernel after it launched early (the tensor blur) may take the SMs it leaves */
    uint8_t *O = SO[wid];
    const long long nseg = (ow + SP - 1) / SP, ntask = nseg * oh, nwarp = (long long)gridDim.x * G::W;
    const long long gw = (long long)blockIdx.x * G::W + wid, ng = nwarp / nseg;
    long long t0, t1;
    if (ng > 0) {   /* consecutive warps: the segments of one run of rows, read together */
        const long long s0 = gw % nseg, g = gw / nseg;
        if (g >= ng)
            return;
        t0 = s0 * oh + oh * g / ng;
        t1 = s0 * oh + oh * (g + 1) / ng;
    } else {
        t0 = ntask * gw / nwarp;
        t1 = ntask * (gw + 1) / nwarp;
    }
    if (t0 >= t1)
        return;
    const size_t rowbytes = (size_t)iw * CI;
    const uintptr_t lo = (uintptr_t)in, hi = lo + rowbytes * ih;
#if __CUDA_ARCH__ >= 900
    constexpr bool BULK = CI == 3;   /* grey rows (512 bytes) measured 4% slower so */
    __shared__ uint64_t BAR[G::W][2];   /* buffer b's rows have arrived */
    const unsigned sbar = (unsigned)__cvta_generic_to_shared(BAR[wid]);
    if (BULK && lane == 0) {
        mbar_init(&BAR[wid][0], 1);
        mbar_init(&BAR[wid][1], 1);
        mbar_init_fence();
    }
    __syncwarp();
#else
    constexpr bool BULK = false;
#endif
    const unsigned sbuf = (unsigned)__cvta_generic_to_shared(S[wid]), sbase = sbuf + 16 * lane;   /* this lane's chunk 0 */
    /* the span of task (segment s, source rows r)'s two source rows into buffer b; their shifts
     * into sh, the bytes read from the first tap's into nd. The segment's first source column and
     * span are read when the segment changes. A span inside the image comes as aligned 16-byte
     * chunks: RGB rows on sm_90 by one bulk copy a row from lane 0, counted on BAR[wid][b] (no
     * 16-byte copies through L1 by every lane; for grey the bulk copy measured slower), else by
     * cp.async. */
    int iseg = -1, c0 = 0, need = 0;
    auto issue = [&](int s, int2 r, int b, int (&sh)[2], int &nd) {
        if (s != iseg) {
            iseg = s;
            const int x0 = s * SP, np = min(SP + G::XP, ow - x0);
            c0 = xi[2 * x0];
            need = (xi[2 * (x0 + np - 1)] - c0) * CI + 2 * CI;
        }
        nd = need;
        uintptr_t a0[2];
        int nch[2];
        bool inside[2];   /* the same for the whole warp */
#pragma unroll
        for (int k = 0; k < 2; k++) {
            const uintptr_t a = lo + (size_t)(k ? r.y : r.x) * rowbytes + (size_t)c0 * CI;
            a0[k] = a & ~(uintptr_t)15;
            sh[k] = (int)(a - a0[k]);
            nch[k] = (sh[k] + need + 15) >> 4;
            inside[k] = a0[k] >= lo && a0[k] + 16 * (size_t)nch[k] <= hi;
        }
#if __CUDA_ARCH__ >= 900
        if (BULK && lane == 0) {
            const unsigned bar = sbar + 8 * b;
            mbar_arrive_tx(bar, 16u * ((inside[0] ? nch[0] : 0) + (inside[1] ? nch[1] : 0)));
#pragma unroll
            for (int k = 0; k < 2; k++)
                if (inside[k])
                    bulk_g2s(sbuf + (2 * b + k) * WS_SPAN, (const void *)a0[k], 16u * nch[k], bar);
        }
#endif
#pragma unroll
        for (int k = 0; k < 2; k++) {
            if (!inside[k]) {
                ws_edge(S[wid][b] + k * WS_SPAN, a0[k], nch[k], lo, hi);
#if __CUDA_ARCH__ >= 900
                if (BULK)
                    async_proxy_fence();   /* before a later bulk copy into this buffer */
#endif
            } else if (!BULK) {
                const char *g = (const char *)a0[k] + 16 * lane;
#pragma unroll
                for (int j = 0; j < G::CH; j++)
                    if (lane + 32 * j < nch[k])
                        cp_async16_s(sbase + (b * 2 + k) * WS_SPAN + 512 * j, g + 512 * j);
            }
        }
        if (!BULK)
            cp_async_commit();
    };
    /* the task after (s, y) */
    auto next = [&](int &s, int &y) {
        if (++y == oh) {
            y = 0;
            s++;
        }
    };
    int s = (int)(t0 / oh), y = (int)(t0 - (long long)s * oh), seg = -1, off[PL + 1], sh[2], nsh[2], nd, nnd;
    unsigned jm = 0;   /* RGB, K = 2: bit p, pair (2p, 2p + 1) for rgb_pair2 */
    uint32_t w0[PL + 1], w1[PL + 1];
    int ns = s, ny = y;   /* the next task, and the one after it (fs, fy: its row taps go into rf) */
    next(ns, ny);
    int fs = ns, fy = ny;
    next(fs, fy);
    issue(s, *(const int2 *)(yi + 2 * y), 0, sh, nd);
    int2 rf = *(const int2 *)(yi + 2 * (t0 + 1 < t1 ? ny : y));
    for (long long t = t0; t < t1; t++) {
        const int b = (int)((t - t0) & 1);
        const int x0 = s * SP, np = min(SP, ow - x0), npx = min(SP + G::XP, ow - x0);
        if (s != seg) {   /* this lane's taps: pixels past those computed repeat the last one */
            seg = s;
            const int c0 = xi[2 * x0];   /* (issue's may be the next segment's already) */
#pragma unroll
            for (int m = 0; m < PL + G::XPASS; m++) {
                const int x = x0 + min(ws_pixel<PL, K>(m, lane), npx - 1);
                off[m] = (xi[2 * x] - c0) * C;
                w0[m] = xw[2 * x];
                w1[m] = xw[2 * x + 1];
                if (C == 3) {   /* w0: the weights; off: the pattern, the offset above it */
                    unsigned sel;
                    ws_taps3(w0[m], w1[m], w0[m], sel);
                    off[m] = (int)(sel | (unsigned)off[m] << 16);
                }
            }
            if (C == 3 && K == 2) {   /* a pair's second off word: its rgb_pair2 selectors */
                jm = 0;   /* (a second pixel past those computed: its bytes are dropped, and rgb_pair2's
                           * reads from the first stay within RMARGIN) */
#pragma unroll
                for (int p = 0; p < PL / 2; p++)
                    if (ws_pixel<PL, K>(2 * p + 1, lane) >= npx || (off[2 * p + 1] >> 16) == (off[2 * p] >> 16) + 6) {
                        jm |= 1u << p;
                        off[2 * p + 1] = (int)pair2_sel((unsigned)off[2 * p + 1]);
                    }
            }
        }
        if (t + 1 < t1) {
            issue(ns, rf, b ^ 1, nsh, nnd);
            if (t + 2 < t1)
                rf = *(const int2 *)(yi + 2 * fy);
        }
#if __CUDA_ARCH__ >= 900
        if (BULK)
            mbar_wait(sbar + 8 * b, (unsigned)((t - t0) >> 1) & 1);
#endif
        if (!BULK && t + 1 < t1)
            cp_async_wait_n<1>();
        else if (!BULK)
            cp_async_wait_all();
        __syncwarp();   /* (ws_edge's stores) */
        uint8_t *dst = out + ((size_t)y * ow + x0) * C;
        const int so = (int)((uintptr_t)dst & 15);
        const uint8_t *p0 = S[wid][b] + sh[0], *p1 = S[wid][b] + WS_SPAN + sh[1];
        const uint2 v = *(const uint2 *)(yw + 2 * y);
        /* RGB: pixel m's three bytes */
        auto px3 = [&](int m, uint32_t *r) {
            uint32_t P0[2], P1[2];
            const int o = (unsigned)off[m] >> 16;   /* prmt reads the selector's low 16 bits only */
            rgb_pairs(S[wid][b], sh[0] + o, (unsigned)off[m], P0);
            rgb_pairs(S[wid][b] + WS_SPAN, sh[1] + o, (unsigned)off[m], P1);
            r[0] = rgb_out<VH, false>(w0[m], P0[0], P1[0], v, half);
            r[1] = rgb_out<VH, true>(w0[m], P0[0], P1[0], v, half);
            r[2] = rgb_out<VH, false>(w0[m], P0[1], P1[1], v, half);
        };
        if constexpr (C == 3) {
            int m0 = 0;   /* K = 2: a lane's pixel pair is 6 bytes at an even place past so: halfwords */
            if constexpr (K == 2) {
#pragma unroll
                for (; m0 < PL; m0 += 2) {
                    uint32_t r[6];
                    if (jm >> (m0 / 2) & 1) {
                        uint32_t A[3], B[3];
                        const int o = (unsigned)off[m0] >> 16;
                        rgb_pair2(S[wid][b], sh[0] + o, (unsigned)off[m0], (unsigned)off[m0 + 1], A);
                        rgb_pair2(S[wid][b] + WS_SPAN, sh[1] + o, (unsigned)off[m0], (unsigned)off[m0 + 1], B);
                        r[0] = rgb_out<VH, false>(w0[m0], A[0], B[0], v, half);
                        r[1] = rgb_out<VH, true>(w0[m0], A[0], B[0], v, half);
                        r[2] = rgb_out<VH, false>(w0[m0], A[2], B[2], v, half);
                        r[3] = rgb_out<VH, false>(w0[m0 + 1], A[1], B[1], v, half);
                        r[4] = rgb_out<VH, true>(w0[m0 + 1], A[1], B[1], v, half);
                        r[5] = rgb_out<VH, true>(w0[m0 + 1], A[2], B[2], v, half);
                    } else {
                        px3(m0, r);
                        px3(m0 + 1, r + 3);
                    }
                    uint8_t *o = O + so + 3 * ws_pixel<PL, K>(m0, lane);
                    if (so & 1) {
                        o[0] = (uint8_t)out_byte<VH>(r[0]);
                        *(uint16_t *)(o + 1) = (uint16_t)out_pair<VH>(r[1], r[2]);
                        *(uint16_t *)(o + 3) = (uint16_t)out_pair<VH>(r[3], r[4]);
                        o[5] = (uint8_t)out_byte<VH>(r[5]);
                    } else {
#pragma unroll
                        for (int i = 0; i < 3; i++)
                            *(uint16_t *)(o + 2 * i) = (uint16_t)out_pair<VH>(r[2 * i], r[2 * i + 1]);
                    }
                }
            }
#pragma unroll
            for (int m = m0; m < PL + G::XPASS; m++) {   /* K = 1: every pixel; K = 2: one past the segment */
                if (m == PL && lane >= G::XP)
                    break;
                uint32_t r[3];
                px3(m, r);
                uint8_t *o = O + so + 3 * ws_pixel<PL, K>(m, lane);
                o[0] = (uint8_t)out_byte<VH>(r[0]);
                o[1] = (uint8_t)out_byte<VH>(r[1]);
                o[2] = (uint8_t)out_byte<VH>(r[2]);
            }
        } else {
#pragma unroll
            for (int m = 0; m < PL + G::XPASS; m++) {
                if (m == PL && lane >= G::XP)
                    break;
                const uint8_t *q0 = p0 + off[m], *q1 = p1 + off[m];
                uint8_t *o = O + so + C * ws_pixel<PL, K>(m, lane);
#pragma unroll
                for (int c = 0; c < C; c++) {
                    const uint32_t I0 = w0[m] * q0[c] + w1[m] * q0[c + C], I1 = w0[m] * q1[c] + w1[m] * q1[c + C];
                    o[c] = (uint8_t)out_byte<VH>(VH ? I0 + I1 + VH_ROUND : mad_round32(v.x, I0, v.y, I1, half));
                }
            }
        }
        __syncwarp();
        /* chunk lane of O is global word dst - so + 16 lane: the segment writes those that start
         * in its bytes [0, np C) (and at a row's start the one before it, in part); a word reaching
         * past the bytes computed is cut at them (at the image row's end) */
        const int nb = np * C, nbx = npx * C;
#pragma unroll
        for (int k = lane; k < G::O / 16; k += 32) {
            const int l0 = 16 * k - so;
            if ((l0 >= 0 || x0 == 0) && l0 < nb && l0 > -16) {
                const uint4 wv = *(const uint4 *)(O + 16 * k);
                if (l0 >= 0 && l0 + 16 <= nbx)
                    *(uint4 *)(dst - so + 16 * k) = wv;
                else
                    store16_in(dst - so + 16 * k, wv, l0, nbx);
            }
        }
        __syncwarp();   /* O and this buffer are refilled next */
        s = ns;
        y = ny;
        ns = fs;
        ny = fy;
        next(fs, fy);
        sh[0] = nsh[0];
        sh[1] = nsh[1];
        nd = nnd;
    }
}

/* RGB lane layout: K = 2 where the source step (in / out) is 1.6 to 2.4 pixels (lanes' loads 6
 * bytes apart at K = 1), else 1. */
static int ws_k(int iw, int ow)
{
    const double r = (double)iw / ow;
    return r >= 1.6 && r < 2.4 ? 2 : 1;
}

template <int C> static int ws_fits(int ow, const int32_t *xi)
{
    typedef WS<C> G;
    for (int x0 = 0; x0 < ow; x0 += G::SP) {
        const int last = (x0 + G::SP + G::XP < ow ? x0 + G::SP + G::XP : ow) - 1;
        if (15 + (xi[2 * last] - xi[2 * x0]) * C + 2 * C + G::RMARGIN > G::SPAN)
            return 0;
    }
    return 1;
}

extern "C" int gpu_resize_warp_fits(int c, int depth, int ow, const int32_t *xi)
{
    if (depth != 8 || (c != 1 && c != 3))
        return 0;
    return c == 1 ? ws_fits<1>(ow, xi) : ws_fits<3>(ow, xi);
}

template <int C, int K>
static int launch_warp(const struct gpu_image *in, const struct gpu_image *out, const int32_t *xi, const uint32_t *xw,
                       const int32_t *yi, const uint32_t *yw, int vhalf, char *err, size_t errlen)
{
    typedef WS<C> G;
    auto k = vhalf ? resize_warp<C, K, true> : resize_warp<C, K, false>;
    long long fit = 0;
    CUDA_TRY(resident_blocks(k, 32 * G::W, 0, &fit), err, errlen);
    const long long sp = G::SP, tasks = (out->w + sp - 1) / sp * (long long)out->h;
    const long long blocks = (tasks + G::W - 1) / G::W;   /* no warp without a task */
    launch(k, dim3((unsigned)(blocks < fit ? blocks : fit)), dim3(32 * G::W), 0, G::PL, (const uint8_t *)in->data,
           in->w, in->h, (uint8_t *)out->data, out->w, out->h, xi, xw, yi, yw, 1ull << 31);
    LAUNCH_TRY(err, errlen);
    return 0;
}

extern "C" int gpu_resize_warp(const struct gpu_image *in, const struct gpu_image *out, const int32_t *xi,
                               const uint32_t *xw, const int32_t *yi, const uint32_t *yw, int vhalf, char *err,
                               size_t errlen)
{
    if ((in->c != 1 && in->c != 3) || in->depth != 8 || in->gray_from) {
        snprintf(err, errlen, "gpu_resize_warp: no kernel for %d channels at %d bits%s", in->c, in->depth,
                 in->gray_from ? " read through gray" : "");
        return (int)cudaErrorInvalidValue;
    }
    if (in->c == 1)
        return launch_warp<1, 1>(in, out, xi, xw, yi, yw, vhalf, err, errlen);
    return ws_k(in->w, out->w) == 2 ? launch_warp<3, 2>(in, out, xi, xw, yi, yw, vhalf, err, errlen)
                                 : launch_warp<3, 1>(in, out, xi, xw, yi, yw, vhalf, err, errlen);
}

