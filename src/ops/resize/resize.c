/* gpuimg: resize. Pixel centres map as in OpenCV, NPP and PyTorch (align_corners=False):
 * source x = (x' + 0.5) * in/out - 0.5. bilinear and area are Q16 tap tables run by the shared
 * separable engine (premultiplied alpha); nearest copies pixels chosen exactly as OpenCV's
 * INTER_NEAREST_EXACT does. All tables are built with integer arithmetic. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/op.h"
#include "ops/common/place.h"
#include "ops/common/sepfilter.h"
#include "ops/common/simd.h"
#include "ops/resize/interp.h"
#include "cuda/resize/kernels.h"
#include "cuda/sepfilter/kernels.h"

extern const struct op_desc op_resize;   /* this operation, defined at the end */

enum { P_SIZE, P_FILTER, P_FIT, P_GRAVITY, P_COLOR };
enum { F_AUTO, F_NEAREST, F_BILINEAR, F_AREA, F_CUBIC, F_LANCZOS3 };
enum { FIT_INSIDE, FIT_FILL, FIT_COVER, FIT_CONTAIN, FIT_OUTSIDE };
static const struct op_param params[] = {
    { "size", PARAM_SIZE, 0, 0, 0, NULL, NULL,
      "the size of the result: P%, Wx, xH, or the box WxH (see fit; WxH! stretches to it, WxH^ covers it, WxH> "
      "only shrinks an image larger than it, WxH< only enlarges one smaller)" },
    { "filter", PARAM_CHOICE, 0, 0, 0, "auto|nearest|bilinear|area|cubic|lanczos3", "auto",
      "auto: area when shrinking by more than 2x on an axis, bilinear otherwise; cubic and lanczos3 widen "
      "when shrinking" },
    { "fit", PARAM_CHOICE, 0, 0, 0, "inside|fill|cover|contain|outside", "inside",
      "how the image meets a WxH box: inside (the largest that fits, aspect kept), fill (stretched to it), cover "
      "(the smallest that covers it, then cropped to it), contain (inside, then padded to it), outside (covering "
      "it, not cropped)" },
    { "gravity", PARAM_CHOICE, 0, 0, 0, GRAVITY_CHOICES, "centre", "fit=cover and contain: " GRAVITY_HELP },
    { "color", PARAM_COLOR, 0, 0, 0, NULL, "transparent",
      "fit=contain: the margins, as pad's color (transparent by default: black without alpha)" },
};

#define MAX_SIDE (1 << 24)

static int scaled(int in, double f)
{
    double v = floor(in * f + 0.5);
    return v < 1 ? 1 : v > MAX_SIDE ? MAX_SIDE + 1 : (int)v;
}

/* A box's fit as the size's flag says: ! is fill, ^ outside; otherwise the fit parameter. */
static int box_fit(const struct op_args *a)
{
    const char f = a->v[P_SIZE].size.flag;
    return f == '!' ? FIT_FILL : f == '^' ? FIT_OUTSIDE : a->v[P_FIT].choice;
}

/* The result's size for the box W x H: scaled by W / w where that is the smaller ratio (inside,
 * contain) or the larger (cover, outside), the other side rounded; the side that decides is W or H
 * exactly. */
static void fit_box(int fit, const struct geom *in, int W, int H, struct geom *out)
{
    const int by_width = (int64_t)W * in->h <= (int64_t)H * in->w;   /* W / w <= H / h */
    const int smaller = fit == FIT_INSIDE || fit == FIT_CONTAIN;
    if (by_width == smaller) {
        out->w = W;
        out->h = scaled(in->h, (double)W / in->w);
    } else {
        out->h = H;
        out->w = scaled(in->w, (double)H / in->h);
    }
}

static int resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    const struct size_spec *s = &a->v[P_SIZE].size;
    *out = *in;
    const int fit = box_fit(a);
    if (s->kind == SIZE_PERCENT) {
        out->w = scaled(in->w, s->pct / 100.0);
        out->h = scaled(in->h, s->pct / 100.0);
    } else if (!s->w || !s->h) {
        out->w = s->w ? s->w : scaled(in->w, (double)s->h / in->h);
        out->h = s->h ? s->h : scaled(in->h, (double)s->w / in->w);
    } else if (fit == FIT_FILL) {
        out->w = s->w;
        out->h = s->h;
    } else if ((s->flag == '>' && in->w <= s->w && in->h <= s->h) || (s->flag == '<' && (in->w >= s->w || in->h >= s->h)))
        ;   /* as ImageMagick: > leaves an image that fits, < one that reaches the box on a side */
    else
        fit_box(fit, in, s->w, s->h, out);
    if (out->w > MAX_SIDE || out->h > MAX_SIDE)
        return gpuimg_fail(GPUIMG_ETOOBIG, "resize: a result side over %d pixels", MAX_SIDE);
    if (a->v[P_FILTER].choice == F_AUTO)
        a->v[P_FILTER].choice = (in->w > 2 * out->w || in->h > 2 * out->h) ? F_AREA : F_BILINEAR;
    return GPUIMG_OK;
}

/* The DCT scaling does the coarse part of a large shrink and the filter the rest: the largest
 * factor that leaves the filter at least 2x on both axes (as vips's thumbnail does: the DCT's
 * block average alone would sharpen and alias), so the area filter still averages. The size
 * becomes absolute; nearest takes none (it picks pixels, a shrunk input has others). */
