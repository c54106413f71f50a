/* gpuimg: the OpenMP-vs-GPU comparison (see compare.h). Every step's GPU input is the OpenMP
 * result of the step before, so each step is checked on its own; then the whole pipeline runs on
 * the device with the automatic kernel choice, kernel-only and with transfers. GB/s counts the
 * bytes a step must read and write (input + output image), the least it can move. */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compare.h"
#include "error.h"

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
static int cpu_side(const struct plan *pl, const struct image *in, int repeat, struct image *ref, double *step_ms,
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
            if ((st = image_alloc(&out, &pl->steps[i].out)))
                break;
            double t0 = timing_now_ms();
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
static long max_diff(const uint8_t *a, const uint8_t *b, size_t bytes, int depth)
{
    long worst = 0;
    if (depth == 16) {
        const uint16_t *x = (const uint16_t *)a, *y = (const uint16_t *)b;
        for (size_t i = 0; i < bytes / 2; i++)
            worst = labs((long)x[i] - y[i]) > worst ? labs((long)x[i] - y[i]) : worst;
    } else
        for (size_t i = 0; i < bytes; i++)
            worst = labs((long)a[i] - b[i]) > worst ? labs((long)a[i] - b[i]) : worst;
    return worst;
}

static int cuda_err(const char *what, const char *err);

int compare_copy_ms(void *dst, const void *src, size_t bytes, int repeat, struct gpu_timer *timer, double *ms)
{
    char err[256];
    double *t = malloc(sizeof *t * repeat);
    int r = t ? GPUIMG_OK : gpuimg_fail(GPUIMG_ENOMEM, "out of memory");
    for (int k = 0; k < repeat + 3 && !r; k++) {
        float m;
        if (gpu_timer_start(timer, err, sizeof err) || gpu_copy_d2d(dst, src, bytes, err, sizeof err)
            || gpu_timer_stop(timer, &m, err, sizeof err))
            r = cuda_err("device copy", err);
        else if (k >= 3)
            t[k - 3] = m;
    }
    if (!r)
        *ms = timing_median(t, repeat);
    free(t);
    return r;
}

int compare_pipeline_kernels(struct gpu_pipeline *gp, const struct plan *pl, const struct image *in, int repeat,
                             void *host_out, double *ms)
{
    char err[256];
    size_t ib, ob;
    geom_bytes(&pl->in, &ib);
    geom_bytes(&pl->out, &ob);
    double *t = malloc(sizeof *t * repeat);
    int cur = 0, r = t ? GPUIMG_OK : gpuimg_fail(GPUIMG_ENOMEM, "out of memory");
    if (!r && gpu_upload(gp->buf[0], in->data, ib, err, sizeof err))
        r = cuda_err("upload", err);
    if (!r)
        r = gpu_pipeline_run(gp, pl, NULL, NULL, &cur);
    if (!r && host_out && gpu_download(host_out, gp->buf[cur], ob, err, sizeof err))
        r = cuda_err("download", err);
    for (int k = 0; k < repeat + 3 && !r; k++) {
        float m;
        if (!(r = gpu_pipeline_run(gp, pl, NULL, &m, &cur)) && k >= 3)
            t[k - 3] = m;
    }
    if (!r)
        *ms = timing_median(t, repeat);
    free(t);
    return r;
}

int compare_check_text(char *buf, size_t n, long diff, long tol)
{
    if (diff == 0)
        snprintf(buf, n, "exact");
    else if (diff <= tol)
        snprintf(buf, n, "within %ld (tolerance %ld)", diff, tol);
    else
        snprintf(buf, n, "MISMATCH max %ld", diff);
    return diff > tol;
}

static void check_text(char *buf, size_t n, long diff, long tol, struct compare_table *tab)
{
    tab->failed += compare_check_text(buf, n, diff, tol);
}

static int cuda_err(const char *what, const char *err) { return gpuimg_fail(GPUIMG_ECUDA, "%s: %s", what, err); }

int compare_gpu_variant(const struct step *st, int v, void *din, void *dout, const struct image *ref, int repeat,
                        struct gpu_timer *timer, double *ms_out, long *diff, long *tol)
{
    char err[256];
    size_t ob;
    geom_bytes(&st->out, &ob);
    double *t = malloc(sizeof *t * repeat);
    uint8_t *host = malloc(ob);
    struct gpu_tables tb = { 0 };
    int r = !t || !host ? gpuimg_fail(GPUIMG_ENOMEM, "out of memory") : GPUIMG_OK;
    if (!r && st->op->gpu_prepare)
        r = st->op->gpu_prepare(&st->args, &st->in, &st->out, v, &tb);
    /* poison the output so that a pixel no thread writes shows up in the check */
    if (!r && gpu_fill(dout, 0xA5, ob, err, sizeof err))
        r = cuda_err("fill", err);
    if (!r)
        r = gpu_step_launch(st, &tb, v, din, dout);
    if (!r && gpu_download(host, dout, ob, err, sizeof err))
        r = op_cuda_fail(st->op, v, err);
    if (!r)
        *diff = max_diff(host, ref->data, ob, st->out.depth);
    *tol = op_gpu_tolerance(st->op, &st->args, &st->in, v);
    for (int k = 0; k < 3 && !r; k++)   /* warm-up */
        r = gpu_step_launch(st, &tb, v, din, dout);
    for (int k = 0; k < repeat && !r; k++) {
        float ms;
        if (gpu_timer_start(timer, err, sizeof err))
            r = cuda_err("timer", err);
        if (!r)
            r = gpu_step_launch(st, &tb, v, din, dout);
        if (!r && gpu_timer_stop(timer, &ms, err, sizeof err))
            r = op_cuda_fail(st->op, v, err);
        t[k] = ms;
    }
    if (!r)
        *ms_out = timing_median(t, repeat);
    gpu_tables_free(&tb);
    free(t);
    free(host);
    return r;
}

/* Every variant of step i on the OpenMP input of that step, checked and timed. */
static int gpu_step_variants(const struct plan *pl, int i, const struct image *in, const struct image *ref,
                             const double *cpu_ms, int repeat, struct gpu_pipeline *gp, struct compare_table *tab)
{
    const struct step *st = &pl->steps[i];
    char err[256], check[48];
    size_t ib, ob;
    geom_bytes(&st->in, &ib);
    geom_bytes(&st->out, &ob);
    int r = GPUIMG_OK;
    if (gpu_upload(gp->buf[0], in->data, ib, err, sizeof err))
        r = cuda_err("upload", err);
    for (int v = 0; v < KV_COUNT && !r; v++) {
        if (!(st->op->gpu_variants & KV_BIT(v)))
            continue;
        double ms = 0;
        long diff = 0, tol = 0;
        r = compare_gpu_variant(st, v, gp->buf[0], gp->buf[1], ref, repeat, gp->timer, &ms, &diff, &tol);
        if (!r) {
            check_text(check, sizeof check, diff, tol, tab);
            add_row(tab, st->text, kernel_names[v], ms, (double)(ib + ob), cpu_ms[i], check);
        }
    }
    return r;
}

/* The pipeline with the automatic kernels: kernel-only, then with the copies, pageable and pinned. */
static int gpu_pipeline_rows(const struct plan *pl, const struct image *in, const struct image *ref_out,
                             double cpu_total, int repeat, struct image *result, struct compare_table *tab)
{
    char err[256], check[48];
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
            if (!(r = compare_pipeline_kernels(&g2, pl, in, repeat, host, &unfused_ms)))
                unfused_diff = max_diff(host, ref_out->data, ob, pl->out.depth);
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
    int cur = 0;
    r = compare_pipeline_kernels(&gp, pl, in, repeat, NULL, &kernels_ms);
    if (!r)
        r = image_alloc(result, &pl->out);
    /* with transfers: upload, all steps, download, timed on the host after each has finished */
    for (int rep = 0; rep < repeat && !r; rep++) {
        double t0 = timing_now_ms();
        if (gpu_upload(gp.buf[0], in->data, ib, err, sizeof err))
            r = cuda_err("upload", err);
        double t1 = timing_now_ms();
        if (!r)
            r = gpu_pipeline_run(&gp, pl, NULL, NULL, &cur);
        double t2 = timing_now_ms();
        if (!r && gpu_download(result->data, gp.buf[cur], ob, err, sizeof err))
            r = cuda_err("download", err);
        double t3 = timing_now_ms();
        up[rep] = t1 - t0;
        down[rep] = t3 - t2;
        whole[rep] = t3 - t0;
    }
    /* the same copies with page-locked host memory, the cost of locking and unlocking included */
    for (int rep = 0; rep < repeat && !r; rep++) {
        double t0 = timing_now_ms();
        int p1 = gpu_pin(in->data, ib, err, sizeof err) == 0;
        if (gpu_upload(gp.buf[0], in->data, ib, err, sizeof err))
            r = cuda_err("upload", err);
        if (p1)
            gpu_unpin(in->data);
        if (!r)
            r = gpu_pipeline_run(&gp, pl, NULL, NULL, &cur);
        int p2 = !r && gpu_pin(result->data, ob, err, sizeof err) == 0;
        if (!r && gpu_download(result->data, gp.buf[cur], ob, err, sizeof err))
            r = cuda_err("download", err);
        if (p2)
            gpu_unpin(result->data);
        pinned[rep] = timing_now_ms() - t0;
    }
    if (!r) {
        check_text(check, sizeof check, max_diff(result->data, ref_out->data, ob, pl->out.depth), 0, tab);
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

int compare_run(const struct plan *pl, const struct compare_opts *co, struct image *img, struct run_report *r,
                struct compare_table *tab)
{
    memset(tab, 0, sizeof *tab);
    tab->repeat = co->repeat;
    r->compare = tab;
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
