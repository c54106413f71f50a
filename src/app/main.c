/* gpuimg: the program. argv -> options and plan -> decode -> backend -> encode -> report, for
 * one file here or for many through batch_main().
 * Errors are printed here (one line, "gpuimg: " and the recorded detail, then the exit status
 * from the error's class: 0 ok, 1 failure on a file, 2 usage) and, for the files of a batch, by
 * batch_main on this same thread. */
#include <config.h>
#include <stdio.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "engine/backend.h"
#include "app/batch.h"
#include "app/cli.h"
#include "app/client.h"
#include "app/server.h"
#include "app/compare.h"
#include "core/error.h"
#include "io/io.h"
#include "io/jxl.h"
#include "core/plan.h"
#include "engine/files.h"
#include "engine/run.h"
#include "app/report.h"
#include "app/tune.h"
#include "app/info.h"

static int fail(int st)
{
    const char *m = gpuimg_errmsg();
    gpuimg_print_line(stderr, m ? m : gpuimg_strerror(st));
    if (gpuimg_exit_code(st) == 2)
        cli_usage(stderr);
    return gpuimg_exit_code(st);
}

int main(int argc, char **argv)
{
    const double t_start = timing_now_ms();   /* total: the command's wall time */
    struct cli_opts o;
    struct engine_knobs knobs;   /* the environment's, read once (cli_parse, options_init) */
    jxl_quiet_stderr();
    if (argc > 1 && !strcmp(argv[1], "info"))   /* gpuimg info [--json] FILE...: headers, nothing decoded */
        return info_main(argc - 1, argv + 1);
    const int tune = argc > 1 && !strcmp(argv[1], "tune");   /* gpuimg tune [OPTIONS]: its own rows */
    int st = tune ? tune_parse(argc - 1, argv + 1, &o) : cli_parse(argc, argv, &o);
    if (st)
        return fail(st);
    options_knobs(&o, &knobs);
    engine_set_knobs(&knobs);
    if (tune)
        return (st = tune_main(&o)) ? fail(st) : 0;
    server_configure(&o);
    switch (o.action) {
    case ACT_HELP: cli_help(stdout); return 0;
    case ACT_VERSION: cli_version(stdout); return 0;
    case ACT_LIST: cli_list(stdout, o.list_format); return 0;
    case ACT_SERVER: return (st = server_main(&o)) ? fail(st) : 0;
    case ACT_SERVER_STATUS: return client_status(stdout);
    case ACT_SERVER_STOP: return client_stop(stdout);
    case ACT_RUN: break;
    }

    struct plan pl;
    engine_files_read(o.max_pixels, (unsigned)o.max_expansion);   /* a file the pipeline names, read now */
    if ((st = plan_parse(o.pipeline, &pl)))
        return fail(st);
    if ((st = plan_check_kernel(&pl, o.kernel)))
        return fail(st);
    /* a single file's threads; a batch gets the cores, shared out among its jobs (or --threads each) */
#ifdef _OPENMP
    if (o.threads && !o.template)
        omp_set_num_threads(o.threads);
    int threads = omp_get_max_threads();
#else
    int threads = 1;
#endif
    if (o.j_was_threads && !o.quiet)
        fprintf(stderr, "gpuimg: note: -j %d sets this file's threads, as it did; in a batch -j is files in flight (as "
                        "make -j): say --threads=%d\n", o.j, o.j);
    io_install_signal_cleanup();
    backend_gpu_set_mem_limit(o.gpu_mem_limit);

    struct run_ctx ctx;
    options_run_ctx(&o, &pl, threads, &ctx);
    if (!o.template && (st = io_check_output(o.output, o.force)))   /* before any work */
        return fail(st);
    /* --json is an output like the image: never one of the command's files, not replaced without
     * --force, written beside and renamed; made now, so that it cannot fail after the work */
    struct io_pending json = { 0 }, image = { 0 };
    if (o.json && !o.template) {
        const char *files[] = { o.input, o.output };
        if ((st = io_refuse_same("--json=", o.json, files, 2)) || (st = io_pending_open(o.json, o.force, &json)))
            return fail(st);
        ctx.hold = &image;   /* the image waits for the report: both are published, or neither */
    }
    if (o.template) {   /* where it runs depends on how many files: batch_main decides */
        int code = 0;
        return (st = batch_main(&o, &ctx, threads, t_start, &code)) ? fail(st) : code;
    }
    struct route rt = { 0 };
    struct client *cl = NULL;
    if (!o.compare && (st = client_route(&o, &pl, 1, &ctx, &rt)))
        return fail(st);
    if (rt.note[0] && o.verbose)
        gpuimg_print_line(stderr, rt.note);

    static struct compare_table tab;   /* --compare's */
    struct run_report rep;
    timing_report_init(&rep);
    rep.pipeline = o.pipeline;
    rep.threads = threads;
    if (rt.server) {
        st = client_open(&cl) ? CLIENT_AGAIN : client_run(cl, &o, &ctx, &rt, o.input, o.output, &rep);
        if (st != CLIENT_AGAIN && o.verbose && client_note(cl)[0])
            gpuimg_print_line(stderr, client_note(cl));
        if (st == CLIENT_AGAIN) {   /* nothing written: run here, saying why */
            if (rep.note[0])
                gpuimg_print_line(stderr, rep.note);
            timing_report_init(&rep);
            rep.pipeline = o.pipeline;
            rep.threads = threads;
            ctx.in_fd = client_input_fd(cl);
            rt.server = 0;
            if (!(st = client_route_here(&o, &pl, 1, &ctx, &rt)))
                st = run_file(&ctx, o.input, o.output, &rep);
        }
    } else if (!o.compare)
        st = run_file(&ctx, o.input, o.output, &rep);
    else {
        /* --compare: the OpenMP path and every GPU variant on the decoded image, then the save */
        double t0 = timing_now_ms();
        struct image img;
        struct plan rpl;
        struct io_meta meta = { 0 };
        struct save_opts so;
        if (!(st = run_load(&ctx, o.input, o.output, &img, &rpl, &so, &meta, &rep))) {
            struct compare_opts co = { o.repeat, o.backend != BACKEND_CPU, options_device(&o) };
            double tc = timing_now_ms();
            st = compare_run(&rpl, &co, &img, &rep, &tab);
            if (tab.nrows)
                report_print_compare(strcmp(o.output, "-") ? stdout : stderr, &rep, &tab);
            fflush(stdout);
            rep.process_ms = timing_now_ms() - tc;
            rep.backend = "compare";
            rep.nsteps = 0;
            if (!st)
                st = run_save(&ctx, o.output, &img, &so, &rep);
            image_free(&img);
        }
        meta_free(&meta);
        rep.total_ms = timing_now_ms() - t0;
    }
    if (!o.compare)
        rep.total_ms = timing_now_ms() - t_start;
    rep.peak_rss_kb = timing_peak_rss_kb();
    if (!st && o.json) {   /* the report first: a report that cannot be written fails the command */
        report_write_json(json.fp, &rep, client_served(cl), o.compare ? &tab : NULL);
        st = io_pending_close(&json);
    }
    if (!st && o.json)
        st = io_pending_publish(&image);
    if (!st && o.json)
        st = io_pending_publish(&json);
    if (st) {
        io_pending_discard(&image);
        io_pending_discard(&json);
        st = fail(st);
        client_close(cl);
        return st;
    }
    if (rep.note[0])   /* the GPU had no room: said even with -q */
        gpuimg_print_line(stderr, rep.note);
    if (!o.quiet)
        report_print_line(stderr, &rep, o.verbose, client_served(cl));
    client_close(cl);   /* the report's strings were its */
    return 0;
}
