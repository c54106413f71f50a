/* gpuimg: measuring on the GPU (see measure.h): used by --compare, gpuimg tune and the benchmarks. */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "engine/measure.h"

int measure_check_text(char *buf, size_t n, long diff, long tol)
{
    if (diff == 0)
        snprintf(buf, n, "exact");
    else if (diff <= tol)
        snprintf(buf, n, "within %ld (tolerance %ld)", diff, tol);
    else
        snprintf(buf, n, "MISMATCH max %ld", diff);
    return diff > tol;
}

long measure_max_diff(const uint8_t *a, const uint8_t *b, size_t bytes, int depth)
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

#ifdef HAVE_CUDA

static int cuda_err(const char *what, const char *err) { return gpuimg_fail(GPUIMG_ECUDA, "%s: %s", what, err); }

int measure_buffers(void **din, size_t in_bytes, void **dout, size_t out_bytes, struct gpu_timer **timer)
{
    char err[256];
    *din = *dout = NULL;
    *timer = NULL;
    if (gpu_malloc(din, in_bytes, err, sizeof err) || gpu_malloc(dout, out_bytes, err, sizeof err)
        || gpu_timer_create(timer, err, sizeof err))
        return cuda_err("device buffers", err);
    return GPUIMG_OK;
}

void measure_buffers_free(void *din, void *dout, struct gpu_timer *timer)
{
    gpu_timer_destroy(timer);
    gpu_free(din);
    gpu_free(dout);
}

int measure_upload(void *dst, const void *src, size_t bytes)
{
    char err[256];
    return gpu_upload(dst, src, bytes, err, sizeof err) ? cuda_err("upload", err) : GPUIMG_OK;
}

int measure_last_launch(struct gpu_launch_info *li)
{
    char err[256];
    return gpu_last_launch(li, err, sizeof err) == 0;
}

int measure_pipeline_copies(struct gpu_pipeline *gp, struct plan *pl, const struct image *in,
                            struct image *result, int repeat, int pinned, double *up, double *down, double *whole)
{
    char err[256];
    size_t ib, ob;
    geom_bytes(&pl->in, &ib);
    geom_bytes(&pl->out, &ob);
    int r = GPUIMG_OK, cur = 0;
    for (int rep = 0; rep < repeat && !r; rep++) {
        const double t0 = timing_now_ms();
        const int p1 = pinned && gpu_pin(in->data, ib, err, sizeof err) == 0;
        if (gpu_upload(gp->buf[0], in->data, ib, err, sizeof err))
            r = cuda_err("upload", err);
        if (p1)
            gpu_unpin(in->data);
        const double t1 = timing_now_ms();
        if (!r)
            r = gpu_pipeline_run(gp, pl, NULL, NULL, &cur);
        geom_bytes(&pl->out, &ob);   /* (a step that measures its input sizes it in the run) */
        const double t2 = timing_now_ms();
        const int p2 = !r && pinned && gpu_pin(result->data, ob, err, sizeof err) == 0;
        if (!r && gpu_download(result->data, gp->buf[cur], ob, err, sizeof err))
            r = cuda_err("download", err);
        if (p2)
            gpu_unpin(result->data);
        const double t3 = timing_now_ms();
        if (up)
            up[rep] = t1 - t0;
        if (down)
            down[rep] = t3 - t2;
        whole[rep] = t3 - t0;
    }
    return r;
}

int measure_copy_ms(void *dst, const void *src, size_t bytes, int repeat, struct gpu_timer *timer, double *ms)
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

int measure_pipeline_kernels(struct gpu_pipeline *gp, struct plan *pl, const struct image *in, int repeat,
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
    geom_bytes(&pl->out, &ob);
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


int measure_gpu_variant(const struct step *step, const struct gpu_call *k, void *din, void *dout, const struct image *ref,
                        int repeat, struct gpu_timer *timer, double *ms_out, long *diff, long *tol, const char **ran)
{
    const int v = k->variant;
    char err[256];
    size_t ob;
    struct step one = *step;   /* a step that measures its input: measured once, before the launches */
    const struct step *st = &one;
    void *state = NULL;
    int r = GPUIMG_OK;
    *ran = NULL;
    if (st->op->gpu_prepare)
        r = st->op->gpu_prepare(&st->args, &st->in, &st->out, v, &state);
    if (!r && st->op->gpu_measure) {
        const struct gpu_image gi = { .data = din, .w = st->in.w, .h = st->in.h, .c = st->in.c, .depth = st->in.depth };
        one.args.measured = 0;
        if (!(r = st->op->gpu_measure(&one.args, state, k, &gi)) && one.args.measured)
            r = st->op->resolve(&one.args, &one.in, &one.out);
    }
    if (!r && (one.out.w != ref->w || one.out.h != ref->h))
        r = gpuimg_fail(GPUIMG_EINTERNAL, "%s: %dx%d on the GPU, %dx%d on the CPU", st->text, one.out.w, one.out.h, ref->w,
                        ref->h);
    geom_bytes(&st->out, &ob);
    double *t = malloc(sizeof *t * repeat);
    uint8_t *host = malloc(ob);
    if (!r && (!t || !host))
        r = gpuimg_fail(GPUIMG_ENOMEM, "out of memory");
    /* poison the output so that a pixel no thread writes shows up in the check */
    if (!r && gpu_fill(dout, 0xA5, ob, err, sizeof err))
        r = cuda_err("fill", err);
    if (!r)
        r = gpu_step_launch(st, state, k, din, dout, ran);
    if (!r && gpu_download(host, dout, ob, err, sizeof err))
        r = op_cuda_fail(st->op, v, err);
    if (!r)
        *diff = measure_max_diff(host, ref->data, ob, st->out.depth);
    *tol = op_gpu_tolerance(st->op, &st->args, &st->in, v);
    const char *again;
    for (int i = 0; i < 3 && !r; i++)   /* warm-up */
        r = gpu_step_launch(st, state, k, din, dout, &again);
    for (int i = 0; i < repeat && !r; i++) {
        float ms;
        if (gpu_timer_start(timer, err, sizeof err))
            r = cuda_err("timer", err);
        if (!r)
            r = gpu_step_launch(st, state, k, din, dout, &again);
        if (!r && gpu_timer_stop(timer, &ms, err, sizeof err))
            r = op_cuda_fail(st->op, v, err);
        t[i] = ms;
    }
    if (!r)
        *ms_out = timing_median(t, repeat);
    if (state)
        st->op->gpu_release(state);
    free(t);
    free(host);
    return r;
}
#endif
