/* gpuimg: the separable blur: two passes through a scratch buffer of exact column sums.
 * Pass 1 (down): a block owns 32 columns x 32 output rows; the input rows its window needs are
 * staged in shared memory 32 at a time (the halo comes through the same staging, mapped by the
 * border table), and each thread sums its 4 outputs' taps: V = sum_k kern[k] * in, exact (uint32,
 * or uint64 premultiplied with alpha). Pass 2 (across): a block owns 128 columns x 8 rows and
 * stages V 128 columns at a time likewise, then rounds once as the CPU does. Staging in chunks
 * keeps shared memory fixed for any sigma. */
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
    blur_down<T, C><<<dim3((in->w + VT_W - 1) / VT_W, t1 > 65535 ? 65535 : t1), dim3(VT_W, 8)>>>(
        (const T *)in->data, in->w, in->h, V, kern, ksize, by);
    LAUNCH_TRY(err, errlen);
    blur_across<T, C><<<dim3((in->w + HT_W - 1) / HT_W, t2 > 65535 ? 65535 : t2), dim3(32, HT_H)>>>(
        V, in->w, in->h, (T *)out->data, kern, ksize, bx);
    LAUNCH_TRY(err, errlen);
    return 0;
}

/* tiled: one pass. A block owns FT_W x FT_H output pixels; the input tile with its halo (r on
 * every side, border maps applied) is loaded once into shared memory, the exact column sums of
 * its FT_H rows are formed there (uint32), then the row sums (uint64) and the one rounding. Same
 * integers as the CPU; about 2 bytes of traffic per pixel byte instead of separable's 10. */
#define FT_W 64
#define FT_H 32
#define FT_MAX_SMEM (200 * 1024)

/* Shared memory of the one-pass kernel: the weights first, padded with zeros to a multiple of 4
 * words plus 4 (the compiler reads the weights in vectors of up to 4 words, past the last one),
 * then the input tile, then the column sums. */
static inline __host__ __device__ int kw_words(int ksize) { return (ksize + 3) / 4 * 4 + 4; }

static size_t fused_smem(int c, int depth, int ksize)
{
    const size_t r = ksize / 2, rowlen = (FT_W + 2 * r) * c, tin = ((FT_H + 2 * r) * rowlen * (depth / 8) + 15) & ~(size_t)15;
    return (size_t)kw_words(ksize) * 4 + tin + FT_H * rowlen * 4;
}

extern "C" int gpu_blur_tiled_fits(int c, int depth, int ksize)
{
    return c != 2 && c != 4 && fused_smem(c, depth, ksize) <= FT_MAX_SMEM;
}

template <typename T, int C>
__global__ void blur_tiled(const T *in, int w, int h, T *out, const uint32_t *kern, int ksize, const int32_t *bx,
                           const int32_t *by)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int r = ksize / 2, iw = FT_W + 2 * r, ih = FT_H + 2 * r, rowlen = iw * C;
    uint32_t *kw = (uint32_t *)smem;
    T *tin = (T *)(kw + kw_words(ksize));
    uint32_t *V = (uint32_t *)((unsigned char *)tin + ((ih * rowlen * sizeof(T) + 15) & ~(size_t)15));
    const int tid = threadIdx.x, nt = blockDim.x, x0 = blockIdx.x * FT_W;
    for (int i = tid; i < kw_words(ksize); i += nt)
        kw[i] = i < ksize ? kern[i] : 0u;
    const int ntiles = (h + FT_H - 1) / FT_H;
    for (int tb = blockIdx.y; tb < ntiles; tb += gridDim.y) {
        const int y0 = tb * FT_H;
        for (int i = tid; i < ih * rowlen; i += nt) {
            const int ty = i / rowlen, j = i - ty * rowlen, px = j / C, ch = j - px * C;
            const int py = y0 - r + ty, pxx = x0 - r + px;   /* positions; maps cover -r .. n+r-1 */
            const int sy = py < h + r ? by[py + r] : -1, sx = pxx < w + r ? bx[pxx + r] : -1;
            tin[i] = (sy >= 0 && sx >= 0) ? in[((size_t)sy * w + sx) * C + ch] : (T)0;
        }
        __syncthreads();
        for (int i = tid; i < FT_H * rowlen; i += nt) {
            const int ty = i / rowlen, j = i - ty * rowlen;
            uint32_t s = 0;
            for (int k = 0; k < ksize; k++)
                s += kw[k] * (uint32_t)tin[(ty + k) * rowlen + j];
            V[i] = s;
        }
        __syncthreads();
        for (int i = tid; i < FT_H * FT_W * C; i += nt) {
            const int ty = i / (FT_W * C), j = i - ty * (FT_W * C), oy = y0 + ty, ox = x0 + j / C;
            if (oy < h && ox < w) {
                const uint32_t *v = V + ty * rowlen + j;
                uint64_t acc = 0;
                for (int k = 0; k < ksize; k++)
                    acc += (uint64_t)kw[k] * v[k * C];
                out[((size_t)oy * w + x0) * C + j] = (T)((acc + (1ull << 31)) >> 32);
            }
        }
        __syncthreads();   /* the tile is refilled for the next tile row */
    }
}

template <typename T, int C>
static int launch_tiled(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize, const int32_t *bx,
                        const int32_t *by, char *err, size_t errlen)
{
    const size_t smem = fused_smem(C, sizeof(T) * 8, ksize);
    CUDA_TRY(cudaFuncSetAttribute(blur_tiled<T, C>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem), err, errlen);
    const unsigned ty = (unsigned)((in->h + FT_H - 1) / FT_H);
    blur_tiled<T, C><<<dim3((in->w + FT_W - 1) / FT_W, ty > 65535 ? 65535 : ty), 256, smem>>>(
        (const T *)in->data, in->w, in->h, (T *)out->data, kern, ksize, bx, by);
    LAUNCH_TRY(err, errlen);
    return 0;
}

extern "C" int gpu_blur_tiled(const struct gpu_image *in, const struct gpu_image *out, const uint32_t *kern, int ksize,
                              const int32_t *bx, const int32_t *by, void *scratch, char *err, size_t errlen)
{
    if (!gpu_blur_tiled_fits(in->c, in->depth, ksize))   /* alpha, or a tile too large: same bits */
        return gpu_blur_separable(in, out, kern, ksize, bx, by, scratch, err, errlen);
    return DISPATCH_TC(in->depth, in->c, launch_tiled, in, out, kern, ksize, bx, by, err, errlen);
}

extern "C" int gpu_blur_separable(const struct gpu_image *in, const struct gpu_image *out, const uint32_t *kern,
                                  int ksize, const int32_t *bx, const int32_t *by, void *scratch, char *err,
                                  size_t errlen)
{
    return DISPATCH_TC(in->depth, in->c, launch_blur, in, out, kern, ksize, bx, by, scratch, err, errlen);
}
