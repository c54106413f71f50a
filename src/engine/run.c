/* gpuimg: one file through the chain (see run.h). */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "core/error.h"
#include "engine/run.h"
#include "engine/stream.h"
#include "io/pngenc.h"

/* The format out is written in: the extension's (batches), else the command's. */
static int out_format(const struct run_ctx *c, const char *out, enum out_format *f)
{
    *f = c->save.fmt;
    if (c->per_file_format && io_format_from_path(out, f))
        return gpuimg_fail(GPUIMG_EUSAGE, "%s: unknown output format (use " IO_OUTPUT_EXTENSIONS ", or --format)",
                           out);
    return GPUIMG_OK;
}

/* --shrink-on-load: where the first step that changes the geometry can take a shrunk input and
 * only pointwise steps (op_region_point: gray) come before it, a decoder that scales is asked to
 * shrink and the plan is resolved again for the shrunk input, to the same output. */
static int shrink_on_load(const struct run_ctx *c, struct io_input *raw, struct plan *pl, struct run_report *r)
{
    if (!io_can_shrink(raw))
        return GPUIMG_OK;
    int i = 0;
    while (i < pl->nsteps && pl->steps[i].op->region == op_region_point)
        i++;
    if (i == pl->nsteps || !pl->steps[i].op->load_shrink)
        return GPUIMG_OK;
    struct op_args a = c->plan->steps[i].args;   /* as parsed: automatic choices made afresh */
    const int f = pl->steps[i].op->load_shrink(&a, &pl->steps[i].in, &pl->steps[i].out);
    if (f <= 1)
        return GPUIMG_OK;
    const struct geom want = pl->out;
    io_shrink(raw, f);
    *pl = *c->plan;
    pl->steps[i].args = a;
    int st = plan_resolve(pl, &raw->g, c->max_pixels);
    if (!st && (pl->out.w != want.w || pl->out.h != want.h))
        st = gpuimg_fail(GPUIMG_EINTERNAL, "%s: shrink on load changed the result's size", pl->steps[i].text);
    r->shrink = f;
    return st;
}

/* EXIF orientation o (2 to 8): the turn that shows the image upright, as the plan's first steps
 * (on the CPU and the GPU alike; the output's EXIF says 1, so that nothing turns it again). */
static int orient(struct plan *pl, int o, struct run_report *r)
{
    static const char *const turn[9] = { NULL,        NULL,        "flip=h",     "rotate=180",          "flip=v",
                                         "transpose", "rotate=90", "transpose,rotate=180", "rotate=270" };
    struct plan pre;
    int st = plan_parse(turn[o], &pre);
    if (st)
        return st;
    if (pl->nsteps + pre.nsteps > PLAN_MAX_STEPS)
        return gpuimg_fail(GPUIMG_EPARAM, "%s: no room in the pipeline (%d steps at most) for the turn its EXIF orientation "
                           "asks (use --no-auto-orient)", r->input, PLAN_MAX_STEPS);
    memmove(pl->steps + pre.nsteps, pl->steps, sizeof pl->steps[0] * (size_t)pl->nsteps);
    memcpy(pl->steps, pre.steps, sizeof pre.steps[0] * (size_t)pre.nsteps);
    pl->nsteps += pre.nsteps;
    r->orient = o;
    return GPUIMG_OK;
}

/* Read and check in (nothing decoded yet), resolve the plan for its geometry and check that the
 * output's encoder can write the result, before any work. */
static int load_header(const struct run_ctx *c, const char *in, const char *out, struct io_input *raw, struct plan *pl,
                       struct io_meta *meta, struct run_report *r)
{
    r->input = in;
    r->output = out;
    r->fallback = c->fallback;
    double t0 = timing_now_ms();
    struct load_opts lo = { c->max_pixels, c->load_jpeg, c->load_png, c->in_fd };
    int st = io_read(in, &lo, raw);
    if (st)
        return st;
    r->in = raw->g;
    *pl = *c->plan;
    enum out_format f;
    if (!c->save.strip && (st = io_read_meta(raw, meta))) {
        io_input_free(raw);
        return st;
    }
    r->decode_ms = timing_now_ms() - t0;
    if (!c->no_auto_orient && raw->orient > 1)
        meta_upright(meta, raw->orient);
    if ((!c->no_auto_orient && raw->orient > 1 && (st = orient(pl, raw->orient, r)))
        || (st = plan_resolve(pl, &r->in, c->max_pixels)) || (c->shrink_on_load && (st = shrink_on_load(c, raw, pl, r)))
        || (st = out_format(c, out, &f)) || (st = io_check_size(out, f, &pl->out)))
        io_input_free(raw);
    else
        meta_pixel_size(meta, pl->out.w, pl->out.h);
    if (st == GPUIMG_EGEOMETRY) {   /* a step that cannot take this image: said with the file's name */
        char msg[512];
        snprintf(msg, sizeof msg, "%s", gpuimg_errmsg() ? gpuimg_errmsg() : gpuimg_strerror(st));
        gpuimg_clear_error();
        st = gpuimg_fail(st, "%s: %s", io_display_name(in, 0), msg);
    }
    return st;
}

