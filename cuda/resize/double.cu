/* gpuimg: resize, vector at exactly 1:2, bilinear: double_grey, double_rgb, double_pix. Exact. */
#include "cuda/common.cuh"
#include "cuda/resize/kernels.h"

/* vector, exact 1:2 (bilinear, 8-bit, one or three channels): every interior weight is 1/4 or
 * 3/4 (16384, 49152), so the defined result (2^28 k + 2^31) >> 32 is (k + 8) >> 4 with k the
 * sum of {1, 3} x {1, 3} times the four pixels: output row 2j is row j-1 + 3 row j, row 2j+1 is
 * 3 row j + row j+1, and the same across (indices clamped at the edges, where the tables put all
 * the weight on the edge pixel: the same integers). double_grey and double_rgb below compute them
 * two bytes a register. put_bytes: a thread's n output bytes (nw words w) to g, whole words where
 * the row's alignment allows. */
__device__ __forceinline__ void put_bytes(uint8_t *g, const uint32_t *w, int nw, int n)
{
    const int a = (int)((uintptr_t)g & 3);
    if (n == 4 * nw && a == 0) {
        for (int i = 0; i < nw; i++)
            ((uint32_t *)g)[i] = w[i];
    } else if (n == 4 * nw && a == 2) {   /* rows of an odd width*channels: halves at the ends */
        *(uint16_t *)g = (uint16_t)w[0];
        for (int i = 0; i + 1 < nw; i++)
            *(uint32_t *)(g + 2 + 4 * i) = __funnelshift_r(w[i], w[i + 1], 16);
        *(uint16_t *)(g + 4 * nw - 2) = (uint16_t)(w[nw - 1] >> 16);
    } else {   /* constant indices (nw is, once inlined): a run-time one puts w in local memory */
#pragma unroll
        for (int i = 0; i < nw; i++)
#pragma unroll
            for (int b = 0; b < 4; b++)
                if (4 * i + b < n)
                    g[4 * i + b] = (uint8_t)(w[i] >> (8 * b));
    }
}

/* vector, exact 1:2, grey: the same integers two bytes a 32-bit register, in 16-bit lanes. A
 * source word's even and odd bytes are spread into two registers (a byte permute each); down, V =
 * 16 (p + 3 q + 2) <= 16352 for both at once in a multiply-add; across, V[m - 1] + 3 V[m] =
 * 16 (k + 8) < 2^16 in one more, so each result is its lane's high byte, and byte permutes
 * interleave the lo and hi results into output order. A thread takes DG_NB source pixels of a row
 * (a window of DG_NW words: one of halo each side) and writes 2 DG_NB bytes of two output rows
 * in words: about half the byte-wise kernel's instructions. For RGB the same arithmetic with
 * 4-byte loads and stores measured slower than byte-wise: double_rgb moves 16-byte words instead. */
#define DG_NB 8
#define DG_NW (DG_NB / 4 + 2)

/* Bytes q .. q + 3 of a grey row of iw pixels (any q), clamped to its edge pixels. Not inlined:
 * inlined, the compiler hoisted this rarely taken path's work into every thread's loop. */
__device__ __noinline__ uint32_t dg_edge_word(const uint8_t *row, int iw, int q0)
{
    uint32_t v = 0;
    for (int b = 0; b < 4; b++)
        v |= (uint32_t)row[min(max(q0 + b, 0), iw - 1)] << (8 * b);
    return v;
}

/* Row r (clamped to the image) around pixels b0 .. b0 + DG_NB - 1: word i holds pixels b0 - 4 + 4 i;
 * inner: the window lies inside the row (aligned words, funnel-shifted, where the buffer allows). */
__device__ __forceinline__ void dg_row(const uint8_t *__restrict__ in, const uint8_t *end, int iw, int ih, int r,
                                       int b0, bool inner, uint32_t (&w)[DG_NW])
{
    const uint8_t *row = in + (size_t)min(max(r, 0), ih - 1) * iw;
    const uintptr_t p = (uintptr_t)(row + b0 - 4), pa = p & ~(uintptr_t)3;
    if (inner && pa >= (uintptr_t)in && pa + 4 * (DG_NW + 1) <= (uintptr_t)end) {
        load_shifted((const uint32_t *)pa, 8 * (unsigned)(p - pa), w);
    } else {
#pragma unroll
        for (int i = 0; i < DG_NW; i++)
            w[i] = dg_edge_word(row, iw, b0 - 4 + 4 * i);
    }
}

