/* gpuimg: blur, the tensor-core kernel's entry: which blurs it takes, RGB as planes past TN_MAXK3 taps. */
#include "cuda/blur/tensor.cuh"

/* compiled in tensor_c1.cu .. tensor_c4t.cu, side by side under make -j */
#define TN_EXTERN(C) extern template int blur_tensor_run<C, false>(BLUR_ENTRY_ARGS); \
                     extern template int blur_tensor_run<C, true>(BLUR_ENTRY_ARGS);
TN_EXTERN(1) TN_EXTERN(2) TN_EXTERN(3) TN_EXTERN(4)

/* (T: the sample type, uint8_t, for DISPATCH_C) */
template <typename T, int C> static int blur_tensor_dispatch(BLUR_ENTRY_ARGS)
{
    static_assert(sizeof(T) == 1, "the tensor blur takes 8-bit samples");
    return out->transposed ? blur_tensor_run<C, true>(in, out, kern, ksize, bx, by, err, errlen)
                           : blur_tensor_run<C, false>(in, out, kern, ksize, bx, by, err, errlen);
}

/* RGB past TN_MAXK3 taps (its tiles fill an SM alone, grey's fit up to TN_MAXK1): three grey
 * planes through the grey kernel. rgb_planes<false> (split) writes the n interleaved pixels of src
 * as planes R, G, B at dst, dst + np and dst + 2np (np a multiple of 4), rgb_planes<true> (join)
 * the reverse; a thread takes 4 pixels (12 bytes as three aligned words, turned by byte permutes:
 * cudaMalloc's alignment), the last n % 4 byte by byte. */
template <bool JOIN>
__global__ void rgb_planes(const uint8_t *__restrict__ src, uint8_t *__restrict__ dst, long long n, long long np)
{
    const long long q = n >> 2, step = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i <= q; i += step) {
        if (i == q) {
            for (long long k = 4 * q; k < n; k++)
                for (int ch = 0; ch < 3; ch++) {
                    if (JOIN)
                        dst[3 * k + ch] = src[ch * np + k];
                    else
                        dst[ch * np + k] = src[3 * k + ch];
                }
        } else if (JOIN) {
            const uint32_t r = ((const uint32_t *)src)[i], g = ((const uint32_t *)(src + np))[i];
            const uint32_t b = ((const uint32_t *)(src + 2 * np))[i];
            uint32_t *d = (uint32_t *)(dst + 12 * i);
            d[0] = __byte_perm(__byte_perm(r, g, 0x1040), b, 0x3410);
            d[1] = __byte_perm(__byte_perm(g, r, 0x2601), b, 0x3250);
            d[2] = __byte_perm(__byte_perm(b, r, 0x3072), g, 0x3710);
        } else {
            const uint32_t *s = (const uint32_t *)(src + 12 * i);
            const uint32_t w0 = s[0], w1 = s[1], w2 = s[2];   /* R0G0B0R1 G1B1R2G2 B2R3G3B3 */
            ((uint32_t *)dst)[i] = __byte_perm(__byte_perm(w0, w1, 0x0630), w2, 0x5210);
            ((uint32_t *)(dst + np))[i] = __byte_perm(__byte_perm(w0, w1, 0x0741), w2, 0x6210);
            ((uint32_t *)(dst + 2 * np))[i] = __byte_perm(__byte_perm(w0, w1, 0x0052), w2, 0x7410);
        }
    }
}

/* The shared memory of the 32-row tiles (the smaller) of the compiled size that takes ksize taps
 * of C channels (T as for dispatch_tensor) */
template <typename T, int C> static size_t tensor_smem(int ksize)
{
    return by_tensor_size<C>(ksize, (size_t)-1, [](auto K) { return TN<C, decltype(K)::value, 32>::SMEM; });
}

/* 0: the tensor kernel does not take this blur; 1: it does; 2: it does as three grey planes in
 * the scratch (RGB from TN_MAXK3 to TN_MAXK1 taps). (The kernel counts its tiles in int: below 2^31
 * of 32 rows, some 35 TB of image; its blocks' shared memory must fit the GPU's: before sm_90 the
 * largest sizes do not.) */
