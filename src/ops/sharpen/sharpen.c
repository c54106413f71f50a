/* gpuimg: sharpen, an unsharp mask. Each colour sample v with b its value in blur=sigma's result
 * (the same kernel, reflect101 border and premultiplied alpha: ops/common/gauss.h and the
 * separable engine) becomes floor(v + amount * (v - b) + 0.5), clamped to 0..top, where |v - b|
 * exceeds the threshold, and stays v elsewhere; alpha is kept. The blur runs row by row and each
 * row is finished as soon as it is blurred (sepfilter_run_rows), in place in the output. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include "core/error.h"
#include "core/op.h"
#include "ops/common/gauss.h"
#include "cuda/sepfilter/kernels.h"
#include "cuda/sharpen/kernels.h"

extern const struct op_desc op_sharpen;   /* this operation, defined at the end */

enum { P_SIGMA, P_AMOUNT, P_THRESHOLD };
static const struct op_param params[] = {
    { "sigma", PARAM_NUMBER, 0, 100, 1, NULL, NULL, "standard deviation of the gaussian (as blur=sigma) in pixels" },
    { "amount", PARAM_NUMBER, 0, 20, 0, NULL, "1", "how much of the difference from the blur is added" },
    { "threshold", PARAM_NUMBER, 0, 255, 0, NULL, "0",
      "differences from the blur of at most this many levels of 255 (times 257 at 16 bits) are left alone" },
};

static int resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    *out = *in;
    return GPUIMG_OK;
}

/* The threshold in levels of the image's depth: |v - b| > t for a real t is |v - b| > floor(t). */
static int32_t threshold_levels(const struct op_args *a, int depth)
{
    return (int32_t)floor(a->v[P_THRESHOLD].num * (depth == 16 ? 257.0 : 1.0));
}

/* One colour sample. The same steps as the GPU's (cuda/sharpen/sharpen.cu), each rounded to
 * double: the product, the sum, the half added (gcc fuses none of them on x86-64's baseline, nor
 * for the "avx2" clone below, which has no FMA); x below 1 floors to 0 or less, and from 1 up
 * truncation is the floor. No branch, so that the row's loop vectorises. */
static inline uint32_t sharpen_sample(int32_t v, int32_t b, double amount, int32_t thr, int32_t top)
{
    const int32_t d = v - b;
    const double x = (double)v + amount * (double)d + 0.5;
    const int32_t r = x < 1 ? 0 : x >= top ? top : (int32_t)x;
    return (uint32_t)(d > thr || d < -thr ? r : v);
}

struct combine {
    const struct image *in;
    struct image *out;   /* holds the blur of each row until the row is finished */
    const uint8_t *lut;  /* 8 bits: every (v, v - b)'s result, lut[v * 511 + v - b + 255] */
    double amount;
    int32_t thr;
};

/* Alpha (the last of 2 or 4 samples) put back from the input after a row's loop has taken every
 * sample as a colour: that loop runs over a plain run of samples, which vectorises. */
static void keep_alpha(const void *s, void *d, int w, int c, int depth)
{
    if (c != 2 && c != 4)
        return;
    for (int x = 0; x < w; x++)
        if (depth == 16)
            ((uint16_t *)d)[x * c + c - 1] = ((const uint16_t *)s)[x * c + c - 1];
        else
            ((uint8_t *)d)[x * c + c - 1] = ((const uint8_t *)s)[x * c + c - 1];
}

/* Row y of out from the blur there and the input (sepfilter_run_rows' row); 8 bits by the table
 * where there is one. */
