/* gpuimg: resize kernels. nearest: out(x, y) = in(xs[x], ys[y]) with the index tables
 * src/ops/resize.c builds (OpenCV's INTER_NEAREST_EXACT), whole pixels copied. Bilinear (and area
 * with two taps) at exactly 2:1 (half_u8), exactly 1:2 (double_grey, double_rgb, double_pix), two
 * taps at other ratios a warp per row segment (resize_warp), a block per row segment for grey out
 * (resize_rows: large grey images, and RGB read through a gray step), staged tiles (resize_tiled)
 * and the texture unit (tex_bilinear); the rest runs through the separable filter kernels
 * (sepfilter.cu).
 * All give the CPU's bits but texture. */
#include "common.cuh"

template <int BPP, bool COALESCED>
__global__ void nearest_kernel(const typename PixT<BPP>::type *in, typename PixT<BPP>::type *out, int iw, int ow,
                               int oh, const int32_t *xs, const int32_t *ys)
{
    auto px = [&](int x, int y) { out[(size_t)y * ow + x] = in[(size_t)ys[y] * iw + xs[x]]; };
    if (COALESCED)
        for_coalesced(ow, oh, px);
    else
        for_perpixel(ow, oh, px);
}

template <int BPP>
static int launch_nearest(int variant, const gpu_image *in, const gpu_image *out, const int32_t *xs,
                          const int32_t *ys, char *err, size_t errlen)
{
    typedef typename PixT<BPP>::type P;
    const P *s = (const P *)in->data;
    P *d = (P *)out->data;
    if (variant == KV_PERPIXEL) {
        const dim3 b = perpixel_block(), g = grid2d(out->w, out->h, b);
        launch(nearest_kernel<BPP, false>, g, b, 0, 1, s, d, in->w, out->w, out->h, xs, ys);
    } else {
        const unsigned th = threads1d();
        launch(nearest_kernel<BPP, true>, grid_coalesced(out->w, out->h, th, GPU_PPT), th, 0, GPU_PPT, s, d, in->w, out->w,
               out->h, xs, ys);
    }
    LAUNCH_TRY(err, errlen);
    return 0;
}

extern "C" int gpu_nearest(int variant, const struct gpu_image *in, const struct gpu_image *out, const int32_t *xs,
                           const int32_t *ys, char *err, size_t errlen)
{
    return DISPATCH_BPP(bpp_of(in), launch_nearest, variant, in, out, xs, ys, err, errlen);
}

/* vector (exact 2:1, 8-bit, no alpha): a thread makes HP = 4 output pixels of a row from 8x2
 * source pixels, each source row read as aligned words funnel-shifted into place (bytes at the
 * ragged ends of the image one by one). */
#define HP 4

__device__ __forceinline__ uint32_t byte_of(const uint32_t *wd, int j) { return (wd[j >> 2] >> (8 * (j & 3))) & 255u; }

template <int C>
__global__ void half_u8(const uint8_t *__restrict__ in, int iw, int ih, uint8_t *__restrict__ out, int ow, int oh)
{
    constexpr int CI = C, CO = C, NB = 2 * HP * CI, NW = NB / 4;   /* source bytes of one row a thread reads */
    const int k = blockIdx.x * blockDim.x + threadIdx.x, x0 = HP * k;
    if (x0 >= ow)
        return;
    const int n = min(HP, ow - x0);
    const size_t total = (size_t)iw * ih * CI;
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < oh; y += gridDim.y * blockDim.y) {
        uint32_t s[HP * CO] = {};
#pragma unroll
        for (int r = 0; r < 2; r++) {
            const size_t a = ((size_t)(2 * y + r) * iw + 2 * (size_t)x0) * CI, a0 = a & ~(size_t)3;
            uint32_t wd[NW];
            if (n == HP && a0 + 4 * (NW + 1) <= total) {
                load_shifted((const uint32_t *)(in + a0), 8 * (unsigned)(a & 3), wd);
            } else {
#pragma unroll
                for (int i = 0; i < NW; i++)
                    wd[i] = 0;
                for (int j = 0; j < 2 * n * CI; j++)
                    wd[j >> 2] |= (uint32_t)in[a + j] << (8 * (j & 3));
            }
#pragma unroll
            for (int p = 0; p < 2 * HP; p++)
#pragma unroll
                for (int c = 0; c < CO; c++)
                    s[(p / 2) * CO + c] += byte_of(wd, p * CI + c);
        }
        const size_t o = ((size_t)y * ow + x0) * CO;
        if (n == HP && (o & 3) == 0) {
#pragma unroll
            for (int i = 0; i < CO; i++) {   /* HP * CO bytes = CO words */
                uint32_t wv = 0;
#pragma unroll
                for (int b = 0; b < 4; b++)
                    wv |= ((s[4 * i + b] + 2u) >> 2) << (8 * b);
                ((uint32_t *)(out + o))[i] = wv;
            }
        } else {
            for (int j = 0; j < n * CO; j++)
                out[o + j] = (uint8_t)((s[j] + 2u) >> 2);
        }
    }
}

