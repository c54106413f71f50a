/* gpuimg: the shared gaussian (gauss.h): OpenCV's fixed-point kernel, the borders, the tables. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include "core/error.h"
#include "ops/common/gauss.h"

int gauss_ksize(double sigma, int depth)
{
    return (int)lround(sigma * (depth == 8 ? 6 : 8) + 1) | 1;
}

int gauss_border_index(int p, int n, int mode)
{
    if (p >= 0 && p < n)
        return p;
    if (mode == GAUSS_CONSTANT)
        return -1;
    if (mode == GAUSS_REPLICATE || n == 1)
        return p < 0 ? 0 : n - 1;
    while (p < 0 || p >= n)   /* reflect101, repeated for kernels wider than the image */
        p = p < 0 ? -p : 2 * (n - 1) - p;
    return p;
}

/* OpenCV's bit-exact construction: g_i = exp(-(i - ksize/2)^2 / (2 sigma^2)) / sum, quantised
 * from the outside in with the rounding error carried to the next tap, the centre taking what
 * makes the sum exact. 8 bits: Q8 (OpenCV's ufixedpoint16), scaled to Q16 so the engine's one
 * rounding gives (sum + 2^15) >> 16; every weight is then a multiple of 256, which the fast paths
 * rely on. 16 bits: Q16. */
uint32_t *gauss_kernel(double sigma, int depth, int *ksize_out)
{
    const int ksize = gauss_ksize(sigma, depth), rad = ksize / 2, bits = depth == 8 ? 8 : 16;
    double *g = malloc(sizeof *g * ksize);
    uint32_t *kern = malloc(sizeof *kern * ksize);
    if (!g || !kern) {
        free(g);
        free(kern);
        gpuimg_fail(GPUIMG_ENOMEM, "out of memory for the gaussian kernel");
        return NULL;
    }
    const double scale = -0.125 / (sigma * sigma);   /* in OpenCV's form: x = 2k, x^2 / 8 sigma^2 */
    double sum = 1;
    for (int k = 0; k < rad; k++) {
        const double x = 2.0 * (k - rad);
        sum += 2 * (g[k] = exp(x * x * scale));
    }
    const double one = (double)(1 << bits), mul = 1 / sum;
    double err = 0;
    int64_t placed = 0;
    for (int k = 0; k < rad; k++) {
        const double v = g[k] * mul * one + err, q = nearbyint(v);
        err = v - q;
        kern[k] = kern[ksize - 1 - k] = (uint32_t)q << (16 - bits);
        placed += 2 * (int64_t)q;
    }
    kern[rad] = (uint32_t)((int64_t)(1 << bits) - placed) << (16 - bits);
    free(g);
    *ksize_out = ksize;
    return kern;
}

static int gauss_taps(struct taps *t, int n, const uint32_t *kern, int ksize, int mode)
{
    int r = taps_alloc(t, n, ksize);
    if (r)
        return r;
    const int rad = ksize / 2;
    t->kern = kern;   /* away from the borders every output has the same taps */
    t->lo = rad;
    t->hi = n - rad;
    for (int o = 0; o < n; o++)
        for (int k = 0; k < ksize; k++) {
            int p = gauss_border_index(o - rad + k, n, mode);
            t->idx[(size_t)o * ksize + k] = p < 0 ? 0 : p;
            t->w[(size_t)o * ksize + k] = p < 0 ? 0 : kern[k];
        }
    return GPUIMG_OK;
}

int gauss_make(struct gauss *g, double sigma, int depth, int mode, int w, int h)
{
    *g = (struct gauss){ 0 };
    g->kern = gauss_kernel(sigma, depth, &g->ksize);
    if (!g->kern)
        return GPUIMG_ENOMEM;
    int r = gauss_taps(&g->tx, w, g->kern, g->ksize, mode);
    if (!r)
        r = gauss_taps(&g->ty, h, g->kern, g->ksize, mode);
    if (r)
        gauss_free(g);
    return r;
}

void gauss_free(struct gauss *g)
{
    taps_free(&g->tx);
    taps_free(&g->ty);
    free(g->kern);
    g->kern = NULL;
}

void gauss_region(double sigma, const struct geom *in, const struct rect *want, struct rect *need,
                  struct rect *yields)
{
    const int rad = gauss_ksize(sigma, in->depth) / 2;
    const int x0 = want->x - rad < 0 ? 0 : want->x - rad, y0 = want->y - rad < 0 ? 0 : want->y - rad;
    const int x1 = want->x + want->w + rad > in->w ? in->w : want->x + want->w + rad;
    const int y1 = want->y + want->h + rad > in->h ? in->h : want->y + want->h + rad;
    *need = (struct rect){ x0, y0, x1 - x0, y1 - y0 };
    *yields = *need;
}
