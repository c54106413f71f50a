/* gpuimg tests: the GPU against the OpenMP reference, bit for bit, for every operation x every
 * kernel variant it has x every channel layout x 8 and 16 bits x the sizes 1x1, 7x3, 13x42,
 * 1001x626 and 4097x3, and 1000x626 (even: the CPU's exact 2:1 resize path against the GPU's
 * general one). Both sides compute the same integer formulas, so the required agreement is
 * exact for every operation. The device buffers are poisoned when allocated so that a pixel no
 * thread writes cannot pass. Exit 77 (skip) without a usable GPU, unless GPUIMG_REQUIRE_GPU=1,
 * which makes that a failure. GPUIMG_PARITY_QUICK=1 uses four small sizes instead (7x3, 37x45,
 * 14x42 and 517x37, which cut every tile and halo shape and give the blur's one-pass kernel tiles
 * clear of both edges), for compute-sanitizer runs. Then the tiles: with device memory capped
 * (--gpu-mem-limit's mechanism) below what the whole image needs, every tileable pipeline and
 * variant must still equal the OpenMP result exactly, run in several tiles (resizes too, by
 * whole factors on the rows); where no tile fits, GPUIMG_ENODEVMEM (the CPU takes it). */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "engine/backend.h"
#include "engine/files.h"
#include "engine/measure.h"
#include "core/error.h"
#include "io/io.h"
#include "core/plan.h"
#include "testutil.h"

/* The kernel paths of the operations, after every operation's registry examples (main): the
 * parameters and sizes that take each kernel family and its fallbacks. */
static const char *const paths[] = {
    "gray", "gray=709",
    "resize=50%", "resize=200%", "resize=30%", "resize=77%:filter=bilinear", "resize=61%:filter=area",
    "resize=230%:filter=area",
    "resize=150%:filter=bilinear",   /* vector's warp kernel enlarging */
    "resize=30%:filter=bilinear",    /* 3.3:1: grey's span fits the warp kernel's buffer, RGB's does not (perpixel) */
    "resize=50%:filter=nearest", "resize=300%:filter=nearest", "resize=5x7!",
    "blur=0.8", "blur=2", "blur=2:border=replicate", "blur=2:border=constant", "blur=3.3", "blur=2.8",
    "blur=5:border=replicate", "blur=12:border=constant",
    "blur=0.2",   /* weights 0, 256, 0: 256 does not fit the tensor kernel's bytes */
    "blur=0.05:border=constant",   /* one tap (no one-pass kernel takes it): the two-pass kernel's one step */
    "blur=2.3", "blur=2.6:border=constant",   /* 15 and 17 taps: the tensor kernel's smaller compiled sizes */
    /* 3, 5, 9 and 11 taps: tiled's smaller compiled sizes (blur=0.8 is 7, blur=2 13) */
    "blur=0.4:border=replicate", "blur=0.5", "blur=1.2:border=constant", "blur=1.7",
    /* past 17 taps the tensor kernel's sizes end at its k steps (RGB: 27, 37, 49, 65, 81, then as
     * grey planes; grey: 49, 81, 113, 145, 177): 27, 37, 49, 51, 81 and 177 taps, and one past each
     * largest (83: RGB's planes; 179: the two-pass kernel) */
    "blur=4.4", "blur=6:border=constant", "blur=8", "blur=8.2:border=replicate", "blur=13.2:border=replicate",
    "blur=13.5", "blur=29.3:border=constant", "blur=29.5",
    "transpose", "rotate=90", "rotate=180", "rotate=270", "flip=h", "flip=v",
};
/* Pipelines whose automatic kernels fuse neighbouring steps (gray read through by the resize,
 * transpose written by the blur), run fused and unfused: both must equal the OpenMP result. */
static const char *const fused[] = {
    "gray,resize=50%", "gray,resize=50%:filter=area", "blur=2,transpose", "blur=0.8:border=constant,transpose",
    "gray,resize=50%,blur=2,transpose", "gray,gray,resize=50%", "blur=2,transpose,transpose",
    /* gray read through by the warp kernel (two taps, shrinking 1.6 to about 2.1 times; both weight sets), or not */
    "gray=709,resize=48%:filter=bilinear", "gray,resize=60%:filter=bilinear", "gray,resize=77%:filter=bilinear",
    "gray=709,resize=200%", "gray,resize=30%:filter=bilinear",
};

/* One GPU run of pipe with kernel variant v (-1: auto) against want; 1 when it fails. */
static int check_run(const char *pipe, struct plan *pl, const struct image *in, const struct image *want, int v,
                     int nofuse, long tol)
{
    struct image got;
    struct run_report r;
    timing_report_init(&r);
    test_copy(&got, in);
    struct gpu_run_opts go = { 0, v, 0, nofuse, v & 1, v & 1, NULL, 0 };   /* odd variants: as a batch worker */
    const char *vn = v < 0 ? (nofuse ? "auto-unfused" : "auto-fused") : kernel_names[v];
    if (backend_gpu_run(pl, &go, &got, &r) != GPUIMG_OK) {
        printf("FAIL %s %s %dx%d c%d d%d: %s\n", pipe, vn, in->w, in->h, in->c, in->depth, gpuimg_errmsg());
        gpuimg_clear_error();
        image_free(&got);
        return 1;
    }
    int bad = 0;
    /* raw bytes: no alpha weighting; every sample identical unless the variant states a tolerance */
    if (got.w != want->w || got.h != want->h || got.c != want->c
        || memcmp(got.data, want->data, want->stride * (size_t)want->h)) {
        long over = 0, d = got.w == want->w && got.h == want->h && got.c == want->c ? test_max_diff(&got, want, &over, 0)
                                                                                  : -1;
        if (d < 0 || d > tol) {
            bad = 1;
            printf("FAIL %s %s %dx%d c%d d%d: differs (max diff %ld in %ld samples, tolerance %ld)\n", pipe, vn,
                   in->w, in->h, in->c, in->depth, d, over, tol);
        }
    }
    image_free(&got);
    return bad;
}

