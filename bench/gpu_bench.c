/* gpuimg bench: every operation x GPU kernel variant x layout (gray, RGB, RGBA; 8 and 16 bit) at
 * 10109x4542 (45.9 Mpx, far larger than L2) and 1920x1080, beside the device-to-device copy of
 * the same bytes and, when configure found NVIDIA NPP, NPP's function for the same operation, in
 * one process on the GPU. Fresh synthetic inputs for every size and layout; every GPU output is
 * checked against the OpenMP reference before it is timed (bench stops on a mismatch); 3 warm-up
 * launches, then the median of --repeat (default 30) CUDA-event timings. GB/s counts the bytes
 * an operation must read and write (its input and output images). The operations are each one's
 * examples from the registry; one that enlarges (resize=200%) takes a half-size input so that its
 * output is the full size, as NPP's anchor does.
 *   bench/gpu_bench [--repeat N] [--csv FILE] [--quick] [--op NAME] [--size WxH] [--channels N]
 *                   [--depth D] [--pipeline P]... [--sigma S]... [--no-npp]
 * --quick: grey and RGB 8-bit only; --channels, --depth: only that layout (--channels 2, grey+alpha,
 * is not in the default set); --op: only the cases whose pipeline starts with NAME (and no
 * whole-pipeline rows unless NAME is "pipeline"); --size: this size instead of the two; --pipeline:
 * the whole-pipeline rows (RGB 8-bit) for these pipelines instead of gray,resize=50%,blur=2,transpose;
 * --sigma: blur=S for each S given instead of the operations above (the sweep of sigma: perpixel and
 * coalesced, the per-tap baselines, left out; NPP's FilterGaussAdvancedBorder beside, as many taps);
 * --no-npp: no NPP rows (its gaussian takes 0.2 to 2 s a call past about 64 taps).
 * Not part of make check: timings are recorded in bench/RESULTS.md, never asserted. */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/backend.h"
#include "engine/files.h"
#include "engine/measure.h"
#include "core/error.h"
#include "cuda/gpu.h"
#include "core/plan.h"
#include "tests/testutil.h"

#ifdef HAVE_NPP
int bench_npp(const char *op, int c, int depth, int w, int h, int dw, int dh, const void *in, void *out, int repeat,
              double *ms, char *err, size_t errlen);
#endif

/* the cases: every operation's examples (the registry), or the --sigma sweep; half: the example
 * enlarges, so it takes a half-size input and makes an output of the full size */
static struct { const char *pipe; int half; } cases[64];

static FILE *csv;

static void row(const char *size, const struct geom *g, const char *op, const char *impl, double ms, double bytes,
                double copy_gbs, double npp_ms, const char *check)
{
    const double gbs = bytes / ms / 1e6;
    char vs[32] = "";
    if (npp_ms > 0)
        snprintf(vs, sizeof vs, "%.2fx", npp_ms / ms);
    printf("%-10s %-14s %-12s %-10s %9.4f %8.1f %6.1f%% %8s  %s\n", size, layout_name(g->c), op, impl, ms, gbs,
           100 * gbs / copy_gbs, vs, check);
    if (csv)
        fprintf(csv, "%s,%d,%d,%s,%s,%.5f,%.2f,%.4f,%.5f,%s\n", size, g->c, g->depth, op, impl, ms, gbs, gbs / copy_gbs,
                npp_ms, check);
}

static int fail(const char *what);

/* The whole pipeline with the automatic kernels, fused and step by step: median of repeat runs
 * of all its kernels (CUDA events), checked against the OpenMP result first. */
static int bench_pipeline(const char *pipe, const struct image *in, const char *size, double copy_gbs, int repeat,
                          int *mismatches)
{
    struct plan pl;
    struct image ref;
    struct geom g = image_geom(in);
    if (plan_parse(pipe, &pl) || plan_resolve(&pl, &g, 0) || test_run_pipeline(pipe, in, &ref))
        return fail(pipe);
    size_t ob;
    geom_bytes(&pl.out, &ob);
    for (int nofuse = 0; nofuse <= 1; nofuse++) {
        struct gpu_pipeline gp;
        if (gpu_pipeline_open(&gp, &pl, -1, nofuse))
            return fail(pipe);
        double ms, bytes = 0;
        uint8_t *host = malloc(ob);
        if (!host || measure_pipeline_kernels(&gp, &pl, in, repeat, host, &ms))
            return fail(pipe);
        char check[48], what[512] = "";
        for (int i = 0; i < pl.nsteps; i++) {
            char label[200];
            double b;
            if (gpu_pipeline_step(&gp, &pl, i, label, sizeof label, &b)) {
                char kernel[64];
                bytes += b;
                gpu_kernel_label(kernel, sizeof kernel, &gp.call[i], gp.ran[i]);
                snprintf(what + strlen(what), sizeof what - strlen(what), "%s%.100s[%s]", what[0] ? " " : "", label,
                         kernel);
            }
        }
        *mismatches += measure_check_text(check, sizeof check, memcmp(host, ref.data, ob) ? 1 : 0, 0);
        row(size, &g, "pipeline", nofuse ? "unfused" : "fused", ms, bytes,
            copy_gbs, 0, check);
        printf("%10s %s\n", "", what);
        free(host);
        gpu_pipeline_close(&gp, &pl);
    }
    image_free(&ref);
    return 0;
}

