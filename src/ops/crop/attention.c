/* gpuimg: crop's gravity=attention (smart.h), after vips 8.14's smartcrop interesting=attention:
 * the image shrunk to 32 x 32 (here: the mean of each cell, attn_span), an interest map of edges
 * (a Laplacian of Y), skin colour and saturation (Lab's a) in CIE XYZ, blurred by vips's integer
 * gaussian, and the rectangle centred on its maximum. vips shrinks with its own resize (lanczos3
 * reduce) and converts colour through its float tables, which this does not repeat: the map is
 * computed here in double from the cells' integer sums, the same numbers on the CPU and the GPU,
 * so the two backends agree exactly and vips to within the measured offsets crop.c states. */
#include <config.h>
#include <math.h>
#include <string.h>
#include "ops/crop/smart.h"

void smart_attention_sums_cpu(const struct image *in, uint64_t *sums)
{
    const int c = in->c, alpha = has_alpha(c), nb = ATTN_SUMS(c);
#pragma omp parallel for schedule(dynamic)
    for (int cell = 0; cell < ATTN_N * ATTN_N; cell++) {
        int x0, x1, y0, y1;
        attn_span(in->w, cell % ATTN_N, &x0, &x1);
        attn_span(in->h, cell / ATTN_N, &y0, &y1);
        uint64_t s[3] = { 0, 0, 0 };
        for (int y = y0; y < y1; y++)
            for (int x = x0; x < x1; x++) {
                const size_t i = ((size_t)y * in->w + x) * c;
                uint64_t p[4];
                for (int b = 0; b < c; b++)
                    p[b] = in->depth == 16 ? ((const uint16_t *)in->data)[i + b] : in->data[i + b];
                for (int b = 0; b < nb; b++)
                    s[b] += alpha ? p[b] * p[c - 1] : p[b];
            }
        for (int b = 0; b < nb; b++)
            sums[(size_t)cell * nb + b] = s[b];
    }
}

static double srgb_linear(double u) { return u <= 0.04045 ? u / 12.92 : pow((u + 0.055) / 1.055, 2.4); }

static double lab_f(double t)
{
    const double d = 6.0 / 29.0;
    return t > d * d * d ? cbrt(t) : t / (3 * d * d) + 4.0 / 29.0;
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* one pass of the separable blur along rows (dx 1) or columns, edges repeated */
static void blur_pass(const double *in, double *out, const double *tap, int r, double sum, int horiz)
{
    for (int y = 0; y < ATTN_N; y++)
        for (int x = 0; x < ATTN_N; x++) {
            double s = 0;
            for (int k = -r; k <= r; k++) {
                const int xx = horiz ? clampi(x + k, 0, ATTN_N - 1) : x, yy = horiz ? y : clampi(y + k, 0, ATTN_N - 1);
                s += tap[k + r] * in[yy * ATTN_N + xx];
            }
            out[y * ATTN_N + x] = s / sum;
        }
}

void smart_attention_place(int W, int H, int c, int depth, int w, int h, const uint64_t *sums, int *left, int *top)
{
    enum { N = ATTN_N };
    const int nb = ATTN_SUMS(c);
    const double topv = depth == 16 ? 65535.0 : 255.0, scale = has_alpha(c) ? topv * topv : topv;
    double X[N * N], Y[N * N], Z[N * N], score[N * N], tmp[N * N];
    for (int cell = 0; cell < N * N; cell++) {
        int x0, x1, y0, y1;
        attn_span(W, cell % N, &x0, &x1);
        attn_span(H, cell / N, &y0, &y1);
        const double n = (double)(x1 - x0) * (y1 - y0);
        double rgb[3];
        for (int b = 0; b < 3; b++)
            rgb[b] = srgb_linear((double)sums[(size_t)cell * nb + (nb == 3 ? b : 0)] / (n * scale));
        X[cell] = 100 * (0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2]);
        Y[cell] = 100 * (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]);
        Z[cell] = 100 * (0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2]);
    }
    static const double skin[3] = { 0.78, 0.57, 0.44 };
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) {
            const int i = y * N + x;
            const double lap = 4 * Y[i] - Y[y * N + clampi(x - 1, 0, N - 1)] - Y[y * N + clampi(x + 1, 0, N - 1)] -
                               Y[clampi(y - 1, 0, N - 1) * N + x] - Y[clampi(y + 1, 0, N - 1) * N + x];
            double s = fabs(5 * lap);
            if (Y[i] > 5) {
                const double v[3] = { X[i], Y[i], Z[i] }, m = sqrt(X[i] * X[i] + Y[i] * Y[i] + Z[i] * Z[i]);
                double d2 = 0;
                for (int b = 0; b < 3; b++) {
                    const double d = (m > 0 ? v[b] / m : 0) - skin[b];
                    d2 += d * d;
                }
                s += 100 - 100 * sqrt(d2);                                      /* skin */
                s += 500 * (lab_f(X[i] / 95.047) - lab_f(Y[i] / 100.0));         /* Lab's a */
            }
            score[i] = s;
        }
    /* vips_gaussblur's mask: integer taps rint(20 exp(-k^2 / 2 sigma^2)) out to the last k whose
     * exp is at least 0.2, divided by their sum */
    const double hs = (double)N / W, vs = (double)N / H;
    const double sigma = fmax(sqrt(pow(w * hs, 2) + pow(h * vs, 2)) / 10, 1.0), sig2 = 2 * sigma * sigma;
    const int max_x = (int)fmin(8 * sigma, 10000);
    int x = 0;
    for (; x < max_x; x++)
        if (exp(-(double)(x * x) / sig2) < 0.2)
            break;
    const int r = x - 1 > 0 ? x - 1 : 0;
    double tap[2 * 64 + 1], sum = 0;   /* sigma <= sqrt(32^2 + 32^2) / 10: r <= 8 */
    for (int k = -r; k <= r; k++)
        sum += tap[k + r] = rint(20 * exp(-(double)(k * k) / sig2));
    blur_pass(score, tmp, tap, r, sum, 1);
    blur_pass(tmp, score, tap, r, sum, 0);
    int best = 0;
    for (int i = 1; i < N * N; i++)
        if (score[i] > score[best])
            best = i;
    const int ax = (int)((best % N) / hs), ay = (int)((best / N) / vs);
    *left = clampi(ax - w / 2, 0, W - w);
    *top = clampi(ay - h / 2, 0, H - h);
}