static int load_shrink(struct op_args *a, const struct geom *in, const struct geom *out)
{
    if (a->v[P_FILTER].choice == F_NEAREST)
        return 1;
    for (int f = 8; f >= 2; f /= 2)
        if ((in->w + f - 1) / f >= 2 * out->w && (in->h + f - 1) / f >= 2 * out->h) {
            a->v[P_SIZE].size = (struct size_spec){ SIZE_PIXELS, 0, out->w, out->h, 0, 0, 0, 0 };
            a->v[P_FIT].choice = FIT_FILL;
            return f;
        }
    return 1;
}

/* Tiles: on an axis where the input is a whole multiple f of the output (a shrink by 2, 3, ...,
 * or 1:1) output pixel o takes its taps from input pixels o*f .. o*f + f - 1 alone (bilinear's
 * sample sits at o*f + (f - 1) / 2, its second tap weighing 0 where that is a pixel's centre;
 * area's cell; nearest's pick), so a tile of whole cells gives its outputs exactly. On any other
 * axis a tile takes the whole axis. */
static void axis_region(int in, int out, int want0, int wantn, int *need0, int *needn, int *yield0, int *yieldn)
{
    if (in % out == 0) {
        const int f = in / out;
        *need0 = want0 * f;
        *needn = wantn * f;
        *yield0 = want0;
        *yieldn = wantn;
    } else {
        *need0 = *yield0 = 0;
        *needn = in;
        *yieldn = out;
    }
}

static int wide(int f) { return f == F_CUBIC || f == F_LANCZOS3; }

static void region(const struct op_args *a, const struct geom *in, const struct geom *out, const struct rect *want,
                   struct rect *need, struct rect *yields)
{
    if (wide(a->v[P_FILTER].choice)) {   /* taps reach past a cell: a tile takes the whole image */
        *need = (struct rect){ 0, 0, in->w, in->h };
        *yields = (struct rect){ 0, 0, out->w, out->h };
        return;
    }
    axis_region(in->w, out->w, want->x, want->w, &need->x, &need->w, &yields->x, &yields->w);
    axis_region(in->h, out->h, want->y, want->h, &need->y, &need->h, &yields->y, &yields->h);
}

static void tile_args(struct op_args *a, const struct rect *yields, const struct geom *out)
{
    (void)yields;
    a->v[P_SIZE].size = (struct size_spec){ SIZE_PIXELS, 0, out->w, out->h, 0, 0, 0, 0 };
    a->v[P_FIT].choice = FIT_FILL;
}

/* fit=cover is followed by the crop to the box, fit=contain by the pad to it. */
static int then(const struct op_args *a, char *text, size_t n)
{
    const struct size_spec *s = &a->v[P_SIZE].size;
    const int fit = box_fit(a);
    if ((s->flag == '<' || s->flag == '>') && fit != FIT_INSIDE)
        return gpuimg_fail(GPUIMG_EPARAM, "resize: WxH%c goes with fit=inside only", s->flag);
    if (s->offset)
        return gpuimg_fail(GPUIMG_EPARAM, "resize: the size takes no +X+Y (crop does)");
    const struct color c = a->v[P_COLOR].color;
    const int margin = c.r || c.g || c.b || c.a;   /* not the default, transparent */
    char ct[16];
    color_text(c, ct, sizeof ct);
    if (margin && fit != FIT_CONTAIN)
        return gpuimg_fail(GPUIMG_EPARAM, "resize: color %s is the margin of fit=contain (this is fit=%s)", ct,
                           fit == FIT_FILL ? "fill" : fit == FIT_COVER ? "cover" : fit == FIT_OUTSIDE ? "outside" : "inside");
    const int box = s->kind == SIZE_PIXELS && s->w && s->h;
    if (margin && !box)
        return gpuimg_fail(GPUIMG_EPARAM, "resize: color %s is the margin of fit=contain into a WxH box (this size "
                           "has none)", ct);
    if (box && (fit == FIT_COVER || fit == FIT_CONTAIN))
        snprintf(text, n, "%s=%dx%d:gravity=%s%s%s", fit == FIT_COVER ? "crop" : "pad", s->w, s->h,
                 gravity_name(a->v[P_GRAVITY].choice), margin ? ":color=" : "", margin ? ct : "");
    return GPUIMG_OK;
}

/* Source column for output column o, as INTER_NEAREST_EXACT: a 16.16 step, rounded to nearest. */
static int32_t nearest_index(int64_t in, int64_t out, int64_t o)
{
    int64_t step = ((in << 16) + out / 2) / out;
    int64_t s = (step * o + step / 2 - 1) >> 16;
    return (int32_t)(s < 0 ? 0 : s >= in ? in - 1 : s);
}

/* Bilinear taps: fx = ((2o + 1) in - out) / (2 out), clamped at both ends as OpenCV does. */
static int bilinear_taps(struct taps *t, int in, int out)
{
    int r = taps_alloc(t, out, 2);
    if (r)
        return r;
    for (int o = 0; o < out; o++) {
        int64_t num = (2 * (int64_t)o + 1) * in - out, den = 2 * (int64_t)out;
        int64_t sx = num >= 0 ? num / den : -((-num + den - 1) / den);
        int64_t rem = num - sx * den;
        uint32_t w1 = (uint32_t)((2 * rem * TAP_ONE + den) / (2 * den));
        if (sx < 0) {
            sx = 0;
            w1 = 0;
        } else if (sx >= in - 1) {
            sx = in - 1;
            w1 = 0;
        }
        t->idx[2 * o] = (int32_t)sx;
        t->idx[2 * o + 1] = (int32_t)(sx + 1 < in ? sx + 1 : in - 1);
        t->w[2 * o] = TAP_ONE - w1;
        t->w[2 * o + 1] = w1;
    }
    return GPUIMG_OK;
}

