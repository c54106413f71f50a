/* gpuimg: trim, the image less a border of near-constant colour, as vips_find_trim (8.14) finds
 * it then crops. The box depends on the pixels, so the step measures its input before it runs
 * (op_desc.measure; the plan sizes the steps after it anew): on the CPU rows in parallel, each
 * scanned in from both ends until a pixel differs; on the GPU a reduction (cuda/trim/) whose four
 * numbers come back. The crop is row copies (the GPU's copy engine). */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/op.h"
#include "cuda/trim/kernels.h"

extern const struct op_desc op_trim;   /* this operation, defined at the end */

enum { P_THRESHOLD, P_BACKGROUND };
static const struct op_param params[] = {
    { "threshold", PARAM_NUMBER, 0, 255, 0, NULL, "10",
      "a pixel is not background where a sample differs from the background's by more than this (levels of 8 bits, "
      "times 257 at 16)" },
    { "background", PARAM_COLOR, 0, 0, 0, NULL, "(the top-left pixel's)",
      "the border's colour (vips's own default is white: background=white)" },
};

/* The rule's numbers for this input: the threshold in levels, the background's colour samples. */
struct trim_rule {
    uint32_t thr, bg[3];
};

/* (in->data NULL: the background's samples stay 0 unless given; the GPU reads the pixel itself) */
static void trim_rule(const struct op_args *a, const struct image *in, struct trim_rule *t)
{
    const int top = in->depth == 16 ? 65535 : 255, nc = has_alpha(in->c) ? in->c - 1 : in->c;
    memset(t, 0, sizeof *t);
    t->thr = (uint32_t)(a->v[P_THRESHOLD].num * (top / 255) + 1e-9);   /* |d| > T is |d| > floor(T) in integers */
    if (a->v[P_BACKGROUND].set) {
        uint16_t px[4];
        color_pixel(a->v[P_BACKGROUND].color, nc, in->depth, px);   /* opaque colour samples: grey is its luma */
        for (int k = 0; k < nc; k++)
            t->bg[k] = in->depth == 16 ? px[k] : ((uint8_t *)px)[k];
    } else if (in->data)
        for (int k = 0; k < nc; k++)
            t->bg[k] = in->depth == 16 ? ((const uint16_t *)in->data)[k] : in->data[k];
}

/* Sample k of pixel (x, y), its coordinates clamped to the image (vips's median copies the edge),
 * flattened onto the background where there is alpha: (v a + b (top - a)) / top, truncated as
 * vips_flatten does. */
static inline uint32_t flat(const struct image *in, const struct trim_rule *t, int x, int y, int k)
{
    x = x < 0 ? 0 : x >= in->w ? in->w - 1 : x;
    y = y < 0 ? 0 : y >= in->h ? in->h - 1 : y;
    const size_t i = ((size_t)y * in->w + x) * in->c;
    const uint32_t v = in->depth == 16 ? ((const uint16_t *)in->data)[i + k] : in->data[i + k];
    if (!has_alpha(in->c))
        return v;
    const uint32_t top = in->depth == 16 ? 65535 : 255;
    const uint32_t al = in->depth == 16 ? ((const uint16_t *)in->data)[i + in->c - 1] : in->data[i + in->c - 1];
    return (v * al + t->bg[k] * (top - al)) / top;
}

static void trim_box(struct op_args *a, int w, int h, int x0, int x1, int y0, int y1);

#define SORT2(a, b) do { const uint32_t lo_ = a < b ? a : b, hi_ = a < b ? b : a; a = lo_; b = hi_; } while (0)
/* The median of nine (Paeth's network: 19 compare-exchanges). */
static inline uint32_t med9(uint32_t *p)
{
    SORT2(p[1], p[2]); SORT2(p[4], p[5]); SORT2(p[7], p[8]); SORT2(p[0], p[1]); SORT2(p[3], p[4]);
    SORT2(p[6], p[7]); SORT2(p[1], p[2]); SORT2(p[4], p[5]); SORT2(p[7], p[8]); SORT2(p[0], p[3]);
    SORT2(p[5], p[8]); SORT2(p[4], p[7]); SORT2(p[3], p[6]); SORT2(p[1], p[4]); SORT2(p[2], p[5]);
    SORT2(p[4], p[7]); SORT2(p[4], p[2]); SORT2(p[6], p[4]); SORT2(p[4], p[2]);
    return p[4];
}

/* Whether pixel (x, y) is not background: the median of its 3x3 neighbourhood, in some colour
 * band, more than the threshold from the background's sample. */
static int differs(const struct image *in, const struct trim_rule *t, int x, int y)
{
    const int nc = has_alpha(in->c) ? in->c - 1 : in->c;
    for (int k = 0; k < nc; k++) {
        uint32_t v[9];
        for (int j = 0; j < 9; j++)
            v[j] = flat(in, t, x + j % 3 - 1, y + j / 3 - 1, k);
        const uint32_t m = med9(v);
        if ((m > t->bg[k] ? m - t->bg[k] : t->bg[k] - m) > t->thr)
            return 1;
    }
    return 0;
}

/* The box: each row scanned in from the left until a pixel differs and from the right down to
 * it, so that only the border's pixels are all looked at. */