/* Even (bytes 0, 2) and odd (1, 3) bytes of a word in 16-bit lanes. */
__device__ __forceinline__ uint32_t even16(uint32_t w) { return __byte_perm(w, 0, 0x4240); }
__device__ __forceinline__ uint32_t odd16(uint32_t w) { return __byte_perm(w, 0, 0x4341); }

__global__ void double_grey(const uint8_t *__restrict__ in, int iw, int ih, uint8_t *__restrict__ out)
{
    constexpr int NK = DG_NB / 4;
    const int b0 = (blockIdx.x * blockDim.x + threadIdx.x) * DG_NB, ow = 2 * iw;
    if (b0 >= iw)
        return;
    const bool inner = b0 >= 4 && b0 + DG_NB + 4 <= iw;
    const uint8_t *end = in + (size_t)iw * ih;
    const int n = min(2 * DG_NB, ow - 2 * b0);   /* output bytes of this thread's part of a row */
    for (int j = blockIdx.y * blockDim.y + threadIdx.y; j < ih; j += gridDim.y * blockDim.y) {
        uint32_t P[DG_NW], Q[DG_NW], S[DG_NW], ME[DG_NW], MO[DG_NW];   /* rows j - 1, j, j + 1 */
        dg_row(in, end, iw, ih, j - 1, b0, inner, P);
        dg_row(in, end, iw, ih, j, b0, inner, Q);
        dg_row(in, end, iw, ih, j + 1, b0, inner, S);
#pragma unroll
        for (int i = 0; i < DG_NW; i++) {   /* 48 q + 32: both output rows' */
            ME[i] = even16(Q[i]) * 48u + 0x00200020u;
            MO[i] = odd16(Q[i]) * 48u + 0x00200020u;
        }
#pragma unroll
        for (int e = 0; e < 2; e++) {
            uint32_t VE[DG_NW], VO[DG_NW], W[2 * NK];
#pragma unroll
            for (int i = 0; i < DG_NW; i++) {
                VE[i] = even16(e ? S[i] : P[i]) * 16u + ME[i];
                VO[i] = odd16(e ? S[i] : P[i]) * 16u + MO[i];
            }
#pragma unroll
            for (int k = 0; k < NK; k++) {
                /* window word i = k + 1: lo = V[m - 1] + 3 V[m], hi = 3 V[m] + V[m + 1], the
                 * neighbours a register or a permute of two; L, H: the four lo, hi bytes in order */
                const int i = k + 1;
                const uint32_t loE = VE[i] * 3u + __byte_perm(VO[i - 1], VO[i], 0x5432), loO = VO[i] * 3u + VE[i];
                const uint32_t hiE = VE[i] * 3u + VO[i], hiO = VO[i] * 3u + __byte_perm(VE[i], VE[i + 1], 0x5432);
                const uint32_t L = __byte_perm(loE, loO, 0x7351), H = __byte_perm(hiE, hiO, 0x7351);
                W[2 * k] = __byte_perm(L, H, 0x5140);       /* lo, hi of pixels 4k, 4k + 1 */
                W[2 * k + 1] = __byte_perm(L, H, 0x7362);   /* of 4k + 2, 4k + 3 */
            }
            put_bytes(out + (size_t)(2 * j + e) * ow + 2 * b0, W, 2 * NK, n);
        }
    }
}

/* vector, exact 1:2, RGB: double_grey's integers (two bytes a register, in 16-bit lanes) with
 * 16-byte loads and stores. A thread makes one output row y = 2j + e (from source row j and the
 * outer row j - 1 or j + 1) for DR_PX = 16 source pixels: 48 bytes, so every lane of a warp's row
 * has the same alignment mod 16 and the alignment work is a branch for the warp, not a select per
 * word:
 *  - each source row comes as five aligned 16-byte words, cut at the row's byte shift into 14
 *    window words (pixel i0 - 1 .. i0 + 16 from byte 1 of the first);
 *  - down, V = 16 (outer + 3 centre + 2) for even and odd bytes (a byte permute spreads them into
 *    lanes); across, byte b's neighbours b - 3 and b + 3 lie in the other parity's registers, one
 *    of them whole, the other a permute of two; lo = V(b - 3) + 3 V(b) and hi = 3 V(b) + V(b + 3)
 *    are 16 (k + 8), the result each lane's high byte; byte permutes put the lo (even output
 *    pixel) and hi (odd) bytes in output order, six words from every 12 source bytes;
 *  - the lane's 96 bytes go into the warp's staged output row at the row's alignment (16-, 8-,
 *    4-byte and, at 2 mod 4, halfword stores), and the warp writes the row out in aligned 16-byte
 *    words, consecutive lanes on consecutive words. Written straight from each lane (16 bytes of a
 *    32-byte sector per store, lanes 96 bytes apart) the L2 took twice the sector writes and the
 *    kernel was slower than a byte-wise one;
 *  - lanes at a row's two ends (a halo pixel outside the row, a partial last chunk) and any whose
 *    loads would pass the buffer's end are computed by the whole warp, a byte a lane with clamped
 *    reads, into the same staged row: one lane doing them alone (as a byte-wise kernel) was a
 *    quarter of all instructions. */
