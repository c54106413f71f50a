/* gpuimg tests: exact properties of the OpenMP path for every layout (1 to 4 channels), both
 * depths and the odd sizes 1x1, 7x3, 13x42, 1001x626 and 4097x3: geometry identities, identity
 * resizes, the premultiplied-alpha path agreeing with the plain one on opaque images and with
 * itself where opaque rows take the plain path, the opaque-row scan, blur of a
 * constant, gray's channel handling, area shrinking thousands of pixels into one, and the wide
 * filters' tables. Each check names the pipelines it compares. */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include "testutil.h"
#include "core/color.h"
#include "engine/tune_cache.h"
#include "ops/resize/interp.h"

static int failures, checks;

static void expect_same(const char *what, const struct image *src, const char *p1, const char *p2)
{
    struct image a, b;
    checks++;
    int ra = test_run_pipeline(p1, src, &a);
    int rb = p2 ? test_run_pipeline(p2, src, &b) : test_copy(&b, src);
    if (ra || rb) {
        failures++;
        fprintf(stderr, "FAIL %s: pipeline error\n", what);
    } else if (!test_equal(&a, &b)) {
        failures++;
        fprintf(stderr, "FAIL %s %dx%d c%d d%d: '%s' != '%s'\n", what, src->w, src->h, src->c, src->depth, p1,
                p2 ? p2 : "(input)");
    }
    if (!ra)
        image_free(&a);
    if (!rb)
        image_free(&b);
}

