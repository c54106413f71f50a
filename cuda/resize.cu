/* gpuimg: nearest-neighbour resize kernels: out(x, y) = in(xs[x], ys[y]) with the index tables
 * src/ops/resize.c builds (OpenCV's INTER_NEAREST_EXACT), whole pixels copied. Bilinear and
 * area run through the separable filter kernels (sepfilter.cu). */
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
 * ragged ends of the image one by one). With gray_from the source is RGB and every source pixel
 * becomes its Y first: gray fused into the resize, the same integers as the two steps. */
#define HP 4

__device__ __forceinline__ uint32_t byte_of(const uint32_t *wd, int j) { return (wd[j >> 2] >> (8 * (j & 3))) & 255u; }

template <int CI, int CO, bool GRAY>
__global__ void half_u8(const uint8_t *__restrict__ in, int iw, int ih, uint8_t *__restrict__ out, int ow, int oh,
                        uint32_t wr, uint32_t wg, uint32_t wb)
{
    constexpr int NB = 2 * HP * CI, NW = NB / 4;   /* source bytes of one row a thread reads */
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
                const uint32_t *g = (const uint32_t *)(in + a0);
                const unsigned sh = 8 * (unsigned)(a & 3);
                uint32_t prev = __ldg(g);
#pragma unroll
                for (int i = 0; i < NW; i++) {
                    const uint32_t next = __ldg(g + i + 1);
                    wd[i] = __funnelshift_r(prev, next, sh);
                    prev = next;
                }
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
                for (int c = 0; c < CO; c++) {
                    uint32_t v;
                    if (GRAY)
                        v = (wr * byte_of(wd, p * CI) + wg * byte_of(wd, p * CI + 1) + wb * byte_of(wd, p * CI + 2)
                             + 16384u) >> 15;
                    else
                        v = byte_of(wd, p * CI + c);
                    s[(p / 2) * CO + c] += v;
                }
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
    if (!gpu_half_applies(in->c, in->depth, in->w, in->h, out->w, out->h) || (in->gray_from && in->gray_from != 3)) {
        snprintf(err, errlen, "gpu_half: no kernel for %d channels at %d bits", in->c, in->depth);
        return (int)cudaErrorInvalidValue;
    }
    const uint32_t *gw = in->gray_w;
    if (in->gray_from == 3)
        launch(half_u8<3, 1, true>, grid, block, 0, HP, s, in->w, in->h, d, out->w, out->h, gw[0], gw[1], gw[2]);
    else if (in->c == 1)
        launch(half_u8<1, 1, false>, grid, block, 0, HP, s, in->w, in->h, d, out->w, out->h, 0, 0, 0);
    else
        launch(half_u8<3, 3, false>, grid, block, 0, HP, s, in->w, in->h, d, out->w, out->h, 0, 0, 0);
    LAUNCH_TRY(err, errlen);
    return 0;
}

/* vector, exact 1:2 (bilinear, 8-bit, one or three channels): every interior weight is 1/4 or
 * 3/4 (16384, 49152), so the defined result (2^28 k + 2^31) >> 32 is (k + 8) >> 4 with k the
 * sum of {1, 3} x {1, 3} times the four pixels: output row 2j is row j-1 + 3 row j, row 2j+1 is
 * 3 row j + row j+1, and the same across (indices clamped at the edges, where the tables put all
 * the weight on the edge pixel: the same integers). A thread reads HP + 2 source pixels of three
 * rows as aligned words (funnel-shifted), writes 2 HP pixels of two output rows in words. */
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
    } else {
        for (int j = 0; j < n; j++)
            g[j] = (uint8_t)(w[j >> 2] >> (8 * (j & 3)));
    }
}

