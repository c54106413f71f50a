/* gpuimg tests: the tiling (src/engine/tile.c) that the GPU uses when a pipeline does not fit in device
 * memory, checked on the OpenMP path: every tileable pipeline, run in tiles of many shapes (1x1,
 * thin strips, odd sizes, tiles smaller than the blur's halo, one tile), equals the same
 * pipeline run whole, byte for byte, for every layout, both depths and the odd sizes: every
 * tileable operation's examples from the registry, then more (resize by whole factors, whose tiles
 * take cells, and by others, whose tiles take whole axes). Also: every operation has examples, a
 * pipeline with a step that cannot be tiled is named, and tile_shrink and tile_shrink_plan halve. */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include "engine/backend.h"
#include "core/error.h"
#include "testutil.h"
#include "engine/files.h"
#include "engine/tile.h"

static int failures, checks;

static void check(const char *pipeline, const struct image *src, int tw, int th)
{
    static struct plan pl;
    struct image whole, tiled;
    struct run_report r;
    checks++;
    if (plan_parse(pipeline, &pl) || plan_resolve(&pl, &(struct geom){ src->w, src->h, src->c, src->depth }, 0)
        || test_copy(&whole, src)) {
        failures++;
        fprintf(stderr, "FAIL %s: %s\n", pipeline, gpuimg_errmsg());
        return;
    }
    timing_report_init(&r);
    if (backend_cpu_run(&pl, &whole, &r) || test_copy(&tiled, src)) {
        failures++;
        fprintf(stderr, "FAIL %s: %s\n", pipeline, gpuimg_errmsg());
        image_free(&whole);
        return;
    }
    if (tile_run_cpu(&pl, tw, th, &tiled)) {
        failures++;
        fprintf(stderr, "FAIL %s in %dx%d tiles: %s\n", pipeline, tw, th, gpuimg_errmsg());
        gpuimg_clear_error();
    } else if (!test_equal(&whole, &tiled)) {
        failures++;
        fprintf(stderr, "FAIL %s on %dx%d c%d d%d in %dx%d tiles differs from the whole run\n", pipeline, src->w, src->h,
                src->c, src->depth, tw, th);
    }
    image_free(&whole);
    image_free(&tiled);
}