static void check_layout(int w, int h, int c, int depth)
{
    struct geom g = { w, h, c, depth };
    struct image im;
    if (test_make_image(&im, &g, (uint32_t)(w * 31 + h * 7 + c + depth))) {
        failures++;
        return;
    }
    expect_same("transpose twice", &im, "transpose,transpose", NULL);
    expect_same("rotate 90 four times", &im, "rotate=90,rotate=90,rotate=90,rotate=90", NULL);
    expect_same("rotate 90 twice", &im, "rotate=90,rotate=90", "rotate=180");
    expect_same("rotate 270", &im, "rotate=270", "rotate=180,rotate=90");
    expect_same("rotate 90 = transpose + flip", &im, "rotate=90", "transpose,flip=h");
    expect_same("rotate 180 = both flips", &im, "rotate=180", "flip=h,flip=v");
    expect_same("flip h twice", &im, "flip=h,flip=h", NULL);
    expect_same("flip v twice", &im, "flip=v,flip=v", NULL);
    expect_same("bilinear 100%", &im, "resize=100%:filter=bilinear", NULL);
    expect_same("area 100%", &im, "resize=100%:filter=area", NULL);
    expect_same("nearest 100%", &im, "resize=100%:filter=nearest", NULL);
    expect_same("nearest up and down", &im, "resize=200%:filter=nearest,resize=50%:filter=nearest", NULL);
    /* tone identities: through the table at the larger sizes, sample by sample at the smaller */
    expect_same("linear -1,255 = invert", &im, "linear=-1,255", "invert");
    expect_same("linear 1", &im, "linear=1", NULL);
    expect_same("gamma 1", &im, "gamma=1", NULL);
    expect_same("levels 0,255", &im, "levels=0,255", NULL);
    if (c <= 2)
        expect_same("gray passes gray through", &im, "gray", NULL);
    else {
        struct image out;
        checks++;
        if (test_run_pipeline("gray", &im, &out) || out.c != c - 2 || out.w != w || out.h != h) {
            failures++;
            fprintf(stderr, "FAIL gray of %d channels does not give %d\n", c, c - 2);
        } else if (c == 4) {
            size_t bps = (size_t)depth / 8;
            for (size_t i = 0; i < (size_t)w * h; i++)
                if (memcmp(out.data + (i * 2 + 1) * bps, im.data + (i * 4 + 3) * bps, bps)) {
                    failures++;
                    fprintf(stderr, "FAIL gray does not keep alpha at pixel %zu\n", i);
                    break;
                }
        }
        if (out.data)
            image_free(&out);
    }
    /* Opaque alpha: the premultiplied path must give exactly the plain path's colour. */
    if (c == 4 || c == 2) {
        struct geom gp = { w, h, c - 1, depth };
        struct image plain, opaque, a, b;
        test_make_image(&plain, &gp, 99);
        image_alloc(&opaque, &g);
        size_t bps = (size_t)depth / 8;
        for (size_t i = 0; i < (size_t)w * h; i++) {
            memcpy(opaque.data + i * c * bps, plain.data + i * (c - 1) * bps, (c - 1) * bps);
            memset(opaque.data + (i * c + c - 1) * bps, 0xff, bps);
        }
        static const char *const pipes[] = { "blur=1.5", "resize=37%", "resize=230%", "resize=61%:filter=area" };
        for (int k = 0; k < 4; k++) {
            checks++;
            if (test_run_pipeline(pipes[k], &plain, &a) || test_run_pipeline(pipes[k], &opaque, &b)) {
                failures++;
                continue;
            }
            for (size_t i = 0; i < (size_t)a.w * a.h; i++)
                if (memcmp(a.data + i * (c - 1) * bps, b.data + i * c * bps, (c - 1) * bps)) {
                    failures++;
                    fprintf(stderr, "FAIL %s %dx%d: opaque c%d differs from c%d at pixel %zu\n", pipes[k], w, h, c,
                            c - 1, i);
                    break;
                }
            image_free(&a);
            image_free(&b);
        }
        /* flatten: an opaque image gives its colour whatever the background; a transparent one the
         * background, as a pixel of the layout without alpha */
        checks++;
        b = (struct image){ 0 };
        if (test_run_pipeline("flatten=20,120,250", &opaque, &b) || !test_equal(&b, &plain)) {
            failures++;
            fprintf(stderr, "FAIL flatten of an opaque %dx%d c%d d%d is not its colour\n", w, h, c, depth);
        }
        if (b.data)
            image_free(&b);
        for (size_t i = 0; i < (size_t)w * h; i++)
            memset(opaque.data + (i * c + c - 1) * bps, 0, bps);
        uint8_t px[8];
        color_pixel((struct color){ 20, 120, 250, 255 }, c - 1, depth, px);
        checks++;
        if (test_run_pipeline("flatten=20,120,250", &opaque, &b)) {
            failures++;
            fprintf(stderr, "FAIL flatten of a transparent %dx%d c%d d%d: pipeline error\n", w, h, c, depth);
        } else {
            for (size_t i = 0; i < (size_t)w * h; i++)
                if (memcmp(b.data + i * (c - 1) * bps, px, (c - 1) * bps)) {
                    failures++;
                    fprintf(stderr, "FAIL flatten of a transparent %dx%d c%d d%d: pixel %zu is not the background\n",
                            w, h, c, depth, i);
                    break;
                }
            image_free(&b);
        }
        image_free(&plain);
        image_free(&opaque);
    } else
        expect_same("flatten passes an image without alpha through", &im, "flatten=red", NULL);
    /* pad's margin is the colour as a pixel of the layout (grey: its luma; alpha: its alpha) */
    {
        struct image o;
        char pipe[64];
        snprintf(pipe, sizeof pipe, "pad=%dx%d+0+0:color=20,120,250,128", w + 1, h);
        uint8_t px[8];
        color_pixel((struct color){ 20, 120, 250, 128 }, c, depth, px);
        const size_t bpp = (size_t)c * depth / 8;
        checks++;
        if (test_run_pipeline(pipe, &im, &o)) {
            failures++;
            fprintf(stderr, "FAIL %s: pipeline error\n", pipe);
        } else {
            for (int y = 0; y < h; y++)
                if (memcmp(o.data + (size_t)y * o.stride + (size_t)w * bpp, px, bpp)) {
                    failures++;
                    fprintf(stderr, "FAIL %s %dx%d c%d d%d: row %d's margin is not the colour\n", pipe, w, h, c, depth, y);
                    break;
                }
            image_free(&o);
        }
    }
    /* fit=contain is the resize inside the box, then the pad to it with its colour */
    {
        char p1[96], p2[96];
        snprintf(p1, sizeof p1, "resize=%dx%d:fit=contain:color=20,120,250,128", w + 3, h + 9);
        snprintf(p2, sizeof p2, "resize=%dx%d,pad=%dx%d:color=#1478fa80", w + 3, h + 9, w + 3, h + 9);
        expect_same("fit=contain with a colour", &im, p1, p2);
    }
    /* A constant image stays constant under blur (every border but constant) and resize. */
    {
        struct image k;
        image_alloc(&k, &g);
        memset(k.data, 0x5a, k.stride * (size_t)h);
        expect_same("blur of a constant", &k, "blur=2.5", NULL);
        expect_same("blur of a constant, replicate", &k, "blur=4:border=replicate", NULL);
        expect_same("area of a constant", &k, "resize=33%:filter=area,resize=300%:filter=area", "resize=33%:filter=nearest,resize=300%:filter=nearest");
        image_free(&k);
    }
    image_free(&im);
}