template <int C>
__global__ void double_u8(const uint8_t *__restrict__ in, int iw, int ih, uint8_t *__restrict__ out)
{
    constexpr int NS = (HP + 2) * C, NW = (NS + 3) / 4, NO = 2 * HP * C / 4;   /* bytes, words */
    const int k = blockIdx.x * blockDim.x + threadIdx.x, i0 = HP * k, ow = 2 * iw;
    if (i0 >= iw)
        return;
    const int n = min(HP, iw - i0);   /* source pixels of this thread that have outputs */
    const bool inner = i0 >= 1 && i0 + HP < iw;
    const size_t total = (size_t)iw * ih * C;
    for (int j = blockIdx.y * blockDim.y + threadIdx.y; j < ih; j += gridDim.y * blockDim.y) {
        uint32_t wd[3][NW];
#pragma unroll
        for (int r = 0; r < 3; r++) {
            const size_t row = (size_t)min(max(j - 1 + r, 0), ih - 1) * iw;
            const size_t a = (row + i0 - 1) * C;   /* column i0 - 1 (not read at the left edge) */
            const uintptr_t p = (uintptr_t)(in + a), pa = p & ~(uintptr_t)3;
            if (inner && pa >= (uintptr_t)in && pa + 4 * (NW + 1) <= (uintptr_t)in + total) {
                const uint32_t *g = (const uint32_t *)pa;
                const unsigned sh = 8 * (unsigned)(p - pa);
                uint32_t prev = __ldg(g);
#pragma unroll
                for (int i = 0; i < NW; i++) {
                    const uint32_t next = __ldg(g + i + 1);
                    wd[r][i] = __funnelshift_r(prev, next, sh);
                    prev = next;
                }
            } else {   /* the edges: columns clamped */
#pragma unroll
                for (int i = 0; i < NW; i++)
                    wd[r][i] = 0;
#pragma unroll
                for (int b = 0; b < NS; b++) {
                    const int col = min(max(i0 - 1 + b / C, 0), iw - 1);
                    wd[r][b >> 2] |= (uint32_t)in[(row + col) * C + b % C] << (8 * (b & 3));
                }
            }
        }
        uint32_t A[NS], B[NS];   /* vertical: for output rows 2j and 2j + 1 */
#pragma unroll
        for (int b = 0; b < NS; b++) {
            const uint32_t p = byte_of(wd[0], b), q = byte_of(wd[1], b), s = byte_of(wd[2], b);
            A[b] = p + 3 * q;
            B[b] = 3 * q + s;
        }
#pragma unroll
        for (int e = 0; e < 2; e++) {
            const uint32_t *V = e ? B : A;
            uint32_t w[NO] = {};
#pragma unroll
            for (int t = 0; t < HP; t++)
#pragma unroll
                for (int c = 0; c < C; c++) {
                    const int m = (t + 1) * C + c, o = 2 * t * C + c;   /* window byte of pixel i0 + t */
                    const uint32_t lo = (V[m - C] + 3 * V[m] + 8) >> 4, hi = (3 * V[m] + V[m + C] + 8) >> 4;
                    w[o >> 2] |= lo << (8 * (o & 3));
                    w[(o + C) >> 2] |= hi << (8 * ((o + C) & 3));
                }
            put_bytes(out + ((size_t)(2 * j + e) * ow + 2 * (size_t)i0) * C, w, NO, 2 * n * C);
        }
    }
}

extern "C" int gpu_double_applies(int c, int depth, int iw, int ih, int ow, int oh)
{
    return depth == 8 && (c == 1 || c == 3) && ow == 2 * iw && oh == 2 * ih;
}