extern "C" int gpu_half_applies(int c, int depth, int iw, int ih, int ow, int oh)
{
    return depth == 8 && (c == 1 || c == 3) && iw == 2 * ow && ih == 2 * oh;
}

extern "C" int gpu_half(const struct gpu_image *in, const struct gpu_image *out, char *err, size_t errlen)
{
    const uint8_t *s = (const uint8_t *)in->data;
    uint8_t *d = (uint8_t *)out->data;
    const dim3 block = perpixel_block();
    const dim3 grid(grid2d((out->w + HP - 1) / HP, out->h, block));
    if (!gpu_half_applies(in->c, in->depth, in->w, in->h, out->w, out->h) || in->gray_from) {
        snprintf(err, errlen, "gpu_half: no kernel for %d channels at %d bits", in->c, in->depth);
        return (int)cudaErrorInvalidValue;
    }
    if (in->c == 1)
        launch(half_u8<1>, grid, block, 0, HP, s, in->w, in->h, d, out->w, out->h);
    else
        launch(half_u8<3>, grid, block, 0, HP, s, in->w, in->h, d, out->w, out->h);
    LAUNCH_TRY(err, errlen);
    return 0;
}

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
 * in words. About half the byte-wise kernel's instructions; grey 10109x4542 0.037 -> 0.029 ms.
 * For RGB the same arithmetic with 4-byte loads and stores measured slower than byte-wise
 * (bench/RESULTS.md, eleventh session): double_rgb moves 16-byte words instead. */
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
 *    kernel ran at 0.130 ms against the byte-wise kernel's 0.069 (10109x4542 output, H200);
 *    staged, 0.061 (bench/RESULTS.md, eighteenth session);
 *  - lanes at a row's two ends (a halo pixel outside the row, a partial last chunk) and any whose
 *    loads would pass the buffer's end are computed by the whole warp, a byte a lane with clamped
 *    reads, into the same staged row: one lane doing them alone (as a byte-wise kernel) was a
 *    quarter of all instructions. */
#define DR_PX 16
#define DR_WARPS 4   /* a block: DR_WARPS warps, each a row of 32 lanes */
#define DR_MINB 10   /* blocks an SM at least: 48 registers, no spills; 40 warps an SM, not 32 (64 registers):
                      * 10109x4542 0.062 -> 0.056 ms (bench/RESULTS.md, 19th session) */

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

