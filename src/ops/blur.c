/* gpuimg: gaussian blur. A separable kernel of size round(6 sigma + 1) | 1 taps for 8 bits and
 * round(8 sigma + 1) | 1 for 16 bits (OpenCV's choice), weights exp(-k^2 / 2 sigma^2) normalised
 * and rounded to Q16 summing to 65536, run by the shared separable engine (premultiplied
 * alpha). Borders: reflect101 (dcb|abcd|cba, folded again for kernels wider than the image),
 * replicate, or constant 0. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include "error.h"
#include "ops.h"
#include "sepfilter.h"

enum { P_SIGMA, P_BORDER };
enum { B_REFLECT101, B_REPLICATE, B_CONSTANT };
static const struct op_param params[] = {
    { "sigma", PARAM_NUMBER, 0, 100, 1, NULL, NULL, "standard deviation of the gaussian in pixels" },
    { "border", PARAM_CHOICE, 0, 0, 0, "reflect101|replicate|constant", "reflect101",
      "what lies beyond the edges: mirror without repeating the edge, repeat the edge, or 0" },
};

static int resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    *out = *in;
    return GPUIMG_OK;
}

int blur_kernel_size(double sigma, int depth)
{
    return (int)lround(sigma * (depth == 8 ? 6 : 8) + 1) | 1;
}

/* Source index for p under the border rule, or -1 for "outside, value 0". */
static int border_index(int p, int n, int mode)
{
    if (p >= 0 && p < n)
        return p;
    if (mode == B_CONSTANT)
        return -1;
    if (mode == B_REPLICATE || n == 1)
        return p < 0 ? 0 : n - 1;
    while (p < 0 || p >= n)   /* reflect101, repeated for kernels wider than the image */
        p = p < 0 ? -p : 2 * (n - 1) - p;
    return p;
}

static int blur_taps(struct taps *t, int n, const uint32_t *kern, int ksize, int mode)
{
    int r = taps_alloc(t, n, ksize);
    if (r)
        return r;
    const int rad = ksize / 2;
    for (int o = 0; o < n; o++)
        for (int k = 0; k < ksize; k++) {
            int p = border_index(o - rad + k, n, mode);
            t->idx[(size_t)o * ksize + k] = p < 0 ? 0 : p;
            t->w[(size_t)o * ksize + k] = p < 0 ? 0 : kern[k];
        }
    return GPUIMG_OK;
}

static int cpu(const struct op_args *a, const struct image *in, struct image *out)
{
    const double sigma = a->v[P_SIGMA].num;
    const int mode = a->v[P_BORDER].choice, ksize = blur_kernel_size(sigma, in->depth), rad = ksize / 2;
    double *g = malloc(sizeof *g * ksize);
    uint32_t *kern = malloc(sizeof *kern * ksize);
    struct taps tx = { 0 }, ty = { 0 };
    int r = GPUIMG_OK;
    if (!g || !kern)
        r = gpuimg_fail(GPUIMG_ENOMEM, "out of memory for the blur kernel");
    if (!r) {
        double sum = 0;
        for (int k = 0; k < ksize; k++)
            sum += g[k] = exp(-(double)(k - rad) * (k - rad) / (2 * sigma * sigma));
        for (int k = 0; k < ksize; k++)
            g[k] /= sum;
        taps_quantize(g, kern, ksize);
        r = blur_taps(&tx, in->w, kern, ksize, mode);
    }
    if (!r)
        r = blur_taps(&ty, in->h, kern, ksize, mode);
    if (!r)
        r = sepfilter_run(in, out, &tx, &ty);
    taps_free(&tx);
    taps_free(&ty);
    free(g);
    free(kern);
    return r;
}

const struct op_desc op_blur = {
    .name = "blur",
    .summary = "gaussian blur with standard deviation sigma (blur=2, blur=2:border=replicate)",
    .definition =
        "Separable gaussian of ksize = round(6*sigma+1)|1 taps for 8-bit images and round(8*sigma+1)|1 for "
        "16-bit (as OpenCV chooses), weights exp(-k^2/(2 sigma^2)) normalised and rounded to integers summing "
        "to 65536, applied down then across, computed exactly and rounded once. border=reflect101 (default) "
        "mirrors without repeating the edge pixel (dcb|abcd|cba), replicate repeats it, constant uses 0. "
        "8 bits: within 1 level of cv2.GaussianBlur(img, (0,0), sigma) with the same border; 16 bits: within "
        "4 of 65535 (1/16 of an 8-bit level, the precision of 1/65536 weights over two passes). With alpha, "
        "colour is filtered premultiplied.",
    .params = params,
    .nparams = 2,
    .resolve = resolve,
    .cpu = cpu,
};