/* Area taps: output o covers [o*in, (o+1)*in) in units of 1/out source pixels; each source
 * pixel weighs its overlap / in. This is OpenCV's INTER_AREA for shrinking and enlarging. The
 * weights are the steps of the rounded running total (round(65536 * covered so far / in)), so each
 * is within 1 of its exact value, none is negative and they sum to 65536. (Rounding each alone and
 * giving the sum's error to the largest, as before, drove that one below zero where more than
 * about 500 pixels fold into one: resize=1x5 of a photograph came out black.) */
static int area_taps(struct taps *t, int in, int out)
{
    int n = (int)(((int64_t)in + out - 1) / out) + 1;
    int r = taps_alloc(t, out, n);
    if (r)
        return r;
    for (int o = 0; o < out; o++) {
        int64_t start = (int64_t)o * in, end = start + in, covered = 0, placed = 0;
        int64_t first = start / out;
        uint32_t *wi = t->w + (size_t)o * n;
        int32_t *ii = t->idx + (size_t)o * n;
        for (int k = 0; k < n; k++) {
            int64_t i = first + k;
            int64_t lo = i * out > start ? i * out : start, hi = (i + 1) * out < end ? (i + 1) * out : end;
            covered += hi > lo && i < in ? hi - lo : 0;
            const int64_t total = (2 * covered * TAP_ONE + in) / (2 * (int64_t)in);
            ii[k] = (int32_t)(i < in ? i : in - 1);
            wi[k] = (uint32_t)(total - placed);
            placed = total;
        }
    }
    return GPUIMG_OK;
}

static int32_t *nearest_table(int in, int out)
{
    int32_t *t = malloc((size_t)out * sizeof *t);
    if (t)
        for (int o = 0; o < out; o++)
            t[o] = nearest_index(in, out, o);
    return t;
}

static int nearest(const struct image *in, struct image *out)
{
    int32_t *xs = nearest_table(in->w, out->w);
    if (!xs)
        return gpuimg_fail(GPUIMG_ENOMEM, "out of memory for resize tables");
    const size_t bpp = image_bpp(in);
#pragma omp parallel for schedule(static)
    for (int y = 0; y < out->h; y++) {
        const uint8_t *s = in->data + (size_t)nearest_index(in->h, out->h, y) * in->stride;
        uint8_t *d = out->data + (size_t)y * out->stride;
        for (int x = 0; x < out->w; x++)
            memcpy(d + x * bpp, s + (size_t)xs[x] * bpp, bpp);
    }
    free(xs);
    return GPUIMG_OK;
}

/* Exactly 2:1 on both axes, bilinear or area: every weight is 1/2 (32768), so the defined result
 * (2^30 (a + b + c + d) + 2^31) >> 32 is (a + b + c + d + 2) >> 2. Same integers, no tables. With
 * alpha the sums are 2^30 times the four pixels' sa = sum a and sca = sum c a, so alpha is
 * (sa + 2) >> 2 and colour round(sca / sa), halves up: floor((2 sca + sa) / 2 sa), 0 where sa = 0. */
#define DEFINE_HALF(T, SUF)                                                                           \
    static inline __attribute__((always_inline)) void half_row_##SUF(const T *restrict r0, const T *restrict r1, \
                                                                      T *restrict d, int w, int c)   \
    {                                                                                                 \
        for (int x = 0; x < w; x++)                                                                   \
            for (int ch = 0; ch < c; ch++) {                                                          \
                const int i = 2 * x * c + ch;                                                         \
                d[x * c + ch] = (T)((r0[i] + r0[i + c] + r1[i] + r1[i + c] + 2u) >> 2);               \
            }                                                                                         \
    }                                                                                                 \
    static inline __attribute__((always_inline)) void half_alpha_row_##SUF(const T *restrict r0,      \
                                                                            const T *restrict r1,     \
                                                                            T *restrict d, int w, int c) \
    {                                                                                                 \
        for (int x = 0; x < w; x++) {                                                                 \
            const int i = 2 * x * c, e = c - 1;                                                       \
            const uint64_t a0 = r0[i + e], a1 = r0[i + c + e], a2 = r1[i + e], a3 = r1[i + c + e];    \
            const uint64_t sa = a0 + a1 + a2 + a3;                                                    \
            for (int ch = 0; ch < e; ch++) {                                                          \
                const uint64_t sca = r0[i + ch] * a0 + r0[i + c + ch] * a1 + r1[i + ch] * a2 + r1[i + c + ch] * a3; \
                d[x * c + ch] = (T)(sa ? (2 * sca + sa) / (2 * sa) : 0);                              \
            }                                                                                         \
            d[x * c + e] = (T)((sa + 2) >> 2);                                                        \
        }                                                                                             \
    }                                                                                                 \
    HOT static void half_##SUF(const struct image *in, struct image *out)                             \
    {                                                                                                 \
        _Pragma("omp parallel for schedule(static)")                                                  \
        for (int y = 0; y < out->h; y++) {                                                            \
            const T *r0 = (const T *)(in->data + (size_t)(2 * y) * in->stride);                       \
            const T *r1 = (const T *)(in->data + (size_t)(2 * y + 1) * in->stride);                   \
            T *d = (T *)(out->data + (size_t)y * out->stride);                                        \
            switch (in->c) { /* constant channel counts, so the loops vectorise */                    \
            case 1: half_row_##SUF(r0, r1, d, out->w, 1); break;                                      \
            case 2: half_alpha_row_##SUF(r0, r1, d, out->w, 2); break;                                \
            case 3: half_row_##SUF(r0, r1, d, out->w, 3); break;                                      \
            default: half_alpha_row_##SUF(r0, r1, d, out->w, 4); break;                               \
            }                                                                                         \
        }                                                                                             \
    }