extern "C" int gpu_double(const struct gpu_image *in, const struct gpu_image *out, char *err, size_t errlen)
{
    if (!gpu_double_applies(in->c, in->depth, in->w, in->h, out->w, out->h) || in->gray_from) {
        snprintf(err, errlen, "gpu_double: no kernel for %d channels at %d bits", in->c, in->depth);
        return (int)cudaErrorInvalidValue;
    }
    const uint8_t *s = (const uint8_t *)in->data;
    uint8_t *d = (uint8_t *)out->data;
    const dim3 block = perpixel_block(), grid(grid2d((in->w + HP - 1) / HP, in->h, block));
    if (in->c == 1)
        launch(double_u8<1>, grid, block, 0, 4 * HP, s, in->w, in->h, d);
    else
        launch(double_u8<3>, grid, block, 0, 4 * HP, s, in->w, in->h, d);
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

/* An attribute of the current device, or fallback where it cannot be read. */
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

/* staged (two taps an axis, 8-bit grey, any ratio): what the vector variant runs for grey outside
 * exact 2:1 and 1:2 (an RGB form measured slower than perpixel: bench/RESULTS.md). A block owns
 * RS_TW output pixels x RS_TH rows, in three steps:
 *  - down: for every output row of the tile, the vertical sums V = wy0 s0 + wy1 s1 (< 2^24) of
 *    every byte of the source columns its taps reach, from two source rows read as aligned
 *    8-byte words (funnel-shifted into place), eight sums a thread an item, into shared memory;
 *  - across: lanes take consecutive output bytes (their taps in registers, read once a tile
 *    column), (wx0 V0 + wx1 V1 + 2^31) >> 32 in 64 bits: the CPU's integers, bit for bit;
 *    bytes into a shared output tile;
 *  - out: each aligned 4-byte word of an output row cut from two shared words (bytes at the
 *    row segment's ends).
 * Every source byte is read once per output row that needs it (L1 serves repeats); every
 * output byte is stored once, in words. gpu_resize_staged_smem says whether a tile's source span
 * fits. */
#define RS_T 256           /* threads */
#define RS_TH 16           /* output rows a tile */
#define RS_OB 256          /* output bytes a tile row, RS_TW of them used: a word of slack each end */
#define RS_TW (RS_OB - 4)  /* output pixels a tile row */
#define RS_OP (RS_OB / 4 + 2)   /* output tile pitch, words (word 0: slack) */
#define RS_SMEM_MAX (96 * 1024)

__device__ __forceinline__ void rs_load8(const uint8_t *in, size_t total, size_t a, uint32_t &lo, uint32_t &hi)
{
    const uintptr_t p = (uintptr_t)(in + a), pa = p & ~(uintptr_t)7;
    if (pa >= (uintptr_t)in && pa + 16 <= (uintptr_t)in + total) {
        const uint2 u = __ldg((const uint2 *)pa), v = __ldg((const uint2 *)pa + 1);
        const unsigned off = (unsigned)(p - pa);   /* 0..7 */
        const uint32_t w0 = off & 4 ? u.y : u.x, w1 = off & 4 ? v.x : u.y, w2 = off & 4 ? v.y : v.x;
        lo = __funnelshift_r(w0, w1, 8 * (off & 3));
        hi = __funnelshift_r(w1, w2, 8 * (off & 3));
    } else {   /* the image's last bytes, or an input that starts unaligned */
        lo = hi = 0;
        for (int b = 0; b < 8; b++)
            if (a + b < total)
                (b < 4 ? lo : hi) |= (uint32_t)in[a + b] << (8 * (b & 3));
    }
}

__global__ void __launch_bounds__(RS_T, 4) resize_staged(const uint8_t *__restrict__ in, int iw, int ih,
                                                      uint8_t *__restrict__ out, int ow, int oh,
                                                      const int32_t *__restrict__ xi, const uint32_t *__restrict__ xw,
                                                      const int32_t *__restrict__ yi, const uint32_t *__restrict__ yw,
                                                      int vp)
{
    extern __shared__ __align__(16) uint32_t rss[];
    uint32_t *V = rss, *O = rss + (size_t)RS_TH * vp;   /* V: RS_TH rows of vp words */
    __shared__ int rs0[RS_TH], rs1[RS_TH];
    __shared__ uint32_t rw0[RS_TH], rw1[RS_TH];
    const int tid = threadIdx.x, x0 = blockIdx.x * RS_TW, nw = min(RS_TW, ow - x0);
    const size_t total = (size_t)iw * ih;
    const int c0 = xi[2 * x0], span = xi[2 * (x0 + nw - 1) + 1] - c0 + 1, nq = (span + 7) / 8;
    /* down: item column q1 of rows r1, r1 + rstep, ... (threads past the last whole set idle) */
    const int rstep = RS_T / nq, q1 = tid % nq, r1 = tid / nq;   /* nq <= RS_T: the host checks */
    /* across: this thread's four output bytes of every row, j = tid % 64 + 64 i, and their taps */
    const int jb = tid & 63, rg = tid >> 6;
    int ia[4], ib[4];
    uint32_t wa[4], wb[4];
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int x = x0 + min(jb + 64 * i, nw - 1);
        ia[i] = xi[2 * x] - c0;
        ib[i] = xi[2 * x + 1] - c0;
        wa[i] = xw[2 * x];
        wb[i] = xw[2 * x + 1];
    }
    for (int tb = blockIdx.y; tb * RS_TH < oh; tb += gridDim.y) {
        const int y0 = tb * RS_TH, nh = min(RS_TH, oh - y0);
        if (tid < nh) {
            rs0[tid] = yi[2 * (y0 + tid)];
            rs1[tid] = yi[2 * (y0 + tid) + 1];
            rw0[tid] = yw[2 * (y0 + tid)];
            rw1[tid] = yw[2 * (y0 + tid) + 1];
        }
        __syncthreads();
        /* down: a thread keeps its item column q and steps over rows (no division per item) */
        for (int r = r1; r1 < rstep && r < nh; r += rstep) {
            const size_t col = (size_t)c0 + 8 * q1;
            uint32_t a0, a1, b0, b1;
            rs_load8(in, total, (size_t)rs0[r] * iw + col, a0, a1);
            rs_load8(in, total, (size_t)rs1[r] * iw + col, b0, b1);
            const uint32_t u = rw0[r], v = rw1[r];
            uint32_t s[8];
#pragma unroll
            for (int b = 0; b < 4; b++) {
                s[b] = u * ((a0 >> (8 * b)) & 255u) + v * ((b0 >> (8 * b)) & 255u);
                s[b + 4] = u * ((a1 >> (8 * b)) & 255u) + v * ((b1 >> (8 * b)) & 255u);
            }
            uint4 *d = (uint4 *)(V + (size_t)r * vp + 8 * q1);
            d[0] = make_uint4(s[0], s[1], s[2], s[3]);
            d[1] = make_uint4(s[4], s[5], s[6], s[7]);
        }
        __syncthreads();
        /* across */
        uint8_t *Ob = (uint8_t *)O;
        for (int r = rg; r < nh; r += RS_T / 64) {
            const uint32_t *Vr = V + (size_t)r * vp;
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const uint64_t acc = (uint64_t)wa[i] * Vr[ia[i]] + (uint64_t)wb[i] * Vr[ib[i]];
                Ob[((size_t)r * RS_OP + 1) * 4 + jb + 64 * i] = (uint8_t)((acc + (1ull << 31)) >> 32);
            }
        }
        __syncthreads();
        /* out: global word k of row r covers tile bytes 4k - sh .. 4k - sh + 3 (k < 64 reaches
         * past the tile's 252 bytes whatever sh) */
        for (int r = rg; r < nh; r += RS_T / 64) {
            const int k = jb;
            uint8_t *g = out + (size_t)(y0 + r) * ow + x0;
            const int sh = (int)((uintptr_t)g & 3), lo = 4 * k - sh;
            if (lo >= nw)
                continue;
            const uint32_t *Or = O + (size_t)r * RS_OP + 1;   /* Or[-1] is slack */
            const uint32_t word = sh ? __funnelshift_r(Or[k - 1], Or[k], 8u * (4 - sh)) : Or[k];
            g += lo;
            if (lo >= 0 && lo + 4 <= nw)
                *(uint32_t *)g = word;
            else
                for (int b = 0; b < 4; b++)
                    if (lo + b >= 0 && lo + b < nw)
                        g[b] = (uint8_t)(word >> (8 * b));
        }
        __syncthreads();   /* V, O and the row taps are refilled for the next tile */
    }
}