/* Fusion must happen where it should (and not elsewhere): the pipeline's plan for a geometry. */
static int fusion_plan(const char *pipe, int w, int h, int c, int depth, const char *want_skip)
{
#ifndef HAVE_CUDA   /* never reached: a build without CUDA skips before (no device pipeline to link) */
    return 1;
#else
    struct plan pl;
    struct geom g = { w, h, c, depth };
    struct gpu_pipeline gp;
    if (plan_parse(pipe, &pl) || plan_resolve(&pl, &g, 0) || gpu_pipeline_open(&gp, &pl, -1, 0)) {
        printf("FAIL fusion plan %s: %s\n", pipe, gpuimg_errmsg());
        return 1;
    }
    char got[PLAN_MAX_STEPS + 1];
    for (int i = 0; i < pl.nsteps; i++)
        got[i] = gp.skip[i] ? 's' : '-';
    got[pl.nsteps] = 0;
    gpu_pipeline_close(&gp, &pl);
    if (strcmp(got, want_skip)) {
        printf("FAIL fusion plan %s %dx%d c%d d%d: steps skipped %s, expected %s\n", pipe, w, h, c, depth, got,
               want_skip);
        return 1;
    }
    return 0;
#endif
}

/* nvJPEG (HAVE_NVJPEG builds) against the CPU's decoder (libjpeg-turbo where built): JPEGs
 * written by gpuimg's encoder (quality 95: 4:4:4, 75: 4:2:0 chroma) at odd sizes and the sample
 * photograph (4:2:0), decoded through the production path (backend_gpu_run_jpeg as
 * --jpeg-decoder=nvjpeg runs it, with an identity pipeline). On the JPEG engines, whose chroma
 * upsampling interpolates as libjpeg-turbo's does, within JPEG_TOL_HW levels and JPEG_TOL_MEAN on
 * average whatever the sampling. nvJPEG's other backend (files the engines do not take, GPUs
 * without them) rounds its IDCT differently, within JPEG_TOL_MAX and JPEG_TOL_MEAN with
 * full-resolution chroma, and replicates 4:2:0 chroma (up to 100 levels at the colour edges of
 * the noisy test images), so there only the average is bounded, by JPEG_TOL_MEAN_420. */
#define JPEG_TOL_HW 1
#define JPEG_TOL_MAX 4
#define JPEG_TOL_MEAN 0.1
#define JPEG_TOL_MEAN_420 6.0
#ifdef HAVE_NVJPEG
static int jpeg_case(const char *path, const char *what, int sub420)
{
    struct load_opts lo = { 0 };
    struct image want, got = { 0 };
    struct io_input raw;
    struct plan pl;
    struct run_report r;
    timing_report_init(&r);
    gpuimg_clear_error();
    if (io_load(path, &lo, &want) || io_read(path, &lo, &raw) || plan_parse("transpose,transpose", &pl) ||
        plan_resolve(&pl, &raw.g, 0)) {
        printf("FAIL jpeg %s: %s\n", what, gpuimg_errmsg());
        return 1;
    }
    struct gpu_run_opts o = { .device = 0, .variant = -1, .jpeg = 2 };
    const char *declined;
    int st = backend_gpu_run_jpeg(&pl, &o, &raw, &got, &declined, &r);
    io_input_free(&raw);
    if (st || declined) {
        printf("FAIL jpeg %s: nvJPEG path: %s\n", what,
               declined ? declined : gpuimg_errmsg() ? gpuimg_errmsg() : gpuimg_strerror(st));
        image_free(&want);
        return 1;
    }
    long maxd = 0;
    double sum = 0;
    const size_t n = (size_t)want.w * want.h * want.c;
    int geom_ok = got.w == want.w && got.h == want.h && got.c == want.c && got.depth == 8;
    for (size_t i = 0; geom_ok && i < n; i++) {
        long d = labs((long)want.data[i] - (long)got.data[i]);
        maxd = d > maxd ? d : maxd;
        sum += (double)d;
    }
    const double mean = n ? sum / (double)n : 0;
    const int hw = r.decoder && strstr(r.decoder, "hardware");
    const int bad = !geom_ok || (hw ? maxd > JPEG_TOL_HW || mean > JPEG_TOL_MEAN
                                    : sub420 ? mean > JPEG_TOL_MEAN_420 : maxd > JPEG_TOL_MAX || mean > JPEG_TOL_MEAN);
    printf("%s jpeg %s %dx%d c%d: %s vs the CPU's decoder max %ld, mean %.3f\n", bad ? "FAIL" : "ok", what, want.w,
           want.h, want.c, r.decoder ? r.decoder : "?", maxd, mean);
    image_free(&want);
    image_free(&got);
    return bad;
}
#endif

static int jpeg_checks(void)
{
#ifdef HAVE_NVJPEG
    static const int sizes[][2] = { { 1, 1 }, { 7, 3 }, { 13, 42 }, { 1001, 626 }, { 640, 400 } };
    int bad = 0;
    char path[] = "/tmp/gpuimg-parity-XXXXXX.jpg";
    int fd = mkstemps(path, 4);
    if (fd < 0)
        return 1;
    close(fd);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int c = 1; c <= 3; c += 2)
            for (int q = 75; q <= 95; q += 20) {
                struct geom g = { sizes[s][0], sizes[s][1], c, 8 };
                struct image im;
                struct save_opts so = { FMT_JPEG, 6, q, 1, 1, 0, 0 };
                char what[64];
                snprintf(what, sizeof what, "q%d", q);
                if (test_make_image(&im, &g, (uint32_t)(s * 7 + c + q)) || io_save(path, &im, &so)) {
                    unlink(path);
                    return 1;
                }
                image_free(&im);
                bad += jpeg_case(path, what, q < 90);   /* stb_image_write subsamples below 90 */
            }
    unlink(path);
    const char *top = getenv("TOP_SRCDIR");
    char sample[1024];
    snprintf(sample, sizeof sample, "%s/samples/path-640x400.jpg", top ? top : ".");
    bad += jpeg_case(sample, "samples/path-640x400.jpg", 1);
    return bad;
