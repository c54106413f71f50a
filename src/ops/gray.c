/* gpuimg: grayscale. Luma in 15-bit fixed point, Y = (wr R + wg G + wb B + 16384) >> 15, with
 * BT.601 weights (9798, 19235, 3735) by default, bit-exact to OpenCV 4's cvtColor RGB2GRAY for
 * 8 and 16 bits, or BT.709 (6966, 23436, 2366). Both sets sum to 32768, so white stays white.
 * RGBA gives gray+alpha with alpha copied; gray and gray+alpha inputs pass through. */
#include <config.h>
#include <string.h>
#include "error.h"
#include "ops.h"
#include "simd.h"

enum { P_STANDARD };
static const struct op_param params[] = {
    { "standard", PARAM_CHOICE, 0, 0, 0, "601|709", "601", "luma weights: ITU-R BT.601 or BT.709" },
};

static const uint32_t weights[2][3] = { { 9798, 19235, 3735 }, { 6966, 23436, 2366 } };

static int resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    *out = *in;
    if (in->c >= 3)
        out->c = in->c - 2;   /* RGB -> Y, RGBA -> YA */
    return GPUIMG_OK;
}

/* One row, the channel count a constant so that the loop vectorises. */
#define DEFINE_GRAY_ROW(T, SUF, CI)                                                                   \
    HOT static void gray_row_##SUF##_##CI(const T *restrict s, T *restrict d, int w, uint32_t wr, uint32_t wg, \
                                      uint32_t wb)                                                    \
    {                                                                                                 \
        for (int x = 0; x < w; x++) {                                                                 \
            d[x * (CI - 2)] = (T)((wr * s[x * CI] + wg * s[x * CI + 1] + wb * s[x * CI + 2] + 16384u) >> 15); \
            if (CI == 4)                                                                              \
                d[x * 2 + 1] = s[x * 4 + 3];                                                          \
        }                                                                                             \
    }
DEFINE_GRAY_ROW(uint8_t, u8, 3)
DEFINE_GRAY_ROW(uint8_t, u8, 4)
DEFINE_GRAY_ROW(uint16_t, u16, 3)
DEFINE_GRAY_ROW(uint16_t, u16, 4)

#ifdef HAVE_X86_SIMD
/* RGB 8-bit, 16 pixels at a time: byte shuffles split R, G and B out of the 48 bytes, then
 * pmaddwd forms wr R + wg G and wb B + 16384 from (R, G) and (B, 1) pairs: the same integers. */
AVX2 static void gray_row_rgb8_avx2(const uint8_t *s, uint8_t *d, int w, uint32_t wr, uint32_t wg, uint32_t wb)
{
    const __m128i wrg = _mm_set1_epi32((int)(wr | wg << 16)), wb1 = _mm_set1_epi32((int)(wb | 16384u << 16));
    const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi16(1);
    int x = 0;
    for (; x + 16 <= w; x += 16) {
        const uint8_t *p = s + 3 * x;
        __m128i a = _mm_loadu_si128((const __m128i *)p), b = _mm_loadu_si128((const __m128i *)(p + 16)),
                c = _mm_loadu_si128((const __m128i *)(p + 32));
        __m128i R = rgb8_channel(a, b, c, 0), G = rgb8_channel(a, b, c, 1), B = rgb8_channel(a, b, c, 2);
        __m128i y[4];
        for (int h = 0; h < 2; h++) {
            __m128i r16 = h ? _mm_unpackhi_epi8(R, zero) : _mm_unpacklo_epi8(R, zero);
            __m128i g16 = h ? _mm_unpackhi_epi8(G, zero) : _mm_unpacklo_epi8(G, zero);
            __m128i b16 = h ? _mm_unpackhi_epi8(B, zero) : _mm_unpacklo_epi8(B, zero);
            __m128i lo = _mm_add_epi32(_mm_madd_epi16(_mm_unpacklo_epi16(r16, g16), wrg),
                                       _mm_madd_epi16(_mm_unpacklo_epi16(b16, one), wb1));
            __m128i hi = _mm_add_epi32(_mm_madd_epi16(_mm_unpackhi_epi16(r16, g16), wrg),
                                       _mm_madd_epi16(_mm_unpackhi_epi16(b16, one), wb1));
            y[2 * h] = _mm_srli_epi32(lo, 15);
            y[2 * h + 1] = _mm_srli_epi32(hi, 15);
        }
        __m128i out = _mm_packus_epi16(_mm_packs_epi32(y[0], y[1]), _mm_packs_epi32(y[2], y[3]));
        _mm_storeu_si128((__m128i *)(d + x), out);
    }
    gray_row_u8_3(s + 3 * x, d + x, w - x, wr, wg, wb);
}
#endif