static int measure(struct op_args *a, const struct image *in)
{
    struct trim_rule t;
    trim_rule(a, in, &t);
    int x0 = in->w, x1 = -1, y0 = in->h, y1 = -1;
#pragma omp parallel for schedule(dynamic, 16) reduction(min : x0, y0) reduction(max : x1, y1)
    for (int y = 0; y < in->h; y++) {
        int l = 0;
        while (l < in->w && !differs(in, &t, l, y))
            l++;
        if (l == in->w)
            continue;
        int r = in->w - 1;
        while (r > l && !differs(in, &t, r, y))
            r--;
        x0 = l < x0 ? l : x0;
        x1 = r > x1 ? r : x1;
        y0 = y < y0 ? y : y0;
        y1 = y > y1 ? y : y1;
    }
    trim_box(a, in->w, in->h, x0, x1, y0, y1);
    return GPUIMG_OK;
}

static void trim_box(struct op_args *a, int w, int h, int x0, int x1, int y0, int y1)
{
    a->measured = 1;
    a->box = x1 < x0 ? (struct rect){ 0, 0, w, h }   /* all background: the image unchanged */
                     : (struct rect){ x0, y0, x1 - x0 + 1, y1 - y0 + 1 };
}

/* Before the measure the bound, the whole input; after it the box. */
static int resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    *out = *in;
    if (a->measured) {
        out->w = a->box.w;
        out->h = a->box.h;
    }
    return GPUIMG_OK;
}

static int cpu(const struct op_args *a, const struct image *in, struct image *out)
{
    const struct rect b = a->measured ? a->box : (struct rect){ 0, 0, in->w, in->h };
    const size_t bpp = image_bpp(in), row = (size_t)out->w * bpp;
#pragma omp parallel for schedule(static)
    for (int y = 0; y < out->h; y++)
        memcpy(out->data + (size_t)y * out->stride, in->data + (size_t)(y + b.y) * in->stride + (size_t)b.x * bpp, row);
    return GPUIMG_OK;
}

#ifdef HAVE_CUDA
/* The box's four numbers on the device (16 bytes), kept for the step. */
static int gpu_prepare(const struct op_args *a, const struct geom *in, const struct geom *out, int variant, void **state)
{
    (void)a, (void)in, (void)out;
    char err[256];
    if (gpu_malloc(state, 4 * sizeof(int), err, sizeof err))
        return op_cuda_fail(&op_trim, variant, err);
    return GPUIMG_OK;
}

static void gpu_release(void *state) { gpu_free(state); }

static int gpu_measure(struct op_args *a, const void *state, const struct gpu_call *k, const struct gpu_image *in)
{
    const struct image hdr = { .w = in->w, .h = in->h, .c = in->c, .depth = in->depth };   /* no pixels */
    struct trim_rule t;
    trim_rule(a, &hdr, &t);
    char err[256];
    int box[4];
    if (gpu_trim_box(k, in, a->v[P_BACKGROUND].set, t.bg, t.thr, (int *)state, box, err, sizeof err))
        return op_cuda_fail(&op_trim, k->variant, err);
    trim_box(a, in->w, in->h, box[0], box[1], box[2], box[3]);
    return GPUIMG_OK;
}

static int gpu(const struct op_args *a, const void *state, const struct gpu_call *k, const struct gpu_image *in,
               const struct gpu_image *out, const char **ran)
{
    (void)state;
    const struct rect b = a->measured ? a->box : (struct rect){ 0, 0, in->w, in->h };
    const size_t bpp = (size_t)in->c * (size_t)(in->depth / 8);
    char err[256];
    const uint8_t *src = (const uint8_t *)in->data + ((size_t)b.y * (size_t)in->w + (size_t)b.x) * bpp;
    *ran = NULL;
    if (gpu_copy2d(out->data, (size_t)out->w * bpp, src, (size_t)in->w * bpp, (size_t)out->w * bpp, (size_t)out->h,
                   GPU_D2D, err, sizeof err))
        return op_cuda_fail(&op_trim, k->variant, err);
    return GPUIMG_OK;
}
#endif

const struct op_desc op_trim = {
    .name = "trim",
    .summary = "the image less a border of near-constant colour, as vips find_trim (trim, trim=30:background=white)",
    .definition =
        "The background is the colour given (grey: its BT.601 luma; 16 bits v*257), else the top-left pixel's colour "
        "samples. With alpha, each colour sample v of alpha a is first flattened onto it: (v*a + b*(top - a)) / top, "
        "truncated (vips_flatten). A pixel is not background where the median of its 3x3 neighbourhood (edges "
        "copied), in some colour band, differs from the background's sample by more than the threshold, in levels "
        "of 8 bits (floor(T*257) at 16). The result is the smallest rectangle holding every such pixel; an image "
        "that is all background is left unchanged. vips 8.14's find_trim with the same background and threshold "
        "(vips's default background is white) finds the same box: exact. The box is measured on the step's input "
        "before it runs, so the step runs whole, never in tiles or bands. The steps after it are sized from the trimmed "
        "image: a later pad to a canvas smaller than the input but not than the trimmed image works, and one that "
        "cannot take the trimmed image fails once it is measured, naming the file.",
    .params = params,
    .nparams = 2,
    .resolve = resolve,
    .cpu = cpu,
    .measure = measure,
#ifdef HAVE_CUDA
    .gpu_measure = gpu_measure,
#endif
    GPU_FIELDS(KV_BIT(KV_PERPIXEL) | KV_BIT(KV_COALESCED), KV_COALESCED, gpu_prepare, gpu, gpu_release),
    .examples = EXAMPLES("trim", "trim=60:background=white"),
};