#else
    printf("jpeg: this build has no nvJPEG\n");
    return 0;
#endif
}

/* The tiled GPU path: limit = the whole image's pipeline bytes / div, so the buffers of the whole
 * image (twice that) never fit. */
static int tiled_checks(int quick)
{
    /* halo 2: a blur whose halo is large beside the image; 1: a blur (3: below). Where the halo alone (with
     * the separable kernel's scratch) is over the limit, no tile of at least 64x64 fits: then
     * GPUIMG_ENODEVMEM is the right answer (halo 2 always; any blur on the small image of the
     * quick run or under the tighter limit). */
    static const struct { const char *pipe; int halo; } tileable[] = {
        { "gray", 0 }, { "blur=2", 1 }, { "blur=5:border=replicate", 1 }, { "blur=12:border=constant", 2 },
        { "transpose", 0 }, { "rotate=90", 0 }, { "rotate=270", 0 }, { "flip=h", 0 }, { "flip=v", 0 },
        { "gray,blur=2,transpose", 1 }, { "blur=2,transpose", 1 }, { "rotate=180,blur=1.5,gray", 1 },
        /* resize tiles by whole factors (rows of 626 by 2), else takes whole rows (1001 columns);
         * 3: the quick run's 37 rows have no whole factor, the whole image is the only tile */
        { "gray,resize=50%", 3 }, { "resize=50%:filter=nearest,flip=h", 3 }, { "blur=1,resize=50%:filter=area,gray", 1 },
    };
    int runs = 0, failed = 0, refused = 0;
    for (int depth = 8; depth <= 16; depth += 8)
        for (int c = 1; c <= 4; c++) {
            struct geom g = { quick ? 517 : 1001, quick ? 37 : 626, c, depth };
            struct image in;
            if (test_make_image(&in, &g, (uint32_t)(c * 3 + depth)))
                return 1;
            for (size_t p = 0; p < sizeof tileable / sizeof *tileable; p++) {
                struct image want;
                struct plan pl;
                const char *pipe = tileable[p].pipe;
                const int halo = tileable[p].halo;
                if (test_run_pipeline(pipe, &in, &want) || plan_parse(pipe, &pl) || plan_resolve(&pl, &g, 0))
                    return 1;
                for (int div = 1; div <= (quick ? 1 : 8); div *= 8)
                    for (int v = -1; v < KV_COUNT; v++) {
                        const int may_refuse = halo == 2 || (halo == 3 && quick) || (halo == 1 && (quick || div > 1));
                        if (v >= 0 && (pl.nsteps > 1 || !(pl.steps[0].op->gpu_variants & KV_BIT(v))))
                            continue;
                        struct image got;
                        struct run_report r;
                        timing_report_init(&r);
                        test_copy(&got, &in);
                        struct gpu_run_opts go = { 0, v, 0, 0, 0, 0, NULL, 0 };
                        backend_gpu_set_mem_limit(pl.max_bytes / div);
                        int st = backend_gpu_run(&pl, &go, &got, &r);
                        backend_gpu_set_mem_limit(0);
                        runs++;
                        const char *vn = v < 0 ? "auto" : kernel_names[v];
                        if (st == GPUIMG_ENODEVMEM && may_refuse && test_equal(&got, &in)) {
                            refused++;
                            gpuimg_clear_error();
                        } else if (st) {
                            printf("FAIL tiled %s %s %dx%d c%d d%d limit %llu: %s\n", pipe, vn, g.w, g.h, c, depth,
                                   (unsigned long long)(pl.max_bytes / div), gpuimg_errmsg());
                            gpuimg_clear_error();
                            failed++;
                        } else if (r.tiles < 2 || !test_equal(&got, &want)) {
                            printf("FAIL tiled %s %s %dx%d c%d d%d limit %llu: %d tiles of %dx%d, %s\n", pipe, vn, g.w,
                                   g.h, c, depth, (unsigned long long)(pl.max_bytes / div), r.tiles, r.tile_w, r.tile_h,
                                   r.tiles < 2 ? "not tiled" : "differs from the OpenMP result");
                            failed++;
                        }
                        image_free(&got);
                    }
                image_free(&want);
            }
            image_free(&in);
        }
    printf("gpu parity, tiled: %d runs, %d failed, %d refused as not fitting even in tiles\n", runs, failed, refused);
    return failed;
}

/* A pipeline with the automatic kernels, fused and (unless fused_only) unfused, against the
 * OpenMP result: the runs that failed (*runs counts the runs), or -1 where it cannot be set up. */
static int check_fused(const char *pipe, const struct image *in, const struct geom *g, int fused_only, int *runs)
{
    struct image want;
    struct plan pl;
    if (test_run_pipeline(pipe, in, &want) || plan_parse(pipe, &pl) || plan_resolve(&pl, g, 0))
        return -1;
    int failed = 0;
    for (int nofuse = 0; nofuse <= !fused_only; nofuse++) {
        (*runs)++;
        failed += check_run(pipe, &pl, in, &want, -1, nofuse, 0);
    }
    image_free(&want);
    return failed;
}

/* The tensor-core blur's transposed (fused) output on large images of odd sizes, grey, RGB, RGBA and
 * grey+alpha (7 to 8 MB: several tiles a block, 64-row tiles; the small sizes above take 32-row
 * ones), and past the one-pass kernels' taps (37 and 49 taps). */