extern "C" int gpu_double(const struct gpu_image *in, const struct gpu_image *out, char *err, size_t errlen)
{
    if (!gpu_double_applies(in->c, in->depth, in->w, in->h, out->w, out->h) || in->gray_from) {
        snprintf(err, errlen, "gpu_double: no kernel for %d channels at %d bits", in->c, in->depth);
        return (int)cudaErrorInvalidValue;
    }
    const uint8_t *s = (const uint8_t *)in->data;
    uint8_t *d = (uint8_t *)out->data;
    const dim3 block = perpixel_block();
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

/* texture: bilinear by the texture unit, for one-channel images. The source is bound as a
 * pitched 2D texture (normalised reads, clamp to edge, unnormalised coordinates): sampling at
 * (x' + 0.5) * in/out, which is pixel centre (x' + 0.5) * in/out - 0.5 in the hardware's +0.5
 * convention, gives the same taps as the exact kernel with weights of 8 fraction bits. Rows that
 * are not aligned as textures need are copied into a pitched scratch first (timed with it). */
template <typename T>
__global__ void tex_bilinear(cudaTextureObject_t tex, T *out, int ow, int oh, float sx, float sy)
{
    const float scale = sizeof(T) == 1 ? 255.f : 65535.f;
    for_perpixel(ow, oh, [&](int x, int y) {
        const float v = tex2D<float>(tex, (x + 0.5f) * sx, (y + 0.5f) * sy);
        out[(size_t)y * ow + x] = (T)__float2uint_rn(v * scale);
    });
}

static size_t tex_pitch(int w, int depth)
{
    const int align = dev_attr(cudaDevAttrTexturePitchAlignment, 512);
    const size_t row = (size_t)w * (depth / 8);
    return (row + align - 1) / align * align;
}

extern "C" size_t gpu_texture_scratch(int w, int h, int depth)
{
    const size_t p = tex_pitch(w, depth);
    return p == (size_t)w * (depth / 8) ? 0 : p * h;
}

extern "C" int gpu_texture_bilinear(const struct gpu_image *in, const struct gpu_image *out, void *scratch, char *err,
                                    size_t errlen)
{
    if (in->c != 1 || in->gray_from) {
        snprintf(err, errlen, "gpu_texture_bilinear: %d channels", in->c);
        return (int)cudaErrorInvalidValue;
    }
    const size_t row = (size_t)in->w * (in->depth / 8), pitch = tex_pitch(in->w, in->depth);
    void *src = in->data;
    if (pitch != row || (uintptr_t)src % dev_attr(cudaDevAttrTextureAlignment, 512)) {
        if (!scratch) {
            snprintf(err, errlen, "gpu_texture_bilinear: unaligned input and no scratch");
            return (int)cudaErrorInvalidValue;
        }
        CUDA_TRY(cudaMemcpy2DAsync(scratch, pitch, in->data, row, row, in->h, cudaMemcpyDeviceToDevice), err, errlen);
        src = scratch;
    }
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypePitch2D;
    rd.res.pitch2D.devPtr = src;
    rd.res.pitch2D.desc = in->depth == 8 ? cudaCreateChannelDesc<uint8_t>() : cudaCreateChannelDesc<uint16_t>();
    rd.res.pitch2D.width = in->w;
    rd.res.pitch2D.height = in->h;
    rd.res.pitch2D.pitchInBytes = pitch;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeNormalizedFloat;
    td.normalizedCoords = 0;
    cudaTextureObject_t tex = 0;
    CUDA_TRY(cudaCreateTextureObject(&tex, &rd, &td, nullptr), err, errlen);
    const float sx = (float)in->w / out->w, sy = (float)in->h / out->h;
    const dim3 b = perpixel_block(), g = grid2d(out->w, out->h, b);
    if (in->depth == 8)
        launch(tex_bilinear<uint8_t>, g, b, 0, 1, tex, (uint8_t *)out->data, out->w, out->h, sx, sy);
    else
        launch(tex_bilinear<uint16_t>, g, b, 0, 1, tex, (uint16_t *)out->data, out->w, out->h, sx, sy);
    const cudaError_t le = cudaGetLastError();
    /* destroying is deferred by the driver until the work using it is done */
    cudaDestroyTextureObject(tex);
    if (le != cudaSuccess) {
        snprintf(err, errlen, "%s", cudaGetErrorString(le));
        return (int)le;
    }
    return 0;
}

/* tiled (bilinear, 8-bit, one or three channels, no alpha): a block owns RT_W output pixels x
 * RT_H rows. The source rectangle its taps reach is staged in shared memory (aligned words,
 * funnel-shifted so that every staged row starts at its first byte), the tile's taps beside it;
 * then a thread makes the 4 output bytes of one aligned word of an output row (bytes only at the
 * row's two ends). The CPU's integers: inner = wx0 p0 + wx1 p1 < 2^24, acc = wy0 inner0 +
 * wy1 inner1 in 64 bits, (acc + 2^31) >> 32. The host checks that the largest rectangle fits
 * (gpu_resize_tiled_pitch); otherwise perpixel runs. */
#define RT_W 64
#define RT_H 16
#define RT_SMEM (46 * 1024)

template <int C>
__global__ void __launch_bounds__(256) resize_tiled(const uint8_t *__restrict__ in, int iw, int ih,
                                                    uint8_t *__restrict__ out, int ow, int oh,
                                                    const int32_t *__restrict__ xi, const uint32_t *__restrict__ xw,
                                                    const int32_t *__restrict__ yi, const uint32_t *__restrict__ yw,
                                                    int pitch)
{
    extern __shared__ __align__(16) unsigned char S[];
    __shared__ int tx0[RT_W], tx1[RT_W], ty0[RT_H], ty1[RT_H];
    __shared__ uint32_t wx0[RT_W], wx1[RT_W], wy0[RT_H], wy1[RT_H];
    const int tid = threadIdx.x, x0 = blockIdx.x * RT_W, nw = min(RT_W, ow - x0);
    const size_t rowbytes = (size_t)iw * C, total = rowbytes * ih;
    const int c0 = xi[2 * x0], c1 = xi[2 * (x0 + nw - 1) + 1], nbytes = (c1 - c0 + 1) * C;
    if (tid < nw) {
        tx0[tid] = (xi[2 * (x0 + tid)] - c0) * C;
        tx1[tid] = (xi[2 * (x0 + tid) + 1] - c0) * C;
        wx0[tid] = xw[2 * (x0 + tid)];
        wx1[tid] = xw[2 * (x0 + tid) + 1];
    }
    for (int tb = blockIdx.y; tb * RT_H < oh; tb += gridDim.y) {
        const int y0 = tb * RT_H, nh = min(RT_H, oh - y0);
        const int r0 = yi[2 * y0], nrows = yi[2 * (y0 + nh - 1) + 1] - r0 + 1;
        __syncthreads();   /* the previous tile is done with S and the row taps */
        if (tid < nh) {
            ty0[tid] = (yi[2 * (y0 + tid)] - r0) * pitch;
            ty1[tid] = (yi[2 * (y0 + tid) + 1] - r0) * pitch;
            wy0[tid] = yw[2 * (y0 + tid)];
            wy1[tid] = yw[2 * (y0 + tid) + 1];
        }
        const int nq = (nbytes + 3) / 4;
        for (int e = tid; e < nrows * nq; e += blockDim.x) {
            const int i = e / nq, q = e - i * nq;
            const size_t a = (size_t)(r0 + i) * rowbytes + (size_t)c0 * C + 4 * q, a0 = a & ~(size_t)3;
            uint32_t word = 0;
            if (a0 + 8 <= total) {
                const uint32_t *g = (const uint32_t *)(in + a0);
                word = __funnelshift_r(__ldg(g), __ldg(g + 1), 8 * (unsigned)(a & 3));
            } else {
                for (int b = 0; b < 4; b++)
                    if (a + b < total)
                        word |= (uint32_t)in[a + b] << (8 * b);
            }
            *(uint32_t *)(S + (size_t)i * pitch + 4 * q) = word;
        }
        __syncthreads();
        const int nwb = nw * C, nk = RT_W * C / 4 + 1;
        for (int e = tid; e < nh * nk; e += blockDim.x) {
            const int r = e / nk, k = e - r * nk;
            const size_t g0 = ((size_t)(y0 + r) * ow + x0) * C;
            const int sh = (int)(g0 & 3), lo = 4 * k - sh;   /* tile byte of this word's first byte */
            if (lo + 4 <= 0 || lo >= nwb)
                continue;
            const unsigned char *s0 = S + ty0[r], *s1 = S + ty1[r];
            const uint64_t v0 = wy0[r], v1 = wy1[r];
            uint32_t word = 0;
#pragma unroll
            for (int b = 0; b < 4; b++) {
                const int j = lo + b;
                if (j < 0 || j >= nwb)
                    continue;
                const int px = j / C, ch = j - px * C, a = tx0[px] + ch, bb = tx1[px] + ch;
                const uint32_t in0 = wx0[px] * s0[a] + wx1[px] * s0[bb], in1 = wx0[px] * s1[a] + wx1[px] * s1[bb];
                const uint64_t acc = v0 * in0 + v1 * in1;
                word |= (uint32_t)((acc + (1ull << 31)) >> 32) << (8 * b);
            }
            uint8_t *gw = out + (g0 - sh) + 4 * k;
            if (lo >= 0 && lo + 4 <= nwb)
                *(uint32_t *)gw = word;
            else
                for (int b = 0; b < 4; b++)
                    if (lo + b >= 0 && lo + b < nwb)
                        gw[b] = (uint8_t)(word >> (8 * b));
        }
    }
}

extern "C" int gpu_resize_tiled_pitch(int c, int depth, int ow, int oh, const int32_t *xi, const int32_t *yi)
{
    if (depth != 8 || (c != 1 && c != 3))
        return 0;
    int maxb = 0, maxr = 0;
    for (int x0 = 0; x0 < ow; x0 += RT_W) {
        const int last = (x0 + RT_W < ow ? x0 + RT_W : ow) - 1;
        const int b = (xi[2 * last + 1] - xi[2 * x0] + 1) * c;
        maxb = b > maxb ? b : maxb;
    }
    for (int y0 = 0; y0 < oh; y0 += RT_H) {
        const int last = (y0 + RT_H < oh ? y0 + RT_H : oh) - 1;
        const int r = yi[2 * last + 1] - yi[2 * y0] + 1;
        maxr = r > maxr ? r : maxr;
    }
    const int pitch = (maxb + 15) & ~15;
    return (size_t)pitch * maxr <= RT_SMEM ? pitch * 65536 + maxr : 0;   /* pitch and rows, packed */
}

extern "C" int gpu_resize_tiled(const struct gpu_image *in, const struct gpu_image *out, const int32_t *xi,
                                const uint32_t *xw, const int32_t *yi, const uint32_t *yw, int fit, char *err,
                                size_t errlen)
{
    const int pitch = fit / 65536, rows = fit % 65536;
    const size_t smem = (size_t)pitch * rows;
    const unsigned ty = (unsigned)((out->h + RT_H - 1) / RT_H);
    const dim3 g((unsigned)((out->w + RT_W - 1) / RT_W), ty > 65535 ? 65535 : ty);
    const uint8_t *s = (const uint8_t *)in->data;
    uint8_t *d = (uint8_t *)out->data;
    if (in->c == 1) {
        CUDA_TRY(cudaFuncSetAttribute(resize_tiled<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem), err, errlen);
        launch(resize_tiled<1>, g, 256, smem, RT_W * RT_H / 256, s, in->w, in->h, d, out->w, out->h, xi, xw, yi, yw, pitch);
    } else {
        CUDA_TRY(cudaFuncSetAttribute(resize_tiled<3>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem), err, errlen);
        launch(resize_tiled<3>, g, 256, smem, RT_W * RT_H / 256, s, in->w, in->h, d, out->w, out->h, xi, xw, yi, yw, pitch);
    }
    LAUNCH_TRY(err, errlen);
    return 0;
}

/* warp (two taps an axis, 8-bit grey or RGB, any ratio whose source span fits): what vector runs
 * outside exact 1:2, and outside exact 2:1 for grey (RGB at 2:1 too: 3x faster than half_u8 at
 * 45.9 Mpx). A warp owns a segment of 256 pixels (RGB 248, see WS) of a row and walks down a run
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
 *    half the shared loads, 0.067 -> 0.063 ms at 2:1, 17th session), a lane's two pixels whose
 *    taps lie 6 bytes apart as four words (rgb_pair2, 22nd session); at an exact 2:1 down (VH)
 *    the rows' sums round in 32 bits (rgb_out); the bytes go into a shared output row placed at
 *    the global row's alignment (RGB pixel pairs as halfwords);
 *  - the row leaves in aligned 16-byte words, each written whole by the segment its first byte
 *    lies in (so a segment also computes the XP pixels, up to 15 bytes, past its end); only the
 *    words at an image row's two ends, shared with the rows before and after, go in pieces.
 * The second tap is always the first + C bytes: at the right edge, where the tables repeat the
 * last pixel, its weight is 0, so the byte it reads (staged past the row, or zero) counts nothing.
 * The grid is what fits the GPU at once. Its warps go in groups of one warp a segment, and each
 * group takes an even share of the rows, so that warps running side by side read whole source
 * rows between them (each warp a run of rows of one segment: RGB at 45.9 Mpx 0.064 -> 0.060 ms
 * against runs of tasks split in segment-major order, 17th session). gpu_resize_warp_fits
 * checks on the host that every span fits SPAN.
 * 128-pixel segments spent half their instructions on the per-row work (staging, the copy-out's
 * partial words at both ends): 256 and whole-word ownership took RGB near 2:1 from 0.076 to 0.069
 * ms at 10109x4542, the lane layout K = 2 (ws_pixel) to 0.067 (bench/RESULTS.md, 13th session).
 * (It read RGB through a gray step too, 14th to 30th sessions: resize_rows does that faster.) */
#define WS_WARPS 8
/* pixels a lane (PL: 8, placed by ws_pixel; 4 measured slower), a segment (SP), pixels
 * past it that its last word may take (XP: lanes 0 .. XP - 1 take one more); 16-byte chunks a lane
 * stages of a source row (CH), staged bytes a source row (SPAN), the output row (O: up to 15 bytes
 * of shift, whole 16-byte chunks) */
template <int C> struct WS {
    static constexpr int PL = 8, XP = (15 + C - 1) / C;
    /* RGB: a segment 8 pixels short of the lanes' 32 PL, so that the XP past it come from the
     * last pass of the lanes rather than a pass of their own (XPASS; for 5 lanes, 7% of the RGB
     * 2:1 kernel's instructions, 22nd session) */
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

/* (a b + c d + half) >> 32 of 32-bit factors, half (2^31) the first multiply-add's addend. half
 * comes from the host: a compile-time 2^31 the compiler adds after the products, two more
 * instructions an output byte. */
__device__ __forceinline__ uint32_t mad_round32(uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint64_t half)
{
    return (uint32_t)(((uint64_t)a * b + half + (uint64_t)c * d) >> 32);
}

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
static void gray_pairs(const uint32_t w[3], uint32_t *g01, uint32_t *g2)
{
    *g01 = 2 * w[0] | 2 * w[1] << 16;
    *g2 = 2 * w[2];
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
#define VH_ROUND 65536u   /* VH: the rounding term of (I0 + I1 + 65536) >> 17 (out_byte's shift) */
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
     * 16-byte copies through L1 by every lane: RGB 2:1 at 45.9 Mpx 0.057 -> 0.056 ms, grey slower,
     * bench/RESULTS.md, 22nd session), else by cp.async. */
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

/* rows (vector, 8-bit grey out, two taps an axis, shrinking): a block makes one column segment of
 * a run of output rows, a row at a time. The segment's span of each source row is read as 16-pixel
 * groups aligned in the flat image (16 bytes of grey, 48 of RGB: whole pixels, so RGB needs no
 * realignment) by cp.async, a warp's copies 512 consecutive bytes, RR_DEPTH row pairs ahead, so
 * that the copies in flight hold no registers. Grey groups land in place in their row; RGB ones
 * are turned into 16 Y each by gray16_words (the gray step read through) a row before their taps
 * need them, so that one barrier a row serves both. Each thread then makes RR_PX output pixels
 * x = xa + t + RR_T i of the row (its taps kept in registers for the whole run), a warp's stores
 * 32 consecutive bytes. Unlike the warp kernel's reading through gray that it replaced (a warp a
 * 224-pixel segment, its rows staged whole and turned into Y by the warp: 0.057 against 0.051 ms
 * for gray,resize=50% at 10109x4542, bench/RESULTS.md, 31st session), a source byte costs about
 * what it costs the gray kernel, and the taps are grey's. */
#define RR_T 128   /* threads a block */
#define RR_PX 8    /* output pixels a thread */
#define RR_GPT 2   /* groups a thread copies (and, RGB, turns into Y) of a row pair */
#define RR_DEPTH(GRAY) ((GRAY) ? 2 : 4)   /* row pairs whose copies are in flight */

/* where a row's span lies in the flat image: its first group, the groups it takes, and the byte
 * of its first pixel in the first group */
struct rr_row { long long g0; int ng, sh; };
__device__ __forceinline__ rr_row rr_span(int r, int iw, int c0, int c1)
{
    const long long p = (long long)r * iw + c0;
    return { p >> 4, (int)(((p + (c1 - c0) + 15) >> 4) - (p >> 4)), (int)(p & 15) };
}

/* the 16 bytes at src into shared memory at d, byte by byte within [in, in + nb): where cp.async
 * may not copy them (the image's last chunk; an unaligned buffer) */
__device__ __noinline__ void rr_chunk_in(unsigned d, const uint8_t *src, const uint8_t *in, long long nb)
{
    const uint4 w = load16_in((uintptr_t)src, (uintptr_t)in, (uintptr_t)(in + nb));
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(d), "r"(w.x), "r"(w.y), "r"(w.z), "r"(w.w)
                 : "memory");
}

template <bool GRAY, bool VH>
__global__ void __launch_bounds__(RR_T) resize_rows(const uint8_t *__restrict__ in, int iw, int ih,
                                                    uint8_t *__restrict__ out, int ow, int oh,
                                                    const int32_t *__restrict__ xi, const uint32_t *__restrict__ xw,
                                                    const int32_t *__restrict__ yi, const uint32_t *__restrict__ yw,
                                                    int seg, int gs, uint64_t half, uint32_t g01, uint32_t g2)
{
    constexpr int CI = GRAY ? 3 : 1, D = RR_DEPTH(GRAY), NS = D + 1, NC = CI * RR_GPT;
    /* NS stages of copies: grey, a row pair in place (rows gs bytes apart); RGB, the pair's groups
     * one after another, 48 bytes each. Then RGB's Y: 2 buffers of a row pair. */
    extern __shared__ __align__(16) uint8_t SR[];
    griddep_launch();   /* a kernel after it launched early (the tensor blur) may take the SMs it leaves */
    const int t = threadIdx.x, nseg = (ow + seg - 1) / seg, ng = max(1, (int)gridDim.x / nseg);
    const int stage = GRAY ? 16 * NC * RR_T : 2 * gs;
    uint8_t *const Y = SR + NS * stage;
    const unsigned s0 = (unsigned)__cvta_generic_to_shared(SR);
    const long long nb = (long long)iw * ih * CI;
    const uint8_t *const end = ((uintptr_t)in & 15) == 0 ? in + nb : in;   /* cp.async's chunks end by it */
    int xa = 0, xb = 0, c0 = 0, c1 = 0, ya = 0, nk = 0;   /* the task's rows: ya + k, k < nk */
    auto rows = [&](int k, rr_row &r0, rr_row &r1) {
        const int2 q = *(const int2 *)(yi + 2 * (ya + k));
        r0 = rr_span(q.x, iw, c0, c1);
        r1 = rr_span(q.y, iw, c0, c1);
    };
    /* the k-th row pair's chunks t, t + RR_T, ... into stage st (past the task: nothing), one
     * commit either way */
    auto issue = [&](int k, int st) {
        if (k < nk) {
            /* threads h .. h + RR_T / 2 - 1 (h = 0, RR_T / 2) copy row h > 0's span: chunk j of the
             * row, j = t - h + RR_T / 2 i, from p + 16 j to the stage at d + 16 j, RGB's row 1
             * after row 0's chunks, grey's gs bytes on */
            rr_row r0, r1;
            rows(k, r0, r1);
            const bool second = t >= RR_T / 2;
            const int j0 = second ? t - RR_T / 2 : t, cn = CI * (second ? r1.ng : r0.ng);
            const uint8_t *p = in + 16 * CI * (second ? r1.g0 : r0.g0);
            const unsigned d = s0 + st * stage + (second ? (GRAY ? 16 * CI * r0.ng : gs) : 0) + 16 * j0;
            const long long room = (end - p) >> 4;   /* chunks of the row cp.async may copy */
            const int lim = room < cn ? (int)max(room, 0ll) : cn;
#pragma unroll
            for (int i = 0; i < NC; i++) {
                const int j = j0 + RR_T / 2 * i;
                if (j < lim)
                    cp_async16_s(d + 8 * RR_T * i, p + 16 * j);
                else if (j < cn)
                    rr_chunk_in(d + 8 * RR_T * i, p + 16 * j, in, nb);
            }
        }
        cp_async_commit();
    };
    /* RGB: the k-th row pair's groups in stage st as Y into buffer Yb (rows gs bytes apart) */
    auto convert = [&](int k, int st, uint8_t *Yb) {
        rr_row r0, r1;
        rows(k, r0, r1);
#pragma unroll
        for (int j = 0; j < RR_GPT; j++) {
            const int e = t + RR_T * j;
            if (e < r0.ng + r1.ng) {
                const uint8_t *p = SR + st * stage + 48 * e;
                uint32_t w[12];
#pragma unroll
                for (int i = 0; i < 3; i++) {
                    const uint4 v = *(const uint4 *)(p + 16 * i);
                    w[4 * i] = v.x;
                    w[4 * i + 1] = v.y;
                    w[4 * i + 2] = v.z;
                    w[4 * i + 3] = v.w;
                }
                *(uint4 *)(Yb + (e < r0.ng ? 16 * e : gs + 16 * (e - r0.ng))) = gray16_words(w, g01, g2);
            }
        }
    };
    for (int task = blockIdx.x; task < nseg * ng; task += gridDim.x) {
        /* consecutive blocks: the segments of one run of rows, read together */
        const int s = task % nseg, g = task / nseg;
        ya = (int)((long long)oh * g / ng);
        nk = (int)((long long)oh * (g + 1) / ng) - ya;
        if (nk <= 0)
            continue;
        xa = s * seg;
        xb = min(xa + seg, ow);
        c0 = xi[2 * xa];
        c1 = xi[2 * (xb - 1) + 1] + 1;
        int t0[RR_PX], t1[RR_PX];   /* this thread's taps (from c0) and weights */
        uint32_t w0[RR_PX], w1[RR_PX];
#pragma unroll
        for (int i = 0; i < RR_PX; i++) {
            const int x = min(xa + t + RR_T * i, xb - 1);
            t0[i] = xi[2 * x] - c0;
            t1[i] = xi[2 * x + 1] - c0;
            w0[i] = xw[2 * x];
            w1[i] = xw[2 * x + 1];
        }
        const bool whole = xa + RR_T * RR_PX <= xb;   /* every thread's pixels in the segment */
        /* row k's copies in stage k mod NS; RGB: converted an iteration ahead, into Y buffer k & 1 */
        constexpr int AHEAD = GRAY ? D + 1 : D;   /* rows the prologue copies */
#pragma unroll
        for (int j = 0; j < AHEAD; j++)
            issue(j, j);
        if constexpr (GRAY) {
            cp_async_wait_n<D>();
            __syncthreads();
            convert(0, 0, Y);
        }
        int st = 0;   /* row k's stage */
        for (int k = 0; k < nk; k++) {
            const int y = ya + k, sn = st == D ? 0 : st + 1;
            rr_row r0, r1;
            rows(k, r0, r1);
            uint2 v = make_uint2(0, 0);
            if (!VH)
                v = *(const uint2 *)(yw + 2 * y);
            cp_async_wait_n<D - 1>();   /* this thread's copies of row k (RGB: of row k + 1) */
            __syncthreads();   /* everyone's: row k is in, the stage and buffer read before are free */
            const uint8_t *P;
            if constexpr (GRAY) {
                if (k + 1 < nk)
                    convert(k + 1, sn, Y + 2 * gs * ((k + 1) & 1));
                issue(k + 1 + D, st);
                P = Y + 2 * gs * (k & 1);
            } else {
                issue(k + D, st == 0 ? D : st - 1);
                P = SR + st * stage;
            }
            st = sn;
            const uint8_t *A = P + r0.sh, *B = P + gs + r1.sh;
            uint8_t *o = out + (size_t)y * ow + xa + t;
            auto pixel = [&](int i) {
                uint32_t res;
                if (VH) {   /* (I0 + I1 + 65536) >> 17, as resize_warp's grey */
                    res = (w0[i] * (A[t0[i]] + B[t0[i]]) + w1[i] * (A[t1[i]] + B[t1[i]]) + VH_ROUND) >> 17;
                } else {
                    const uint32_t I0 = w0[i] * A[t0[i]] + w1[i] * A[t1[i]], I1 = w0[i] * B[t0[i]] + w1[i] * B[t1[i]];
                    res = mad_round32(v.x, I0, v.y, I1, half);
                }
                o[RR_T * i] = (uint8_t)res;
            };
            if (whole) {   /* (a branch a pixel cost about 3 instructions) */
#pragma unroll
                for (int i = 0; i < RR_PX; i++)
                    pixel(i);
            } else {
#pragma unroll
                for (int i = 0; i < RR_PX; i++)
                    if (xa + t + RR_T * i < xb)
                        pixel(i);
            }
        }
        __syncthreads();   /* the last row read before the next task's copies */
    }
    cp_async_wait_all();
}

/* The segment (output pixels a block) for these taps: the fewest segments of at most RR_T RR_PX
 * pixels whose spans each fit RR_GPT groups a thread for both rows; 0 if none does that is the
 * whole row or at least 64 pixels. *gs: the bytes a staged row takes. */
static int rr_segment(int ow, const int32_t *xi, int *gs)
{
    for (int nseg = (ow + RR_T * RR_PX - 1) / (RR_T * RR_PX);; nseg++) {
        const int seg = (ow + nseg - 1) / nseg;
        if (seg < 64 && nseg > 1)
            return 0;
        int worst = 0;
        for (int xa = 0; xa < ow; xa += seg) {
            const int xb = xa + seg < ow ? xa + seg : ow, span = xi[2 * (xb - 1) + 1] + 1 - xi[2 * xa];
            const int groups = (span + 15 + 15) / 16;   /* at any alignment */
            worst = groups > worst ? groups : worst;
        }
        if (2 * worst <= RR_T * RR_GPT) {
            *gs = 16 * worst;
            return seg;
        }
    }
}

/* the segment, 0 where the span does not fit (or no layout this kernel takes); *gs for the launch */
extern "C" int gpu_resize_rows_fit(int c, int depth, int ow, const int32_t *xi, int *gs)
{
    *gs = 0;
    return depth == 8 && c == 1 ? rr_segment(ow, xi, gs) : 0;
}

template <bool GRAY>
static int launch_rows(const struct gpu_image *in, const struct gpu_image *out, const int32_t *xi, const uint32_t *xw,
                       const int32_t *yi, const uint32_t *yw, int vhalf, int seg, int gs, char *err, size_t errlen)
{
    auto k = vhalf ? resize_rows<GRAY, true> : resize_rows<GRAY, false>;
    uint32_t g01, g2;   /* GRAY: the weights as gray16_words takes them */
    gray_pairs(in->gray_w, &g01, &g2);
    /* the kernel's stages of copies, and RGB's two buffers of Y: within the 48 KiB a launch may ask
     * for without an attribute, rr_segment keeping gs to 8 RR_T RR_GPT bytes (a row's groups at
     * most half the block's) */
    const size_t smem = (RR_DEPTH(GRAY) + 1) * (GRAY ? 3 * 16 * RR_T * RR_GPT : 2 * (size_t)gs)
                        + (GRAY ? 4 * (size_t)gs : 0);
    static_assert((RR_DEPTH(true) + 1) * 3 * 16 * RR_T * RR_GPT + 4 * 8 * RR_T * RR_GPT <= 48 * 1024
                      && (RR_DEPTH(false) + 1) * 2 * 8 * RR_T * RR_GPT <= 48 * 1024,
                  "the rows kernel's shared memory");
    long long fit = 0;
    CUDA_TRY(resident_blocks(k, RR_T, smem, &fit), err, errlen);
    const long long tasks = (out->w + seg - 1) / seg * (long long)out->h;
    launch(k, dim3((unsigned)(tasks < fit ? tasks : fit)), dim3(RR_T), smem, RR_PX, (const uint8_t *)in->data, in->w,
           in->h, (uint8_t *)out->data, out->w, out->h, xi, xw, yi, yw, seg, gs, 1ull << 31, g01, g2);
    LAUNCH_TRY(err, errlen);
    return 0;
}

extern "C" int gpu_resize_rows(const struct gpu_image *in, const struct gpu_image *out, const int32_t *xi,
                               const uint32_t *xw, const int32_t *yi, const uint32_t *yw, int vhalf, int seg, int gs,
                               char *err, size_t errlen)
{
    const int g = in->gray_from;
    if (in->c != 1 || in->depth != 8 || (g && g != 3) || (g && (in->gray_w[0] | in->gray_w[1] | in->gray_w[2]) >= 32768)
        || seg <= 0 || gs <= 0) {
        snprintf(err, errlen, "gpu_resize_rows: no kernel for %d channels at %d bits%s", in->c, in->depth,
                 g ? " read through gray" : "");
        return (int)cudaErrorInvalidValue;
    }
    return g ? launch_rows<true>(in, out, xi, xw, yi, yw, vhalf, seg, gs, err, errlen)
             : launch_rows<false>(in, out, xi, xw, yi, yw, vhalf, seg, gs, err, errlen);
}