DEFINE_HALF(uint8_t, u8)
DEFINE_HALF(uint16_t, u16)

#ifdef HAVE_X86_SIMD
/* RGB 8-bit at 2:1: 16 input pixels of each row split into R, G, B by byte shuffles, horizontal
 * pairs summed by pmaddubsw (x 1), the two rows added, (s + 2) >> 2, packed and shuffled back
 * into 8 RGB pixels. The same integers as half_row_u8. */
static signed char rein[2][2][16];   /* [half][source register][byte] */

static void half_masks(void)
{
    simd_init();
    /* output byte k (0..23) is channel k % 3 of pixel k / 3; RG holds R0..7 then G0..7, BB B0..7 twice */
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < 16; i++) {
            int k = 16 * h + i, px = k / 3, ch = k % 3;
            rein[h][0][i] = (signed char)(k < 24 && ch < 2 ? ch * 8 + px : -128);
            rein[h][1][i] = (signed char)(k < 24 && ch == 2 ? px : -128);
        }
}

AVX2 static void half_row_rgb8_avx2(const uint8_t *r0, const uint8_t *r1, uint8_t *d, int w)
{
    const __m128i ones = _mm_set1_epi8(1), two = _mm_set1_epi16(2);
    int x = 0;
    for (; x + 8 <= w; x += 8) {   /* 8 output pixels from 16 input pixels of each row */
        const uint8_t *p = r0 + 6 * x, *q = r1 + 6 * x;
        __m128i a0 = _mm_loadu_si128((const __m128i *)p), b0 = _mm_loadu_si128((const __m128i *)(p + 16)),
                c0 = _mm_loadu_si128((const __m128i *)(p + 32));
        __m128i a1 = _mm_loadu_si128((const __m128i *)q), b1 = _mm_loadu_si128((const __m128i *)(q + 16)),
                c1 = _mm_loadu_si128((const __m128i *)(q + 32));
        __m128i sum[3];
        for (int ch = 0; ch < 3; ch++) {
            __m128i t = _mm_add_epi16(_mm_maddubs_epi16(rgb8_channel(a0, b0, c0, ch), ones),
                                      _mm_maddubs_epi16(rgb8_channel(a1, b1, c1, ch), ones));
            sum[ch] = _mm_srli_epi16(_mm_add_epi16(t, two), 2);
        }
        __m128i rg = _mm_packus_epi16(sum[0], sum[1]), bb = _mm_packus_epi16(sum[2], sum[2]);
        __m128i lo = _mm_or_si128(_mm_shuffle_epi8(rg, _mm_loadu_si128((const __m128i *)rein[0][0])),
                                  _mm_shuffle_epi8(bb, _mm_loadu_si128((const __m128i *)rein[0][1])));
        __m128i hi = _mm_or_si128(_mm_shuffle_epi8(rg, _mm_loadu_si128((const __m128i *)rein[1][0])),
                                  _mm_shuffle_epi8(bb, _mm_loadu_si128((const __m128i *)rein[1][1])));
        _mm_storeu_si128((__m128i *)(d + 3 * x), lo);
        _mm_storel_epi64((__m128i *)(d + 3 * x + 16), hi);
    }
    half_row_u8(r0 + 6 * x, r1 + 6 * x, d + 3 * x, w - x, 3);
}

/* With alpha at 8 bits (RGBA, grey+alpha) at 2:1: 16 bytes of each row a step (2 RGBA or 4
 * grey+alpha output pixels) in 32-bit lanes, the pixels reordered so that one register holds each
 * pair's first pixels and another its second ones; c a by pmaddwd (16-bit operands, the high half
 * zero); colour floor((2 sca + sa) / 2 sa) in float, exact: 2 sca + sa < 2^20, a non-integer
 * quotient is at least 1 / 2 sa > 2^-11 from an integer and the float's error at most 2^-17. Where
 * sa = 0, 0 / 0 is NaN, which the conversion and the saturating packs make 0, as defined.
 * 5120x2880, 2 threads: RGBA 31.7 (opaque) and 32.2 ms -> 7.5 and 7.9 (OpenCV, which does not
 * premultiply, 2.5: this path is bound by its shuffles), grey+alpha 18.6 and 18.7 -> 2.5 and 2.3. */
AVX2 static inline __attribute__((always_inline)) __m256i alpha_lanes(__m256i v, int c)
{
    return c == 4 ? _mm256_shuffle_epi32(v, 0xff) : _mm256_shuffle_epi32(v, 0xf5);
}