/* image_opaque_rows: one alpha sample below its maximum, anywhere in the row (its 8-byte words or
 * its last pixels), clears that row's flag and no other; a colour sample at 0 clears nothing. */
static void check_opaque_flags(int w, int c, int depth)
{
    const int h = 3;
    struct geom g = { w, h, c, depth };
    struct image im;
    uint8_t flags[3];
    image_alloc(&im, &g);
    const size_t bps = (size_t)depth / 8, bpp = image_bpp(&im);
    for (int x = 0; x < w; x++)
        for (int what = 0; what < 2; what++) {
            memset(im.data, 0xff, im.stride * h);
            /* row 1, pixel x: its alpha's first sample byte (what 0), or its first colour sample */
            uint8_t *px = im.data + im.stride + (size_t)x * bpp;
            if (what == 0)
                px[bpp - bps] = 0xfe;
            else
                memset(px, 0, bps);
            const int n = image_opaque_rows(&im, flags), alpha_low = what == 0 && has_alpha(c);
            checks++;
            if (n != (alpha_low ? 2 : 3) || !flags[0] || !flags[2] || flags[1] != !alpha_low) {
                failures++;
                fprintf(stderr, "FAIL opaque rows c%d d%d w%d: %s at pixel %d gives %d rows (%d %d %d)\n", c,
                        depth, w, what ? "colour 0" : "alpha 254", x, n, flags[0], flags[1], flags[2]);
            }
        }
    image_free(&im);
}

/* Opaque rows take the plain path (sepfilter.c), the rest the premultiplied one, and the two must
 * meet without a seam: an image opaque but for one pixel P (alpha 0) is filtered, and so is the
 * same image with a transparent first or last column, which sends every row through the alpha
 * path. The outputs that do not read that column must agree: the half away from it. Misplacing
 * the rows a window reads, the columns a constant border leaves short or an opaque 2:1 would show. */
