/* gpuimg: decode, process and encode overlapped within one file (see stream.h). */
#include <config.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "core/error.h"
#include "engine/stream.h"
#include "engine/tile.h"
#include "io/pngenc.h"

struct stream {
    const struct plan *pl;
    const char *name;             /* the output's, for messages */
    struct pngenc *enc;
    struct image out;             /* the result, band by band */
    int nb;                       /* bands: the encoder's strips */
    int *need;                    /* the input rows band k needs: 0 .. need[k] - 1 */
    unsigned char *made;          /* band k's rows are in out */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct image in;              /* the image being decoded, once rows > 0 */
    int rows;                     /* its rows complete */
    int next;                     /* the next band to take */
    int status;                   /* the first failure: every wait ends */
    char msg[1024];               /* its message (errors are recorded per thread) */
    double process_ms, encode_ms, step_ms[PLAN_MAX_STEPS];
};

static void on_rows(void *arg, const struct image *img, int n)
{
    struct stream *s = arg;
    pthread_mutex_lock(&s->mu);
    s->in = *img;
    s->rows = n;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/* Record the first failure (with this thread's message) and wake every waiting thread. */
static void fail(struct stream *s, int st)
{
    pthread_mutex_lock(&s->mu);
    if (!s->status) {
        s->status = st;
        snprintf(s->msg, sizeof s->msg, "%s", gpuimg_errmsg() ? gpuimg_errmsg() : "");
    }
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/* One band: its tile of the pipeline pasted into out, then its strip encoded once the band above
 * (the first row's filter context) is in out. */
static int band(struct stream *s, int k, const struct image *in, double *step_ms)
{
    static _Thread_local struct tile_chain tc;
    int y0, y1;
    pngenc_strip_rows(s->enc, k, &y0, &y1);
    const struct rect t = { 0, y0, s->pl->out.w, y1 - y0 };
    struct image res;
    void *own;
    double t0 = timing_now_ms();
    int st = tile_chain(s->pl, &t, &tc);
    if (!st && !(st = tile_chain_cpu(&tc, in, &res, &own, step_ms))) {
        image_paste(&s->out, 0, y0, &res);
        free(own);
    }
    const double t1 = timing_now_ms();
    pthread_mutex_lock(&s->mu);
    s->process_ms += t1 - t0;
    if (!st)
        s->made[k] = 1;
    pthread_cond_broadcast(&s->cv);
    while (!st && !s->status && k > 0 && !s->made[k - 1])
        pthread_cond_wait(&s->cv, &s->mu);
    const int stop = s->status;
    pthread_mutex_unlock(&s->mu);
    if (st || stop)
        return st;
    t0 = timing_now_ms();
    if ((st = pngenc_strip(s->enc, &s->out, k)))
        st = gpuimg_fail(st, "%s: PNG encoder: %s", s->name, st == GPUIMG_ENOMEM ? "out of memory" : "deflate failed");
    pthread_mutex_lock(&s->mu);
    s->encode_ms += timing_now_ms() - t0;
    pthread_mutex_unlock(&s->mu);
    return st;
}

/* Take bands in order until none is left or something failed. */
static void work(struct stream *s)
{
    double step_ms[PLAN_MAX_STEPS] = { 0 };
    for (;;) {
        pthread_mutex_lock(&s->mu);
        const int k = s->next < s->nb ? s->next++ : -1;
        while (k >= 0 && !s->status && s->rows < s->need[k])
            pthread_cond_wait(&s->cv, &s->mu);
        const struct image in = s->in;
        const int stop = s->status;
        pthread_mutex_unlock(&s->mu);
        if (k < 0 || stop)
            break;
        int st = plan_abandoned(s->pl);
        if (!st)
            st = band(s, k, &in, step_ms);
        if (st) {
            fail(s, st);
            break;
        }
    }
    pthread_mutex_lock(&s->mu);
    for (int i = 0; i < s->pl->nsteps; i++)
        s->step_ms[i] += step_ms[i];
    pthread_mutex_unlock(&s->mu);
}

/* Why pl on raw into so does not stream, or NULL */
static const char *declined(const struct plan *pl, const struct io_input *raw, const struct save_opts *so)
{
    const char *which;
#ifndef _OPENMP
    return "no OpenMP";
#endif
    if (so->fmt != FMT_PNG)
        return "not a PNG output";
    if (so->threads < 2)
        return "one thread";
    if (!tile_supported(pl, &which))
        return "a step that cannot run in tiles";
    if (!io_can_stream(raw))
        return "a decoder that gives no rows as it goes";
    return NULL;
}

/* The input rows each band needs; 0 where the first band needs them all (nothing to overlap). */
static int plan_bands(struct stream *s, const struct plan *pl)
{
    static _Thread_local struct tile_chain tc;
    for (int k = 0; k < s->nb; k++) {
        int y0, y1;
        pngenc_strip_rows(s->enc, k, &y0, &y1);
        const struct rect t = { 0, y0, pl->out.w, y1 - y0 };
        int st = tile_chain(pl, &t, &tc);
        if (st)
            return st;
        s->need[k] = tc.src.y + tc.src.h;
    }
    return GPUIMG_OK;
}

int stream_run(const struct plan *pl, struct io_input *raw, const char *name, const struct save_opts *so,
               struct pngenc **out, const char **why, struct run_report *r)
{
    *out = NULL;
    if ((*why = declined(pl, raw, so)))
        return GPUIMG_OK;
    struct stream s = { .pl = pl, .name = name };
    int st = pngenc_begin(&s.enc, name, &pl->out, so->png_level, so->threads, so->meta);
    if (st)
        return st;
    s.nb = pngenc_strips(s.enc);
    s.need = calloc((size_t)s.nb, sizeof *s.need);
    s.made = calloc((size_t)s.nb, 1);
    if (!s.need || !s.made)
        st = gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory", raw->name);
    else if (s.nb < 2)
        *why = "one strip";
    else if (!(st = plan_bands(&s, pl)) && s.need[0] >= pl->in.h)
        *why = "the first band needs the whole input";
    struct image img = { 0 };   /* the decoder's rows: made here, so that a failed decode cannot free
                                   them under a thread still reading */
    if (!st && !*why)
        st = image_alloc(&s.out, &pl->out);
    if (!st && !*why)
        st = image_alloc(&img, &raw->g);
    if (st || *why) {
        image_free(&s.out);
        free(s.need);
        free(s.made);
        pngenc_free(s.enc);
        return st;
    }
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.cv, NULL);
    const struct image_rows rows = { on_rows, &s };
    double decode_ms = 0;
    #pragma omp parallel num_threads(so->threads)
    {
#ifdef _OPENMP
        if (omp_get_thread_num() == 0)
#endif
        {
            const double t0 = timing_now_ms();
            const int d = io_decode_rows(raw, &img, &rows);
            decode_ms = timing_now_ms() - t0;
            if (d)
                fail(&s, d);
        }
        work(&s);
    }
    r->decode_ms += decode_ms;
    r->decoder = raw->codec;
    r->backend = "cpu";
    r->streamed = 1;
    r->process_ms = s.process_ms;
    r->encode_ms = s.encode_ms;
    for (int i = 0; i < pl->nsteps && r->nsteps < REPORT_MAX_STEPS; i++) {
        snprintf(r->steps[r->nsteps].label, sizeof r->steps[0].label, "%s", pl->steps[i].text);
        r->steps[r->nsteps++].ms = s.step_ms[i];
    }
    image_free(&img);
    st = s.status;
    if (st && s.msg[0])
        gpuimg_fail(st, "%s", s.msg);   /* on this thread, where main reads it */
    pthread_cond_destroy(&s.cv);
    pthread_mutex_destroy(&s.mu);
    image_free(&s.out);
    free(s.need);
    free(s.made);
    if (st)
        pngenc_free(s.enc);
    else
        *out = s.enc;
    return st;
}