AVX2 static inline __attribute__((always_inline)) void half_alpha_row_c(const uint8_t *r0, const uint8_t *r1,
                                                                        uint8_t *d, int w, int c)
{
    const __m128i order = c == 4 ? _mm_setr_epi8(0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15)
                                 : _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
    const int per = 8 / c;   /* output pixels a step */
    int x = 0;
    for (; x + per <= w; x += per) {
        const __m128i p = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(r0 + 2 * c * x)), order);
        const __m128i q = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(r1 + 2 * c * x)), order);
        const __m256i v[4] = { _mm256_cvtepu8_epi32(p), _mm256_cvtepu8_epi32(_mm_srli_si128(p, 8)),
                               _mm256_cvtepu8_epi32(q), _mm256_cvtepu8_epi32(_mm_srli_si128(q, 8)) };
        __m256i s = _mm256_setzero_si256(), sca = s;
        for (int i = 0; i < 4; i++) {
            s = _mm256_add_epi32(s, v[i]);
            sca = _mm256_add_epi32(sca, _mm256_madd_epi16(v[i], alpha_lanes(v[i], c)));
        }
        const __m256i sa = alpha_lanes(s, c);
        const __m256 n = _mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_add_epi32(sca, sca), sa));
        const __m256i col = _mm256_cvttps_epi32(_mm256_floor_ps(_mm256_div_ps(n, _mm256_cvtepi32_ps(_mm256_add_epi32(sa, sa)))));
        const __m256i al = _mm256_srli_epi32(_mm256_add_epi32(s, _mm256_set1_epi32(2)), 2);
        const __m256i r = c == 4 ? _mm256_blend_epi32(col, al, 0x88) : _mm256_blend_epi32(col, al, 0xaa);
        const __m256i b = _mm256_packus_epi16(_mm256_packs_epi32(r, r), _mm256_packs_epi32(r, r));
        const int32_t lo = _mm256_cvtsi256_si32(b), hi = _mm256_extract_epi32(b, 4);
        memcpy(d + c * x, &lo, 4);
        memcpy(d + c * x + 4, &hi, 4);
    }
    half_alpha_row_u8(r0 + 2 * c * x, r1 + 2 * c * x, d + c * x, w - x, c);
}

AVX2 static void half_alpha_row_avx2(const uint8_t *r0, const uint8_t *r1, uint8_t *d, int w, int c)
{
    if (c == 4)
        half_alpha_row_c(r0, r1, d, w, 4);
    else
        half_alpha_row_c(r0, r1, d, w, 2);
}
#endif

static int exact_half(int f, const struct image *in, const struct image *out)
{
    return (f == F_BILINEAR || f == F_AREA) && in->w == 2 * out->w && in->h == 2 * out->h;
}

static int filter_taps(int f, struct taps *tx, struct taps *ty, const struct geom *in, const struct geom *out)
{
    int r = f == F_AREA ? area_taps(tx, in->w, out->w) : bilinear_taps(tx, in->w, out->w);
    if (!r)
        r = f == F_AREA ? area_taps(ty, in->h, out->h) : bilinear_taps(ty, in->h, out->h);
    return r;
}

/* cubic's and lanczos3's tables for both axes, as filter_taps makes bilinear's and area's */
static int wide_taps(int f, struct itaps *tx, struct itaps *ty, const struct geom *in, const struct geom *out)
{
    const enum interp_kind k = f == F_CUBIC ? INTERP_CUBIC : INTERP_LANCZOS3;
    int r = itaps_make(k, in->w, out->w, tx);
    if (!r)
        r = itaps_make(k, in->h, out->h, ty);
    return r;
}

static int cpu(const struct op_args *a, const struct image *in, struct image *out)
{
    int f = a->v[P_FILTER].choice;
    if (f == F_NEAREST)
        return nearest(in, out);
    if (in->w == out->w && in->h == out->h && !has_alpha(in->c)) {
        /* 1:1 (after a shrink on load): every weight is exactly one. (With alpha the filter's
         * division zeroes the colour of transparent pixels: not a copy.) */
        memcpy(out->data, in->data, in->stride * (size_t)in->h);
        return GPUIMG_OK;
    }
    if (wide(f)) {
        struct itaps tx = { 0 }, ty = { 0 };
        const struct geom gi = image_geom(in), go = image_geom(out);
        int r = wide_taps(f, &tx, &ty, &gi, &go);
        if (!r)
            r = interp_run(in, out, &tx, &ty);
        itaps_free(&tx);
        itaps_free(&ty);
        return r;
    }
    if (exact_half(f, in, out)) {
#ifdef HAVE_X86_SIMD
        if (in->depth == 8 && in->c == 3 && simd_ok()) {
            static int once;   /* masks built before the threads start */
            if (!once++)
                half_masks();
#pragma omp parallel for schedule(static)
            for (int y = 0; y < out->h; y++)
                half_row_rgb8_avx2(in->data + (size_t)(2 * y) * in->stride, in->data + (size_t)(2 * y + 1) * in->stride,
                                   out->data + (size_t)y * out->stride, out->w);
            return GPUIMG_OK;
        }
        if (in->depth == 8 && has_alpha(in->c) && simd_ok()) {
#pragma omp parallel for schedule(static)
            for (int y = 0; y < out->h; y++)
                half_alpha_row_avx2(in->data + (size_t)(2 * y) * in->stride,
                                    in->data + (size_t)(2 * y + 1) * in->stride, out->data + (size_t)y * out->stride,
                                    out->w, in->c);
            return GPUIMG_OK;
        }
#endif
        (in->depth == 8 ? half_u8 : half_u16)(in, out);
        return GPUIMG_OK;
    }
    struct taps tx = { 0 }, ty = { 0 };
    struct geom gi = image_geom(in), go = image_geom(out);
    int r = filter_taps(f, &tx, &ty, &gi, &go);
    if (!r)
        r = sepfilter_run(in, out, &tx, &ty);
    taps_free(&tx);
    taps_free(&ty);
    return r;
}

#ifdef HAVE_CUDA
/* The kernel families a variant runs, by name (the reports show the one that ran where it is not
 * the variant's own): vector, tiled and texture apply to some layouts only
 * (cuda/resize/kernels.h) and otherwise run perpixel, the same bits. */