extern "C" int gpu_resize_staged_smem(int c, int depth, int ow, const int32_t *xi)
{
    if (depth != 8 || c != 1)
        return 0;
    int maxb = 0;
    for (int x0 = 0; x0 < ow; x0 += RS_TW) {
        const int last = (x0 + RS_TW < ow ? x0 + RS_TW : ow) - 1;
        const int b = xi[2 * last + 1] - xi[2 * x0] + 1;
        maxb = b > maxb ? b : maxb;
    }
    const int vp = (maxb + 7) / 8 * 8;   /* words a V row: whole 8-sum items */
    const size_t smem = ((size_t)RS_TH * vp + (size_t)RS_TH * RS_OP) * 4;
    return smem <= RS_SMEM_MAX && vp / 8 <= RS_T ? vp : 0;
}

/* Blocks loop over row tiles (their column's taps are read once): about eight blocks an SM of
 * the current device in all, never fewer than one tile row each. */
static unsigned rs_rows(int ow, int oh)
{
    const unsigned sms = (unsigned)dev_attr(cudaDevAttrMultiProcessorCount, 132);
    const unsigned cols = (unsigned)((ow + RS_TW - 1) / RS_TW), tiles = (unsigned)((oh + RS_TH - 1) / RS_TH);
    const unsigned want = (8u * sms + cols - 1) / cols;
    return want < 1 ? 1 : want < tiles ? want : tiles;
}

extern "C" int gpu_resize_staged(const struct gpu_image *in, const struct gpu_image *out, const int32_t *xi,
                                 const uint32_t *xw, const int32_t *yi, const uint32_t *yw, int vp, char *err,
                                 size_t errlen)
{
    const uint8_t *s = (const uint8_t *)in->data;
    uint8_t *d = (uint8_t *)out->data;
    if (in->c != 1) {
        snprintf(err, errlen, "gpu_resize_staged: %d channels", in->c);
        return (int)cudaErrorInvalidValue;
    }
    const size_t smem = ((size_t)RS_TH * vp + (size_t)RS_TH * RS_OP) * 4;
    const dim3 g((unsigned)((out->w + RS_TW - 1) / RS_TW), rs_rows(out->w, out->h));
    CUDA_TRY(cudaFuncSetAttribute(resize_staged, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem), err,
             errlen);
    launch(resize_staged, g, RS_T, smem, RS_TW * RS_TH / RS_T, s, in->w, in->h, d, out->w, out->h, xi, xw, yi,
           yw, vp);
    LAUNCH_TRY(err, errlen);
    return 0;
}
