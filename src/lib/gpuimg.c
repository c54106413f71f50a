/* gpuimg: the library (include/gpuimg.h) over the engine: a context holds the options (the
 * command's table), each call runs the engine's load -> plan -> run -> write with them, and its
 * failure's message is kept on the context. */
#include <config.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/error.h"
#include "engine/backend.h"
#include "engine/files.h"
#include "engine/run.h"
#include "io/formats.h"
#include "io/io.h"
#include "io/jxl.h"
#include "io/meta.h"
#include "lib/options.h"


struct gpuimg_ctx {
    struct cli_opts o;
    char err[1024];
    char note[512];
    const char *backend;
    struct { const char *name; char *value; } texts[OPTIONS_MAX];   /* each option's latest value, kept: a
                                                                      text field points into it */
    int ntexts;
    char *pipe_text;          /* the last pipeline parsed, kept for the next run */
    struct plan pipe;
    struct pool *pool;        /* gpuimg_decode_batch's workers, made at its first call */
    atomic_int cancel;        /* gpuimg_ctx_cancel: the running call stops (its runs' plan.abandoned) */
};

struct pool;
static void pool_free(struct pool *p);

/* What the library allocates behind an image: its metadata and where its pixels are. */
struct owner {
    struct io_meta meta;
    int device;   /* -1: host pixels (malloc's), else gpu_malloc's on that device */
};

const char *gpuimg_version(void)
{
    return PACKAGE_VERSION;
}

/* ---- a call's start and end ----------------------------------------------------------------- */

static void begin(gpuimg_ctx *ctx)
{
    atomic_store(&ctx->cancel, 0);
    gpuimg_clear_error();
    ctx->err[0] = 0;
}

static enum gpuimg_status end(gpuimg_ctx *ctx, int st)
{
    backend_gpu_restore_device();
    if (st) {
        const char *m = gpuimg_errmsg();
        snprintf(ctx->err, sizeof ctx->err, "%s", m && *m ? m : gpuimg_strerror((enum gpuimg_status)st));
    }
    gpuimg_clear_error();
    return (enum gpuimg_status)st;
}

/* The context's threads for this call, the caller's OpenMP setting given back after it. */
static int threads_begin(const gpuimg_ctx *ctx, int *saved)
{
#ifdef _OPENMP
    *saved = omp_get_max_threads();
    if (ctx->o.threads)
        omp_set_num_threads(ctx->o.threads);
    return omp_get_max_threads();
#else
    *saved = 1;
    return 1;
#endif
}

static void threads_end(int saved)
{
#ifdef _OPENMP
    omp_set_num_threads(saved);
#else
    (void)saved;
#endif
}

/* ---- contexts --------------------------------------------------------------------------------- */

gpuimg_ctx *gpuimg_ctx_new(void)
{
    gpuimg_ctx *ctx = calloc(1, sizeof *ctx);
    if (ctx) {
        options_defaults(&ctx->o);
        ctx->backend = "";
    }
    return ctx;
}

void gpuimg_ctx_free(gpuimg_ctx *ctx)
{
    if (!ctx)
        return;
    pool_free(ctx->pool);
    for (int i = 0; i < ctx->ntexts; i++)
        free(ctx->texts[i].value);
    free(ctx->pipe_text);
    free(ctx);
}

enum gpuimg_status gpuimg_ctx_set(gpuimg_ctx *ctx, const char *option, const char *value)
{
    if (!ctx)
        return GPUIMG_EUSAGE;
    begin(ctx);
    char *copy = NULL;
    if (value && !(copy = strdup(value)))
        return end(ctx, gpuimg_fail(GPUIMG_ENOMEM, "out of memory"));
    const char *name = NULL;
    const int st = options_set(&ctx->o, option, copy, &name);
    int i = 0;
    while (i < ctx->ntexts && ctx->texts[i].name != name)
        i++;
    if (st || !copy || !name || (i == ctx->ntexts && i == OPTIONS_MAX))
        free(copy);
    else {   /* kept, the option's value before it freed: a text field may point into it */
        if (i == ctx->ntexts)
            ctx->texts[ctx->ntexts++].name = name;
        free(ctx->texts[i].value);
        ctx->texts[i].value = copy;
    }
    return end(ctx, st);
}

const char *gpuimg_ctx_get(const gpuimg_ctx *ctx, const char *option)
{
    for (int i = 0; ctx && option && i < ctx->ntexts; i++)
        if (!strcmp(ctx->texts[i].name, option))
            return ctx->texts[i].value;
    return NULL;
}

