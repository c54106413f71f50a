/* gpuimg tests: the GPU against the OpenMP reference, bit for bit, for every operation x every
 * kernel variant it has x every channel layout x 8 and 16 bits x the sizes 1x1, 7x3, 13x42,
 * 1001x626 and 4097x3, and 1000x626 (even: the CPU's exact 2:1 resize path against the GPU's
 * general one). Both sides compute the same integer formulas, so the required agreement is
 * exact for every operation. The device buffers are poisoned when allocated so that a pixel no
 * thread writes cannot pass. Exit 77 (skip) without a usable GPU, unless GPUIMG_REQUIRE_GPU=1,
 * which makes that a failure. GPUIMG_PARITY_QUICK=1 uses four small sizes instead (7x3, 37x45,
 * 14x42 and 517x37, which cut every tile and halo shape and give the blur's one-pass kernel tiles
 * clear of both edges), for compute-sanitizer runs. */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backend.h"
#include "error.h"
#include "plan.h"
#include "testutil.h"

static const char *const pipelines[] = {
    "gray", "gray=709",
    "resize=50%", "resize=200%", "resize=30%", "resize=77%:filter=bilinear", "resize=61%:filter=area",
    "resize=230%:filter=area", "resize=50%:filter=nearest", "resize=300%:filter=nearest", "resize=5x7",
    "blur=0.8", "blur=2", "blur=2:border=replicate", "blur=2:border=constant", "blur=3.3", "blur=2.8",
    "blur=5:border=replicate", "blur=12:border=constant",
    "transpose", "rotate=90", "rotate=180", "rotate=270", "flip=h", "flip=v",
};

int main(void)
{
    const int require = getenv("GPUIMG_REQUIRE_GPU") && atoi(getenv("GPUIMG_REQUIRE_GPU")) == 1;
    const int quick = getenv("GPUIMG_PARITY_QUICK") && atoi(getenv("GPUIMG_PARITY_QUICK")) == 1;
    char desc[512], why[256];
    if (backend_gpu_probe(0, desc, sizeof desc, why, sizeof why) != GPUIMG_OK) {
        printf("%s: no usable GPU: %s\n", require ? "FAIL" : "SKIP", why);
        return require ? 1 : 77;
    }
    printf("GPU: %s\n", desc);
    /* every operation in the table must be exercised */
    for (int i = 0; i < gpuimg_nops; i++) {
        int seen = 0;
        for (size_t p = 0; p < sizeof pipelines / sizeof *pipelines; p++)
            seen |= !strncmp(pipelines[p], gpuimg_ops[i]->name, strlen(gpuimg_ops[i]->name));
        if (!seen) {
            printf("FAIL: operation %s has no parity case\n", gpuimg_ops[i]->name);
            return 1;
        }
    }
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
                for (size_t p = 0; p < sizeof pipelines / sizeof *pipelines; p++) {
                    struct image want;
                    if (test_run_pipeline(pipelines[p], &in, &want))
                        return 1;
                    struct plan pl;
                    plan_parse(pipelines[p], &pl);
                    plan_resolve(&pl, &g, 0);
                    for (int v = 0; v < KV_COUNT; v++) {
                        if (!(pl.steps[0].op->gpu_variants & KV_BIT(v)))
                            continue;
                        struct image got;
                        struct run_report r;
                        timing_report_init(&r);
                        test_copy(&got, &in);
                        struct gpu_run_opts go = { 0, v, 0 };
                        runs++;
                        if (backend_gpu_run(&pl, &go, &got, &r) != GPUIMG_OK) {
                            failed++;
                            printf("FAIL %s %s %dx%d c%d d%d: %s\n", pipelines[p], kernel_names[v], g.w, g.h, c, depth,
                                   gpuimg_errmsg());
                            gpuimg_clear_error();
                            image_free(&got);
                            continue;
                        }
                        /* raw bytes: no alpha weighting, every sample must be identical */
                        if (got.w != want.w || got.h != want.h || got.c != want.c
                            || memcmp(got.data, want.data, want.stride * (size_t)want.h)) {
                            long over = 0, d = test_max_diff(&got, &want, &over, 0);
                            failed++;
                            printf("FAIL %s %s %dx%d c%d d%d: differs (max weighted diff %ld in %ld samples)\n",
                                   pipelines[p], kernel_names[v], g.w, g.h, c, depth, d, over);
                        }
                        image_free(&got);
                    }
                    image_free(&want);
                }
                image_free(&in);
            }
    printf("gpu parity: %d runs, %d failed\n", runs, failed);
    return failed ? 1 : 0;
}