#define DR_PX 16
#define DR_WARPS 4   /* a block: DR_WARPS warps, each a row of 32 lanes */
#define DR_MINB 10   /* blocks an SM at least: 48 registers, no spills; 40 warps an SM (faster than 32) */

/* W[0 .. N) to the address g, which is A mod 16 (A a multiple of 4): the widest aligned stores. */
template <int A, int N, int U = 0>
__device__ __forceinline__ void put_words(uint8_t *g, const uint32_t *W)
{
    if constexpr (U < N) {
        constexpr int a = (A + 4 * U) & 15;
        if constexpr (a == 0 && U + 4 <= N) {
            *(uint4 *)(g + 4 * U) = make_uint4(W[U], W[U + 1], W[U + 2], W[U + 3]);
            put_words<A, N, U + 4>(g, W);
        } else if constexpr ((a & 7) == 0 && U + 2 <= N) {
            *(uint2 *)(g + 4 * U) = make_uint2(W[U], W[U + 1]);
            put_words<A, N, U + 2>(g, W);
        } else {
            *(uint32_t *)(g + 4 * U) = W[U];
            put_words<A, N, U + 1>(g, W);
        }
    }
}

/* The 24 words W (96 bytes) to g, which is O mod 16 (O even). */
template <int O>
__device__ __forceinline__ void put96(uint8_t *g, const uint32_t (&W)[24])
{
    if constexpr (O & 2) {
        uint32_t X[23];
#pragma unroll
        for (int u = 0; u < 23; u++)
            X[u] = __funnelshift_r(W[u], W[u + 1], 16);
        *(uint16_t *)g = (uint16_t)W[0];
        put_words<(O + 2) & 15, 23>(g + 2, X);
        *(uint16_t *)(g + 94) = (uint16_t)(W[23] >> 16);
    } else {
        put_words<O, 24>(g, W);
    }
}

/* Window words w[0 .. 14) from the loaded words R, Q words and sh bits in. */
template <int Q>
__device__ __forceinline__ void cut_window(const uint32_t (&R)[20], unsigned sh, uint32_t (&w)[14])
{
#pragma unroll
    for (int i = 0; i < 14; i++)
        w[i] = __funnelshift_r(R[i + Q], R[i + Q + 1], sh);
}