void gpuimg_ctx_cancel(gpuimg_ctx *ctx)
{
    if (ctx)
        atomic_store(&ctx->cancel, 1);
}

const char *gpuimg_ctx_error(const gpuimg_ctx *ctx) { return ctx ? ctx->err : "no context (NULL)"; }
const char *gpuimg_ctx_backend(const gpuimg_ctx *ctx) { return ctx ? ctx->backend : ""; }
const char *gpuimg_ctx_note(const gpuimg_ctx *ctx) { return ctx ? ctx->note : ""; }

/* ---- images ---------------------------------------------------------------------------------- */

gpuimg_image gpuimg_image_wrap(void *data, int width, int height, int channels, int depth, size_t stride, int device)
{
    if (!stride && width > 0 && channels > 0 && (depth == 8 || depth == 16))   /* 0: packed */
        stride = (size_t)width * (size_t)channels * (size_t)(depth / 8);
    return (gpuimg_image){ .data = data, .stride = stride, .width = width, .height = height, .channels = channels,
                           .depth = depth, .device = device < 0 ? -1 : device, .owner = NULL };
}

void gpuimg_image_free(gpuimg_image *img)
{
    if (!img)
        return;
    struct owner *ow = img->owner;
    if (ow) {
        if (ow->device >= 0) {
            backend_gpu_free(ow->device, img->data);
            backend_gpu_restore_device();
        }
        else
            free(img->data);
        meta_free(&ow->meta);
        free(ow);
    }
    memset(img, 0, sizeof *img);
    img->device = -1;
}

/* A caller's image checked as the engine takes it: its geometry, rows at least packed. */
static int check_image(const gpuimg_image *im, uint64_t max_pixels, struct geom *g)
{
    if (!im || !im->data)
        return gpuimg_fail(GPUIMG_EUSAGE, "no image (its data is NULL)");
    *g = (struct geom){ im->width, im->height, im->channels, im->depth };
    if (g->c < 1 || g->c > 4 || (g->depth != 8 && g->depth != 16))
        return gpuimg_fail(GPUIMG_EUSAGE, "an image of %d channels at %d bits: gpuimg takes 1 to 4 channels of 8 or 16 "
                           "bits", g->c, g->depth);
    if (g->w < 1 || g->h < 1)
        return gpuimg_fail(GPUIMG_EUSAGE, "an image of %dx%d pixels: it has none", g->w, g->h);
    if (max_pixels && (uint64_t)g->w * (uint64_t)g->h > max_pixels)
        return gpuimg_fail(GPUIMG_ETOOBIG, "an image of %dx%d pixels, over max-pixels (%llu)", g->w, g->h,
                           (unsigned long long)max_pixels);
    size_t bytes;
    int st = geom_bytes(g, &bytes);
    if (st)
        return st;
    const size_t row = geom_bpp(g) * (size_t)g->w;
    if (im->stride < row || im->stride > (SIZE_MAX - row) / (size_t)g->h)
        return gpuimg_fail(GPUIMG_EUSAGE, "an image %d pixels wide of %zu bytes a pixel has rows %zu bytes apart: fewer "
                           "than its pixels, or more than memory holds", g->w, geom_bpp(g), im->stride);
    return GPUIMG_OK;
}

/* The result into *out, which may be in: the library's input freed first (the caller's own left as it
 * is); on failure *out is left empty, or as it was where it is in. */
static void put(gpuimg_image *out, const gpuimg_image *in, gpuimg_image *res, int st)
{
    if (out == in && st)
        return;
    if (out == in)
        gpuimg_image_free(out);
    if (st)
        *out = (gpuimg_image){ .device = -1 };
    else
        *out = *res;
}

/* A library image around the engine's result (its data taken), with a copy of meta (or none). */
static int give(struct image *res, int device, const struct io_meta *meta, gpuimg_image *out)
{
    struct owner *ow = calloc(1, sizeof *ow);
    int st = ow ? GPUIMG_OK : gpuimg_fail(GPUIMG_ENOMEM, "out of memory");
    if (!st && meta)
        st = meta_copy(&ow->meta, meta);
    if (st) {
        free(ow);
        if (device >= 0)
            backend_gpu_free(device, res->data);
        else
            image_free(res);
        return st;
    }
    ow->device = device;
    *out = (gpuimg_image){ .data = res->data, .stride = res->stride, .width = res->w, .height = res->h,
                           .channels = res->c, .depth = res->depth, .device = device, .owner = ow };
    res->data = NULL;
    return GPUIMG_OK;
}