static int tensor_fused_checks(int quick)
{
    static const char *const pipes[] = { "blur=2,transpose", "blur=2.6:border=constant,transpose",
                                         "blur=0.8:border=replicate,transpose", "blur=6:border=constant,transpose",
                                         "blur=8:border=replicate,transpose" };
    static const int sizes[4][3] = { { 3001, 2803, 1 }, { 2053, 1403, 3 }, { 1501, 1203, 4 }, { 2101, 1703, 2 } };
    int runs = 0, failed = 0;
    for (int s = quick; s < 4; s++) {   /* quick (under the sanitizers): all but grey, the fused run only */
        struct geom g = { sizes[s][0], sizes[s][1], sizes[s][2], 8 };
        struct image in;
        if (test_make_image(&in, &g, (uint32_t)(7 + s)))
            return 1;
        failed += fusion_plan("blur=2,transpose", g.w, g.h, g.c, 8, "-s");
        for (size_t p = 0; p < (quick ? 1 : sizeof pipes / sizeof *pipes); p++) {
            if (p >= 3)
                failed += fusion_plan(pipes[p], g.w, g.h, g.c, 8, "-s");
            const int f = check_fused(pipes[p], &in, &g, quick, &runs);
            if (f < 0)
                return 1;
            failed += f;
        }
        image_free(&in);
    }
    printf("gpu parity, tensor blur fused with transpose at 8 MB: %d runs, %d failed\n", runs, failed);
    return failed;
}

/* 1 (and a FAIL line) unless the last launch had block threads and, where given (not 0), smem bytes
 * of shared memory and ppt pixels a thread: the kernel a size rule must have picked (what). */
static int last_launch_not(const char *pipe, const char *vn, const struct geom *g, const char *what, unsigned block,
                           size_t smem, int ppt)
{
#ifdef HAVE_CUDA
    struct gpu_launch_info li;
    char err[128];
    if (gpu_last_launch(&li, err, sizeof err) || li.block != block || (smem && li.smem != smem)
        || (ppt && li.px_per_thread != ppt)) {
        printf("FAIL %s %s %dx%d c%d d%d: the last launch was not %s (%u threads, %zu bytes of shared memory, %d "
               "pixels a thread)\n", pipe, vn, g->w, g->h, g->c, g->depth, what, li.block, li.smem, li.px_per_thread);
        return 1;
    }
#else
    (void)pipe, (void)vn, (void)g, (void)what, (void)block, (void)smem, (void)ppt;
#endif
    return 0;
}

/* vector's transpose of 2- to 6-byte pixels goes through remap_words (4-byte words turned in
 * registers) only on images of 2500 tiles of 128 x 124 pixels and more, so it is checked on such
 * an image of odd size: each pixel size it takes, and for RGB the two rotations (source rows, or
 * output rows, taken backwards). The last launch must have been that kernel (256 threads, 16 KiB of
 * shared memory a byte of pixel): a change of the rule that picks it fails here, not silently. */
static int words_checks(void)
{
    static const int lay[][2] = { { 3, 8 }, { 1, 16 }, { 4, 8 }, { 3, 16 } };
    static const char *const pipes[] = { "transpose", "rotate=90", "rotate=270" };
    int runs = 0, failed = 0;
    for (int l = 0; l < 4; l++) {
        struct geom g = { 10001, 4001, lay[l][0], lay[l][1] };
        struct image in;
        if (test_make_image(&in, &g, (uint32_t)(31 + l)))
            return 1;
        for (int p = 0; p < (l == 0 ? 3 : 1); p++) {
            struct image want;
            struct plan pl;
            if (test_run_pipeline(pipes[p], &in, &want) || plan_parse(pipes[p], &pl) || plan_resolve(&pl, &g, 0))
                return 1;
            runs++;
            failed += check_run(pipes[p], &pl, &in, &want, KV_VECTOR, 0, 0);
            failed += last_launch_not(pipes[p], "vector", &g, "remap_words", 256, 16384 * (size_t)g.c * g.depth / 8, 0);
            image_free(&want);
        }
        image_free(&in);
    }
    printf("gpu parity, transpose by words at 2500 tiles and more: %d runs, %d failed\n", runs, failed);
    return failed;
}

/* A case on a large image of its own: exact against the OpenMP result with variant v (-1: auto,
 * fused), and the last launch must have been `what` (block threads, ppt pixels a thread), so that a
 * change of the rule that picks it fails here, not silently. */
struct big_case {
    int w, h, c;
    const char *pipe;
    int v;
    const char *what;
    unsigned block;
    int ppt;
    int depth;     /* 0: 8 */
    size_t smem;   /* 0: not checked */
};

static int big_checks(const char *title, const struct big_case *cases, size_t n, uint32_t seed)
{
    int runs = 0, failed = 0;
    for (size_t k = 0; k < n; k++) {
        const struct big_case *b = &cases[k];
        struct geom g = { b->w, b->h, b->c, b->depth ? b->depth : 8 };
        struct image in, want;
        struct plan pl;
        if (test_make_image(&in, &g, seed + (uint32_t)k) || test_run_pipeline(b->pipe, &in, &want)
            || plan_parse(b->pipe, &pl) || plan_resolve(&pl, &g, 0))
            return 1;
        runs++;
        failed += check_run(b->pipe, &pl, &in, &want, b->v, 0, 0);
        failed += last_launch_not(b->pipe, b->v < 0 ? "auto-fused" : kernel_names[b->v], &g, b->what, b->block,
                                  b->smem, b->ppt);
        image_free(&want);
        image_free(&in);
    }
    printf("gpu parity, %s: %d runs, %d failed\n", title, runs, failed);
    return failed;
}

/* The tensor blur's 64-row tiles are taken only where there are at least as many as blocks
 * resident at once (an SM holds one block of RGBA's 49 taps: 513x301 makes 45 such tiles, 1001x626
 * 160), so they are checked on images that large, of odd sizes (a short last tile row, a partial
 * last tile column): RGB with 13 taps and the replicate border, grey with 17 taps and the
 * constant border, compiled sizes past 17 taps (told apart by their shared memory) and RGB's grey
 * planes past 81 taps; 64-row tiles: 64 / C output pixels a thread. */