__global__ void __launch_bounds__(32 * DR_WARPS, DR_MINB)
    double_rgb(const uint8_t *__restrict__ in, int iw, int ih, uint8_t *__restrict__ out)
{
    __shared__ __align__(16) uint8_t stage[DR_WARPS][32 * 96 + 16];   /* a warp's output row, at its alignment */
    const int lane = threadIdx.x, k = blockIdx.x * blockDim.x + lane, i0 = DR_PX * k, ow = 2 * iw;
    const size_t rowb = (size_t)iw * 3;
    const uintptr_t end = (uintptr_t)in + rowb * ih;
    const bool inner = k >= 1 && i0 + DR_PX < iw;
    uint8_t *st = stage[threadIdx.y];
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < 2 * ih; y += gridDim.y * blockDim.y) {
        /* output row y = 2j + e: 3 source row j plus row j - 1 (e = 0) or j + 1 (e = 1) */
        const int j = y >> 1, e = y & 1;
        const uint8_t *rj = in + (size_t)j * rowb, *ro = in + (size_t)min(max(j - 1 + 2 * e, 0), ih - 1) * rowb;
        uintptr_t base[2];
        bool fast = inner;   /* (lanes past the row stay for the warp's copy-out) */
#pragma unroll
        for (int r = 0; r < 2; r++) {   /* row j, then the outer row (clamped), from byte 1 of pixel i0 - 1 */
            base[r] = (uintptr_t)((r ? ro : rj) + 3 * (size_t)i0 - 4);
            fast = fast && (base[r] & ~(uintptr_t)15) + 80 <= end;
        }
        const unsigned mask = __ballot_sync(0xffffffffu, fast), live = __ballot_sync(0xffffffffu, i0 < iw);
        if (!live)
            continue;
        uint8_t *o0 = out + ((size_t)y * ow + 2 * (size_t)(blockIdx.x * blockDim.x) * DR_PX) * 3;   /* lane 0's */
        const int oa = (int)((uintptr_t)o0 & 15);
        /* the lanes that cannot take the fast path (a row's ends, the buffer's end), by the whole warp:
         * lane L's output bytes q of pixel 2 i0 + q / 3, clamped reads, into the staged row */
        for (unsigned sl = live & ~mask; sl; sl &= sl - 1) {
            const int L = __ffs(sl) - 1, x0 = DR_PX * (blockIdx.x * blockDim.x + L), n = 6 * min(DR_PX, iw - x0);
            for (int q = lane; q < n; q += 32) {
                const int P = 2 * x0 + q / 3, c = q % 3, t = P >> 1, u = min(max(t + (P & 1 ? 1 : -1), 0), iw - 1);
                const uint32_t vt = ro[3 * t + c] + 3u * rj[3 * t + c], vu = ro[3 * u + c] + 3u * rj[3 * u + c];
                st[oa + 96 * L + q] = (uint8_t)((vu + 3u * vt + 8u) >> 4);
            }
        }
        if (fast) {
            uint32_t win[2][14];
#pragma unroll
            for (int r = 0; r < 2; r++) {
                const uint4 *g = (const uint4 *)(base[r] & ~(uintptr_t)15);
                uint32_t R[20];
#pragma unroll
                for (int q = 0; q < 5; q++) {
                    const uint4 v = __ldg(g + q);
                    R[4 * q] = v.x;
                    R[4 * q + 1] = v.y;
                    R[4 * q + 2] = v.z;
                    R[4 * q + 3] = v.w;
                }
                const unsigned s = (unsigned)(base[r] & 15), sh = 8 * (s & 3);
                switch (s >> 2) {   /* the same for the whole warp */
                case 0: cut_window<0>(R, sh, win[r]); break;
                case 1: cut_window<1>(R, sh, win[r]); break;
                case 2: cut_window<2>(R, sh, win[r]); break;
                default: cut_window<3>(R, sh, win[r]); break;
                }
            }
            uint32_t VE[14], VO[14], L[12], H[12], W[24];
#pragma unroll
            for (int i = 0; i < 14; i++) {   /* 16 outer + 48 centre + 32 */
                VE[i] = even16(win[1][i]) * 16u + even16(win[0][i]) * 48u + 0x00200020u;
                VO[i] = odd16(win[1][i]) * 16u + odd16(win[0][i]) * 48u + 0x00200020u;
            }
#pragma unroll
            for (int i = 1; i < 13; i++) {   /* window word i: source bytes 4 (i - 1) .. of pixel i0 on */
                const uint32_t loE = VE[i] * 3u + VO[i - 1], hiE = VE[i] * 3u + __byte_perm(VO[i], VO[i + 1], 0x5432);
                const uint32_t loO = VO[i] * 3u + __byte_perm(VE[i - 1], VE[i], 0x5432), hiO = VO[i] * 3u + VE[i + 1];
                L[i - 1] = __byte_perm(loE, loO, 0x7351);   /* the four bytes' lo results, in order */
                H[i - 1] = __byte_perm(hiE, hiO, 0x7351);
            }
            /* source pixel t gives output bytes 6t .. 6t + 5: lo of its 3 bytes, then hi */
#pragma unroll
            for (int p = 0; p < 4; p++) {
                const uint32_t *l = L + 3 * p, *h = H + 3 * p;
                uint32_t *w = W + 6 * p;
                w[0] = __byte_perm(l[0], h[0], 0x4210);
                w[1] = __byte_perm(__byte_perm(h[0], l[0], 0x7721), l[1], 0x4210);
                w[2] = __byte_perm(__byte_perm(l[1], h[0], 0x0071), h[1], 0x5410);
                w[3] = __byte_perm(__byte_perm(l[1], l[2], 0x0432), h[1], 0x6210);
                w[4] = __byte_perm(__byte_perm(h[1], h[2], 0x0043), l[2], 0x6510);
                w[5] = __byte_perm(l[2], h[2], 0x7653);
            }
            uint8_t *o = st + oa + 96 * lane;
            switch (oa) {   /* even, the same for the whole warp */
            case 0: put96<0>(o, W); break;
            case 2: put96<2>(o, W); break;
            case 4: put96<4>(o, W); break;
            case 6: put96<6>(o, W); break;
            case 8: put96<8>(o, W); break;
            case 10: put96<10>(o, W); break;
            case 12: put96<12>(o, W); break;
            default: put96<14>(o, W); break;
            }
        }
        __syncwarp();
        /* the live lanes' bytes [b0, b1) of the staged row out in aligned 16-byte words, consecutive lanes
         * on consecutive words */
        const int last = 31 - __clz(live), b0 = oa + 96 * (__ffs(live) - 1);
        const int b1 = oa + 96 * last + 6 * min(DR_PX, iw - DR_PX * (int)(blockIdx.x * blockDim.x + last));
        uint8_t *g0 = o0 - oa;
        const int m0 = b0 >> 4, m1 = (b1 - 1) >> 4;   /* the words at the two ends are shared with neighbours */
        for (int m = m0 + lane; m <= m1; m += 32) {
            const uint4 v = *(const uint4 *)(st + 16 * m);
            if (m > m0 && m < m1)
                *(uint4 *)(g0 + 16 * m) = v;
            else
                store16_in(g0 + 16 * m, v, 16 * m - b0, b1 - b0);
        }
        __syncwarp();
    }
}