static const struct io_meta *image_meta(const gpuimg_image *im)
{
    const struct owner *ow = im->owner;
    return ow ? &ow->meta : NULL;
}

/* ---- runs ---------------------------------------------------------------------------------------- */

/* The run context for pl, on the backend the options ask (auto: the GPU where usable), and the
 * reason said where auto took the CPU. */
static int run_context(gpuimg_ctx *ctx, const struct plan *pl, int threads, struct run_ctx *rc)
{
    options_run_ctx(&ctx->o, pl, threads, rc);
    rc->per_file_format = !ctx->o.have_format;
    struct backend_choice bc;
    int st = backend_select((enum backend_kind)ctx->o.backend, pl, options_device(&ctx->o), &bc);
    if (st)
        return st;
    rc->kind = bc.kind;
    rc->abandoned = &ctx->cancel;
    snprintf(ctx->note, sizeof ctx->note, "%s", bc.note);
    ctx->backend = bc.kind == BACKEND_GPU ? "gpu" : "cpu";
    return GPUIMG_OK;
}

/* The pipeline parsed, or the last one again. */
static int parse(gpuimg_ctx *ctx, const char *pipeline, const struct plan **pl)
{
    if (!pipeline)
        return gpuimg_fail(GPUIMG_EPARAM, "no pipeline (NULL)");
    if (!ctx->pipe_text || strcmp(ctx->pipe_text, pipeline)) {
        free(ctx->pipe_text);
        ctx->pipe_text = NULL;
        engine_files_read(ctx->o.max_pixels, (unsigned)ctx->o.max_expansion);   /* a file it names, read now */
        int st = plan_parse(pipeline, &ctx->pipe);
        if (!st)
            st = plan_check_kernel(&ctx->pipe, ctx->o.kernel);
        if (st)
            return st;
        if (!(ctx->pipe_text = strdup(pipeline)))
            return gpuimg_fail(GPUIMG_ENOMEM, "out of memory");
    }
    *pl = &ctx->pipe;
    return GPUIMG_OK;
}

/* A file or bytes decoded (no steps but its turn upright): gpuimg_read and gpuimg_decode. */
static enum gpuimg_status load(gpuimg_ctx *ctx, const char *path, const void *buf, size_t len, gpuimg_image *out)
{
    begin(ctx);
    memset(out, 0, sizeof *out);
    out->device = -1;
    int saved;
    const int threads = threads_begin(ctx, &saved);
    struct plan none = { 0 };
    struct run_ctx rc;
    options_run_ctx(&ctx->o, &none, threads, &rc);
    rc.in_buf = buf;
    rc.in_len = len;
    ctx->backend = "cpu";
    ctx->note[0] = 0;
    struct io_meta meta = { 0 };
    struct image img = { 0 };
    struct run_report r;
    timing_report_init(&r);
    int st = path ? run_image(&rc, path, &img, &meta, &r) : (int)gpuimg_fail(GPUIMG_EOPEN, "no file name (NULL)");
    if (!st)
        st = give(&img, -1, &meta, out);
    image_free(&img);
    meta_free(&meta);
    threads_end(saved);
    return end(ctx, st);
}

enum gpuimg_status gpuimg_read(gpuimg_ctx *ctx, const char *path, gpuimg_image *out)
{
    if (!ctx)
        return GPUIMG_EUSAGE;
    return load(ctx, path, NULL, 0, out);
}

enum gpuimg_status gpuimg_decode(gpuimg_ctx *ctx, const void *buf, size_t len, const char *name, gpuimg_image *out)
{
    if (!ctx)
        return GPUIMG_EUSAGE;
    if (!buf) {
        begin(ctx);
        return end(ctx, gpuimg_fail(GPUIMG_EOPEN, "%s: no bytes (NULL)", name ? name : "(memory)"));
    }
    return load(ctx, name ? name : "(memory)", buf, len, out);
}

/* The pixels of img (geometry g) as the engine takes them: host memory packed, into *h: borrowed
 * where the caller's rows are packed and copy is 0, else copied (down from the device, or repacked). */