static int fail(const char *what)
{
    fprintf(stderr, "gpu_bench: %s: %s\n", what, gpuimg_errmsg() ? gpuimg_errmsg() : "failed");
    return 1;
}

int main(int argc, char **argv)
{
    int repeat = 30, quick = 0, no_npp = 0, nsizes = 2, npipes = 0, only_c = 0, only_d = 0;
    const char *only = NULL, *pipes[8] = { "gray,resize=50%,blur=2,transpose" };
    static char sweep[8][32];
    const char *examples[64];
    engine_files_examples();   /* composite's overlays: made, not read */
    size_t ncases = (size_t)op_examples(examples, 64, 0), nsweep = 0;
    for (size_t k = 0; k < ncases; k++) {
        struct plan pl;
        const struct geom g1 = { 1000, 1000, 3, 8 };
        cases[k].pipe = examples[k];
        cases[k].half = !plan_parse(examples[k], &pl) && !plan_resolve(&pl, &g1, 0) && pl.out.w * pl.out.h > 1000 * 1000;
    }
    int sizes[2][2] = { { 10109, 4542 }, { 1920, 1080 } };
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csv = fopen(argv[++i], "w");
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--no-npp"))
            no_npp = 1;
        else if (!strcmp(argv[i], "--op") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--channels") && i + 1 < argc && (only_c = atoi(argv[i + 1])) >= 1 && only_c <= 4)
            i++;
        else if (!strcmp(argv[i], "--depth") && i + 1 < argc && ((only_d = atoi(argv[i + 1])) == 8 || only_d == 16))
            i++;
        else if (!strcmp(argv[i], "--size") && i + 1 < argc && sscanf(argv[i + 1], "%dx%d", &sizes[0][0], &sizes[0][1]) == 2
                 && sizes[0][0] > 1 && sizes[0][1] > 1) {
            nsizes = 1;
            i++;
        } else if (!strcmp(argv[i], "--pipeline") && i + 1 < argc && npipes < 8)
            pipes[npipes++] = argv[++i];
        else if (!strcmp(argv[i], "--sigma") && i + 1 < argc && nsweep < 8 && atof(argv[i + 1]) > 0) {
            snprintf(sweep[nsweep], sizeof sweep[nsweep], "blur=%s", argv[++i]);
            cases[nsweep].pipe = sweep[nsweep];
            cases[nsweep].half = 0;
            ncases = ++nsweep;
        } else {
            fprintf(stderr, "usage: gpu_bench [--repeat N] [--csv FILE] [--quick] [--op NAME] [--size WxH] "
                            "[--channels N] [--depth D] [--pipeline P]... [--sigma S]... [--no-npp]\n");
            return 2;
        }
    }
    if (repeat < 1 || repeat > 1000)
        repeat = 30;
    (void)no_npp;   /* (without NPP there is nothing to leave out) */
    char desc[512], why[256], err[256];
    if (backend_gpu_probe(0, desc, sizeof desc, why, sizeof why)) {
        fprintf(stderr, "gpu_bench: no usable GPU: %s\n", why);
        return 1;
    }
    printf("gpu_bench: %s; median of %d; NPP: %s\n", desc, repeat,
#ifdef HAVE_NPP
           "yes"
#else
           "not found by configure"
#endif
    );
    if (csv)
        fprintf(csv, "size,channels,depth,operation,implementation,ms,gb_per_s,share_of_copy,npp_ms,check\n");
    printf("%-10s %-14s %-12s %-10s %9s %8s %7s %8s  %s\n", "size", "layout", "operation", "impl", "ms", "GB/s",
           "copy%", "vs NPP", "check");
    struct gpu_timer *timer;
    if (gpu_timer_create(&timer, err, sizeof err)) {
        fprintf(stderr, "gpu_bench: %s\n", err);
        return 1;
    }
    int mismatches = 0;
    if (!npipes && !nsweep)
        npipes = 1;
    for (int s = 0; s < nsizes; s++)
        for (int depth = 8; depth <= 16; depth += 8)
            for (int c = 1; c <= 4; c++) {
                if (only_c ? c != only_c : c == 2 || (quick && ((c != 1 && c != 3) || depth != 8)))
                    continue;
                if (only_d && depth != only_d)
                    continue;
                char size[32];
                snprintf(size, sizeof size, "%dx%d", sizes[s][0], sizes[s][1]);
                struct geom g = { sizes[s][0], sizes[s][1], c, depth }, gh = { g.w / 2, g.h / 2, c, depth };
                struct image full, half;
                size_t bytes;
                geom_bytes(&g, &bytes);
                if (test_make_image(&full, &g, (uint32_t)(s * 100 + c * 10 + depth))
                    || test_make_image(&half, &gh, (uint32_t)(s * 100 + c * 10 + depth + 1)))
                    return fail("input");
                void *din, *dout;
                /* the largest output: resize=200% of the half input is the full size */
                if (gpu_malloc(&din, bytes, err, sizeof err) || gpu_malloc(&dout, bytes, err, sizeof err)) {
                    fprintf(stderr, "gpu_bench: %s\n", err);
                    return 1;
                }
                /* the ceiling: a device-to-device copy of the input, read + write bytes */
                double copy_ms;
                gpu_upload(din, full.data, bytes, err, sizeof err);
                if (measure_copy_ms(dout, din, bytes, repeat, timer, &copy_ms))
                    return fail("device copy");
                const double copy_gbs = 2.0 * bytes / copy_ms / 1e6;
                row(size, &g, "copy", "cudaMemcpy", copy_ms, 2.0 * bytes, copy_gbs, 0, "");
                for (size_t k = 0; k < ncases; k++) {
                    if (only && strncmp(cases[k].pipe, only, strlen(only)))
                        continue;
                    const struct image *in = cases[k].half ? &half : &full;
                    struct geom gi = image_geom(in);
                    struct plan pl;
                    struct image ref;
                    if (plan_parse(cases[k].pipe, &pl) || plan_resolve(&pl, &gi, 0) || test_run_pipeline(cases[k].pipe, in, &ref))
                        return fail(cases[k].pipe);
                    size_t ib, ob;
                    geom_bytes(&pl.steps[0].in, &ib);
                    geom_bytes(&pl.steps[0].out, &ob);
                    gpu_upload(din, in->data, ib, err, sizeof err);
                    double npp_ms = 0;
#ifdef HAVE_NPP
                    int nr = no_npp ? 1
                                    : bench_npp(cases[k].pipe, c, depth, in->w, in->h, pl.out.w, pl.out.h, din, dout, repeat,
                                                &npp_ms, err, sizeof err);
                    if (nr < 0) {
                        fprintf(stderr, "gpu_bench: %s\n", err);
                        npp_ms = 0;
                    }
#endif
                    for (int v = 0; v < KV_COUNT; v++) {
                        if (!(pl.steps[0].op->gpu_variants & KV_BIT(v))
                            || (nsweep && (v == KV_PERPIXEL || v == KV_COALESCED)))
                            continue;
                        double ms;
                        long diff, tol;
                        const struct gpu_call call = { .variant = v };
                        const char *ran;
                        if (measure_gpu_variant(&pl.steps[0], &call, din, dout, &ref, repeat, timer, &ms, &diff, &tol,
                                                &ran))
                            return fail(cases[k].pipe);
                        char check[48], kernel[64];
                        mismatches += measure_check_text(check, sizeof check, diff, tol);
                        gpu_kernel_label(kernel, sizeof kernel, &call, ran);
                        row(size, &g, cases[k].pipe, kernel, ms, (double)(ib + ob), copy_gbs, npp_ms, check);
                    }
                    if (npp_ms > 0)
                        row(size, &g, cases[k].pipe, "npp", npp_ms, (double)(ib + ob), copy_gbs, npp_ms, "(anchor)");
                    image_free(&ref);
                    fflush(stdout);
                }
                for (int p = 0; c == 3 && depth == 8 && (!only || !strcmp(only, "pipeline")) && p < npipes; p++)
                    if (bench_pipeline(pipes[p], &full, size, copy_gbs, repeat, &mismatches))
                        return 1;
                gpu_free(din);
                gpu_free(dout);
                image_free(&full);
                image_free(&half);
            }
    gpu_timer_destroy(timer);
    if (csv)
        fclose(csv);
    if (mismatches)
        printf("gpu_bench: %d MISMATCHES against the OpenMP reference\n", mismatches);
    return mismatches ? 1 : 0;
}
