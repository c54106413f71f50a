/* gpuimg: the OpenMP-vs-GPU comparison (see compare.h). Every step's GPU input is the OpenMP
 * result of the step before, so each step is checked on its own; then the whole pipeline runs on
 * the device with the automatic kernel choice, kernel-only and with transfers. GB/s counts the
 * bytes a step must read and write (input + output image), the least it can move. */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/compare.h"
#include "core/error.h"
#include "engine/measure.h"

static struct compare_row *add_row(struct compare_table *t, const char *what, const char *impl, double ms,
                                   double bytes, double ref_ms, const char *check)
{
    if (t->nrows == COMPARE_MAX_ROWS)
        return NULL;
    struct compare_row *w = &t->rows[t->nrows++];
    snprintf(w->what, sizeof w->what, "%s", what);
    snprintf(w->impl, sizeof w->impl, "%s", impl);
    w->ms = ms;
    w->bytes = bytes;
    w->ref_ms = ref_ms;
    snprintf(w->check, sizeof w->check, "%s", check ? check : "");
    return w;
}


/* OpenMP: every step `repeat` times; ref[i] keeps the first run's result of step i. */
static int cpu_side(struct plan *pl, const struct image *in, int repeat, struct image *ref, double *step_ms,
                    double *total_ms)
{
    double *t = calloc((size_t)repeat * (pl->nsteps + 1), sizeof *t);
    if (!t)
        return gpuimg_fail(GPUIMG_ENOMEM, "out of memory for timings");
    int st = GPUIMG_OK;
    for (int rep = 0; rep < repeat && !st; rep++) {
        const struct image *cur = in;
        struct image prev = { 0 };
        for (int i = 0; i < pl->nsteps && !st; i++) {
            struct image out;
            double t0 = timing_now_ms();
            /* a step that measures its input (trim): the plan sized from here on by what it found */
            if ((st = plan_measure(pl, i, cur)))
                break;
            if ((st = image_alloc(&out, &pl->steps[i].out)))
                break;
            st = pl->steps[i].op->cpu(&pl->steps[i].args, cur, &out);
            double dt = timing_now_ms() - t0;
            t[(size_t)i * repeat + rep] = dt;
            t[(size_t)pl->nsteps * repeat + rep] += dt;
            if (rep == 0) {
                ref[i] = out;
            } else {
                image_free(&prev);
                prev = out;
            }
            cur = rep == 0 ? &ref[i] : &prev;
        }
        image_free(&prev);
    }
    for (int i = 0; i <= pl->nsteps; i++) {
        double m = timing_median(t + (size_t)i * repeat, repeat);
        if (i < pl->nsteps)
            step_ms[i] = m;
        else
            *total_ms = m;
    }
    free(t);
    return st;
}

#ifdef HAVE_CUDA

static void check_text(char *buf, size_t n, long diff, long tol, struct compare_table *tab)
{
    tab->failed += measure_check_text(buf, n, diff, tol);
}

/* Every variant of step i on the OpenMP input of that step, checked and timed. */
static int gpu_step_variants(const struct plan *pl, int i, const struct image *in, const struct image *ref,
                             const double *cpu_ms, int repeat, struct gpu_pipeline *gp, struct compare_table *tab)
{
    const struct step *st = &pl->steps[i];
    char check[48];
    size_t ib, ob;
    geom_bytes(&st->in, &ib);
    geom_bytes(&st->out, &ob);
    int r = GPUIMG_OK;
    r = measure_upload(gp->buf[0], in->data, ib);
    for (int v = 0; v < KV_COUNT && !r; v++) {
        if (!(st->op->gpu_variants & KV_BIT(v)))
            continue;
        double ms = 0;
        long diff = 0, tol = 0;
        const struct gpu_call k = { .variant = v };
        const char *ran;
        char kernel[64];
        r = measure_gpu_variant(st, &k, gp->buf[0], gp->buf[1], ref, repeat, gp->timer, &ms, &diff, &tol, &ran);
        if (!r) {
            check_text(check, sizeof check, diff, tol, tab);
            gpu_kernel_label(kernel, sizeof kernel, &k, ran);
            add_row(tab, st->text, kernel, ms, (double)(ib + ob), cpu_ms[i], check);
        }
    }
    return r;
}