static int decode(struct io_input *raw, struct image *img, struct run_report *r)
{
    double t0 = timing_now_ms();
    int st = io_decode(raw, img);
    r->decode_ms += timing_now_ms() - t0;
    r->decoder = raw->codec;
    return st;
}

int run_load(const struct run_ctx *c, const char *in, const char *out, struct image *img, struct plan *pl,
             struct io_meta *meta, struct run_report *r)
{
    struct io_input raw;
    int st = load_header(c, in, out, &raw, pl, meta, r);
    return st ? st : decode(&raw, img, r);
}

int run_save(const struct run_ctx *c, const char *out, const struct image *img, struct run_report *r)
{
    struct save_opts so = c->save;
    int st = out_format(c, out, &so.fmt);
    if (st)
        return st;
    r->out = image_geom(img);
    r->encoder = io_encoder_name(img, &so);
    double t0 = timing_now_ms();
    st = c->hold ? io_save_pending(out, img, &so, c->hold) : io_save(out, img, &so);
    r->encode_ms = timing_now_ms() - t0;
    return st;
}

struct chunks_args { const struct geom *g; int level, threads; const struct gpu_png_chunks *ch; const struct io_meta *meta; };

static int write_chunks(FILE *fp, const char *name, void *arg)
{
    const struct chunks_args *a = arg;
    return pngenc_write_chunks(fp, name, a->g, a->level, a->ch->chunks, a->ch->lens, a->ch->raw, a->ch->raw_lens, a->ch->n,
                               a->threads, a->meta);
}

struct bytes_args { const struct gpu_encode_request *q; const struct io_meta *meta; int c; };

/* A JPEG from nvJPEG, with the metadata put in as libjpeg-turbo's files carry it. */
static int write_bytes(FILE *fp, const char *name, void *arg)
{
    const struct bytes_args *a = arg;
    const struct gpu_encode_request *q = a->q;
    if (a->meta && meta_jpeg_splice(fp, q->bytes, q->len, a->meta, a->c))
        return ferror(fp) ? gpuimg_write_error(name, errno)
                          : gpuimg_fail(GPUIMG_EENCODE, "%s: nvJPEG's file does not start as a JPEG", name);
    if (!a->meta && fwrite(q->bytes, 1, q->len, fp) != q->len)
        return gpuimg_write_error(name, errno);
    return GPUIMG_OK;
}

/* The file the GPU encoded: a PNG's chunks joined into out, or a JPEG's bytes. */
static int save_encoded(const struct run_ctx *c, const char *out, const struct image *img, struct gpu_encode_request *q,
                        struct run_report *r)
{
    const struct geom g = image_geom(img);
    struct chunks_args a = { &g, c->save.png_level, c->save.threads, &q->out, c->save.meta };
    struct bytes_args b = { q, c->save.meta, g.c };
    struct io_pending p;
    r->out = g;
    if (q->fmt == FMT_PNG)
        snprintf(r->encoder_buf, sizeof r->encoder_buf, "nvCOMP deflate on the GPU (%s), %d chunks joined", q->method,
                 q->out.n);
    else
        snprintf(r->encoder_buf, sizeof r->encoder_buf, "nvJPEG on the GPU, quality %d, %d", q->quality,
                 g.c == 1 ? 400 : q->sampling);
    r->encoder = r->encoder_buf;
    const double t0 = timing_now_ms();
    int st = io_write_pending(out, &g, &c->save, c->hold ? c->hold : &p, q->fmt == FMT_PNG ? write_chunks : write_bytes,
                              q->fmt == FMT_PNG ? (void *)&a : (void *)&b);
    if (!st && !c->hold)
        st = io_pending_publish(&p);
    r->encode_ms = q->ms + timing_now_ms() - t0;
    return st;
}