/* double_pix: exact 1:2 bilinear of the layouts double_grey and double_rgb do not take (8-bit
 * grey+alpha and RGBA, every 16-bit layout), colour with alpha premultiplied as the CPU's separable
 * engine does. At 1:2 every weight is a multiple of 2^14 (1/4 and 3/4, or 1 at an edge), so the
 * CPU's sums are 2^28 times small integers: S' = sum w' v, w' = w / 2^14 (each axis's summing to
 * 4), and the result (2^28 S' + 2^31) >> 32 = (S' + 8) >> 4; with alpha, alpha so and colour =
 * round(S' / A'). The sums fit 32 bits (16 * 65535; 8-bit with alpha, 16 * 255 * 255) but for
 * 16-bit colour times alpha (64 bits, divided back by div_round); 8-bit with alpha divides by
 * div_small (A' <= 16 * 255), where the general kernel (bilerp_alpha8) takes 64-bit sums and
 * div_round. A thread takes source column i (output columns 2i, 2i + 1, one store where the pair's
 * bytes allow) and walks down a run of source rows j (up to 8; fewer where the grid would not fill
 * the GPU twice): each step makes the row sums of source row j + 1 and, with those of rows j - 1
 * and j kept from before, output rows 2j and 2j + 1. An edge clamps the index: (0, 0) with weights
 * 1 and 3 is the CPU's 4 P(0). */
