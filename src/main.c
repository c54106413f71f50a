/* gpuimg: the program. argv -> options and plan -> decode -> backend -> encode -> report.
 * This is the only place that prints errors: one line, "gpuimg: " and the recorded detail,
 * then the exit status from the error's class (0 ok, 1 failure on a file, 2 usage). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "backend.h"
#include "cli.h"
#include "compare.h"
#include "error.h"
#include "io.h"
#include "plan.h"
#include "timing.h"
#include "tune.h"

static int fail(int st)
{
    const char *m = gpuimg_errmsg();
    fprintf(stderr, "gpuimg: %s\n", m ? m : gpuimg_strerror(st));
    if (gpuimg_exit_code(st) == 2)
        cli_usage(stderr);
    return gpuimg_exit_code(st);
}

static int write_json(const char *dest, const struct run_report *r)
{
    if (!strcmp(dest, "-")) {
        timing_write_json(stdout, r);
        return fflush(stdout) == 0 ? GPUIMG_OK : gpuimg_fail(GPUIMG_EWRITE, "<stdout>: cannot write the JSON report");
    }
    FILE *f = fopen(dest, "w");
    if (!f)
        return gpuimg_fail(GPUIMG_EWRITE, "%s: cannot write the JSON report", dest);
    timing_write_json(f, r);
    return fclose(f) == 0 ? GPUIMG_OK : gpuimg_fail(GPUIMG_EWRITE, "%s: cannot write the JSON report", dest);
}

int main(int argc, char **argv)
{
    struct cli_opts o;
    if (argc > 1 && !strcmp(argv[1], "tune")) {   /* gpuimg tune [OPTIONS] */
        int t = tune_main(argc - 1, argv + 1);
        return t ? fail(t) : 0;
    }
    int st = cli_parse(argc, argv, &o);
    if (st)
        return fail(st);
    switch (o.action) {
    case ACT_HELP: cli_help(stdout); return 0;
    case ACT_VERSION: cli_version(stdout); return 0;
    case ACT_LIST: cli_list(stdout, o.list_format); return 0;
    case ACT_RUN: break;
    }

    struct plan pl;
    if ((st = plan_parse(o.pipeline, &pl)))
        return fail(st);
    for (int i = 0; o.kernel >= 0 && i < pl.nsteps; i++)
        if (!(pl.steps[i].op->gpu_variants & KV_BIT(o.kernel))) {
            char kl[96];
            kernel_list(pl.steps[i].op->gpu_variants, kl, sizeof kl);
            return fail(gpuimg_fail(GPUIMG_EUSAGE, "--kernel=%s: %s has no %s kernel (it has: %s)", kernel_names[o.kernel],
                                    pl.steps[i].op->name, kernel_names[o.kernel], kl));
        }
    struct save_opts so = { o.format, o.png_level, o.jpeg_quality, o.force, 0 };
    if ((st = io_check_output(o.output, &so)))
        return fail(st);
#ifdef _OPENMP
    if (o.threads)
        omp_set_num_threads(o.threads);
    int threads = omp_get_max_threads();
#else
    int threads = 1;
#endif
    io_install_signal_cleanup();
    so.threads = threads;

    struct run_report rep;
    timing_report_init(&rep);
    rep.input = o.input;
    rep.output = o.output;
    rep.pipeline = o.pipeline;
    rep.threads = threads;

    double t0 = timing_now_ms();
    struct image img;
    struct load_opts lo = { o.max_pixels };
    if ((st = io_load(o.input, &lo, &img)))
        return fail(st);
    rep.decode_ms = timing_now_ms() - t0;
    rep.in = image_geom(&img);

    if ((st = plan_resolve(&pl, &rep.in, o.max_pixels))) {
        image_free(&img);
        return fail(st);
    }
    static struct compare_table tab;
    if (o.compare) {
        struct compare_opts co = { o.repeat, o.backend != BACKEND_CPU, o.device };
        double tc = timing_now_ms();
        st = compare_run(&pl, &co, &img, &rep, &tab);
        if (tab.nrows)
            timing_print_compare(strcmp(o.output, "-") ? stdout : stderr, &rep);
        fflush(stdout);
        rep.process_ms = timing_now_ms() - tc;
        rep.backend = "compare";
        rep.nsteps = 0;
    } else {
        struct backend_choice bc;
        if ((st = backend_select(o.backend, &pl, o.device, &bc))) {
            image_free(&img);
            return fail(st);
        }
        if (bc.note[0] && o.verbose)
            fprintf(stderr, "gpuimg: %s\n", bc.note);
        if (bc.note_is_fallback)   /* said once, in the timing line */
            rep.fallback = "no usable GPU";
        struct gpu_run_opts go = { o.device, o.kernel, backend_gpu_pin_default(), o.nofuse };
        st = bc.kind == BACKEND_GPU ? backend_gpu_run(&pl, &go, &img, &rep) : backend_cpu_run(&pl, &img, &rep);
    }
    if (st) {
        image_free(&img);
        return fail(st);
    }
    rep.out = image_geom(&img);

    double te = timing_now_ms();
    st = io_save(o.output, &img, &so);
    image_free(&img);
    if (st)
        return fail(st);
    rep.encode_ms = timing_now_ms() - te;
    rep.total_ms = timing_now_ms() - t0;
    rep.peak_rss_kb = timing_peak_rss_kb();

    if (!o.quiet)
        timing_print_line(stderr, &rep, o.verbose);
    if (o.json && (st = write_json(o.json, &rep)))
        return fail(st);
    return 0;
}