static int host_pixels(const gpuimg_image *img, const struct geom *g, int copy, struct image *h)
{
    const size_t row = geom_bpp(g) * (size_t)g->w;
    if (!copy && img->device < 0 && img->stride == row) {
        *h = (struct image){ g->w, g->h, g->c, g->depth, row, img->data, 1 };
        return GPUIMG_OK;
    }
    int st = image_alloc(h, g);
    if (st)
        return st;
    if (img->device >= 0)
        st = backend_gpu_copy2d(img->device, h->data, row, img->data, img->stride, row, g->h, GPU_D2H);
    else
        for (int y = 0; y < g->h; y++)
            memcpy(h->data + (size_t)y * row, (const uint8_t *)img->data + (size_t)y * img->stride, row);
    if (st)
        image_free(h);
    return st;
}

/* rows of g from src (rows spitch apart; on device src_dev, or the host where it is -1) into new
 * memory of device, packed: *dev. */
static int device_pixels(int device, const void *src, size_t spitch, int src_dev, const struct geom *g, void **dev)
{
    const size_t row = geom_bpp(g) * (size_t)g->w;
    size_t bytes;
    int st = geom_bytes(g, &bytes);
    if (st || (st = backend_gpu_alloc(device, dev, bytes)))
        return st;
    if (src_dev >= 0 && src_dev != device)
        st = gpuimg_fail(GPUIMG_EUNSUPPORTED, "a copy from device %d to device %d: copy it through the host", src_dev,
                         device);
    else
        st = backend_gpu_copy2d(device, *dev, row, src, spitch, row, g->h, src_dev >= 0 ? GPU_D2D : GPU_H2D);
    if (st) {
        backend_gpu_free(device, *dev);
        *dev = NULL;
    }
    return st;
}

enum gpuimg_status gpuimg_image_copy(gpuimg_ctx *ctx, const gpuimg_image *in, int device, gpuimg_image *out)
{
    if (!ctx || !out)
        return GPUIMG_EUSAGE;
    begin(ctx);
    gpuimg_image res = { .device = -1 };
    struct geom g;
    struct image img = { 0 };
    int st = check_image(in, ctx->o.max_pixels, &g);
    if (st) {
        put(out, in, &res, st);
        return end(ctx, st);
    }
    if (device < 0)   /* down (or a host copy), packed */
        st = host_pixels(in, &g, 1, &img);
    else {
        void *dev = NULL;
        img = (struct image){ g.w, g.h, g.c, g.depth, geom_bpp(&g) * (size_t)g.w, NULL, 0 };
        if (!(st = device_pixels(device, in->data, in->stride, in->device, &g, &dev)))
            img.data = dev;
    }
    if (!st)
        st = give(&img, device < 0 ? -1 : device, image_meta(in), &res);
    else if (device < 0)
        image_free(&img);
    put(out, in, &res, st);
    return end(ctx, st);
}

static enum gpuimg_status save(gpuimg_ctx *ctx, const char *path, FILE *fp, const gpuimg_image *img,
                               enum out_format fmt)
{
    int saved;
    const int threads = threads_begin(ctx, &saved);
    struct plan none = { 0 };
    struct run_ctx rc;
    struct geom g;
    struct image h = { 0 };
    struct run_report r;
    timing_report_init(&r);
    options_run_ctx(&ctx->o, &none, threads, &rc);
    rc.per_file_format = !fp && !ctx->o.have_format;
    if (fp)
        rc.save.fmt = fmt;
    int st = path ? check_image(img, ctx->o.max_pixels, &g) : (int)gpuimg_fail(GPUIMG_EWRITE, "no file name (NULL)");
    if (!st && !fp)
        st = io_check_output(path, ctx->o.force);
    if (!st)
        st = host_pixels(img, &g, 0, &h);
    if (!st)
        st = run_write_image(&rc, path, fp, &h, image_meta(img), &r);
    image_free(&h);
    threads_end(saved);
    return end(ctx, st);
}

enum gpuimg_status gpuimg_write(gpuimg_ctx *ctx, const char *path, const gpuimg_image *img)
{
    if (!ctx)
        return GPUIMG_EUSAGE;
    begin(ctx);
    return save(ctx, path, NULL, img, FMT_PNG);
}

