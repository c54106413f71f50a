/* gpuimg: one file through the chain: load -> plan -> run -> write (see run.h). */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "core/error.h"
#include "engine/knobs.h"
#include "engine/run.h"
#include "engine/stream.h"
#include "io/icc.h"
#include "io/pngenc.h"

/* ---- load: the file's bytes, header and metadata, nothing decoded --------------------------- */

static int load(const struct run_ctx *c, const char *in, struct io_input *raw, struct io_meta *meta,
                struct run_report *r)
{
    const double t0 = timing_now_ms();
    const struct load_opts lo = { c->max_pixels, c->load_jpeg, c->load_png, c->in_fd, c->max_expansion,
                                  c->save.threads };
    int st;
    if (c->in_buf) {   /* io_parse owns a copy, as io_read's buffer */
        uint8_t *copy = malloc(c->in_len ? c->in_len : 1);
        if (!copy)
            return gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory for its %zu bytes", in, c->in_len);
        memcpy(copy, c->in_buf, c->in_len);
        st = io_parse(in, copy, c->in_len, &lo, raw);
    } else
        st = io_read(in, &lo, raw);
    if (st)
        return st;
    r->in = raw->g;
    r->frames = raw->frames;
    /* the profile is read for --profile=srgb whatever --strip says; plan drops it after */
    if (((c->save.strip & META_ALL) != META_ALL || c->profile_srgb) && (st = io_read_meta(raw, meta)))
        io_input_free(raw);
    else if (c->save.strip)
        meta_strip(meta, (unsigned)c->save.strip & ~(c->profile_srgb ? (unsigned)META_ICC : 0u));
    r->decode_ms = timing_now_ms() - t0;
    return st;
}

/* ---- plan: the steps for this input, the output's format and its size check, once ------------ */

/* The format out is written in: the extension's (batches), else the command's. */
static int out_format(const struct run_ctx *c, const char *out, enum out_format *f)
{
    *f = c->save.fmt;
    if (c->per_file_format && io_format_from_path(out, f))
        return gpuimg_fail(GPUIMG_EUSAGE, "%s: unknown output format (use " IO_OUTPUT_EXTENSIONS ", or --format)",
                           out);
    return GPUIMG_OK;
}

/* Whether the GPU may decode raw: its JPEG engines are ready (or nvJPEG asked for) and take it
 * (8-bit grey or colour; the engines baseline files only). */