static void check_opaque_rows(int w, int h, int c, int depth)
{
    struct geom g = { w, h, c, depth };
    const size_t bps = (size_t)depth / 8;
    const int prow[] = { -1, 0, 1, h / 2, h - 2, h - 1 };   /* -1: no P, all opaque */
    static const char *const pipes[] = { "blur=1.5", "blur=2.2:border=constant", "blur=0.9:border=replicate",
                                         "resize=37%", "resize=230%", "resize=61%:filter=area", "resize=50%",
                                         "resize=50%:filter=area" };
    for (size_t pi = 0; pi < sizeof prow / sizeof *prow; pi++) {
        struct image x, side[2];
        test_make_image(&x, &g, (uint32_t)(pi + 7 * c + depth));
        const size_t bpp = image_bpp(&x);
        for (int y = 0; y < h; y++)
            for (int i = 0; i < w; i++)
                memset(x.data + (size_t)y * x.stride + i * bpp + bpp - bps, 0xff, bps);
        if (prow[pi] >= 0) {   /* P: bright, transparent; near either end of its row */
            const int px = pi % 2 ? (int)pi : w - 1 - (int)pi;
            memset(x.data + (size_t)prow[pi] * x.stride + px * bpp, 0xff, bpp - bps);
            memset(x.data + (size_t)prow[pi] * x.stride + px * bpp + bpp - bps, 0, bps);
        }
        for (int sd = 0; sd < 2; sd++) {   /* 0: last column transparent, compare the left half */
            test_copy(&side[sd], &x);
            for (int y = 0; y < h; y++)
                memset(side[sd].data + (size_t)y * x.stride + (sd ? 0 : (size_t)(w - 1) * bpp) + bpp - bps, 0, bps);
        }
        for (size_t k = 0; k < sizeof pipes / sizeof *pipes; k++)
            for (int sd = 0; sd < 2; sd++) {
                struct image a, b;
                checks++;
                if (test_run_pipeline(pipes[k], &x, &a) || test_run_pipeline(pipes[k], &side[sd], &b)) {
                    failures++;
                    continue;
                }
                const int half = a.w / 2;
                for (int y = 0; y < a.h; y++) {
                    const size_t off = (size_t)y * a.stride + (sd ? (size_t)(a.w - half) * bpp : 0);
                    if (memcmp(a.data + off, b.data + off, (size_t)half * bpp)) {
                        failures++;
                        fprintf(stderr, "FAIL opaque rows %s %dx%d c%d d%d, P in row %d: output row %d differs "
                                        "from the alpha path's (%s half)\n", pipes[k], w, h, c, depth, prow[pi], y,
                                sd ? "right" : "left");
                        break;
                    }
                }
                image_free(&a);
                image_free(&b);
            }
        image_free(&x);
        image_free(&side[0]);
        image_free(&side[1]);
    }
}

/* Exactly 2:1 (even sizes): bilinear and area weights are all 1/2, so the definition gives
 * (2^30 (a + b + c + d) + 2^31) >> 32 = (a + b + c + d + 2) >> 2; computed here naively. With alpha
 * that is alpha's result, and colour is round(sum c a / sum a), halves up (0 where sum a = 0);
 * opaque (every alpha the maximum, as the 2:1 fast path then takes it) or not. */
static void check_half(int w, int h, int c, int depth, int opaque)
{
    struct geom g = { w, h, c, depth };
    struct image im, out;
    test_make_image(&im, &g, (uint32_t)(w + h + c + depth));
    if (opaque)
        for (size_t i = 0; i < (size_t)w * h; i++)
            memset(im.data + (i * c + c - 1) * (depth / 8), 0xff, (size_t)depth / 8);
    static const char *const pipes[] = { "resize=50%", "resize=50%:filter=area", "resize=50%:filter=bilinear" };
    for (int p = 0; p < 3; p++) {
        checks++;
        if (test_run_pipeline(pipes[p], &im, &out)) {
            failures++;
            continue;
        }
        long bad = 0;
        for (int y = 0; y < h / 2; y++)
            for (int x = 0; x < w / 2; x++) {
                long sum[4] = { 0 }, ca[4] = { 0 };
                for (int dy = 0; dy < 2; dy++)
                    for (int dx = 0; dx < 2; dx++) {
                        const size_t i = ((size_t)(2 * y + dy) * w + 2 * x + dx) * c;
                        for (int ch = 0; ch < c; ch++) {
                            sum[ch] += test_sample(&im, i + ch);
                            ca[ch] += test_sample(&im, i + ch) * test_sample(&im, i + c - 1);
                        }
                    }
                for (int ch = 0; ch < c; ch++) {
                    const long a = sum[c - 1];
                    long want = (sum[ch] + 2) / 4;
                    if (has_alpha(c) && ch < c - 1)
                        want = a ? ca[ch] / a + (2 * (ca[ch] % a) >= a) : 0;
                    bad += test_sample(&out, ((size_t)y * (w / 2) + x) * c + ch) != want;
                }
            }
        if (bad) {
            failures++;
            fprintf(stderr, "FAIL %s %dx%d c%d d%d%s: %ld samples differ from the 2:1 definition\n", pipes[p], w, h, c,
                    depth, opaque ? " opaque" : "", bad);
        }
        image_free(&out);
    }
    image_free(&im);
}