static int tall_checks(void)
{
    static const struct big_case cases[] = {
        { 6001, 2600, 3, "blur=2", KV_TENSOR, "64-row tiles", 256, 64 / 3, 0, 0 },
        { 6001, 2600, 3, "blur=2:border=replicate", KV_TENSOR, "64-row tiles", 256, 64 / 3, 0, 0 },
        { 10001, 4001, 1, "blur=2.6:border=constant", KV_TENSOR, "64-row tiles", 256, 64, 0, 0 },
        /* past 17 taps: 112 to 208 staged rows for 64 outputs, 2 or 1 blocks an SM (TN's SMEM) */
        { 6001, 2600, 3, "blur=8:border=replicate", KV_TENSOR, "64-row tiles of 49 taps", 256, 64 / 3, 0, 111520 },
        { 10001, 4001, 1, "blur=4.4:border=constant", KV_TENSOR, "64-row tiles of 49 taps", 256, 64, 0, 90016 },
        { 6001, 2600, 3, "blur=3.3", KV_TENSOR, "64-row tiles of 27 taps", 256, 64 / 3, 0, 97184 },
        { 6001, 2600, 3, "blur=12", KV_TENSOR, "64-row tiles of 81 taps", 256, 64 / 3, 0, 166048 },
        { 10001, 4001, 1, "blur=20:border=replicate", KV_TENSOR, "64-row tiles of 145 taps", 256, 64, 0, 192160 },
        /* RGBA (premultiplied, two byte planes staged: TN's SMEM), 64-row tiles and, on a smaller
         * image, 32-row ones */
        { 6001, 2600, 4, "blur=2", KV_TENSOR, "RGBA 64-row tiles", 256, 64 / 4, 0, 93600 },
        { 6001, 2600, 4, "blur=3.3:border=constant", KV_TENSOR, "RGBA 64-row tiles of 21 taps", 256, 64 / 4, 0,
          134816 },
        { 1001, 626, 4, "blur=2:border=replicate", KV_TENSOR, "RGBA 32-row tiles", 256, 32 / 4, 0, 54432 },
        { 1001, 626, 4, "blur=4", -1, "RGBA 64-row tiles of 29 taps", 256, 64 / 4, 0, 145568 },
        { 6001, 2600, 4, "blur=6:border=replicate", KV_TENSOR, "RGBA 64-row tiles of 37 taps", 256, 64 / 4, 0,
          156320 },
        { 6001, 2600, 4, "blur=8:border=constant", KV_TENSOR, "RGBA 64-row tiles of 49 taps", 256, 64 / 4, 0,
          177824 },
        { 513, 301, 4, "blur=8", -1, "RGBA 32-row tiles of 49 taps", 256, 32 / 4, 0, 123296 },
        /* grey+alpha, the same way (13 taps: the shared memory of RGBA's, half its pixels a thread) */
        { 6001, 2600, 2, "blur=2", KV_TENSOR, "grey+alpha 64-row tiles", 256, 64 / 2, 0, 93600 },
        { 6001, 2600, 2, "blur=4:border=constant", KV_TENSOR, "grey+alpha 64-row tiles of 25 taps", 256, 64 / 2, 0,
          124064 },
        { 6001, 2600, 2, "blur=6.5:border=replicate", -1, "grey+alpha 64-row tiles of 41 taps", 256, 64 / 2, 0,
          134816 },
        { 6001, 2600, 2, "blur=8", KV_TENSOR, "grey+alpha 64-row tiles of 49 taps", 256, 64 / 2, 0, 145568 },
        { 1001, 626, 2, "blur=2:border=replicate", KV_TENSOR, "grey+alpha 32-row tiles", 256, 32 / 2, 0, 54432 },
        { 1301, 700, 2, "blur=8:border=constant", -1, "grey+alpha 32-row tiles of 49 taps", 256, 32 / 2, 0,
          100256 },
        /* RGB past 81 taps: three grey planes, split and joined by 128-thread kernels (4 pixels a thread) */
        { 6001, 2600, 3, "blur=20:border=constant", KV_TENSOR, "the join after three grey planes", 128, 4, 0, 0 },
    };
    return big_checks("tensor blur in 64-row tiles", cases, sizeof cases / sizeof *cases, 57);
}

/* The alpha layouts that blur_q8 and blur16 do not take (grey+alpha, 16-bit RGBA) blur in one pass
 * (blur_alpha: tiles of 128 / C pixels x 32 rows, 256 threads, 16 / C output pixels a thread a
 * step): exact against the OpenMP result, and the last launch must be that kernel, told from the
 * two-pass kernel (sep_pass2, 128 or 256 threads) by its shared memory: (NH (128 + C) + NS) (31 +
 * KS) words, NH = 2 for 16 bits (1 for 8), NS the staged row pitch (the least number of words at
 * least (128 / C + KS - 1) C that is C mod 32), KS the taps (blur=2: 13 for 8 bits, 17 for 16). Odd
 * sizes: a partial last tile both ways. */
static int alpha_checks(void)
{
    static const struct big_case cases[] = {
        { 1001, 626, 2, "blur=2", KV_TILED, "blur_alpha", 256, 8, 8, (130 + 162) * 44 * 4 },
        { 1001, 626, 2, "blur=2:border=constant", KV_TILED, "blur_alpha", 256, 8, 16, (2 * 130 + 162) * 48 * 4 },
        { 1001, 626, 4, "blur=2:border=replicate", KV_TILED, "blur_alpha", 256, 4, 16, (2 * 132 + 196) * 48 * 4 },
        { 517, 37, 4, "blur=2", -1, "blur_alpha", 256, 4, 16, (2 * 132 + 196) * 48 * 4 },
    };
    return big_checks("blur with alpha in one pass", cases, sizeof cases / sizeof *cases, 83);
}