extern "C" int gpu_blur_tensor_applies(int c, int depth, int ksize, int weights_below_256, int w, int h)
{
    if (depth != 8 || ksize < 3 || !weights_below_256
        || ((long long)w * c + TN_W - 1) / TN_W * ((h + 31) / 32) >= 0x7fffffffLL)
        return 0;
    const int planes = c == 3 && ksize > TN_MAXK3, cc = planes ? 1 : c;
    if (ksize > (cc == 1 ? TN_MAXK1 : cc == 2 ? TN_MAXK2 : cc == 3 ? TN_MAXK3 : TN_MAXK4)
        || (planes && (long long)w * h < 15)
        || DISPATCH_C(uint8_t, cc, tensor_smem, ksize) > (size_t)dev_attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, 0))
        return 0;
    return planes ? 2 : 1;
}

/* Where gpu_blur_tensor writes a transposed output: where it runs itself (gpu_blur_tensor_applies
 * 1), and where it falls back to gpu_blur_tiled, which writes it only in one pass. */
extern "C" int gpu_blur_tensor_transposes(int c, int depth, int ksize, int weights_below_256, int w, int h)
{
    return gpu_blur_tensor_applies(c, depth, ksize, weights_below_256, w, h) == 1
           || gpu_blur_onepass_applies(c, depth, ksize);
}

/* RGB as planes (gpu_blur_tensor_applies 2): split into the scratch's first 3 planes, each blurred
 * into one of the next 3, joined into out. A plane takes w h bytes rounded up to 16 (rgb_planes'
 * words and the tensor kernel's copies aligned): 6 of them fit gpu_blur_scratch's 12 w h from 15
 * pixels. */
static int tensor_planes(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize,
                         const int32_t *bx, const int32_t *by, void *scratch, char *err, size_t errlen)
{
    const long long n = (long long)in->w * in->h, q = n / 4 + 1, np = (n + 15) & ~15LL;
    /* (128 threads, 4 pixels a thread: gpu_parity tells the join from the two-pass kernel's 8) */
    const unsigned blocks = (unsigned)min(q / 128 + 1, 65536LL);
    uint8_t *p = (uint8_t *)scratch;
    launch(rgb_planes<false>, blocks, 128, 0, 4, (const uint8_t *)in->data, p, n, np);
    LAUNCH_TRY(err, errlen);
    for (int ch = 0; ch < 3; ch++) {
        gpu_image pi = *in, po = *out;
        pi.c = po.c = 1;
        pi.data = p + ch * np;
        po.data = p + (3 + ch) * np;
        const int r = blur_tensor_dispatch<uint8_t, 1>(&pi, &po, kern, ksize, bx, by, err, errlen);
        if (r)
            return r;
    }
    launch(rgb_planes<true>, blocks, 128, 0, 4, (const uint8_t *)(p + 3 * np), (uint8_t *)out->data, n, np);
    LAUNCH_TRY(err, errlen);
    return 0;
}


extern "C" int gpu_blur_tensor(const struct gpu_image *in, const struct gpu_image *out, const uint32_t *kern,
                               int ksize, int weights_below_256, const int32_t *bx, const int32_t *by, void *scratch,
                               const char **ran, char *err, size_t errlen)
{
    const int how = in->gray_from ? 0 : gpu_blur_tensor_applies(in->c, in->depth, ksize, weights_below_256, in->w,
                                                                in->h);
    if (how == 0 || (how == 2 && (!scratch || out->transposed || (((size_t)in->data | (size_t)out->data) & 3)))) {
        *ran = "tiled";
        return gpu_blur_tiled(in, out, kern, ksize, bx, by, scratch, ran, err, errlen);   /* same bits */
    }
    if (how == 2) {
        *ran = "tensor-planes";
        return tensor_planes(in, out, kern, ksize, bx, by, scratch, err, errlen);
    }
    return DISPATCH_C(uint8_t, in->c, blur_tensor_dispatch, in, out, kern, ksize, bx, by, err, errlen);
}