/* Area shrinking many pixels into one: the result is the mean within 1 level at 8 bits, 257 at 16
 * (its Q16 weights are each within 1/65536 of exact, with every running total too, and sum to 1).
 * Rounding each weight alone once drove the largest below zero beyond about 500 pixels a tap row:
 * the mean came out 1.5 levels off (grey) or black (RGB, through the SIMD row pass). */
static void check_area_mean(int w, int c, int depth)
{
    struct geom g = { w, 3, c, depth };
    struct image im, out;
    if (image_alloc(&im, &g))
        return;
    const long top = depth == 16 ? 65535 : 255;
    double sum[3] = { 0, 0, 0 };
    for (size_t i = 0; i < (size_t)w * 3 * c; i++) {
        const long v = (long)((i * 2654435761u) % (unsigned long)(top + 1));
        sum[i % c] += (double)v;
        if (depth == 16)
            ((uint16_t *)im.data)[i] = (uint16_t)v;
        else
            im.data[i] = (uint8_t)v;
    }
    checks++;
    if (test_run_pipeline("resize=1x1!:filter=area", &im, &out)) {
        failures++;
    } else {
        for (int ch = 0; ch < c; ch++) {
            const double mean = sum[ch] / (3.0 * w), got = depth == 16 ? ((uint16_t *)out.data)[ch] : out.data[ch];
            if (got < mean - top / 255 || got > mean + top / 255) {
                failures++;
                fprintf(stderr, "FAIL resize=1x1!:filter=area of %dx3 c%d d%d: %.0f, the mean is %.2f\n", w, c, depth,
                        got, mean);
                break;
            }
        }
        image_free(&out);
    }
    image_free(&im);
}

/* The tune cache's lines: well-formed ones parse, anything a stale or hand-edited file could hold
 * that names no operation, no variant the operation has, the inexact texture variant, or an
 * impossible shape is ignored (auto then keeps its built-in choice). */
static void check_tune_lines(void)
{
    static const struct { const char *line; int ok, c, depth, variant, bx, by, ppt; } t[] = {
        { "gray 3 8 vector 256x1 0 0.0461\n", 1, 3, 8, KV_VECTOR, 256, 1, 0 },
        { "transpose 1 16 tiled 32x16 0 0.11\n", 1, 1, 16, KV_TILED, 32, 16, 0 },
        { "flip 4 8 coalesced 128x1 8 0.2\n", 1, 4, 8, KV_COALESCED, 128, 1, 8 },
        { "# gray 3 8 vector 256x1 0 0.1\n", 0, 0, 0, 0, 0, 0, 0 },
        { "gray 3 8 separable 32x8 0 0.1\n", 0, 0, 0, 0, 0, 0, 0 },      /* gray has no separable kernel */
        { "resize 1 8 texture 32x8 0 0.1\n", 0, 0, 0, 0, 0, 0, 0 },      /* inexact: never an automatic choice */
        { "emboss 3 8 perpixel 32x8 0 0.1\n", 0, 0, 0, 0, 0, 0, 0 },     /* no such operation */
        { "gray 3 12 vector 256x1 0 0.1\n", 0, 0, 0, 0, 0, 0, 0 },
        { "gray 3 8 coalesced 64x64 4 0.1\n", 0, 0, 0, 0, 0, 0, 0 },     /* 4096 threads */
        { "gray 3 8 coalesced 256x1 3 0.1\n", 0, 0, 0, 0, 0, 0, 0 },
        { "gray 3 8 vector\n", 0, 0, 0, 0, 0, 0, 0 },
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        char op[32];
        int c = 0, depth = 0, v = -1;
        struct gpu_shape sh = { 0, 0, 0 };
        int ok = tune_parse_line(t[i].line, op, sizeof op, &c, &depth, &v, &sh);
        checks++;
        if (ok != t[i].ok || (ok && (c != t[i].c || depth != t[i].depth || v != t[i].variant || sh.bx != t[i].bx
                                     || sh.by != t[i].by || sh.ppt != t[i].ppt))) {
            failures++;
            fprintf(stderr, "FAIL tune cache line %s", t[i].line);
        }
    }
}