/* Past the one-pass kernels' taps (8-bit RGBA past 21, 16-bit RGB, RGBA and grey+alpha past 25,
 * any layout past 33; through auto, 8-bit grey+alpha and RGBA past the tensor kernel's 49 and grey
 * and RGB past its 177) the blur runs in two passes
 * (sep_pass1, sep_pass2): exact against the OpenMP result, and the last launch must be sep_pass2
 * (NW warps: 4 for 8 bits, 8 for 16; R YL output pixels a thread: R = 8 outputs for 8 bits, 4 for
 * 16; YL = 4, 2, 1, 1 rows for 1 to 4 channels), told from the one-pass kernels by its shared
 * memory: the zero-padded weights, ((K + 2R - 2) / R + 1) R of A bytes (float or uint32 for 8 bits,
 * double for 16), and the output tile, 32 YL rows of NW R C B + 4 bytes (B bytes a sample). Odd
 * sizes (rows not 4-byte aligned for 8-bit grey, RGB and grey+alpha), every border, a partial last
 * tile both ways. */
#define SEP_SMEM(K, R, A, YL, C, B, NW)                                                            \
    ((size_t)(((K) + 2 * (R) - 2) / (R) + 1) * (R) * (A) + 32 * (YL) * ((NW) * (R) * (C) * (B) + 4))
static int separable_checks(void)
{
    static const struct big_case cases[] = {
        { 1001, 626, 4, "blur=4", KV_TILED, "sep_pass2 (25 taps)", 128, 8, 8, SEP_SMEM(25, 8, 4, 1, 4, 1, 4) },
        { 1001, 626, 4, "blur=8.5:border=replicate", -1, "sep_pass2 (53 taps)", 128, 8, 8,
          SEP_SMEM(53, 8, 4, 1, 4, 1, 4) },
        { 1001, 626, 2, "blur=8.5:border=constant", -1, "sep_pass2 (53 taps)", 128, 16, 8,
          SEP_SMEM(53, 8, 4, 2, 2, 1, 4) },
        { 1001, 626, 3, "blur=4:border=replicate", -1, "sep_pass2 (33 taps)", 256, 4, 16,
          SEP_SMEM(33, 4, 8, 1, 3, 2, 8) },
        { 1001, 626, 4, "blur=4", -1, "sep_pass2 (33 taps)", 256, 4, 16, SEP_SMEM(33, 4, 8, 1, 4, 2, 8) },
        { 1001, 626, 2, "blur=4:border=constant", -1, "sep_pass2 (33 taps)", 256, 8, 16,
          SEP_SMEM(33, 4, 8, 2, 2, 2, 8) },
        { 4001, 2001, 1, "blur=12:border=replicate", -1, "sep_pass2 (97 taps)", 256, 16, 16,
          SEP_SMEM(97, 4, 8, 4, 1, 2, 8) },
        { 10001, 4001, 1, "blur=32", -1, "sep_pass2 (193 taps)", 128, 32, 8, SEP_SMEM(193, 8, 4, 4, 1, 1, 4) },
        { 6001, 2600, 3, "blur=32:border=constant", -1, "sep_pass2 (193 taps)", 128, 8, 8,
          SEP_SMEM(193, 8, 4, 1, 3, 1, 4) },
    };
    return big_checks("blur in two passes", cases, sizeof cases / sizeof *cases, 97);
}

/* The warp resize gives each warp a run of rows of one segment (a group of warps takes the segments
 * of a run of rows), and so does the rows resize each block; at the sizes above a run is a row at
 * most, so runs are checked where they are about a dozen rows (longer than the rows kernel's ring
 * of copies in flight): the warp kernel for RGB at 2:1 of an odd width (pixel pairs a lane) and at
 * 1.3:1 (a pixel a lane), grey at 1.3:1; the rows kernel (grey out, 8 pixels a thread) for grey
 * and for RGB read through gray (fused), at an exact 2:1 both ways and at odd sizes (rows weighed
 * unevenly), and at 3.3:1 (shorter segments). */
static int runs_checks(void)
{
    static const struct big_case cases[] = {
        { 10001, 4001, 3, "resize=50%", KV_VECTOR, "the warp resize", 128, 8, 0, 0 },
        { 10001, 4001, 3, "resize=77%:filter=bilinear", KV_VECTOR, "the warp resize", 128, 8, 0, 0 },
        { 10001, 4001, 1, "resize=77%:filter=bilinear", KV_VECTOR, "the warp resize", 256, 8, 0, 0 },
        { 10001, 4001, 1, "resize=50%", KV_VECTOR, "the rows resize", 128, 8, 0, 0 },
        { 10000, 4000, 1, "resize=50%", KV_VECTOR, "the rows resize", 128, 8, 0, 0 },
        { 10001, 4001, 1, "resize=30%:filter=bilinear", KV_VECTOR, "the rows resize", 128, 8, 0, 0 },
        { 10001, 4001, 3, "gray,resize=50%", -1, "the rows resize", 128, 8, 0, 0 },
        { 10000, 4000, 3, "gray,resize=50%", -1, "the rows resize", 128, 8, 0, 0 },
        { 10001, 4001, 3, "gray=709,resize=62%", -1, "the rows resize", 128, 8, 0, 0 },
    };
    return big_checks("warp and rows resizes with runs of rows", cases, sizeof cases / sizeof *cases, 71);
}

/* The rows resize reads the source as 16-byte chunks of the flat image where it is 16-byte aligned
 * (as every buffer gpuimg allocates is), else byte by byte: an input one byte past an allocation's
 * start must give the same result. Grey takes the rows kernel from 32 MiB (resize.c). */