enum gpuimg_status gpuimg_encode(gpuimg_ctx *ctx, const gpuimg_image *img, const char *format, void **buf,
                                 size_t *len)
{
    if (!ctx)
        return GPUIMG_EUSAGE;
    begin(ctx);
    *buf = NULL;
    *len = 0;
    enum out_format f;
    if (format && *format == '.')   /* ".png" as well as "png" */
        format++;
    if (!format || io_format_from_name(format, &f))
        return end(ctx, gpuimg_fail(GPUIMG_EUSAGE, "'%s' is not an output format (" IO_OUTPUT_EXTENSIONS ")",
                                    format ? format : "(null)"));
    char name[32];
    snprintf(name, sizeof name, "(memory).%s", format);
    char *mem = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&mem, &n);
    if (!fp)
        return end(ctx, gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory for the encoded bytes", name));
    enum gpuimg_status st = save(ctx, name, fp, img, f);
    if (fclose(fp) && !st) {
        st = gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory for the encoded bytes", name);
        st = end(ctx, st);
    }
    if (st) {
        free(mem);
        return st;
    }
    *buf = mem;
    *len = n;
    return GPUIMG_OK;
}

enum gpuimg_status gpuimg_run(gpuimg_ctx *ctx, const char *pipeline, const gpuimg_image *in, gpuimg_image *out)
{
    if (!ctx || !out)
        return GPUIMG_EUSAGE;
    begin(ctx);
    gpuimg_image res = { .device = -1 };
    int saved;
    const int threads = threads_begin(ctx, &saved);
    const struct plan *parsed;
    struct plan pl;
    struct geom g;
    struct run_ctx rc;
    struct image img = { 0 };
    struct run_report r;
    timing_report_init(&r);
    int st = parse(ctx, pipeline, &parsed);
    if (!st)
        st = check_image(in, ctx->o.max_pixels, &g);
    if (!st) {
        pl = *parsed;
        st = plan_resolve(&pl, &g, ctx->o.max_pixels);
    }
    if (!st)
        st = run_context(ctx, &pl, threads, &rc);
    pl.abandoned = &ctx->cancel;
    if (!st && in->device >= 0) {   /* on its device, the result left there */
        if (rc.kind != BACKEND_GPU)
            st = gpuimg_fail(GPUIMG_ENOGPU, "a device image needs the GPU: %s", ctx->note[0] ? ctx->note : "backend cpu");
        struct gpu_run_opts go = rc.gpu;
        void *dev = NULL;
        go.device = in->device;
        go.dev_src = in->data;
        go.dev_pitch = in->stride;
        go.dev_out = &dev;
        img = (struct image){ g.w, g.h, g.c, g.depth, in->stride, NULL, 1 };
        if (!st && !(st = backend_gpu_run(&pl, &go, &img, &r))) {
            img.data = dev;
            st = give(&img, in->device, image_meta(in), &res);
        }
    } else if (!st && !(st = host_pixels(in, &g, 0, &img))) {
        st = rc.kind == BACKEND_GPU ? backend_gpu_run(&pl, &rc.gpu, &img, &r) : backend_cpu_run(&pl, &img, &r);
        if (st == GPUIMG_ENODEVMEM && img.data) {   /* no room on the GPU, even in tiles: the CPU */
            snprintf(ctx->note, sizeof ctx->note, "%s; ran on the CPU", gpuimg_errmsg() ? gpuimg_errmsg() : "no device memory");
            gpuimg_clear_error();
            ctx->backend = "cpu";
            st = backend_cpu_run(&pl, &img, &r);
        }
        if (!st)
            st = give(&img, -1, image_meta(in), &res);
    }
    image_free(&img);
    threads_end(saved);
    put(out, in, &res, st);
    return end(ctx, st);
}

/* ---- batches: many inputs at once, the GPU's JPEG engines taking theirs in batched calls ------- */

struct batch {
    struct run_ctx rc;
    int n, device, inner;
    const char *const *paths;
    const void *const *bufs;
    const size_t *lens;
    gpuimg_image *outs;
    int *status;
    int next;
    pthread_mutex_t mu;
    int failed;          /* the first failure's status, its message in err */
    char err[1024];
};

/* One input of a batch into b->outs[i]: on the device asked (the GPU's result left there, or a
 * host result copied up), or in host memory. */