enum rk { RK_PERPIXEL, RK_COALESCED, RK_HALF, RK_DOUBLE, RK_WARP, RK_ROWS, RK_BILERP, RK_TILED, RK_TEXTURE, RK_NONE };
static const char *const rk_names[] = { "perpixel", "coalesced", "half", "double", "warp",
                                        "rows",     "bilerp",    "tiled", "texture", "none" };

/* A resize step's device state: nearest's two index maps, or the filter's four tap arrays (and the
 * texture variant's pitched copy of the input, when it needs one), and what the variant can run
 * on them. */
struct resize_gpu {
    void *block;                  /* the one device allocation the tables below are in */
    const int32_t *xi, *yi;       /* nearest: source column and row of each output one */
    const uint32_t *xw, *yw;      /* filters: nx (ny) taps an output column (row) */
    struct gpu_interp_tables wt;  /* cubic, lanczos3: their tables, sums and tiles */
    int nx, ny;
    void *scratch;                /* texture: the pitched input copy, or NULL */
    int tiled_fit;                /* tiled: gpu_resize_tiled_pitch, 0 where its tile does not fit */
    int warp_fits;                /* vector: the warp segment's source span fits */
    int vhalf;                    /* every output row weighs its two source rows 32768 each */
    int rows_seg, rows_gs;        /* vector: the rows kernel's segment (0: does not fit), staged bytes */
};

/* Both axes shrink by 1.6 or more (5 in >= 8 out): where the rows kernel reads each source row
 * about once. */
static int shrinks(const struct geom *in, const struct geom *out)
{
    return 5 * (long)in->w >= 8L * out->w && 5 * (long)in->h >= 8L * out->h;
}
/* Grey images smaller than this keep the exact 2:1 and warp kernels: the rows kernel's start (its
 * ring of row copies filled before the first row) makes it the slower below it. Read through gray
 * it is never slower. */
#define ROWS_GREY_MIN (32u << 20)

/* Which family a variant runs for these arguments (s: the state gpu_prepare made; NULL before
 * it, where perpixel stands for the families whose fit it decides). vector: the rows kernel for
 * 8-bit grey of ROWS_GREY_MIN bytes and more shrinking 1.6 times or more where its span fits, else
 * the exact 2:1 kernel for grey, the exact 1:2 one, else the warp-segment two-tap kernel for 8-bit
 * grey and RGB where its source span fits: RGB at exact 2:1 too, where it is faster than the 2:1
 * kernel; bilinear 8-bit with alpha and every 16-bit layout: the separable engine's gathering
 * kernels (bilerp). tiled takes the 2:1 kernel for an exact 2:1 (measured faster than its own)
 * and needs its tile to fit. */
static enum rk family(const struct op_args *a, int variant, const struct geom *in, const struct geom *out,
                      const struct resize_gpu *s)
{
    const int f = a->v[P_FILTER].choice, c = in->c, depth = in->depth;
    if (wide(f))   /* two passes, perpixel or coalesced, or tiled (vector too) where its tile fits */
        return variant == KV_PERPIXEL ? RK_PERPIXEL
             : (variant == KV_TILED || variant == KV_VECTOR) && s && s->wt.tile_h ? RK_TILED
                                                                               : RK_COALESCED;
    const int half = f != F_NEAREST && gpu_half_applies(c, depth, in->w, in->h, out->w, out->h);
    const int wfit = s && s->warp_fits, rfit = s && s->rows_seg > 0;
    if (variant == KV_VECTOR)
        return f != F_NEAREST && rfit && shrinks(in, out)
                       && (size_t)in->w * in->h * in->c * (in->depth / 8) >= ROWS_GREY_MIN ? RK_ROWS
               : half && (c == 1 || !wfit) ? RK_HALF
               : f == F_BILINEAR && gpu_double_applies(c, depth, in->w, in->h, out->w, out->h) ? RK_DOUBLE
               : f != F_NEAREST && wfit ? RK_WARP
               : f == F_BILINEAR && gpu_bilerp_applies(c, depth, in->w, in->h) ? RK_BILERP
                                                                                     : RK_PERPIXEL;
    if (variant == KV_TILED)
        return half ? RK_HALF : f == F_BILINEAR && s && s->tiled_fit ? RK_TILED : RK_PERPIXEL;
    if (variant == KV_TEXTURE)
        return f == F_BILINEAR && c == 1 ? RK_TEXTURE : RK_PERPIXEL;
    return variant == KV_COALESCED ? RK_COALESCED : RK_PERPIXEL;
}

/* The family that reads RGB through a gray step before it: vector's rows kernel where its span
 * fits (vector, two taps, 8-bit grey) and both axes shrink by 1.6 or more; RK_NONE elsewhere. A
 * kernel that makes the Y of every source row it reads, for each output row, wins only where
 * each source row serves about one output row: shrinking by 1.6 or more, not at 77% or when
 * enlarging, where the separate gray step costs less. */
static enum rk gray_in_family(int variant, const struct geom *in, const struct geom *out, const struct resize_gpu *s)
{
    return variant == KV_VECTOR && s->rows_seg > 0 && shrinks(in, out) ? RK_ROWS : RK_NONE;
}

/* Whether every output coordinate weighs its two taps 32768 each (2 taps; an exact 2:1 down). */
static int taps_halves(const struct taps *t)
{
    if (t->n != 2)
        return 0;
    for (size_t i = 0; i < 2 * (size_t)t->count; i++)
        if (t->w[i] != 32768)
            return 0;
    return 1;
}