static int rows_unaligned_checks(void)
{
#ifdef HAVE_CUDA
    static const char *const pipes[] = { "resize=50%", "resize=62%" };
    static const int sizes[][2] = { { 10001, 4001 }, { 8194, 4100 } };
    char err[256];
    int runs = 0, failed = 0;
    struct gpu_timer *timer;
    if (gpu_timer_create(&timer, err, sizeof err))
        return printf("FAIL rows unaligned: %s\n", err), 1;
    for (int z = 0; z < 2; z++)
        for (int p = 0; p < 2; p++) {
            struct geom g = { sizes[z][0], sizes[z][1], 1, 8 };
            struct image in, want;
            struct plan pl;
            void *din = NULL, *dout = NULL;
            size_t ib, ob;
            double ms;
            long diff = 0, tol = 0;
            const struct gpu_call vector = { .variant = KV_VECTOR };
            const char *ran = NULL;
            if (test_make_image(&in, &g, (uint32_t)(57 + z)) || test_run_pipeline(pipes[p], &in, &want)
                || plan_parse(pipes[p], &pl) || plan_resolve(&pl, &g, 0))
                return 1;
            geom_bytes(&pl.steps[0].in, &ib);
            geom_bytes(&pl.steps[0].out, &ob);
            runs++;
            if (gpu_malloc(&din, ib + 16, err, sizeof err) || gpu_malloc(&dout, ob, err, sizeof err)
                || gpu_upload((char *)din + 1, in.data, ib, err, sizeof err)) {
                printf("FAIL rows unaligned %s: %s\n", pipes[p], err);
                failed++;
            } else if (measure_gpu_variant(&pl.steps[0], &vector, (char *)din + 1, dout, &want, 1, timer, &ms, &diff,
                                           &tol, &ran)
                       || diff || !ran || strcmp(ran, "rows")) {
                printf("FAIL rows unaligned %s %dx%d: %s\n", pipes[p], g.w, g.h,
                       diff ? "differs" : !ran || strcmp(ran, "rows") ? "another kernel than rows ran" : gpuimg_errmsg());
                failed++;
            } else {
                failed += last_launch_not(pipes[p], "vector", &g, "the rows resize", 128, 0, 8);
            }
            gpu_free(din);
            gpu_free(dout);
            image_free(&want);
            image_free(&in);
        }
    gpu_timer_destroy(timer);
    printf("gpu parity, the rows resize on an unaligned input: %d runs, %d failed\n", runs, failed);
    return failed;
#else
    return 0;
#endif
}

/* The gathering resizes (8-bit with alpha, 16-bit) walk down runs of up to 8 rows where the grid
 * still fills the GPU twice; at the sizes above a thread has one row, so the runs (two register
 * buffers in turn, row sums kept from the step before) are checked where they are 8 rows: bilinear
 * near 2:1 (a pixel a thread a row, 2 for grey16) and the exact 1:2 kernel (2 x 2 pixels a
 * thread a row), with alpha and without. */
static int gather_runs_checks(void)
{
    static const struct big_case cases[] = {
        { 10001, 4001, 4, "resize=50%", KV_VECTOR, "bilinear with alpha", 256, 1 * 8, 0, 0 },
        { 10001, 4001, 2, "resize=50%", KV_VECTOR, "bilinear with alpha", 256, 1 * 8, 0, 0 },
        { 10001, 4001, 4, "resize=50%", KV_VECTOR, "16-bit bilinear", 256, 1 * 8, 16, 0 },
        { 10001, 4001, 3, "resize=50%", KV_VECTOR, "16-bit bilinear", 256, 1 * 8, 16, 0 },
        { 10001, 4001, 1, "resize=50%", KV_VECTOR, "16-bit bilinear", 256, 2 * 8, 16, 0 },
        { 4001, 2001, 4, "resize=200%", KV_VECTOR, "the 1:2 gathering resize", 128, 4 * 8, 0, 0 },
        { 4001, 2001, 2, "resize=200%", KV_VECTOR, "the 1:2 gathering resize", 128, 4 * 8, 0, 0 },
        { 4001, 2001, 4, "resize=200%", KV_VECTOR, "the 1:2 gathering resize", 128, 4 * 8, 16, 0 },
        { 4001, 2001, 1, "resize=200%", KV_VECTOR, "the 1:2 gathering resize", 128, 4 * 8, 16, 0 },
    };
    return big_checks("gathering resizes with runs of rows", cases, sizeof cases / sizeof *cases, 83);
}

/* Each one-step pipe of pipes on in with every GPU variant its operation has (and auto first where
 * with_auto) against the OpenMP result: the failures, or -1 where a reference could not be made. */
static int check_variants(const char *const *pipes, size_t npipes, const struct image *in, const struct geom *g,
                          int with_auto, int *runs)
{
    int failed = 0;
    for (size_t p = 0; p < npipes; p++) {
        struct image want;
        if (test_run_pipeline(pipes[p], in, &want))
            return -1;
        struct plan pl;
        plan_parse(pipes[p], &pl);
        plan_resolve(&pl, g, 0);
        for (int v = with_auto ? -1 : 0; v < KV_COUNT; v++)
            if (v < 0 || (pl.steps[0].op->gpu_variants & KV_BIT(v))) {
                (*runs)++;
                failed += check_run(pipes[p], &pl, in, &want, v, 0,
                                    v < 0 ? 0 : op_gpu_tolerance(pl.steps[0].op, &pl.steps[0].args, g, v));
            }
        image_free(&want);
    }
    return failed;
}

/* Opaque rows: the OpenMP path filters them plain (sepfilter.c), the GPU always premultiplied. An
 * image opaque but for a few transparent pixels (some rows all opaque, some not) must come out the
 * same from every variant: the two paths cross-checked where they meet. */
static int opaque_checks(void)
{
    static const char *const pipes[] = { "blur=2", "blur=2:border=constant", "blur=0.8:border=replicate",
                                         "resize=50%", "resize=37%", "resize=230%", "resize=61%:filter=area" };
    static const int sizes[][2] = { { 1000, 626 }, { 517, 37 } };
    int runs = 0, failed = 0;
    for (int s = 0; s < 2; s++)
        for (int depth = 8; depth <= 16; depth += 8)
            for (int c = 2; c <= 4; c += 2) {
                struct geom g = { sizes[s][0], sizes[s][1], c, depth };
                struct image in;
                if (test_make_image(&in, &g, (uint32_t)(s * 5 + c + depth)))
                    return 1;
                const size_t bps = (size_t)depth / 8, bpp = image_bpp(&in);
                for (size_t i = 0; i < (size_t)g.w * g.h; i++)
                    memset(in.data + i * bpp + bpp - bps, i % 20011 == 77 ? 0 : 0xff, bps);
                const int f = check_variants(pipes, sizeof pipes / sizeof *pipes, &in, &g, 1, &runs);
                image_free(&in);
                if (f < 0)
                    return 1;
                failed += f;
            }
    printf("opaque rows: %d runs, %d failed\n", runs, failed);
    return failed;
}