template <typename T, int C> struct DP {
    static constexpr bool ALPHA = C == 2 || C == 4;
    typedef typename std::conditional<ALPHA && sizeof(T) == 2, uint64_t, uint32_t>::type Acc;
};
template <typename T, int C>
__global__ void __launch_bounds__(128) double_pix(const T *__restrict__ in, int iw, int ih, T *__restrict__ out,
                                                  int rows)
{
    typedef typename DP<T, C>::Acc Acc;
    constexpr bool ALPHA = DP<T, C>::ALPHA;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= iw)
        return;
    const int il = max(i - 1, 0), ir = min(i + 1, iw - 1);
    /* a source pixel, premultiplied where it has alpha (alpha last, as the samples are) */
    auto premul = [](const T (&p)[C], Acc (&q)[C]) {
#pragma unroll
        for (int c = 0; c < C; c++)
            q[c] = ALPHA && c < C - 1 ? (Acc)((uint32_t)p[c] * p[C - 1]) : (Acc)p[c];
    };
    /* row sums of a source row for output columns 2i (weights 1, 3) and 2i + 1 (3, 1) */
    auto hsum = [&](const T (&p)[3][C], Acc (&h)[2][C]) {
        Acc ql[C], qc[C], qr[C];
        premul(p[0], ql);
        premul(p[1], qc);
        premul(p[2], qr);
#pragma unroll
        for (int k = 0; k < C; k++) {
            h[0][k] = ql[k] + 3u * qc[k];
            h[1][k] = 3u * qc[k] + qr[k];
        }
    };
    auto load = [&](int r, T (&p)[3][C]) {
        const T *row = in + (size_t)r * iw * C;
        ld_vec<T, C>(row + (size_t)il * C, p[0]);
        ld_vec<T, C>(row + (size_t)i * C, p[1]);
        ld_vec<T, C>(row + (size_t)ir * C, p[2]);
    };
    /* output row y from row sums a (weight 1) and b (weight 3) */
    auto put = [&](int y, const Acc (&a)[2][C], const Acc (&b)[2][C]) {
        T o[2 * C];
#pragma unroll
        for (int x = 0; x < 2; x++) {
            Acc v[C];
#pragma unroll
            for (int k = 0; k < C; k++)
                v[k] = a[x][k] + 3u * b[x][k];
            if constexpr (ALPHA) {
                o[C * x + C - 1] = (T)((v[C - 1] + 8u) >> 4);
                if constexpr (sizeof(T) == 1) {
                    const float A = (float)v[C - 1], r1 = rcp_refined(2.0f * A);
#pragma unroll
                    for (int c = 0; c < C - 1; c++)
                        o[C * x + c] = (T)div_small((uint32_t)v[c], A, r1);
                } else {
                    const float rA = rcp_approx((float)v[C - 1]);
#pragma unroll
                    for (int c = 0; c < C - 1; c++)
                        o[C * x + c] = (T)div_round(v[c], v[C - 1], rA);
                }
            } else {
#pragma unroll
                for (int c = 0; c < C; c++)
                    o[C * x + c] = (T)((v[c] + 8u) >> 4);
            }
        }
        T *d = out + ((size_t)y * 2 * iw + 2 * (size_t)i) * C;
        if constexpr (sizeof o == 12) {   /* 16-bit RGB: three aligned words */
            uint32_t w[3];
            memcpy(w, o, sizeof o);
#pragma unroll
            for (int k = 0; k < 3; k++)
                ((uint32_t *)d)[k] = w[k];
        } else
            st_vec<T, 2 * C>(d, o);
    };
    for (int j0 = blockIdx.y * rows; j0 < ih; j0 += gridDim.y * rows) {
        const int j1 = min(j0 + rows, ih);
        Acc H[3][2][C];
        T p[3][C];
        load(max(j0 - 1, 0), p);
        hsum(p, H[0]);
        load(j0, p);
        hsum(p, H[1]);
        for (int j = j0; j < j1; j++) {
            load(min(j + 1, ih - 1), p);   /* in flight while row 2j is made */
            put(2 * j, H[0], H[1]);
            hsum(p, H[2]);
            put(2 * j + 1, H[2], H[1]);
#pragma unroll
            for (int x = 0; x < 2; x++)
#pragma unroll
                for (int k = 0; k < C; k++) {
                    H[0][x][k] = H[1][x][k];
                    H[1][x][k] = H[2][x][k];
                }
        }
    }
}

template <typename T, int C>
static int launch_double_pix(const gpu_image *in, const gpu_image *out, char *err, size_t errlen)
{
    const auto k = double_pix<T, C>;
    int rows;
    dim3 g;
    CUDA_TRY(walk_grid(k, 128, (unsigned)((in->w + 127) / 128), in->h, &rows, &g), err, errlen);
    launch(k, g, 128, 0, 4 * rows, (const T *)in->data, in->w, in->h, (T *)out->data, rows);
    LAUNCH_TRY(err, errlen);
    return 0;
}

extern "C" int gpu_double_applies(int c, int depth, int iw, int ih, int ow, int oh)
{
    return ow == 2 * iw && oh == 2 * ih;
}

extern "C" int gpu_double(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out, char *err, size_t errlen)
{
    if (!gpu_double_applies(in->c, in->depth, in->w, in->h, out->w, out->h) || in->gray_from) {
        snprintf(err, errlen, "gpu_double: no kernel for %d channels at %d bits", in->c, in->depth);
        return (int)cudaErrorInvalidValue;
    }
    const uint8_t *s = (const uint8_t *)in->data;
    uint8_t *d = (uint8_t *)out->data;
    const dim3 block = perpixel_block(k->shape);
    if (in->depth == 16 || in->c == 2 || in->c == 4)
        return DISPATCH_TC(in->depth, in->c, launch_double_pix, in, out, err, errlen);
    if (in->c == 1)
        launch(double_grey, grid2d((in->w + DG_NB - 1) / DG_NB, in->h, block), block, 0, 4 * DG_NB, s, in->w, in->h, d);
    else
        launch(double_rgb, grid2d((in->w + DR_PX - 1) / DR_PX, 2 * in->h, dim3(32, DR_WARPS)), dim3(32, DR_WARPS), 0,
               2 * DR_PX, s, in->w, in->h, d);
    LAUNCH_TRY(err, errlen);
    return 0;
}