int main(void)
{
    /* every tileable operation's examples (the registry), then other parameters and pipelines */
    static const char *const more[] = {
        "gray", "blur=2", "blur=0.6:border=replicate", "blur=3:border=constant", "blur=9", "transpose", "rotate=90",
        "rotate=180", "rotate=270", "flip=h", "flip=v", "gray,blur=2,transpose", "blur=1.5,rotate=90,blur=1,flip=h",
        "rotate=270,blur=2:border=replicate,transpose,gray", "resize=25%", "resize=33.3333%", "resize=50%:filter=nearest",
        "resize=50%:filter=bilinear", "resize=50%:filter=area", "resize=25%:filter=bilinear", "resize=33.3333%:filter=nearest",
        "resize=10x7!", "resize=100%", "gray,resize=50%,blur=2", "blur=1,resize=25%,transpose",
    };
    engine_files_examples();   /* composite's overlays: made, not read */
    const char *pipes[96];
    size_t npipes = (size_t)op_examples(pipes, 96 - (int)(sizeof more / sizeof *more), 1);
    for (size_t i = 0; i < sizeof more / sizeof *more; i++)
        pipes[npipes++] = more[i];
    /* examples whose parameters run whole (rotate=30): named by tile_supported, not tiled */
    size_t kept = 0;
    for (size_t i = 0; i < npipes; i++) {
        static struct plan pp;
        const char *which = NULL;
        checks++;
        if (plan_parse(pipes[i], &pp)) {
            failures++;
            fprintf(stderr, "FAIL %s: %s\n", pipes[i], gpuimg_errmsg());
        } else if (tile_supported(&pp, &which)) {
            pipes[kept++] = pipes[i];
        } else if (!which || strcmp(which, pp.steps[0].op->name)) {
            failures++;
            fprintf(stderr, "FAIL %s cannot run in tiles, but no step is named\n", pipes[i]);
        }
    }
    npipes = kept;
    /* the registry: every operation has examples, each a pipeline of that operation alone */
    for (int i = 0; i < gpuimg_nops; i++) {
        static struct plan ex;
        checks++;
        const char *const *e = gpuimg_ops[i]->examples;
        if (!e || !*e) {
            failures++;
            fprintf(stderr, "FAIL operation %s has no examples\n", gpuimg_ops[i]->name);
        }
        for (; e && *e; e++)
            if (plan_parse(*e, &ex) || ex.nsteps != 1 || ex.steps[0].op != gpuimg_ops[i]) {
                failures++;
                fprintf(stderr, "FAIL %s's example '%s' is not a pipeline of it alone\n", gpuimg_ops[i]->name, *e);
                gpuimg_clear_error();
            }
    }
    static const int sizes[][2] = { { 1, 1 }, { 7, 3 }, { 13, 42 }, { 1001, 626 } };
    static const int tiles[][2] = { { 1, 1 }, { 3, 2 }, { 5, 17 }, { 64, 1 }, { 1, 64 }, { 100, 37 }, { 256, 256 }, { 4096, 4096 } };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int c = 1; c <= 4; c++)
            for (int depth = 8; depth <= 16; depth += 8) {
                struct image im;
                struct geom g = { sizes[s][0], sizes[s][1], c, depth };
                if (test_make_image(&im, &g, (uint32_t)(s * 131 + c * 7 + depth))) {
                    failures++;
                    continue;
                }
                for (size_t p = 0; p < npipes; p++)
                    for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
                        /* small tiles of the large image would take minutes: blocks there */
                        if (g.w * g.h > 100000 && (tiles[t][0] * tiles[t][1] < 3000 || tiles[t][0] > g.w))
                            continue;
                        check(pipes[p], &im, tiles[t][0], tiles[t][1]);
                    }
                image_free(&im);
            }

    /* an operation without a region is named (every one has one today: a copy of blur without) */
    static struct plan pl;
    static struct op_desc untileable;
    const char *which = NULL;
    checks++;
    if (plan_parse("gray,blur=2,resize=50%", &pl) || !tile_supported(&pl, &which)) {
        failures++;
        fprintf(stderr, "FAIL gray,blur=2,resize=50%% cannot be tiled\n");
    }
    untileable = *pl.steps[1].op;
    untileable.region = NULL;
    pl.steps[1].op = &untileable;
    if (tile_supported(&pl, &which) || !which || strcmp(which, "blur")) {
        failures++;
        fprintf(stderr, "FAIL blur without a region is not reported as the step that cannot be tiled\n");
    }
    int tw = 5, th = 9, ok = tile_shrink(&tw, &th) && tw == 5 && th == 5 && tile_shrink(&tw, &th) && tw == 3 && th == 5;
    tw = th = 1;
    checks++;
    if (!ok || tile_shrink(&tw, &th)) {
        failures++;
        fprintf(stderr, "FAIL tile_shrink\n");
    }
    /* tile_shrink_plan halves the side that saves bytes: the rows of a resize that takes whole rows
     * (1001 columns to 501), the longer side of a pointwise step */
    static struct plan rp;
    const struct geom big = { 1001, 626, 3, 8 };
    checks++;
    tw = 501, th = 313;
    if (plan_parse("resize=50%", &rp) || plan_resolve(&rp, &big, 0) || !tile_shrink_plan(&rp, &tw, &th) || tw != 501
        || th != 157) {
        failures++;
        fprintf(stderr, "FAIL tile_shrink_plan on resize=50%%: %dx%d, want 501x157\n", tw, th);
    }
    checks++;
    tw = 1000, th = 626;   /* a tie: the longer side */
    if (plan_parse("gray", &rp) || plan_resolve(&rp, &(struct geom){ 1000, 626, 3, 8 }, 0) || !tile_shrink_plan(&rp, &tw, &th)
        || tw != 500 || th != 626) {
        failures++;
        fprintf(stderr, "FAIL tile_shrink_plan on gray: %dx%d, want 500x626\n", tw, th);
    }
    printf("tile_test: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