static void gpu_release(void *state)
{
    struct resize_gpu *s = state;
    if (s)
        gpu_free(s->block);
    free(s);
}

static int gpu_prepare(const struct op_args *a, const struct geom *in, const struct geom *out, int variant,
                       void **state)
{
    struct resize_gpu *s = calloc(1, sizeof *s);
    void *part[5];
    int r;
    if (!s)
        return gpuimg_fail(GPUIMG_ENOMEM, "out of memory for resize tables");
    if (wide(a->v[P_FILTER].choice)) {
        struct itaps tx = { 0 }, ty = { 0 };
        r = wide_taps(a->v[P_FILTER].choice, &tx, &ty, in, out);
        if (!r) {
            struct gpu_interp_tables *t = &s->wt;
            t->narrow = itaps_narrow(&tx, in->c, in->depth);
            /* the tallest tile whose source rows' sums fit the shared memory, for tiled and vector */
            for (int th = 32; th >= 8 && !t->tile_h && (variant == KV_TILED || variant == KV_VECTOR); th /= 2) {
                const int rows = itaps_span(&ty, th);
                if (gpu_interp_tile_bytes(rows, in->c, t->narrow) <= GPU_INTERP_TILE_MAX) {
                    t->tile_h = th;
                    t->tile_rows = rows;
                }
            }
            const void *host[5] = { tx.idx, tx.w, ty.idx, ty.w, NULL };
            const size_t bytes[5] = { (size_t)tx.count * tx.n * 4, (size_t)tx.count * tx.n * 2, (size_t)ty.count * ty.n * 4,
                                      (size_t)ty.count * ty.n * 2,
                                      t->tile_h ? 0 : gpu_interp_scratch(out->w, in->h, in->c, t->narrow) };
            r = op_upload_parts(&op_resize, variant, &s->block, 5, host, bytes, part);
            if (!r) {
                t->xi = part[0];
                t->xw = part[1];
                t->yi = part[2];
                t->yw = part[3];
                t->sums = t->tile_h ? NULL : part[4];
                t->nx = tx.n;
                t->ny = ty.n;
            }
        }
        itaps_free(&tx);
        itaps_free(&ty);
    } else if (a->v[P_FILTER].choice == F_NEAREST) {
        int32_t *xs = nearest_table(in->w, out->w), *ys = nearest_table(in->h, out->h);
        const void *host[2] = { xs, ys };
        const size_t bytes[2] = { (size_t)out->w * sizeof *xs, (size_t)out->h * sizeof *ys };
        r = xs && ys ? op_upload_parts(&op_resize, variant, &s->block, 2, host, bytes, part)
                     : (int)gpuimg_fail(GPUIMG_ENOMEM, "out of memory for resize tables");
        if (!r) {
            s->xi = part[0];
            s->yi = part[1];
        }
        free(xs);
        free(ys);
    } else {
        struct taps tx = { 0 }, ty = { 0 };
        const size_t scratch = family(a, variant, in, out, NULL) == RK_TEXTURE
                                   ? gpu_texture_scratch(in->w, in->h, in->depth) : 0;
        r = filter_taps(a->v[P_FILTER].choice, &tx, &ty, in, out);
        if (!r) {
            const void *host[5] = { tx.idx, tx.w, ty.idx, ty.w, NULL };
            const size_t nx = (size_t)tx.count * tx.n * 4, ny = (size_t)ty.count * ty.n * 4;
            const size_t bytes[5] = { nx, nx, ny, ny, scratch };
            r = op_upload_parts(&op_resize, variant, &s->block, 5, host, bytes, part);
        }
        if (!r) {
            s->xi = part[0];
            s->xw = part[1];
            s->yi = part[2];
            s->yw = part[3];
            s->scratch = scratch ? part[4] : NULL;
            s->nx = tx.n;
            s->ny = ty.n;
            /* tiled's tile and vector's warp segment and rows kernel take 2 taps an axis */
            const int two = tx.n == 2 && ty.n == 2;
            s->tiled_fit = two && variant == KV_TILED
                               ? gpu_resize_tiled_pitch(in->c, in->depth, out->w, out->h, tx.idx, ty.idx) : 0;
            s->warp_fits = two && variant == KV_VECTOR && gpu_resize_warp_fits(in->c, in->depth, out->w, tx.idx);
            s->vhalf = two && variant == KV_VECTOR && taps_halves(&ty);
            s->rows_seg = two && variant == KV_VECTOR
                              ? gpu_resize_rows_fit(in->c, in->depth, out->w, tx.idx, &s->rows_gs) : 0;
        }
        taps_free(&tx);
        taps_free(&ty);
    }
    if (r)
        gpu_release(s);
    else
        *state = s;
    return r;
}