/* cubic's and lanczos3's tables: each output's weights sum to one; the pass across's sums are
 * kept in 32 bits for every layout but 16-bit with alpha, and a table whose |weights| sum past
 * what 32 bits hold for a layout takes 64 there; itaps_span is the widest reach of a tile's
 * outputs, found by brute force. */
static void check_wide_tables(void)
{
    static const int sizes[][2] = { { 1, 5 }, { 2, 1 }, { 13, 5 }, { 2543, 2441 }, { 100, 37 }, { 37, 100 }, { 5000, 3 } };
    for (int k = INTERP_CUBIC; k <= INTERP_LANCZOS3; k++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            struct itaps t = { 0 };
            checks++;
            if (itaps_make((enum interp_kind)k, sizes[s][0], sizes[s][1], &t)) {
                failures++;
                continue;
            }
            int bad = 0;
            for (int o = 0; o < t.count; o++) {
                int sum = 0;
                for (int j = 0; j < t.n; j++)
                    sum += t.w[(size_t)o * t.n + j];
                bad |= sum != 1 << ITAP_BITS;
            }
            for (int depth = 8; depth <= 16; depth += 8)
                for (int c = 1; c <= 4; c++)
                    bad |= itaps_narrow(&t, c, depth) != !(depth == 16 && has_alpha(c));
            for (int th = 1; th <= 32; th *= 2) {   /* the GPU's tiles: the source rows they reach */
                int most = 0;
                for (int o = 0; o < t.count; o += th) {
                    int lo = 1 << 30, hi = -1;
                    for (int j = o * t.n; j < (o + th < t.count ? o + th : t.count) * t.n; j++) {
                        lo = t.idx[j] < lo ? t.idx[j] : lo;
                        hi = t.idx[j] > hi ? t.idx[j] : hi;
                    }
                    most = hi - lo + 1 > most ? hi - lo + 1 : most;
                }
                bad |= itaps_span(&t, th) != most;
            }
            if (bad) {
                failures++;
                fprintf(stderr, "FAIL %s table %d to %d\n", k == INTERP_CUBIC ? "cubic" : "lanczos3", sizes[s][0],
                        sizes[s][1]);
            }
            itaps_free(&t);
        }
    int32_t idx[2] = { 0, 1 };
    int16_t w[2] = { 32767, -16383 };   /* sums to one, |w| to three */
    const struct itaps steep = { 2, 1, idx, w };
    checks++;
    if (!itaps_narrow(&steep, 3, 8) || itaps_narrow(&steep, 4, 8) || itaps_narrow(&steep, 1, 16)) {
        failures++;
        fprintf(stderr, "FAIL itaps_narrow on a table whose |weights| sum to three\n");
    }
}

int main(void)
{
    printf("hand-written SIMD: %s\n", test_simd_state());
    check_tune_lines();
    check_wide_tables();
    static const int even[][2] = { { 2, 2 }, { 14, 42 }, { 1000, 626 } };
    for (int s = 0; s < 3; s++)
        for (int depth = 8; depth <= 16; depth += 8)
            for (int c = 1; c <= 4; c++)
                for (int opaque = 0; opaque <= has_alpha(c); opaque++)
                    check_half(even[s][0], even[s][1], c, depth, opaque);
    for (int depth = 8; depth <= 16; depth += 8)
        for (int c = 1; c <= 3; c += 2) {
            check_area_mean(700, c, depth);
            check_area_mean(5000, c, depth);
        }
    for (int depth = 8; depth <= 16; depth += 8)
        for (int c = 1; c <= 4; c++) {
            static const int widths[] = { 1, 2, 3, 5, 7, 13 };
            for (int i = 0; i < 6; i++)
                check_opaque_flags(widths[i], c, depth);
            if (has_alpha(c)) {
                check_opaque_rows(96, 64, c, depth);
                check_opaque_rows(97, 41, c, depth);
            }
        }
    static const int sizes[][2] = { { 1, 1 }, { 7, 3 }, { 13, 42 }, { 1001, 626 }, { 4097, 3 } };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int depth = 8; depth <= 16; depth += 8)
            for (int c = 1; c <= 4; c++)
                check_layout(sizes[s][0], sizes[s][1], c, depth);
    printf("props: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