static int batch_one(struct batch *b, struct run_ctx *rc, int i)
{
    char name[48];
    const char *path = b->paths && b->paths[i] ? b->paths[i] : NULL;
    if (!path)
        snprintf(name, sizeof name, "(memory, input %d)", i);
    rc->in_buf = b->bufs ? b->bufs[i] : NULL;
    rc->in_len = b->lens ? b->lens[i] : 0;
    if (!path && !rc->in_buf)
        return gpuimg_fail(GPUIMG_EOPEN, "input %d: neither a file nor bytes (NULL)", i);
    void *dev = NULL;
    rc->gpu.dev_out = b->device >= 0 ? &dev : NULL;
    struct image img = { 0 };
    struct io_meta meta = { 0 };
    struct run_report r;
    timing_report_init(&r);
    int st = run_image(rc, path ? path : name, &img, &meta, &r);
    if (!st && b->device >= 0 && !dev) {   /* run on the CPU (no room on the GPU): up */
        const struct geom g = image_geom(&img);
        st = device_pixels(b->device, img.data, img.stride, -1, &g, &dev);
        image_free(&img);
        img.data = dev;
    } else if (!st && dev)
        img.data = dev;
    if (!st)
        st = give(&img, dev ? b->device : -1, &meta, &b->outs[i]);
    else if (dev)
        backend_gpu_free(b->device, dev);
    image_free(&img);
    meta_free(&meta);
    return st;
}

/* A worker's share of a batch: inputs taken in turn until none is left. */
static void batch_work(struct batch *b)
{
#ifdef _OPENMP
    omp_set_num_threads(b->inner);   /* this worker's share of the cores */
#endif
    struct run_ctx rc = b->rc;
    rc.save.threads = b->inner;
    rc.gpu.stage = 1;   /* copies through this worker's pinned buffers, its device memory kept */
    rc.gpu.keep = 1;
    for (;;) {
        const int i = __atomic_fetch_add(&b->next, 1, __ATOMIC_RELAXED);
        if (i >= b->n)
            break;
        gpuimg_clear_error();
        const int st = rc.abandoned && atomic_load(rc.abandoned)
                           ? (int)gpuimg_fail(GPUIMG_ECANCELED, "input %d: the batch was cancelled", i)
                           : batch_one(b, &rc, i);
        if (b->status)
            b->status[i] = st;
        if (st) {
            pthread_mutex_lock(&b->mu);
            if (!b->failed) {
                b->failed = st;
                snprintf(b->err, sizeof b->err, "%s", gpuimg_errmsg() ? gpuimg_errmsg() : gpuimg_strerror(st));
            }
            pthread_mutex_unlock(&b->mu);
        }
    }
}

/* A context's batch workers, kept from one call to the next with what each holds (its pinned
 * staging buffers, its kept device memory, its OpenMP team): made anew for every call, they cost
 * the device a synchronising free each. */
#define POOL_MAX 255
#define BATCH_GPU_JOBS_PER_CORE 4
struct pool {
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    pthread_t tid[POOL_MAX];
    int n, ready;       /* threads made, and started */
    unsigned gen;       /* batches handed out */
    int running;        /* threads still on the current batch */
    int quit;
    struct batch *job;
};