/* Whether the GPU may encode out, and how (q): a PNG at levels 1 to 9 (level 0, stored, is the
 * CPU's); a baseline JPEG of an 8-bit grey or RGB result. */
static int gpu_encode(const struct run_ctx *c, const char *out, const struct plan *pl, struct gpu_encode_request *q)
{
    enum out_format f;
    if (c->kind != BACKEND_GPU)
        return 0;
    if (out_format(c, out, &f)) {   /* said by the save, where it matters */
        gpuimg_clear_error();
        return 0;
    }
    if (!backend_gpu_encode_available(f))
        return 0;
    q->fmt = f;
    q->level = c->save.png_level;
    q->quality = c->save.jpeg_quality;
    q->sampling = io_jpeg_sampling(&c->save);
    if (f == FMT_PNG)
        return q->level >= 1;
    return f == FMT_JPEG && !c->save.jpeg_progressive && pl->out.depth == 8 && (pl->out.c == 1 || pl->out.c == 3);
}

/* run_file with c->save.meta, which load_header fills */
static int run_chain(const struct run_ctx *c, const char *in, const char *out, struct io_meta *meta,
                     struct run_report *r)
{
    double t0 = timing_now_ms();
    struct io_input raw;
    struct plan pl;
    int st = load_header(c, in, out, &raw, &pl, meta, r);
    if (st)
        return st;
    pl.abandoned = c->abandoned;
    struct image img = { 0 };
    int done = 0;
    struct gpu_encode_request enc = { 0 };
    struct gpu_run_opts go = c->gpu;
    go.enc = gpu_encode(c, out, &pl, &enc) ? &enc : NULL;
    if (c->kind == BACKEND_CPU) {
        struct save_opts so = c->save;
        if (!(st = out_format(c, out, &so.fmt)))
            st = stream_run(&pl, &raw, out, &so, c->hold, r);
        done = !(st == GPUIMG_EUNSUPPORTED && !gpuimg_errmsg());   /* not streamed: the stages in turn below */
        if (done) {
            io_input_free(&raw);   /* where it failed before decoding */
            r->total_ms = timing_now_ms() - t0;
            return st;
        }
        st = GPUIMG_OK;
    }
    if (c->kind == BACKEND_GPU && backend_gpu_jpeg_now(&go) && raw.jpeg && raw.shrink == 1 && raw.g.depth == 8 && (raw.g.c == 1 || raw.g.c == 3)) {
        st = backend_gpu_run_jpeg(&pl, &go, &raw, &img, r);
        done = !(st == GPUIMG_EUNSUPPORTED && !gpuimg_errmsg());   /* not taken: the CPU's decoder below */
        if (done)
            io_input_free(&raw);
        else
            st = GPUIMG_OK;
    }
    if (!done && !(st = decode(&raw, &img, r)))
        st = c->kind == BACKEND_GPU ? backend_gpu_run(&pl, &go, &img, r) : backend_cpu_run(&pl, &img, r);
    if (st == GPUIMG_ENODEVMEM && img.data) {   /* no room on the GPU, even in tiles: the CPU, said once */
        snprintf(r->note, sizeof r->note, "%s: %s; ran on the CPU", in, gpuimg_errmsg() ? gpuimg_errmsg() : "no device memory");
        gpuimg_clear_error();
        r->device = NULL;
        r->upload_ms = r->download_ms = -1;
        r->nsteps = 0;
        st = backend_cpu_run(&pl, &img, r);
    }
    if (!st)
        st = plan_abandoned(&pl);   /* not encoded (a large result's longest stage) for no one */
    if (!st)
        st = enc.out.n || enc.bytes ? save_encoded(c, out, &img, &enc, r) : run_save(c, out, &img, r);
    backend_gpu_encode_free(&enc);
    image_free(&img);
    r->total_ms = timing_now_ms() - t0;
    return st;
}

int run_file(const struct run_ctx *c, const char *in, const char *out, struct run_report *r)
{
    struct io_meta meta = { 0 };
    struct run_ctx cc = *c;
    cc.save.meta = &meta;
    const int st = run_chain(&cc, in, out, &meta, r);
    meta_free(&meta);
    return st;
}