#define DEFINE_GRAY(T, SUF)                                                                           \
    static void gray_##SUF(const struct image *in, struct image *out, const uint32_t *wt)             \
    {                                                                                                 \
        _Pragma("omp parallel for schedule(static)")                                                  \
        for (int y = 0; y < in->h; y++) {                                                             \
            const T *s = (const T *)(in->data + (size_t)y * in->stride);                              \
            T *d = (T *)(out->data + (size_t)y * out->stride);                                        \
            if (in->c == 3)                                                                           \
                gray_row_##SUF##_3(s, d, in->w, wt[0], wt[1], wt[2]);                                 \
            else                                                                                      \
                gray_row_##SUF##_4(s, d, in->w, wt[0], wt[1], wt[2]);                                 \
        }                                                                                             \
    }
DEFINE_GRAY(uint8_t, u8)
DEFINE_GRAY(uint16_t, u16)

static int cpu(const struct op_args *a, const struct image *in, struct image *out)
{
    if (in->c <= 2) {
        memcpy(out->data, in->data, in->stride * (size_t)in->h);
        return GPUIMG_OK;
    }
    const uint32_t *wt = weights[a->v[P_STANDARD].choice];
#ifdef HAVE_X86_SIMD
    if (in->depth == 8 && in->c == 3 && simd_ok()) {
        simd_init();
#pragma omp parallel for schedule(static)
        for (int y = 0; y < in->h; y++)
            gray_row_rgb8_avx2(in->data + (size_t)y * in->stride, out->data + (size_t)y * out->stride, in->w, wt[0],
                               wt[1], wt[2]);
        return GPUIMG_OK;
    }
#endif
    if (in->depth == 8)
        gray_u8(in, out, wt);
    else
        gray_u16(in, out, wt);
    return GPUIMG_OK;
}

void gray_weights(const struct op_args *a, uint32_t w[3])
{
    memcpy(w, weights[a->v[P_STANDARD].choice], 3 * sizeof *w);
}

#ifdef HAVE_CUDA
static int gpu_launch(const struct op_args *a, const struct gpu_tables *t, int variant, const struct gpu_image *in,
                      const struct gpu_image *out)
{
    char err[256];
    int rc = in->c <= 2 ? gpu_copy_d2d(out->data, in->data, (size_t)in->w * in->h * in->c * (in->depth / 8), err,
                                       sizeof err)
                        : gpu_gray(variant, in, out, weights[a->v[P_STANDARD].choice], err, sizeof err);
    return rc ? op_cuda_fail(&op_gray, variant, err) : GPUIMG_OK;
}
#endif

const struct op_desc op_gray = {
    .name = "gray",
    .summary = "convert to grayscale (gray=601 or gray=709)",
    .definition =
        "Y = (wr*R + wg*G + wb*B + 16384) >> 15 in integers, for 8 and 16 bits alike. "
        "BT.601 (default): wr, wg, wb = 9798, 19235, 3735, bit-exact to OpenCV's cvtColor(RGB2GRAY). "
        "BT.709: 6966, 23436, 2366. RGB gives gray, RGBA gives gray+alpha with alpha unchanged; "
        "gray and gray+alpha inputs pass through unchanged.",
    .params = params,
    .nparams = 1,
    .resolve = resolve,
    .cpu = cpu,
    .region = op_region_point,
    GPU_FIELDS(KV_BIT(KV_PERPIXEL) | KV_BIT(KV_COALESCED) | KV_BIT(KV_VECTOR), KV_VECTOR, NULL, gpu_launch),
};
