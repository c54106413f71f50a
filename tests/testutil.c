/* gpuimg tests: helpers (see testutil.h). */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/backend.h"
#include "core/error.h"
#include "core/plan.h"
#include "io/pngenc.h"
#include "ops/common/simd.h"
#include "testutil.h"

/* The test programs link the library without gpuimg's option table: the knobs the test scripts
 * set in the environment (GPUIMG_NO_SIMD=1, GPUIMG_PNG_ZLIB=1) are handed down here, before
 * main, as gpuimg hands them down from its record. */
__attribute__((constructor)) static void test_knobs(void)
{
    const char *s = getenv("GPUIMG_NO_SIMD"), *z = getenv("GPUIMG_PNG_ZLIB");
    simd_allow(!(s && !strcmp(s, "1")));
    pngenc_use_zlib(z && !strcmp(z, "1"));
}

const char *test_simd_state(void)
{
#ifdef HAVE_X86_SIMD
    return simd_ok() ? "on" : "off";
#else
    return "off (not built)";
#endif
}

static uint32_t xorshift(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

int test_make_image(struct image *im, const struct geom *g, uint32_t seed)
{
    if (image_alloc(im, g))
        return -1;
    uint32_t s = seed * 2654435761u + 1;
    const uint32_t top = g->depth == 16 ? 65535 : 255;
    for (int y = 0; y < g->h; y++)
        for (int x = 0; x < g->w; x++)
            for (int c = 0; c < g->c; c++) {
                uint32_t base = (uint32_t)(((x * (3 + c) + y * (5 - c)) & 255) * (top / 255));
                uint32_t v = base + xorshift(&s) % (top / 8 + 1);
                if (v > top)
                    v = top;
                size_t i = ((size_t)y * g->w + x) * g->c + c;
                if (g->depth == 16)
                    ((uint16_t *)im->data)[i] = (uint16_t)v;
                else
                    im->data[i] = (uint8_t)v;
            }
    return 0;
}

int test_copy(struct image *dst, const struct image *src)
{
    struct geom g = image_geom(src);
    if (image_alloc(dst, &g))
        return -1;
    memcpy(dst->data, src->data, src->stride * (size_t)src->h);
    return 0;
}

int test_run_pipeline(const char *pipeline, const struct image *in, struct image *out)
{
    struct plan pl;
    struct run_report r;
    timing_report_init(&r);
    struct geom g = image_geom(in);
    int st = plan_parse(pipeline, &pl);
    if (!st)
        st = plan_resolve(&pl, &g, 0);
    if (!st && test_copy(out, in))
        st = GPUIMG_ENOMEM;
    if (!st)
        st = backend_cpu_run(&pl, out, &r);
    if (st) {
        fprintf(stderr, "%s: %s\n", pipeline, gpuimg_errmsg() ? gpuimg_errmsg() : gpuimg_strerror(st));
        gpuimg_clear_error();
        return -1;
    }
    return 0;
}

long test_sample(const struct image *im, size_t i)
{
    return im->depth == 16 ? ((const uint16_t *)im->data)[i] : im->data[i];
}

long test_max_diff(const struct image *a, const struct image *b, long *count_over, long tol)
{
    if (a->w != b->w || a->h != b->h || a->c != b->c || a->depth != b->depth)
        return -1;
    const size_t n = (size_t)a->w * a->h * a->c;
    const int c = a->c, alpha = has_alpha(c);
    const double top = a->depth == 16 ? 65535.0 : 255.0;
    long worst = 0, over = 0;
    for (size_t i = 0; i < n; i++) {
        long d = labs(test_sample(a, i) - test_sample(b, i));
        if (alpha && (int)(i % c) != c - 1) /* colour: the visible error, premultiplied by b's alpha */
            d = (long)ceil(d * (double)test_sample(b, i - i % c + c - 1) / top - 1e-9);
        if (d > worst)
            worst = d;
        if (d > tol)
            over++;
    }
    if (count_over)
        *count_over = over;
    return worst;
}

int test_equal(const struct image *a, const struct image *b)
{
    long over;
    return test_max_diff(a, b, &over, 0) == 0;
}