static int gpu_launch(const struct op_args *a, const void *state, const struct gpu_call *k, const struct gpu_image *in,
                      const struct gpu_image *out, const char **ran)
{
    const struct resize_gpu *s = state;
    char err[256];
    const struct geom gi = { in->w, in->h, in->c, in->depth }, go = { out->w, out->h, out->c, out->depth };
    const enum rk f = in->gray_from ? gray_in_family(k->variant, &gi, &go, s) : family(a, k->variant, &gi, &go, s);
    if (f == RK_NONE)   /* the pipeline fuses only where gpu_fuse found a kernel */
        return op_cuda_fail(&op_resize, k->variant, "no kernel reads this input through gray");
    if (strcmp(rk_names[f], kernel_names[k->variant]))
        *ran = rk_names[f];
    /* the perpixel and coalesced families, and bilerp (the gathering kernels' vector form) */
    const struct gpu_call g = { f == RK_BILERP ? KV_VECTOR : f == RK_COALESCED ? KV_COALESCED : KV_PERPIXEL, k->shape };
    const struct gpu_call gw = { f == RK_TILED ? KV_TILED : g.variant, k->shape };
    int rc = wide(a->v[P_FILTER].choice) ? gpu_interp(&gw, in, out, &s->wt, err, sizeof err)
             : a->v[P_FILTER].choice == F_NEAREST ? gpu_nearest(&g, in, out, s->xi, s->yi, err, sizeof err)
             : f == RK_HALF                     ? gpu_half(k, in, out, err, sizeof err)
             : f == RK_DOUBLE                   ? gpu_double(k, in, out, err, sizeof err)
             : f == RK_TILED ? gpu_resize_tiled(in, out, s->xi, s->xw, s->yi, s->yw, s->tiled_fit, err, sizeof err)
             : f == RK_ROWS  ? gpu_resize_rows(in, out, s->xi, s->xw, s->yi, s->yw, s->vhalf, s->rows_seg, s->rows_gs,
                                               err, sizeof err)
             : f == RK_WARP  ? gpu_resize_warp(in, out, s->xi, s->xw, s->yi, s->yw, s->vhalf, err, sizeof err)
             : f == RK_TEXTURE ? gpu_texture_bilinear(k, in, out, s->scratch, err, sizeof err)
                               : gpu_sepfilter(&g, in, out, s->xi, s->xw, s->nx, s->yi, s->yw, s->ny, err, sizeof err);
    return rc ? op_cuda_fail(&op_resize, k->variant, err) : GPUIMG_OK;
}

static long gpu_tolerance(const struct op_args *a, const struct geom *in, int variant)
{
    if (variant != KV_TEXTURE || a->v[P_FILTER].choice != F_BILINEAR || in->c != 1)
        return 0;
    return in->depth == 8 ? GPU_TEXTURE_TOL8 : GPU_TEXTURE_TOL16;
}

/* gpu_prepare's rows fit (vector, two taps, 8-bit grey) decides, as it does at the launch */
static unsigned gpu_fuse(const struct op_args *a, const struct geom *in, const struct geom *out, int variant,
                         const void *state)
{
    (void)a;
    return gray_in_family(variant, in, out, state) != RK_NONE ? FUSE_GRAY_IN : 0;
}
#endif

const struct op_desc op_resize = {
    .name = "resize",
    .summary = "scale to P% or into a box (resize=50%, resize=1920x1080, resize=800x600:fit=cover, resize=800x)",
    .definition =
        "Output size: P% rounds w*P/100 and h*P/100 to the nearest pixel (at least 1); Wx and xH keep the "
        "aspect ratio, rounding the other side. A box WxH: fit=inside (default) scales by the smaller of W/w and "
        "H/h, fit=cover and outside by the larger, that side becoming W or H exactly and the other rounded; "
        "cover then crops to WxH and contain (inside) pads to WxH with color, placed by gravity (crop, pad); fill (or WxH!) "
        "is WxH. WxH> leaves an image within the box as it is, WxH< one that reaches it on a side. Source coordinate of output pixel x': (x'+0.5)*in/out-0.5 "
        "(pixel centres, as OpenCV, NPP and PyTorch with align_corners=False). "
        "bilinear: two taps per axis with weights rounded to 1/65536, clamped at the edges; within 1 level "
        "of OpenCV INTER_LINEAR (8 and 16 bits). area: each output pixel averages the input area it covers, every input "
        "pixel weighted by its overlap (weights rounded to 1/65536 as steps of their rounded running total, "
        "so none is negative and they sum to 1); within 1 level of OpenCV INTER_AREA. "
        "nearest: input column min((s*x' + s/2 - 1) >> 16, in-1) with s = ((in << 16) + out/2) / out, "
        "equal to OpenCV INTER_NEAREST_EXACT. cubic (Keys, a=-0.75) and lanczos3 (sinc(x)sinc(x/3), |x|<3): "
        "source pixel i weighs K((i-c)/s) for the centre c and s = max(in/out, 1) (widened when shrinking, as vips "
        "and ImageMagick), normalised and rounded to 1/16384, edges replicated; cubic enlarging is within 1 level "
        "of OpenCV INTER_CUBIC at 8 bits and 16 at 16 bits, lanczos3 shrinking within 2 of vips 8.14's lanczos3 (it rounds between passes). "
        "The filtered result is computed exactly in integers and rounded once. With alpha, colour is filtered premultiplied and divided back with rounding "
        "(fully transparent results get colour 0).",
    .params = params,
    .nparams = 5,
    .resolve = resolve,
    .cpu = cpu,
    .then = then,
    .load_shrink = load_shrink,
    .region = region,
    .tile_args = tile_args,
    GPU_FIELDS(KV_BIT(KV_PERPIXEL) | KV_BIT(KV_COALESCED) | KV_BIT(KV_TILED) | KV_BIT(KV_VECTOR) | KV_BIT(KV_TEXTURE),
               KV_VECTOR,   /* the fastest beside perpixel, tiled and texture */
               gpu_prepare, gpu_launch, gpu_release),
    GPU_FUSE(gpu_fuse),
    .gpu_state_reuse = 1,
#ifdef HAVE_CUDA
    .gpu_tolerance = gpu_tolerance,
#endif
    .gpu_shape = { [KV_VECTOR] = SHAPE_2D },
    .examples = EXAMPLES("resize=50%", "resize=200%", "resize=70%:filter=lanczos3", "resize=150%:filter=cubic"),
};