static void combine_row_u8(void *ctx, int y)
{
    const struct combine *k = ctx;
    const uint8_t *restrict s = k->in->data + (size_t)y * k->in->stride;
    uint8_t *restrict d = k->out->data + (size_t)y * k->out->stride;
    const uint8_t *restrict lut = k->lut;
    const size_t n = (size_t)k->in->w * k->in->c;
    if (lut)
        for (size_t i = 0; i < n; i++)
            d[i] = lut[s[i] * 511 + s[i] - d[i] + 255];
    else
        for (size_t i = 0; i < n; i++)
            d[i] = (uint8_t)sharpen_sample(s[i], d[i], k->amount, k->thr, 255);
    keep_alpha(s, d, k->in->w, k->in->c, 8);
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define CLONES __attribute__((target_clones("avx2", "default")))   /* AVX2 without FMA: the same roundings */
#else
#define CLONES
#endif
CLONES static void combine_row_u16(void *ctx, int y)
{
    const struct combine *k = ctx;
    const uint16_t *restrict s = (const uint16_t *)(k->in->data + (size_t)y * k->in->stride);
    uint16_t *restrict d = (uint16_t *)(k->out->data + (size_t)y * k->out->stride);
    const size_t n = (size_t)k->in->w * k->in->c;
    const double amount = k->amount;
    const int32_t thr = k->thr;
    for (size_t i = 0; i < n; i++)
        d[i] = (uint16_t)sharpen_sample(s[i], d[i], amount, thr, 65535);
    keep_alpha(s, d, k->in->w, k->in->c, 16);
}

/* 8 bits: the table of every (v, v - b), made by sharpen_sample itself (so the same bits), 128 KiB;
 * made for images of at least as many samples (a small tile computes its samples). */
#define LUT_SIZE (256 * 511)
static uint8_t *make_lut(double amount, int32_t thr)
{
    uint8_t *lut = malloc(LUT_SIZE);
    if (!lut) {
        gpuimg_fail(GPUIMG_ENOMEM, "out of memory for the sharpen table");
        return NULL;
    }
    for (int v = 0; v < 256; v++)
        for (int d = -255; d <= 255; d++)
            lut[v * 511 + d + 255] = (uint8_t)sharpen_sample(v, v - d, amount, thr, 255);
    return lut;
}

static int cpu(const struct op_args *a, const struct image *in, struct image *out)
{
    struct combine k = { in, out, NULL, a->v[P_AMOUNT].num, threshold_levels(a, in->depth) };
    if (in->depth == 8 && (size_t)in->w * in->h * in->c >= LUT_SIZE && !(k.lut = make_lut(k.amount, k.thr)))
        return GPUIMG_ENOMEM;
    struct gauss g;
    int r = gauss_make(&g, a->v[P_SIGMA].num, in->depth, GAUSS_REFLECT101, in->w, in->h);
    if (!r)
        r = sepfilter_run_rows(in, out, &g.tx, &g.ty, in->depth == 16 ? combine_row_u16 : combine_row_u8, &k);
    gauss_free(&g);
    free((void *)k.lut);
    return r;
}

#ifdef HAVE_CUDA
/* A sharpen step's device state: blur's perpixel and coalesced tap tables (the CPU's), and the
 * blurred image the combine reads. */
struct sharpen_gpu {
    void *block;                       /* the one device allocation the parts below are in */
    int ksize;
    const int32_t *xi, *yi;
    const uint32_t *xw, *yw;
    void *blur;                        /* the input's geometry */
    double amount;
    int32_t thr;
};

static void gpu_release(void *state)
{
    struct sharpen_gpu *s = state;
    if (s)
        gpu_free(s->block);
    free(s);
}

static int gpu_prepare(const struct op_args *a, const struct geom *in, const struct geom *out, int variant,
                       void **state)
{
    struct sharpen_gpu *s = calloc(1, sizeof *s);
    if (!s)
        return gpuimg_fail(GPUIMG_ENOMEM, "out of memory for the sharpen tables");
    struct gauss g;
    size_t image = 0;
    int r = geom_bytes(in, &image);
    if (!r)
        r = gauss_make(&g, a->v[P_SIGMA].num, in->depth, GAUSS_REFLECT101, in->w, in->h);
    if (!r) {
        void *part[5];
        const void *host[5] = { g.tx.idx, g.tx.w, g.ty.idx, g.ty.w, NULL };
        const size_t nx = (size_t)g.tx.count * g.ksize * 4, ny = (size_t)g.ty.count * g.ksize * 4;
        const size_t bytes[5] = { nx, nx, ny, ny, image };
        r = op_upload_parts(&op_sharpen, variant, &s->block, 5, host, bytes, part);
        if (!r) {
            s->ksize = g.ksize;
            s->xi = part[0];
            s->xw = part[1];
            s->yi = part[2];
            s->yw = part[3];
            s->blur = part[4];
            s->amount = a->v[P_AMOUNT].num;
            s->thr = threshold_levels(a, in->depth);
        }
        gauss_free(&g);
    }
    if (r)
        gpu_release(s);
    else
        *state = s;
    return r;
}

/* blur's perpixel or coalesced kernel into the state's image, then the combine in the same style */
static int gpu_launch(const struct op_args *a, const void *state, const struct gpu_call *k, const struct gpu_image *in,
                      const struct gpu_image *out, const char **ran)
{
    const struct sharpen_gpu *s = state;
    struct gpu_image blur = { .data = s->blur, .w = in->w, .h = in->h, .c = in->c, .depth = in->depth };
    char err[256];
    int rc = gpu_sepfilter(k, in, &blur, s->xi, s->xw, s->ksize, s->yi, s->yw, s->ksize, err, sizeof err);
    if (!rc)
        rc = gpu_sharpen_combine(k, in, s->blur, out, s->amount, s->thr, err, sizeof err);
    return rc ? op_cuda_fail(&op_sharpen, k->variant, err) : GPUIMG_OK;
}
#endif

/* A tile needs the gaussian's halo (gauss_region). */
static void region(const struct op_args *a, const struct geom *in, const struct geom *out, const struct rect *want,
                   struct rect *need, struct rect *yields)
{
    gauss_region(a->v[P_SIGMA].num, in, want, need, yields);
}

const struct op_desc op_sharpen = {
    .name = "sharpen",
    .summary = "unsharp mask against a gaussian of sigma (sharpen=1, sharpen=2:amount=0.5:threshold=3)",
    .definition =
        "Unsharp mask: with b the sample's value in blur=sigma's result (the same kernel, reflect101 border and "
        "premultiplied alpha), each colour sample v becomes floor(v + amount*(v - b) + 0.5) in float64 (the "
        "product, the sum and the half each rounded), clamped to 0..255 (65535 at 16 bits), where |v - b| > "
        "threshold levels (times 257 at 16 bits), and stays v elsewhere; alpha unchanged. amount 1 and "
        "threshold 0 unless given. Without alpha it equals the float64 formula on cv2.GaussianBlur(img, (0,0), "
        "sigma) bit for bit, 8 and 16 bits; with alpha, on OpenCV's fixed-point kernel applied to premultiplied "
        "float64 planes (within 1 level).",
    .params = params,
    .nparams = 3,
    .resolve = resolve,
    .cpu = cpu,
    .region = region,
    GPU_FIELDS(KV_BIT(KV_PERPIXEL) | KV_BIT(KV_COALESCED), KV_PERPIXEL, gpu_prepare, gpu_launch, gpu_release),
    .examples = EXAMPLES("sharpen=2:amount=0.7:threshold=3"),
};