static void *pool_thread(void *arg)
{
    struct pool *p = arg;
    int gpu = 0;
    pthread_mutex_lock(&p->mu);
    unsigned seen = p->gen;
    p->ready++;
    pthread_cond_broadcast(&p->done);
    for (;;) {
        while (!p->quit && p->gen == seen)
            pthread_cond_wait(&p->go, &p->mu);
        if (p->quit)
            break;
        seen = p->gen;
        struct batch *b = p->job;
        pthread_mutex_unlock(&p->mu);
        batch_work(b);
        gpu |= b->rc.kind == BACKEND_GPU;
        pthread_mutex_lock(&p->mu);
        if (--p->running == 0)
            pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    if (gpu)
        backend_gpu_thread_done();
    return NULL;
}

/* b run by the pool's threads, grown to workers where it has fewer, the calling thread waiting */
static void pool_run(gpuimg_ctx *ctx, struct batch *b, int workers)
{
    if (!ctx->pool && (ctx->pool = calloc(1, sizeof *ctx->pool))) {
        pthread_mutex_init(&ctx->pool->mu, NULL);
        pthread_cond_init(&ctx->pool->go, NULL);
        pthread_cond_init(&ctx->pool->done, NULL);
    }
    struct pool *p = ctx->pool;
    if (p) {
        pthread_mutex_lock(&p->mu);
        while (p->n < workers && p->n < POOL_MAX && !pthread_create(&p->tid[p->n], NULL, pool_thread, p))
            p->n++;
        while (p->ready < p->n)   /* each has seen the batches before this one */
            pthread_cond_wait(&p->done, &p->mu);
        p->job = b;
        p->running = p->n;   /* the calling thread waits: GPU work leaves state on a thread (its kept memory) */
        p->gen++;
        pthread_cond_broadcast(&p->go);
        pthread_mutex_unlock(&p->mu);
    }
    if (!p || !p->n)   /* no thread could be made: this one */
        batch_work(b);
    if (p) {
        pthread_mutex_lock(&p->mu);
        while (p->running > 0)
            pthread_cond_wait(&p->done, &p->mu);
        pthread_mutex_unlock(&p->mu);
    }
}

static void pool_free(struct pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->n; i++)
        pthread_join(p->tid[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
    free(p);
}

static void codecs_stop(void)
{
    backend_gpu_codecs_stop();
}

enum gpuimg_status gpuimg_decode_batch(gpuimg_ctx *ctx, int n, const char *const *paths, const void *const *bufs,
                                       const size_t *lens, const char *pipeline, int device, gpuimg_image *outs,
                                       int *status)
{
    if (!ctx)
        return GPUIMG_EUSAGE;
    begin(ctx);
    for (int i = 0; outs && i < n; i++) {
        memset(&outs[i], 0, sizeof outs[i]);
        outs[i].device = -1;
        if (status)
            status[i] = GPUIMG_OK;
    }
    if (n < 0 || (n > 0 && (!outs || (!paths && !bufs))))
        return end(ctx, gpuimg_fail(GPUIMG_EUSAGE, "a batch of %d inputs without its lists", n));
    const struct plan *parsed = NULL;
    struct plan none = { 0 };
    int st = pipeline && *pipeline ? parse(ctx, pipeline, &parsed) : GPUIMG_OK;
    if (st || n == 0)
        return end(ctx, st);
    struct batch *b = calloc(1, sizeof *b);
    if (!b)
        return end(ctx, gpuimg_fail(GPUIMG_ENOMEM, "out of memory"));
#ifdef _OPENMP
    const int cores = omp_get_max_threads();
#else
    const int cores = 1;
#endif
    const int threads = ctx->o.threads ? ctx->o.threads : cores;
    if (!(st = run_context(ctx, parsed ? parsed : &none, threads, &b->rc))) {
        b->rc.per_file_format = 0;
        if (device >= 0 && b->rc.kind != BACKEND_GPU)
            st = gpuimg_fail(GPUIMG_ENOGPU, "device images need the GPU: %s", ctx->note[0] ? ctx->note : "backend cpu");
        if (device >= 0)
            b->rc.gpu.device = device;
    }
    if (!st && b->rc.kind == BACKEND_GPU) {   /* the JPEG engines, made once a process on their own thread */
        static int registered;
        if (!__atomic_exchange_n(&registered, 1, __ATOMIC_ACQ_REL))
            atexit(codecs_stop);
        backend_gpu_codecs_start(b->rc.gpu.device, b->rc.gpu.jpeg == 1);
    }
    /* jobs, else one a core; on the GPU four a core as the server's workers: the engines' calls
     * gather the files waiting while one runs, so more in flight make fuller calls */
    int workers = ctx->o.jobs ? ctx->o.jobs : b->rc.kind == BACKEND_GPU ? threads * BATCH_GPU_JOBS_PER_CORE : threads;
    if (workers > n)
        workers = n;
    if (workers > POOL_MAX)
        workers = POOL_MAX;
    if (!st) {
        b->n = n;
        b->device = device;
        b->inner = threads / workers > 1 ? threads / workers : 1;
        b->paths = paths;
        b->bufs = bufs;
        b->lens = lens;
        b->outs = outs;
        b->status = status;
        pthread_mutex_init(&b->mu, NULL);
        int saved;
        threads_begin(ctx, &saved);
        pool_run(ctx, b, workers);
        threads_end(saved);
        pthread_mutex_destroy(&b->mu);
        if (b->failed)
            st = gpuimg_fail(b->failed, "%s", b->err);
    }
    free(b);
    return end(ctx, st);
}

enum gpuimg_status gpuimg_convert(gpuimg_ctx *ctx, const char *pipeline, const char *in, const char *out)
{
    if (!ctx)
        return GPUIMG_EUSAGE;
    begin(ctx);
    int saved;
    const int threads = threads_begin(ctx, &saved);
    const struct plan *pl;
    struct run_ctx rc;
    struct run_report r;
    timing_report_init(&r);
    int st = parse(ctx, pipeline, &pl);
    if (!st && (!in || !out))
        st = gpuimg_fail(GPUIMG_EOPEN, "no file name (NULL)");
    if (!st)
        st = run_context(ctx, pl, threads, &rc);
    if (!st)
        st = io_check_output(out, ctx->o.force);
    if (!st)
        st = run_file(&rc, in, out, &r);
    if (!st && r.note[0])
        snprintf(ctx->note, sizeof ctx->note, "%s", r.note);
    threads_end(saved);
    return end(ctx, st);
}

/* ---- a file described, no pixels decoded ---------------------------------------------------- */

static void info_fill(gpuimg_info *info, const char *format, const struct geom *g, int orient, int frames,
                      int progressive, int cmyk, const struct io_meta *m, size_t bytes)
{
    memset(info, 0, sizeof *info);
    snprintf(info->format, sizeof info->format, "%s", format);
    info->width = g->w;
    info->height = g->h;
    info->channels = g->c;
    info->depth = g->depth;
    info->orientation = orient;
    info->frames = frames;
    info->progressive = progressive;
    info->cmyk = cmyk;
    info->icc = m->icc_len;
    info->exif = m->exif_len;
    info->xmp = m->xmp_len;
    info->iptc = m->iptc_len;
    info->comment = m->comment_len;
    if (m->density) {
        info->xres = m->xres;
        info->yres = m->yres;
    }
    info->bytes = bytes;
}

/* From the file's first INFO_HEAD bytes where they say it all: a JPEG (its markers up to the first
 * scan: a camera's EXIF and profile come before it) or a JPEG XL (its header and metadata boxes,
 * not its frames). 0 when they did; else the whole file is read. */
#define INFO_HEAD (128u << 10)
static int info_head(const char *path, gpuimg_info *info)
{
    const int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    struct stat st;
    static _Thread_local uint8_t head[INFO_HEAD];
    const ssize_t n = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? pread(fd, head, sizeof head, 0) : -1;
    if (fd >= 0)
        close(fd);
    if (n < 64)
        return 1;
    struct io_meta m = { 0 };
    const enum file_kind kind = sniff_kind(head, (size_t)n);
    struct geom g;
    int frames = 1;
    if (kind == KIND_JXL && !jxl_head(head, (size_t)n, (size_t)st.st_size, &g, &frames, &m)) {
        info_fill(info, format_name(kind, head, (size_t)n), &g, 1, frames, -1, 0, &m, (size_t)st.st_size);
        meta_free(&m);
        return 0;
    }
    uint32_t w = 0, h = 0;
    struct jpeg_facts jf;
    if (kind != KIND_JPEG || jpeg_check_head("", head, (size_t)n, &w, &h, &jf) || !w || !h
        || (jf.comps != 1 && jf.comps != 3 && jf.comps != 4) || meta_read(head, (size_t)n, KIND_JPEG, &m)) {
        meta_free(&m);
        gpuimg_clear_error();
        return 1;
    }
    g = (struct geom){ (int)w, (int)h, jf.comps == 1 ? 1 : 3, 8 };
    info_fill(info, "JPEG", &g, jpeg_orientation(head, (size_t)n), 1, jf.progressive, jf.four, &m, (size_t)st.st_size);
    meta_free(&m);
    return 0;
}

enum gpuimg_status gpuimg_info_read(gpuimg_ctx *ctx, const char *path, gpuimg_info *info)
{
    if (!ctx || !info)
        return GPUIMG_EUSAGE;
    begin(ctx);
    memset(info, 0, sizeof *info);
    if (!path)
        return end(ctx, gpuimg_fail(GPUIMG_EOPEN, "no file name (NULL)"));
    if (!info_head(path, info))
        return end(ctx, GPUIMG_OK);
    /* headers only: no pixel or expansion limit, nothing is decoded */
    const struct load_opts lo = { 0, DEC_AUTO, DEC_AUTO, 0, 0, 0 };
    struct io_input in;
    struct io_meta m = { 0 };
    int st = io_read(path, &lo, &in);
    if (!st && (st = io_read_meta(&in, &m)))
        io_input_free(&in);
    if (st) {
        meta_free(&m);
        return end(ctx, st);
    }
    const int orient = in.kind == KIND_JPEG ? in.orient : m.exif ? exif_orientation(m.exif, m.exif_len, NULL) : 1;
    info_fill(info, format_name(in.kind, in.buf, in.len), &in.g, orient, in.frames,
              in.kind == KIND_JPEG ? in.jpeg_facts.progressive : -1, in.kind == KIND_JPEG && in.jpeg_facts.four, &m,
              in.len);
    meta_free(&m);
    io_input_free(&in);
    return end(ctx, GPUIMG_OK);
}