int main(void)
{
    const int require = getenv("GPUIMG_REQUIRE_GPU") && atoi(getenv("GPUIMG_REQUIRE_GPU")) == 1;
    const int quick = getenv("GPUIMG_PARITY_QUICK") && atoi(getenv("GPUIMG_PARITY_QUICK")) == 1;
    engine_files_examples();   /* composite's overlays: made, not read */
    char desc[512], why[256];
    if (backend_gpu_probe(0, desc, sizeof desc, why, sizeof why) != GPUIMG_OK) {
        printf("%s: no usable GPU: %s\n", require ? "FAIL" : "SKIP", why);
        return require ? 1 : 77;
    }
    printf("GPU: %s\n", desc);
    /* every operation's examples (the registry), then the kernel paths */
    const char *pipelines[192];
    size_t npipelines = (size_t)op_examples(pipelines, 192 - (int)(sizeof paths / sizeof *paths), 0);
    for (size_t p = 0; p < sizeof paths / sizeof *paths; p++) {
        int dup = 0;
        for (size_t q = 0; q < npipelines; q++)
            dup |= !strcmp(pipelines[q], paths[p]);
        if (!dup)
            pipelines[npipelines++] = paths[p];
    }
    int bad = fusion_plan("gray,resize=50%", 1000, 626, 3, 8, "s-")
              + fusion_plan("gray,resize=50%", 34, 22, 3, 8, "s-")          /* a segment under 64 pixels */
              + fusion_plan("gray,resize=50%,blur=2,transpose", 1000, 626, 3, 8, "s--s")
              + fusion_plan("blur=2,transpose", 7, 3, 3, 8, "-s") + fusion_plan("blur=2,transpose", 7, 3, 1, 8, "-s")
              + fusion_plan("gray,resize=50%", 1000, 626, 3, 16, "--")      /* 16-bit: no fused kernel */
              + fusion_plan("gray,resize=50%", 1001, 626, 3, 8, "s-")       /* not exactly 2:1: the rows kernel */
              + fusion_plan("gray,resize=30%:filter=bilinear", 1001, 626, 3, 8, "s-")   /* 3.3:1: its span fits */
              + fusion_plan("gray,resize=2%:filter=bilinear", 4001, 626, 3, 8, "--")    /* 50:1: it does not */
              + fusion_plan("gray,resize=77%:filter=bilinear", 1001, 626, 3, 8, "--")   /* measured slower fused */
              + fusion_plan("gray,resize=50%", 1001, 626, 4, 8, "--")       /* RGBA: gray+alpha */
              + fusion_plan("blur=2,transpose", 70, 30, 4, 8, "-s")         /* RGBA 8-bit: the one-pass kernel */
              + fusion_plan("blur=2,transpose", 70, 30, 2, 8, "--")         /* grey+alpha: blur_alpha, not fused */
              + fusion_plan("blur=2,transpose", 1001, 626, 2, 8, "--")      /* grey+alpha below 1.5 MiB: apart */
              + fusion_plan("blur=2,transpose", 1301, 700, 2, 8, "-s")      /* from 1.5 MiB: tensor, fused */
              + fusion_plan("blur=8,transpose", 1001, 626, 3, 8, "-s")      /* tensor past the one-pass taps */
              + fusion_plan("blur=8,transpose", 70, 30, 3, 8, "--")         /* the two-pass kernel: apart */
              + fusion_plan("blur=2,transpose", 70, 30, 4, 16, "--")        /* 16-bit: not fused */
              + fusion_plan("blur=2,flip=h", 70, 30, 1, 8, "--")
              + fusion_plan("blur=2,transpose", 5000, 3400, 3, 8, "-s")     /* tensor up to 64 MiB: fused */
              + fusion_plan("blur=2,transpose", 10000, 7000, 1, 8, "--");   /* above: apart */
    if (bad || jpeg_checks())
        return 1;
    static const int full[][2] = { { 1, 1 }, { 7, 3 }, { 13, 42 }, { 4097, 3 }, { 1001, 626 }, { 1000, 626 } };
    static const int small[][2] = { { 7, 3 }, { 37, 45 }, { 14, 42 }, { 517, 37 } };
    const int (*sizes)[2] = quick ? small : full;
    const int nsizes = quick ? 4 : 6;
    int runs = 0, failed = 0;
    for (int s = 0; s < nsizes; s++)
        for (int depth = 8; depth <= 16; depth += 8)
            for (int c = 1; c <= 4; c++) {
                struct geom g = { sizes[s][0], sizes[s][1], c, depth };
                struct image in;
                if (test_make_image(&in, &g, (uint32_t)(s * 100 + c * 10 + depth)))
                    return 1;
                const int f = check_variants(pipelines, npipelines, &in, &g, 0, &runs);
                if (f < 0)
                    return 1;
                failed += f;
                for (size_t p = 0; p < sizeof fused / sizeof *fused; p++) {
                    const int f = check_fused(fused[p], &in, &g, 0, &runs);
                    if (f < 0)
                        return 1;
                    failed += f;
                }
                image_free(&in);
            }
    printf("gpu parity: %d runs, %d failed\n", runs, failed);
    failed += tiled_checks(quick);
    failed += tensor_fused_checks(quick);
    failed += alpha_checks();
    failed += opaque_checks();
    failed += rows_unaligned_checks();
    if (!quick) {   /* too slow under compute-sanitizer: gpu_session.sh sanitizes the quick set */
        failed += separable_checks();
        failed += words_checks();
        failed += tall_checks();
        failed += runs_checks();
        failed += gather_runs_checks();
    }
    return failed ? 1 : 0;
}