static int gpu_decodes(const struct run_ctx *c, const struct io_input *raw)
{
    return c->kind == BACKEND_GPU && backend_gpu_jpeg_now(&c->gpu) && raw->jpeg && raw->g.depth == 8
        && (raw->g.c == 1 || raw->g.c == 3) && (!raw->jpeg_facts.progressive || c->gpu.jpeg == 2);
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

/* Where a file's decode was placed, and what a later shrink on load needs: the plan's first
 * nturn steps are the turn its EXIF orientation asks, the rest c->plan's. */
struct placement {
    int nturn;
    enum out_format fmt;   /* the output's */
    int flatten;           /* the plan ends in the flatten fmt asks (add_flatten) */
    int engines;   /* the GPU's JPEG engines (or nvJPEG) decode it; else the CPU */
    struct icc_xform *icc;   /* --profile=srgb's conversion after the decode, on the CPU; NULL: none */
};

/* A result with alpha going to a format without (JPEG, PNM: io_holds_alpha) is flattened onto
 * --background before the encoder: the plan's last step, run where the others run (the CPU or the
 * GPU, in tiles or bands), its label saying why in -v's step times. */
static int add_flatten(const struct run_ctx *c, enum out_format f, struct plan *pl, struct run_report *r)
{
    char text[32], label[96];
    snprintf(text, sizeof text, "flatten=#%06x", (unsigned)c->background & 0xFFFFFFu);
    snprintf(label, sizeof label, "%s (--background: %s holds no alpha)", text, f == FMT_JPEG ? "JPEG" : "PNM");
    if (pl->nsteps == PLAN_MAX_STEPS)
        return gpuimg_fail(GPUIMG_EPARAM, "%s: no room in the pipeline (%d steps at most) for the flatten onto "
                           "--background that %s asks (it holds no alpha)", r->input, PLAN_MAX_STEPS,
                           f == FMT_JPEG ? "JPEG" : "PNM");
    return plan_append(pl, text, label, c->max_pixels);
}

/* Shrink on load: where the first step that changes the geometry after the EXIF turn (which the
 * decoder's scaling commutes with) can take a shrunk input and only pointwise steps
 * (op_region_point: gray) come between, the factor (2, 4 or 8) its load_shrink picks for raw,
 * with that step's index and arguments; 1: none. */
static int shrink_factor(const struct run_ctx *c, const struct placement *pm, const struct io_input *raw,
                         const struct plan *pl, int *step, struct op_args *a)
{
    if (c->shrink_on_load == SHRINK_NEVER || raw->shrink > 1 || !io_can_shrink(raw))
        return 1;
    int i = pm->nturn;
    while (i < pl->nsteps && pl->steps[i].op->region == op_region_point)
        i++;
    if (i == pl->nsteps || !pl->steps[i].op->load_shrink)
        return 1;
    *a = c->plan->steps[i - pm->nturn].args;   /* as parsed: automatic choices made afresh */
    *step = i;
    return pl->steps[i].op->load_shrink(a, &pl->steps[i].in, &pl->steps[i].out);
}

/* The decoder shrinks raw by f and the plan is made again (the turn, then c->plan's steps, step i
 * with a) and resolved for the shrunk input, to the same output. */
static int shrink_on_load(const struct run_ctx *c, const struct placement *pm, struct io_input *raw, struct plan *pl,
                          int f, int i, const struct op_args *a, struct run_report *r)
{
    const struct geom want = pl->out;
    io_shrink(raw, f);
    *pl = *c->plan;
    int st = pm->nturn ? orient(pl, raw->orient, r) : GPUIMG_OK;
    if (st)
        return st;
    pl->steps[i].args = *a;
    st = plan_resolve(pl, &raw->g, c->max_pixels);
    if (!st && pm->flatten)
        st = add_flatten(c, pm->fmt, pl, r);
    if (!st && (pl->out.w != want.w || pl->out.h != want.h))
        st = gpuimg_fail(GPUIMG_EINTERNAL, "%s: shrink on load changed the result's size", pl->steps[i].text);
    r->shrink = f;
    return st;
}

/* raw decoded on the CPU, shrunk where the mode and the pipeline allow */
static int shrink_if_allowed(const struct run_ctx *c, const struct placement *pm, struct io_input *raw, struct plan *pl,
                             struct run_report *r)
{
    struct op_args a;
    int i = 0;
    const int f = shrink_factor(c, pm, raw, pl, &i, &a);
    return f > 1 ? shrink_on_load(c, pm, raw, pl, f, i, &a, r) : GPUIMG_OK;
}

/* ---- the scheduler: a JPEG the engines could take goes where it is decoded first ------------- */

/* The cores' side of the cost model: libjpeg-turbo's picoseconds a source pixel on one core at
 * each shrink (1, 2, 4, 8), an average of this process's baseline decodes (each divided by how
 * far the decodes running then outnumbered the cores), from a prior until measured; and the
 * decodes the cores run now. The engines' side is theirs (backend_gpu_jpeg_wait_ms). */
static long long cpu_ps[4] = { 6000, 3000, 2000, 1500 };
static int cpu_decoding;

static int shrink_slot(int f)
{
    return f >= 8 ? 3 : f >= 4 ? 2 : f >= 2 ? 1 : 0;
}

/* how far busy decodes outnumber the cores this process may use (1 when they do not) */
static double cpu_load(int busy)
{
    static int ncores;
    if (!__atomic_load_n(&ncores, __ATOMIC_RELAXED)) {
#ifdef _OPENMP
        const long n = omp_get_num_procs();   /* the cores this process may run on (affinity) */
#else
        const long n = sysconf(_SC_NPROCESSORS_ONLN);
#endif
        __atomic_store_n(&ncores, n > 0 ? (int)n : 1, __ATOMIC_RELAXED);
    }
    return busy > ncores ? (double)busy / ncores : 1.0;
}

static void cpu_decoded(int f, long long px, double ms)
{
    if (px <= 0 || ms <= 0)
        return;
    long long *p = &cpu_ps[shrink_slot(f)];
    const long long ps = (long long)(ms * 1e9 / (double)px);
    __atomic_store_n(p, (3 * __atomic_load_n(p, __ATOMIC_RELAXED) + ps) / 4, __ATOMIC_RELAXED);
}

/* Whether a core would decode raw (px pixels) at shrink f before the engines would: their queue
 * at their measured rate against a core's rate, slowed by the decodes the cores already run
 * beyond their number. Only a file that shrinks on load, and only while SPLIT_WAITING files
 * already wait for the engines: a call of fewer costs the engines more a file than the core saves.
 * Without a measurement of the engines yet, the engines (their first calls measure them). */
#define SPLIT_WAITING 16
static int cores_first(const struct run_ctx *c, const struct io_input *raw, int f)
{
    if (!c->jpeg_split || c->gpu.jpeg != 1 || f < 2 || backend_gpu_jpeg_waiting(&c->gpu) < SPLIT_WAITING)
        return 0;
    const long long px = (long long)raw->g.w * raw->g.h;
    const double engines = backend_gpu_jpeg_wait_ms(&c->gpu, px);
    if (engines < 0)
        return 0;
    const double load = cpu_load(__atomic_load_n(&cpu_decoding, __ATOMIC_RELAXED) + 1);
    const double cores = (double)px * (double)__atomic_load_n(&cpu_ps[shrink_slot(f)], __ATOMIC_RELAXED) * 1e-9 * load;
    return cores < engines;
}

/* Where raw is decoded and whether shrunk: pm->engines = 1 for the GPU's JPEG engines (or
 * nvJPEG), else the CPU, shrinking where the mode and the pipeline allow (--shrink-on-load: the
 * CPU for every file it shrinks). */
static int place_decode(const struct run_ctx *c, struct io_input *raw, struct plan *pl, struct placement *pm,
                        struct run_report *r)
{
    struct op_args a;
    int i = 0;
    const int f = shrink_factor(c, pm, raw, pl, &i, &a);
    const int always = c->shrink_on_load == SHRINK_ALWAYS && f > 1;
    const int gpu = !pm->icc && gpu_decodes(c, raw);
    pm->engines = gpu && !always && !cores_first(c, raw, f);
    if (pm->icc && gpu_decodes(c, raw))
        snprintf(r->declined, sizeof r->declined, "JPEG decoded on the CPU: --profile=srgb converts its colour there");
    else if (gpu && !pm->engines)
        snprintf(r->declined, sizeof r->declined, "JPEG decoded on the CPU: %s",
                 always ? "--shrink-on-load" : "the cores were to finish it first");
    else if (!gpu && c->kind == BACKEND_GPU && raw->jpeg_facts.progressive && backend_gpu_jpeg_now(&c->gpu))
        snprintf(r->declined, sizeof r->declined, "JPEG decoded on the CPU: progressive (the JPEG engines take "
                 "baseline files)");
    return pm->engines || f <= 1 ? GPUIMG_OK : shrink_on_load(c, pm, raw, pl, f, i, &a, r);
}

/* A step that cannot take this image (before any pixels, or after a step measured them: trim's
 * box too small for a crop) is said with the file's name. */
static int named(int st, const struct run_report *r)
{
    if (st != GPUIMG_EGEOMETRY)
        return st;
    char msg[512];
    snprintf(msg, sizeof msg, "%s", gpuimg_errmsg() ? gpuimg_errmsg() : gpuimg_strerror(st));
    gpuimg_clear_error();
    return gpuimg_fail(st, "%s: %s", io_display_name(r->input, 0), msg);
}

/* The plan resolved for raw (turned upright, its decoder placed: pm->engines, or the CPU shrinking on
 * load), the output's format into so->fmt and the check that its encoder can write the result,
 * before any work. */
static int plan(const struct run_ctx *c, const char *out, struct io_input *raw, struct plan *pl, struct save_opts *so,
                struct io_meta *meta, struct placement *pm, struct run_report *r)
{
    *pl = *c->plan;
    *so = c->save;
    so->meta = (c->save.strip & META_ALL) == META_ALL ? NULL : meta;
    const int turn = !c->no_auto_orient && raw->orient > 1;
    if (turn)
        meta_upright(meta, raw->orient);
    pm->icc = NULL;
    int st = turn ? orient(pl, raw->orient, r) : GPUIMG_OK;
    pm->nturn = pl->nsteps - c->plan->nsteps;
    if (!st && c->profile_srgb && !(st = icc_srgb_prepare(io_display_name(r->input, 0), meta, &raw->g, &pm->icc))
        && (c->save.strip & META_ICC))
        meta_strip(meta, META_ICC);
    /* out NULL: the result stays in memory (run_image), no format to fit */
    if (!st && !(st = out ? out_format(c, out, &so->fmt) : GPUIMG_OK) && !(st = plan_resolve(pl, &r->in, c->max_pixels))) {
        pm->fmt = so->fmt;
        pm->flatten = out && !io_holds_alpha(so->fmt) && has_alpha(pl->out.c);
        if (pm->flatten)
            st = add_flatten(c, so->fmt, pl, r);
    }
    if (st || (st = place_decode(c, raw, pl, pm, r)) || (out && (st = io_check_size(out, so->fmt, &pl->out)))) {
        icc_free(pm->icc);
        pm->icc = NULL;
        return named(st, r);
    }
    meta_pixel_size(meta, pl->out.w, pl->out.h);
    return GPUIMG_OK;
}

/* ---- run: decode and process where the backend says; the result for the writer -------------- */

struct outcome {
    struct io_result res;
    struct image img;                /* the result's pixels (PIXELS) */
    struct pngenc *strips;           /* a streamed run's PNG */
    struct gpu_encode_request enc;   /* the GPU's encoded file */
};

static void outcome_free(struct outcome *o)
{
    image_free(&o->img);
    pngenc_free(o->strips);
    backend_gpu_encode_free(&o->enc);
}

/* JPEG outputs smaller than this stay on the cores unless the GPU is asked for: nvJPEG's encoder
 * costs more a call than libjpeg-turbo's encode of a small image. */
#define GPU_JPEG_SHARED_MIN_PIXELS (768 * 1024)

/* Whether the GPU encodes the output, and how (q): a PNG at levels 1 to 9 (level 0, stored, is the
 * CPU's); a baseline JPEG of an 8-bit grey or RGB result, under auto shared with the cores. */

static int gpu_encodes(const struct run_ctx *c, const struct plan *pl, const struct save_opts *so,
                       struct gpu_encode_request *q)
{
    const enum encoder_choice want = so->fmt == FMT_PNG ? c->png_encoder : so->fmt == FMT_JPEG ? c->jpeg_encoder
                                                                                               : ENCODER_CPU;
    if (c->kind != BACKEND_GPU || !backend_gpu_encode_available(so->fmt, want))
        return 0;
    q->fmt = so->fmt;
    q->level = so->png_level;
    q->quality = so->jpeg_quality;
    q->sampling = io_jpeg_sampling(so);
    if (so->fmt == FMT_PNG)
        return q->level >= 1;
    q->shared = want == ENCODER_AUTO;
    if (q->shared && (!c->shared_encode || (long long)pl->out.w * pl->out.h < GPU_JPEG_SHARED_MIN_PIXELS))
        return 0;
    return so->fmt == FMT_JPEG && !so->jpeg_progressive && pl->out.depth == 8 && (pl->out.c == 1 || pl->out.c == 3);
}

static int decode(struct io_input *raw, struct image *img, struct run_report *r)
{
    /* libjpeg-turbo's baseline decodes teach the scheduler (the engines take no progressive file) */
    const int jpeg = io_can_shrink(raw) && !raw->jpeg_facts.progressive, f = raw->shrink;
    const double load = jpeg ? cpu_load(__atomic_add_fetch(&cpu_decoding, 1, __ATOMIC_RELAXED)) : 1.0;
    const double t0 = timing_now_ms();
    int st = io_decode(raw, img);
    const double ms = timing_now_ms() - t0;
    if (jpeg) {
        __atomic_sub_fetch(&cpu_decoding, 1, __ATOMIC_RELAXED);
        if (!st)
            cpu_decoded(f, (long long)r->in.w * r->in.h, ms / load);
    }
    r->decode_ms += ms;
    r->decoder = raw->codec;
    return st;
}

/* raw (freed here) through pl into o: streamed on the CPU where it can be, decoded on the GPU
 * where its JPEG engines take it, else decoded and run by the backend. */
static int run_steps(const struct run_ctx *c, const char *out, struct io_input *raw, struct plan *pl,
                     const struct save_opts *so, const struct placement *pm, struct outcome *o, struct run_report *r)
{
    const char *declined = "";
    int st = GPUIMG_OK;
    struct gpu_run_opts go = c->gpu;
    go.enc = out && gpu_encodes(c, pl, so, &o->enc) ? &o->enc : NULL;
    if (out && c->kind == BACKEND_CPU && engine_streams() && !pm->icc) {
        st = stream_run(pl, raw, io_display_name(out, 1), so, &o->strips, &declined, r);
        if (st || o->strips) {
            io_input_free(raw);
            return st;
        }
        snprintf(r->declined, sizeof r->declined, "not streamed: %s", declined);
    }
    if (pm->engines) {
        st = backend_gpu_run_jpeg(pl, &go, raw, &o->img, &declined, r);
        if (st || !declined) {
            io_input_free(raw);
            return st;
        }
        snprintf(r->declined, sizeof r->declined, "JPEG decoded on the CPU: %s", declined);
        if ((st = shrink_if_allowed(c, pm, raw, pl, r))) {   /* the engines' file, now the CPU's */
            io_input_free(raw);
            return st;
        }
    }
    if (!(st = decode(raw, &o->img, r)) && pm->icc) {   /* timed with the decode */
        const double t0 = timing_now_ms();
        icc_apply(pm->icc, &o->img);
        r->decode_ms += timing_now_ms() - t0;
    }
    if (!st)
        st = c->kind == BACKEND_GPU ? backend_gpu_run(pl, &go, &o->img, r) : backend_cpu_run(pl, &o->img, r);
    if (st == GPUIMG_ENODEVMEM && o->img.data) {   /* no room on the GPU, even in tiles: the CPU, said once */
        snprintf(r->note, sizeof r->note, "%s: %s; ran on the CPU", r->input,
                 gpuimg_errmsg() ? gpuimg_errmsg() : "no device memory");
        gpuimg_clear_error();
        r->device = NULL;
        r->upload_ms = r->download_ms = -1;
        r->nsteps = 0;
        backend_gpu_encode_free(&o->enc);
        st = backend_cpu_run(pl, &o->img, r);
    }
    return st;
}

static int run(const struct run_ctx *c, const char *out, struct io_input *raw, struct plan *pl,
               const struct save_opts *so, const struct placement *pm, struct outcome *o, struct run_report *r)
{
    return named(run_steps(c, out, raw, pl, so, pm, o, r), r);
}

/* The outcome as the writer takes it, the encoder named for the report. */
static void result(struct outcome *o, const struct plan *pl, const struct save_opts *so, struct run_report *r)
{
    struct io_result *res = &o->res;
    res->g = pl->out;
    r->out = pl->out;
    r->encoder = io_encoder_name(&pl->out, so);
    if (o->strips) {
        res->kind = IO_RESULT_PNG_STRIPS;
        res->strips = o->strips;
    } else if (o->enc.out.n) {
        const struct gpu_png_chunks *ch = &o->enc.out;
        res->kind = IO_RESULT_PNG_CHUNKS;
        res->chunks = ch->chunks;
        res->lens = ch->lens;
        res->raw = ch->raw;
        res->raw_lens = ch->raw_lens;
        res->nchunks = ch->n;
        snprintf(r->encoder_buf, sizeof r->encoder_buf, "nvCOMP deflate on the GPU (%s), %d chunks joined",
                 o->enc.method, ch->n);
        r->encoder = r->encoder_buf;
    } else if (o->enc.bytes) {
        res->kind = IO_RESULT_JPEG_BYTES;
        res->bytes = o->enc.bytes;
        res->len = o->enc.len;
        snprintf(r->encoder_buf, sizeof r->encoder_buf, "nvJPEG on the GPU, quality %d, %d", o->enc.quality,
                 pl->out.c == 1 ? 400 : o->enc.sampling);
        r->encoder = r->encoder_buf;
    } else {
        res->kind = IO_RESULT_PIXELS;
        res->img = &o->img;
        res->g = image_geom(&o->img);
        r->out = res->g;
    }
}

/* ---- write ----------------------------------------------------------------------------------- */

static int write_result(const struct run_ctx *c, const char *out, const struct io_result *res, const struct save_opts *so,
                 double gpu_encode_ms, struct run_report *r)
{
    const double t0 = timing_now_ms();
    const int st = io_write(out, res, so, c->hold);
    r->encode_ms += gpu_encode_ms + timing_now_ms() - t0;
    return st;
}

/* ---- the chain ------------------------------------------------------------------------------- */

static int begin(const struct run_ctx *c, const char *in, const char *out, struct io_input *raw, struct plan *pl,
                 struct save_opts *so, struct io_meta *meta, struct placement *pm, struct run_report *r)
{
    r->input = in;
    r->output = out;
    r->fallback = c->fallback;
    int st = load(c, in, raw, meta, r);
    if (!st && (st = plan(c, out, raw, pl, so, meta, pm, r)))
        io_input_free(raw);
    return st;
}

int run_load(const struct run_ctx *c, const char *in, const char *out, struct image *img, struct plan *pl,
             struct save_opts *so, struct io_meta *meta, struct run_report *r)
{
    struct io_input raw;
    struct placement pm = { 0 };   /* --compare decodes on the CPU, the whole image unless --shrink-on-load */
    struct run_ctx whole = *c;
    if (whole.shrink_on_load == SHRINK_AUTO)
        whole.shrink_on_load = SHRINK_NEVER;
    int st = begin(&whole, in, out, &raw, pl, so, meta, &pm, r);
    if (!st && !(st = decode(&raw, img, r)) && pm.icc)
        icc_apply(pm.icc, img);
    icc_free(pm.icc);
    return st;
}

int run_save(const struct run_ctx *c, const char *out, const struct image *img, const struct save_opts *so,
             struct run_report *r)
{
    if (so->meta)   /* the result's own size: a step that measures its input (trim) sized it in the run */
        meta_pixel_size((struct io_meta *)so->meta, img->w, img->h);
    const struct io_result res = { .kind = IO_RESULT_PIXELS, .g = image_geom(img), .img = img };
    r->out = res.g;
    r->encoder = io_encoder_name(&res.g, so);
    r->encode_ms = 0;
    return write_result(c, out, &res, so, 0, r);
}

int run_file(const struct run_ctx *c, const char *in, const char *out, struct run_report *r)
{
    const double t0 = timing_now_ms();
    struct io_meta meta = { 0 };
    struct io_input raw;
    struct plan pl;
    struct save_opts so;
    struct outcome o = { 0 };
    struct placement pm = { 0 };
    int st = begin(c, in, out, &raw, &pl, &so, &meta, &pm, r);
    if (!st) {
        pl.abandoned = c->abandoned;
        st = run(c, out, &raw, &pl, &so, &pm, &o, r);
    }
    if (!st)
        st = plan_abandoned(&pl);   /* not written (a large result's longest stage) for no one */
    if (!st && plan_measures(&pl)) {   /* sized by the run (trim): the checks plan made on the bound, again */
        meta_pixel_size(&meta, pl.out.w, pl.out.h);
        st = io_check_size(out, so.fmt, &pl.out);
    }
    if (!st) {
        result(&o, &pl, &so, r);
        st = write_result(c, out, &o.res, &so, o.res.kind == IO_RESULT_PNG_CHUNKS || o.res.kind == IO_RESULT_JPEG_BYTES
                                                    ? o.enc.ms : 0, r);
    }
    icc_free(pm.icc);
    outcome_free(&o);
    meta_free(&meta);
    r->total_ms = timing_now_ms() - t0;
    return st;
}

/* ---- the library's: a file to memory, memory to a file ---------------------------------------- */

int run_image(const struct run_ctx *c, const char *in, struct image *img, struct io_meta *meta, struct run_report *r)
{
    const double t0 = timing_now_ms();
    struct io_input raw;
    struct plan pl;
    struct save_opts so;
    struct outcome o = { 0 };
    struct placement pm = { 0 };
    int st = begin(c, in, NULL, &raw, &pl, &so, meta, &pm, r);
    if (!st) {
        pl.abandoned = c->abandoned;
        st = run(c, NULL, &raw, &pl, &so, &pm, &o, r);
    }
    if (!st) {
        r->out = pl.out;
        *img = o.img;
        o.img.data = NULL;
    }
    icc_free(pm.icc);
    outcome_free(&o);
    r->total_ms = timing_now_ms() - t0;
    return st;
}

int run_write_image(const struct run_ctx *c, const char *out, FILE *fp, const struct image *img,
                    const struct io_meta *meta, struct run_report *r)
{
    const double t0 = timing_now_ms();
    struct save_opts so = c->save;
    struct io_meta kept = { 0 };
    struct image flat = *img;
    flat.borrowed = 1;
    int st = out_format(c, out, &so.fmt);
    if (!st && meta && (c->save.strip & META_ALL) != META_ALL && !(st = meta_copy(&kept, meta))) {
        meta_strip(&kept, (unsigned)c->save.strip);
        meta_pixel_size(&kept, img->w, img->h);
        so.meta = &kept;
    } else
        so.meta = NULL;
    if (!st && !io_holds_alpha(so.fmt) && has_alpha(img->c)) {
        struct plan pl = { 0 };
        r->in = image_geom(img);
        if (!(st = plan_resolve(&pl, &r->in, c->max_pixels)) && !(st = add_flatten(c, so.fmt, &pl, r)))
            st = backend_cpu_run(&pl, &flat, r);
    }
    if (!st) {
        const struct io_result res = { .kind = IO_RESULT_PIXELS, .g = image_geom(&flat), .img = &flat };
        r->out = res.g;
        r->encoder = io_encoder_name(&res.g, &so);
        const double te = timing_now_ms();
        st = fp ? io_write_to(fp, io_display_name(out, 1), &res, &so) : io_write(out, &res, &so, c->hold);
        r->encode_ms = timing_now_ms() - te;
    }
    image_free(&flat);
    meta_free(&kept);
    r->total_ms = timing_now_ms() - t0;
    return st;
}
