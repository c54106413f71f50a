/* gpuimg: grayscale. Luma in 15-bit fixed point, Y = (wr R + wg G + wb B + 16384) >> 15, with
 * BT.601 weights (9798, 19235, 3735) by default, bit-exact to OpenCV 4's cvtColor RGB2GRAY for
 * 8 and 16 bits, or BT.709 (6966, 23436, 2366). Both sets sum to 32768, so white stays white.
 * RGBA gives gray+alpha with alpha copied; gray and gray+alpha inputs pass through. */
#include <config.h>
#include <string.h>
#include "core/error.h"
#include "core/op.h"
#include "ops/common/simd.h"
#include "cuda/gray/kernels.h"

extern const struct op_desc op_gray;   /* this operation, defined at the end */

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
/* The 16-bit Y of (R, G, B) 16-bit lanes: pmaddwd forms wr R + wg G and wb B + 16384 from (R, G)
 * and (B, 1) pairs (the same integers as the loop above), shifted down by 15. */
AVX2 static inline __m256i gray_y16(__m256i r16, __m256i g16, __m256i b16, __m256i wrg, __m256i wb1, __m256i one)
{
    const __m256i lo = _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpacklo_epi16(r16, g16), wrg),
                                        _mm256_madd_epi16(_mm256_unpacklo_epi16(b16, one), wb1));
    const __m256i hi = _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi16(r16, g16), wrg),
                                        _mm256_madd_epi16(_mm256_unpackhi_epi16(b16, one), wb1));
    return _mm256_packs_epi32(_mm256_srli_epi32(lo, 15), _mm256_srli_epi32(hi, 15));
}

/* rgb8_channel in each 128-bit lane: channel ch of the lanes' 16 pixels */
AVX2 static inline __m256i rgb8_channel256(__m256i x, __m256i y, __m256i z, int ch)
{
    const __m256i m0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)rgb8_split_masks[ch][0]));
    const __m256i m1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)rgb8_split_masks[ch][1]));
    const __m256i m2 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)rgb8_split_masks[ch][2]));
    return _mm256_or_si256(_mm256_or_si256(_mm256_shuffle_epi8(x, m0), _mm256_shuffle_epi8(y, m1)),
                           _mm256_shuffle_epi8(z, m2));
}

/* RGB 8-bit, 32 pixels at a time: the 96 bytes' 128-bit quarters are paired so that each 256-bit
 * lane holds 16 whole pixels (48 bytes in three registers, as rgb8_channel takes them), byte
 * shuffles split R, G and B out of them, and gray_y16 weighs them; every step keeps the lanes'
 * order, so the 32 bytes come out in pixel order. */
AVX2 static void gray_row_rgb8_avx2(const uint8_t *s, uint8_t *d, int w, uint32_t wr, uint32_t wg, uint32_t wb)
{
    const __m256i wrg = _mm256_set1_epi32((int)(wr | wg << 16)), wb1 = _mm256_set1_epi32((int)(wb | 16384u << 16));
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi16(1);
    int x = 0;
    for (; x + 32 <= w; x += 32) {
        const uint8_t *p = s + 3 * x;
        const __m256i a = _mm256_loadu_si256((const __m256i *)p), b = _mm256_loadu_si256((const __m256i *)(p + 32)),
                      c = _mm256_loadu_si256((const __m256i *)(p + 64));
        /* lane 0: bytes 0-47 (a's low, a's high, b's low quarter); lane 1: bytes 48-95 */
        const __m256i qx = _mm256_permute2x128_si256(a, b, 0x30), qy = _mm256_permute2x128_si256(a, c, 0x21),
                      qz = _mm256_permute2x128_si256(b, c, 0x30);
        const __m256i R = rgb8_channel256(qx, qy, qz, 0), G = rgb8_channel256(qx, qy, qz, 1),
                      B = rgb8_channel256(qx, qy, qz, 2);
        const __m256i ylo = gray_y16(_mm256_unpacklo_epi8(R, zero), _mm256_unpacklo_epi8(G, zero),
                                     _mm256_unpacklo_epi8(B, zero), wrg, wb1, one);
        const __m256i yhi = gray_y16(_mm256_unpackhi_epi8(R, zero), _mm256_unpackhi_epi8(G, zero),
                                     _mm256_unpackhi_epi8(B, zero), wrg, wb1, one);
        _mm256_storeu_si256((__m256i *)(d + x), _mm256_packus_epi16(ylo, yhi));
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

/* Read through by the next step (FUSE_GRAY_IN): RGB only (RGBA keeps its alpha; grey passes
 * through), the next step's kernel computing each pixel's Y as the gray kernel does. */
static int fuse_read(const struct op_args *a, const struct geom *in, struct gpu_image *next_in)
{
    if (in->c != 3)
        return 0;
    if (next_in) {
        next_in->gray_from = in->c;
        memcpy(next_in->gray_w, weights[a->v[P_STANDARD].choice], sizeof next_in->gray_w);
    }
    return 1;
}

#ifdef HAVE_CUDA
static int gpu_launch(const struct op_args *a, const void *state, const struct gpu_call *k, const struct gpu_image *in,
                      const struct gpu_image *out, const char **ran)
{
    char err[256];
    int rc = in->c <= 2 ? gpu_copy_d2d(out->data, in->data, (size_t)in->w * in->h * in->c * (in->depth / 8), err,
                                       sizeof err)
                        : gpu_gray(k, in, out, weights[a->v[P_STANDARD].choice], err, sizeof err);
    return rc ? op_cuda_fail(&op_gray, k->variant, err) : GPUIMG_OK;
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
    GPU_FIELDS(KV_BIT(KV_PERPIXEL) | KV_BIT(KV_COALESCED) | KV_BIT(KV_VECTOR), KV_VECTOR, NULL, gpu_launch, NULL),
    .fuses_as = FUSE_GRAY_IN,
    .fuse_read = fuse_read,
    .gpu_shape = { [KV_VECTOR] = SHAPE_1D },
    .copies_on = 1u << 1 | 1u << 2,
    .examples = EXAMPLES("gray"),
};