/* The pipeline with the automatic kernels: kernel-only, then with the copies, pageable and pinned. */
static int gpu_pipeline_rows(struct plan *pl, const struct image *in, const struct image *ref_out,
                             double cpu_total, int repeat, struct image *result, struct compare_table *tab)
{
    char check[48];
    struct gpu_pipeline gp;
    int r = gpu_pipeline_open(&gp, pl, -1, 0);
    if (r)
        return r;
    size_t ib, ob;
    geom_bytes(&pl->in, &ib);
    geom_bytes(&pl->out, &ob);
    double kbytes = 0, unfused_bytes = 0, unfused_ms = -1;
    long unfused_diff = 0;
    int fused = 0;
    for (int i = 0; i < pl->nsteps; i++) {
        char label[200];
        double b;
        fused |= gp.skip[i];
        gpu_pipeline_step(&gp, pl, i, label, sizeof label, &b);
        kbytes += b;
        unfused_bytes += geom_size(&pl->steps[i].in) + geom_size(&pl->steps[i].out);
    }
    if (fused) {   /* what fusion buys: the same pipeline step by step, on the same input */
        struct gpu_pipeline g2;
        uint8_t *host = malloc(ob);
        if (!host)
            r = gpuimg_fail(GPUIMG_ENOMEM, "out of memory");
        if (!r && !(r = gpu_pipeline_open(&g2, pl, -1, 1))) {
            if (!(r = measure_pipeline_kernels(&g2, pl, in, repeat, host, &unfused_ms)))
                unfused_diff = measure_max_diff(host, ref_out->data, ob, pl->out.depth);
            gpu_pipeline_close(&g2, pl);
        }
        free(host);
        if (r) {
            gpu_pipeline_close(&gp, pl);
            return r;
        }
    }
    double *up = malloc(sizeof *up * repeat * 4), kernels_ms = 0;
    if (!up) {
        gpu_pipeline_close(&gp, pl);
        return gpuimg_fail(GPUIMG_ENOMEM, "out of memory");
    }
    double *down = up + repeat, *whole = up + 2 * repeat, *pinned = up + 3 * repeat;
    r = measure_pipeline_kernels(&gp, pl, in, repeat, NULL, &kernels_ms);
    if (!r)
        r = image_alloc(result, &pl->out);
    /* with transfers: pageable, then page-locked with the cost of locking and unlocking included */
    if (!r)
        r = measure_pipeline_copies(&gp, pl, in, result, repeat, 0, up, down, whole);
    if (!r)
        r = measure_pipeline_copies(&gp, pl, in, result, repeat, 1, NULL, NULL, pinned);
    if (!r) {
        check_text(check, sizeof check, measure_max_diff(result->data, ref_out->data, ob, pl->out.depth), 0, tab);
        add_row(tab, "pipeline", fused ? "gpu kernels, fused" : "gpu kernels (auto)", kernels_ms, kbytes,
                cpu_total, check);
        if (fused) {
            check_text(check, sizeof check, unfused_diff, 0, tab);
            add_row(tab, "pipeline", "gpu kernels, unfused", unfused_ms, unfused_bytes, cpu_total, check);
        }
        add_row(tab, "pipeline", "gpu + copies, pageable", timing_median(whole, repeat), 0, cpu_total, check);
        add_row(tab, "pipeline", "gpu + copies, pinned", timing_median(pinned, repeat), 0, cpu_total, check);
        add_row(tab, "host to device copy", "pageable", timing_median(up, repeat), (double)ib, 0, NULL);
        add_row(tab, "device to host copy", "pageable", timing_median(down, repeat), (double)ob, 0, NULL);
    }
    free(up);
    gpu_pipeline_close(&gp, pl);
    return r;
}
#endif

int compare_run(struct plan *pl, const struct compare_opts *co, struct image *img, struct run_report *r,
                struct compare_table *tab)
{
    memset(tab, 0, sizeof *tab);
    tab->repeat = co->repeat;
    struct image ref[PLAN_MAX_STEPS] = { { 0 } };
    double cpu_ms[PLAN_MAX_STEPS], cpu_total = 0;
    int st = cpu_side(pl, img, co->repeat, ref, cpu_ms, &cpu_total);
    r->backend = "cpu";
    r->process_ms = cpu_total;
    for (int i = 0; i < pl->nsteps && !st; i++) {
        if (r->nsteps < REPORT_MAX_STEPS) {
            snprintf(r->steps[r->nsteps].label, sizeof r->steps[0].label, "%s", pl->steps[i].text);
            r->steps[r->nsteps++].ms = cpu_ms[i];
        }
    }
    char desc[512], why[256];
    int gpu = 0;
#ifdef HAVE_CUDA
    gpu = !st && co->use_gpu && backend_gpu_supports(pl, NULL)
          && backend_gpu_probe(co->device, desc, sizeof desc, why, sizeof why) == GPUIMG_OK;
    if (gpu) {
        tab->device = backend_gpu_name();
        r->gpu_init_ms = backend_gpu_init_ms();
    }
#endif
    (void)desc;
    (void)why;
    /* rows: per step the OpenMP reference, then the GPU variants */
    struct gpu_pipeline gp;
    memset(&gp, 0, sizeof gp);
#ifdef HAVE_CUDA
    if (gpu && (st = gpu_pipeline_open(&gp, pl, -1, 1)))
        gpu = 0;
#endif
    for (int i = 0; i < pl->nsteps && !st; i++) {
        const struct step *s = &pl->steps[i];
        add_row(tab, s->text, "openmp", cpu_ms[i], geom_size(&s->in) + geom_size(&s->out), cpu_ms[i], "reference");
#ifdef HAVE_CUDA
        if (gpu)
            st = gpu_step_variants(pl, i, i ? &ref[i - 1] : img, &ref[i], cpu_ms, co->repeat, &gp, tab);
#endif
    }
#ifdef HAVE_CUDA
    if (gpu)
        gpu_pipeline_close(&gp, pl);
#endif
    if (!st)
        add_row(tab, "pipeline", "openmp", cpu_total, 0, cpu_total, "reference");
    struct image result = { 0 };
#ifdef HAVE_CUDA
    if (!st && gpu)
        st = gpu_pipeline_rows(pl, img, &ref[pl->nsteps - 1], cpu_total, co->repeat, &result, tab);
#endif
    if (!st && !result.data) {   /* no GPU: the OpenMP result is the output */
        result = ref[pl->nsteps - 1];
        ref[pl->nsteps - 1].data = NULL;
    }
    for (int i = 0; i < pl->nsteps; i++)
        image_free(&ref[i]);
    if (st) {
        image_free(&result);
        return st;
    }
    if (gpu) {
        r->backend = "gpu";
        r->device = tab->device;
    }
    image_free(img);
    *img = result;
    if (tab->failed)
        return gpuimg_fail(GPUIMG_EINTERNAL, "--compare: %d GPU result%s differ from the OpenMP reference", tab->failed,
                           tab->failed == 1 ? "" : "s");
    return GPUIMG_OK;
}
