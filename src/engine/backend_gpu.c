/* gpuimg: the GPU backend's host side. It talks to cuda/ only through cuda/gpu.h (no CUDA types
 * outside cuda/). A run uploads the image once, runs every step on the device between two
 * buffers sized once for the whole plan, and downloads once; the context is made by the probe,
 * whose cost is reported apart and never inside an operation's time. */
#include <config.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/backend_gpu.h"
#include "core/error.h"
#include "cuda/gpu.h"
#include "core/op.h"
#include "engine/tile.h"
#include "engine/tune_cache.h"

int backend_gpu_supports(const struct plan *pl, const char **missing)
{
    for (int i = 0; i < pl->nsteps; i++)
        if (!pl->steps[i].op->gpu_launch) {
            if (missing)
                *missing = pl->steps[i].op->name;
            return 0;
        }
    return 1;
}

#ifdef HAVE_CUDA

/* One probe per device, made once and then read by every worker thread of a batch; different
 * devices' probes (their contexts) are made at once. */
static struct probe {
    int done, busy, status;
    struct gpu_info info;
    char why[256];
} probes[GPU_MAX_DEVICES];
static int last_probed = -1;
static __thread int thread_probed = -1;   /* the device this thread probed last: the one it runs on */
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t probe_made = PTHREAD_COND_INITIALIZER;

int backend_gpu_probe(int device, char *name, size_t namelen, char *why, size_t whylen)
{
    if (device < 0 || device >= GPU_MAX_DEVICES) {
        snprintf(why, whylen, "device %d: gpuimg uses devices 0 to %d", device, GPU_MAX_DEVICES - 1);
        return GPUIMG_ENOGPU;
    }
    pthread_mutex_lock(&probe_lock);
    struct probe *p = &probes[device];
    while (p->busy)
        pthread_cond_wait(&probe_made, &probe_lock);
    if (!p->done) {
        p->busy = 1;
        pthread_mutex_unlock(&probe_lock);
        const int st = gpu_probe(device, &p->info, p->why, sizeof p->why) ? GPUIMG_ENOGPU : GPUIMG_OK;
        pthread_mutex_lock(&probe_lock);
        p->status = st;
        __atomic_store_n(&p->done, 1, __ATOMIC_RELEASE);
        p->busy = 0;
        pthread_cond_broadcast(&probe_made);
    }
    if (last_probed < 0 || !p->status)
        __atomic_store_n(&last_probed, device, __ATOMIC_RELEASE);
    if (!p->status)
        thread_probed = device;
    pthread_mutex_unlock(&probe_lock);
    if (p->status) {
        snprintf(why, whylen, "%s", p->why);
        return p->status;
    }
    const struct gpu_info *i = &p->info;
    snprintf(name, namelen, "device %d of %d: %s (sm_%d%d, %.1f GiB), context and first launch %.1f ms", i->device,
             i->count, i->name, i->cc_major, i->cc_minor, i->mem_total / 1073741824.0, i->init_ms);
    return GPUIMG_OK;
}

/* This thread's device's probe (the GPU it runs on, where a server has several), else the last */
static const struct probe *last_ok(void)
{
    const int d = thread_probed >= 0 ? thread_probed : __atomic_load_n(&last_probed, __ATOMIC_ACQUIRE);
    return d >= 0 && __atomic_load_n(&probes[d].done, __ATOMIC_ACQUIRE) && !probes[d].status ? &probes[d] : NULL;
}
const char *backend_gpu_name(void) { return last_ok() ? last_ok()->info.name : NULL; }
int backend_gpu_cc(void) { return last_ok() ? 10 * last_ok()->info.cc_major + last_ok()->info.cc_minor : 0; }
double backend_gpu_init_ms(void) { return last_ok() ? last_ok()->info.init_ms : -1; }
int backend_gpu_count(void) { return last_ok() ? last_ok()->info.count : 0; }
int backend_gpu_devices(void) { return gpu_device_count(); }

static uint64_t mem_limit;   /* --gpu-mem-limit (0: none): no states kept under one */
static void states_flush(void);

void backend_gpu_set_mem_limit(uint64_t bytes)
{
    mem_limit = bytes;
    gpu_set_mem_limit((size_t)bytes);
}
void backend_gpu_thread_done(void)
{
    states_flush();
    gpu_thread_release();
}
void backend_gpu_restore_device(void) { gpu_restore_device(); }

static struct gpu_image dev_image(void *p, const struct geom *g)
{
    struct gpu_image d = { .data = p, .w = g->w, .h = g->h, .c = g->c, .depth = g->depth };
    return d;
}

static int cuda_fail(const char *what, const char *err)
{
    return gpuimg_fail(GPUIMG_ECUDA, "%s: %s", what, err);
}

int gpu_step_launch(const struct step *st, const void *state, const struct gpu_call *k, void *in, void *out,
                    const char **ran)
{
    struct gpu_image gi = dev_image(in, &st->in), go = dev_image(out, &st->out);
    *ran = NULL;
    return st->op->gpu_launch(&st->args, state, k, &gi, &go, ran);
}

void gpu_kernel_label(char *buf, size_t n, const struct gpu_call *k, const char *ran)
{
    char shape[48] = "";
    if (k->shape.bx)
        snprintf(shape, sizeof shape, " %dx%d%s%.0d", k->shape.bx, k->shape.by, k->shape.ppt ? "/" : "",
                 k->shape.ppt);
    snprintf(buf, n, "%s%s%s%s", kernel_names[k->variant], ran ? ": " : "", ran ? ran : "", shape);
}

/* Step i of a fused pipeline: its input may be read through the gray step before it, its output
 * written transposed for the transpose step after it. */
static int fused_launch(struct gpu_pipeline *gp, const struct plan *pl, int i, void *in, void *out)
{
    const struct step *st = &pl->steps[i];
    struct gpu_image gi = dev_image(in, &st->in), go = dev_image(out, &st->out);
    if (gp->fuse[i] & FUSE_GRAY_IN) {
        const struct step *r = &pl->steps[i - 1];
        r->op->fuse_read(&r->args, &r->in, &gi);
    }
    if (gp->fuse[i] & FUSE_TRANSPOSE_OUT)
        go.transposed = 1;
    gp->ran[i] = NULL;
    return st->op->gpu_launch(&st->args, gp->state[i], &gp->call[i], &gi, &go, &gp->ran[i]);
}

int gpu_pipeline_step(const struct gpu_pipeline *gp, const struct plan *pl, int i, char *label, size_t n,
                      double *bytes)
{
    *bytes = 0;
    if (gp->skip[i]) {
        snprintf(label, n, "%s", pl->steps[i].text);
        return 0;
    }
    const struct step *first = gp->fuse[i] & FUSE_GRAY_IN ? &pl->steps[i - 1] : &pl->steps[i];
    const struct step *last = gp->fuse[i] & FUSE_TRANSPOSE_OUT ? &pl->steps[i + 1] : &pl->steps[i];
    snprintf(label, n, "%s%s%s%s%s", first != &pl->steps[i] ? first->text : "", first != &pl->steps[i] ? "+" : "",
             pl->steps[i].text, last != &pl->steps[i] ? "+" : "", last != &pl->steps[i] ? last->text : "");
    *bytes = geom_size(&first->in) + geom_size(&last->out);
    return 1;
}

/* Which neighbours run inside which step (gp->call and gp->state are set): a step whose role
 * is FUSE_GRAY_IN runs inside the next one, FUSE_TRANSPOSE_OUT inside the one before, where that
 * step's gpu_fuse takes the form. */
static void plan_fusion(struct gpu_pipeline *gp, const struct plan *pl, int first)
{
    for (int i = first; i + 1 < pl->nsteps; i++) {
        const struct step *a = &pl->steps[i], *b = &pl->steps[i + 1];
        if (gp->skip[i])
            continue;
        if ((a->op->fuses_as & FUSE_GRAY_IN) && a->op->fuse_read(&a->args, &a->in, NULL) && b->op->gpu_fuse
            && !gp->fuse[i + 1]
            && (b->op->gpu_fuse(&b->args, &b->in, &b->out, gp->call[i + 1].variant, gp->state[i + 1]) & FUSE_GRAY_IN)) {
            gp->skip[i] = 1;
            gp->fuse[i + 1] |= FUSE_GRAY_IN;
        } else if ((b->op->fuses_as & FUSE_TRANSPOSE_OUT) && a->op->gpu_fuse
                   && (a->op->gpu_fuse(&a->args, &a->in, &a->out, gp->call[i].variant, gp->state[i]) & FUSE_TRANSPOSE_OUT)) {
            gp->skip[i + 1] = 1;
            gp->fuse[i] |= FUSE_TRANSPOSE_OUT;
            i++;
        }
    }
}

/* A batch worker's step states kept from one file to the next (gpu_run_opts.keep): a batch's
 * files share their steps' parameters and geometry, and a state that depends on those alone
 * (op_desc.gpu_state_reuse) made again for each file copies its tables up through the driver's
 * pageable staging, which every worker shares. Keyed by device, operation, variant, parameters
 * and geometries; the oldest is released for a new one; none under a device memory limit. */
#define KEPT_STATES 8
static __thread struct kept_state {
    const struct op_desc *op;
    struct op_args args;
    struct geom in, out;
    int variant, device;
    unsigned age;
    void *state;
} kept_states[KEPT_STATES];
static __thread int keep_states, states_device;
static __thread unsigned states_clock;

static void states_flush(void)
{
    for (int i = 0; i < KEPT_STATES; i++)
        if (kept_states[i].state) {
            kept_states[i].op->gpu_release(kept_states[i].state);
            kept_states[i].state = NULL;
        }
}

static int same_step(const struct kept_state *k, const struct step *st, int variant)
{
    return k->state && k->op == st->op && k->variant == variant && k->device == states_device
           && !memcmp(&k->in, &st->in, sizeof k->in) && !memcmp(&k->out, &st->out, sizeof k->out)
           && !memcmp(&k->args, &st->args, sizeof k->args);
}

/* st's kept state for variant, taken out of the cache, or NULL */
static void *state_take(const struct step *st, int variant)
{
    if (!keep_states || !st->op->gpu_state_reuse)
        return NULL;
    for (int i = 0; i < KEPT_STATES; i++)
        if (same_step(&kept_states[i], st, variant)) {
            void *s = kept_states[i].state;
            kept_states[i].state = NULL;
            return s;
        }
    return NULL;
}

/* state (st's, made for variant) kept, or released where it may not be */
static void state_give_back(const struct step *st, int variant, void *state)
{
    if (!keep_states || !st->op->gpu_state_reuse) {
        st->op->gpu_release(state);
        return;
    }
    int slot = 0;
    for (int i = 0; i < KEPT_STATES; i++) {
        if (!kept_states[i].state) {
            slot = i;
            break;
        }
        if (kept_states[i].age < kept_states[slot].age)
            slot = i;
    }
    struct kept_state *k = &kept_states[slot];
    if (k->state)
        k->op->gpu_release(k->state);
    *k = (struct kept_state){ st->op, st->args, st->in, st->out, variant, states_device, ++states_clock, state };
}

void gpu_pipeline_close(struct gpu_pipeline *gp, const struct plan *pl)
{
    for (int i = 0; i < pl->nsteps; i++)
        if (gp->state[i])
            state_give_back(&pl->steps[i], gp->call[i].variant, gp->state[i]);
    gpu_free(gp->buf[0]);
    gpu_free(gp->buf[1]);
    gpu_timer_destroy(gp->timer);
    gpu_timer_destroy(gp->step_timer);
    memset(gp, 0, sizeof *gp);
}

/* The kernel step st runs: --kernel's (variant >= 0), else the one gpuimg tune stored for this
 * GPU, else the operation's own choice; its shape: a tuned launch shape or zeros. */
static int step_variant(const struct step *st, int variant, struct gpu_call *k)
{
    struct gpu_shape *shape = &k->shape;
    int *v = &k->variant;
    memset(k, 0, sizeof *k);
    *v = variant >= 0 ? variant : st->op->gpu_auto_for ? st->op->gpu_auto_for(&st->in) : st->op->gpu_auto;
    int tv;
    struct gpu_shape sh;
    if (variant < 0 && tune_lookup(backend_gpu_name(), backend_gpu_cc(), st->op->name, st->in.c, st->in.depth, &tv, &sh)
        && (st->op->gpu_variants & KV_BIT(tv))) {
        *v = tv;
        *shape = sh;
    }
    if (!(st->op->gpu_variants & KV_BIT(*v)))
        return gpuimg_fail(GPUIMG_EUSAGE, "%s has no %s kernel", st->op->name, kernel_names[*v]);
    return GPUIMG_OK;
}

/* Two image buffers of bytes each, poisoned (0xA5): a pixel no kernel writes is never silently
 * zero. GPUIMG_ENODEVMEM when the device (or --gpu-mem-limit) has no room for them. */
static int alloc_buffers(void *buf[2], size_t bytes)
{
    char err[256];
    int rc = 0;
    buf[0] = buf[1] = NULL;
    if ((rc = gpu_malloc(&buf[0], bytes, err, sizeof err)) || (rc = gpu_malloc(&buf[1], bytes, err, sizeof err))
        || (rc = gpu_fill(buf[0], 0xA5, bytes, err, sizeof err)) || (rc = gpu_fill(buf[1], 0xA5, bytes, err, sizeof err))) {
        gpu_free(buf[0]);
        gpu_free(buf[1]);
        buf[0] = buf[1] = NULL;
        return rc == GPU_ERR_NOMEM ? (int)gpuimg_fail(GPUIMG_ENODEVMEM, "two buffers of %zu bytes: %s", bytes, err)
                                   : cuda_fail("allocating the device pipeline", err);
    }
    return GPUIMG_OK;
}

int gpu_pipeline_open(struct gpu_pipeline *gp, const struct plan *pl, int variant, int nofuse)
{
    char err[256];
    memset(gp, 0, sizeof *gp);
    int r = alloc_buffers(gp->buf, pl->max_bytes);
    gp->bytes = pl->max_bytes;
    gp->variant = variant;
    gp->nofuse = nofuse;
    if (!r && (gpu_timer_create(&gp->timer, err, sizeof err) || gpu_timer_create(&gp->step_timer, err, sizeof err)))
        r = cuda_fail("creating timers", err);
    for (int i = 0; !r && i < pl->nsteps; i++) {
        const struct step *st = &pl->steps[i];
        if (!(r = step_variant(st, variant, &gp->call[i])) && st->op->gpu_prepare
            && !(gp->state[i] = state_take(st, gp->call[i].variant)))
            r = st->op->gpu_prepare(&st->args, &st->in, &st->out, gp->call[i].variant, &gp->state[i]);
    }
    if (!r && variant < 0 && !nofuse)
        plan_fusion(gp, pl, 0);
    if (r)
        gpu_pipeline_close(gp, pl);
    return r;
}

/* Step i measured its input in buffer cur and the plan was resolved again from it (plan_measured):
 * larger buffers where a later step now needs them (the input carried over), and the later steps'
 * states and fusion made again for their new sizes. */
static int pipeline_measured(struct gpu_pipeline *gp, const struct plan *pl, int i, int *cur)
{
    char err[256];
    int r = GPUIMG_OK;
    if (pl->max_bytes > gp->bytes) {
        void *nb[2];
        size_t in_bytes;
        geom_bytes(&pl->steps[i].in, &in_bytes);
        if ((r = alloc_buffers(nb, pl->max_bytes)))
            return r;
        if (gpu_copy_d2d(nb[0], gp->buf[*cur], in_bytes, err, sizeof err)) {
            gpu_free(nb[0]);
            gpu_free(nb[1]);
            return cuda_fail("growing the device pipeline", err);
        }
        gpu_free(gp->buf[0]);
        gpu_free(gp->buf[1]);
        gp->buf[0] = nb[0];
        gp->buf[1] = nb[1];
        gp->bytes = pl->max_bytes;
        *cur = 0;
    }
    for (int k = i + 1; k < pl->nsteps; k++) {
        const struct step *st = &pl->steps[k];
        if (gp->state[k]) {
            st->op->gpu_release(gp->state[k]);
            gp->state[k] = NULL;
        }
        gp->skip[k] = 0;
        gp->fuse[k] = 0;
        if (!r && st->op->gpu_prepare)
            r = st->op->gpu_prepare(&st->args, &st->in, &st->out, gp->call[k].variant, &gp->state[k]);
    }
    if (!r && gp->variant < 0 && !gp->nofuse)
        plan_fusion(gp, pl, i + 1);
    return r;
}

int gpu_pipeline_run(struct gpu_pipeline *gp, struct plan *pl, float *step_ms, float *total_ms, int *out_buf)
{
    char err[256];
    int cur = 0;
    if (gpu_timer_start(gp->timer, err, sizeof err))
        return cuda_fail("timer", err);
    for (int i = 0; i < pl->nsteps; i++) {
        if (gp->skip[i]) {
            if (step_ms)
                step_ms[i] = 0;
            continue;
        }
        int r = plan_abandoned(pl);
        if (r)
            return r;
        if (step_ms && gpu_timer_start(gp->step_timer, err, sizeof err))
            return cuda_fail("timer", err);
        const struct step *st = &pl->steps[i];
        if (st->op->gpu_measure) {   /* its input measured on the device, the rest sized anew (op.h) */
            const struct gpu_image gi = dev_image(gp->buf[cur], &st->in);
            if ((r = st->op->gpu_measure(&pl->steps[i].args, gp->state[i], &gp->call[i], &gi))
                || (r = plan_measured(pl, i)) || (pl->steps[i].args.measured && (r = pipeline_measured(gp, pl, i, &cur))))
                return r;
        }
        r = fused_launch(gp, pl, i, gp->buf[cur], gp->buf[cur ^ 1]);
        if (r)
            return r;
        if (step_ms && gpu_timer_stop(gp->step_timer, &step_ms[i], err, sizeof err))
            return op_cuda_fail(pl->steps[i].op, gp->call[i].variant, err);
        cur ^= 1;
    }
    float ms;
    if (gpu_timer_stop(gp->timer, &ms, err, sizeof err))
        return cuda_fail("running the pipeline", err);
    if (total_ms)
        *total_ms = ms;
    *out_buf = cur;
    return GPUIMG_OK;
}

/* One output tile t: upload its source rectangle, run each step on it (with that step's tables
 * made for the tile) keeping what the next step needs, download into out. Step times add into
 * step_ms. */
static int run_tile(const struct plan *pl, const struct tile_chain *tc, const struct gpu_call *call, const char **ran,
                    void *buf[2], const struct image *img, struct image *out, const struct rect *t,
                    struct gpu_timer *timer, float *step_ms, struct run_report *r)
{
    char err[256];
    const size_t ibpp = image_bpp(img), obpp = image_bpp(out);
    double t0 = timing_now_ms();
    if (gpu_copy2d(buf[0], tc->src.w * ibpp, img->data + (size_t)tc->src.y * img->stride + (size_t)tc->src.x * ibpp,
                   img->stride, tc->src.w * ibpp, tc->src.h, GPU_H2D, err, sizeof err))
        return cuda_fail("uploading a tile", err);
    r->upload_ms += timing_now_ms() - t0;
    int cur = 0, st = GPUIMG_OK;
    for (int k = 0; !st && k < tc->nsteps; k++) {
        const struct step *s = &tc->steps[k];
        void *state = NULL;
        if ((st = plan_abandoned(pl)))
            break;
        if (s->op->gpu_prepare && (st = s->op->gpu_prepare(&s->args, &s->in, &s->out, call[k].variant, &state)))
            break;
        float ms = 0;
        if (gpu_timer_start(timer, err, sizeof err))
            st = cuda_fail("timer", err);
        if (!st)
            st = gpu_step_launch(s, state, &call[k], buf[cur], buf[cur ^ 1], &ran[k]);
        cur ^= 1;
        /* keep the part the next step needs, packed, in the other buffer */
        const struct rect *kp = &tc->keep[k];
        const size_t bpp = geom_bpp(&s->out);
        if (!st && (kp->w != s->out.w || kp->h != s->out.h)) {
            if (gpu_copy2d(buf[cur ^ 1], kp->w * bpp, (char *)buf[cur] + ((size_t)kp->y * s->out.w + kp->x) * bpp,
                           s->out.w * bpp, kp->w * bpp, kp->h, GPU_D2D, err, sizeof err))
                st = cuda_fail("cropping a tile", err);
            else
                cur ^= 1;
        }
        if (!st && gpu_timer_stop(timer, &ms, err, sizeof err))
            st = op_cuda_fail(s->op, call[k].variant, err);
        step_ms[k] += ms;
        if (state)
            s->op->gpu_release(state);
    }
    if (st)
        return st;
    t0 = timing_now_ms();
    if (gpu_copy2d(out->data + (size_t)t->y * out->stride + (size_t)t->x * obpp, out->stride, buf[cur], t->w * obpp,
                   t->w * obpp, t->h, GPU_D2H, err, sizeof err))
        return cuda_fail("downloading a tile", err);
    r->download_ms += timing_now_ms() - t0;
    return GPUIMG_OK;
}

#define TILE_MIN_PIXELS 4096

/* The pipeline in tiles, after the whole image did not fit: a side of the tile is halved (the one
 * that saves more) until its buffers and tables fit (tile.h). Each operation's kernel is the one it would run on
 * the whole image, so the result is the same byte for byte. */
static int gpu_run_tiled(const struct plan *pl, const struct gpu_run_opts *o, struct image *img, struct run_report *r)
{
    const char *which;
    if (!tile_supported(pl, &which))
        return gpuimg_fail(GPUIMG_ENODEVMEM, "the pipeline does not fit in device memory and %s cannot run in tiles",
                           which);
    struct gpu_call call[PLAN_MAX_STEPS];
    const char *ran[PLAN_MAX_STEPS] = { 0 };
    for (int i = 0; i < pl->nsteps; i++) {
        int st = step_variant(&pl->steps[i], o->variant, &call[i]);
        if (st)
            return st;
    }
    static _Thread_local struct tile_chain tc;
    char err[256];
    struct gpu_timer *timer = NULL;
    struct image out = { 0 };
    int st = image_alloc(&out, &pl->out);
    if (!st && gpu_timer_create(&timer, err, sizeof err))
        st = cuda_fail("creating a timer", err);
    int tw = pl->out.w, th = pl->out.h, done = 0;
    float step_ms[PLAN_MAX_STEPS];
    while (!st && !done) {
        /* below 64x64 pixels a tile costs more in launches and halo than the CPU takes */
        const int pw = tw, ph = th;
        if (!tile_shrink_plan(pl, &tw, &th) || (int64_t)tw * th < TILE_MIN_PIXELS) {
            st = gpuimg_fail(GPUIMG_ENODEVMEM, "the pipeline does not fit in device memory even in tiles of %dx%d pixels",
                             pw, ph);
            break;
        }
        uint64_t bytes;
        int count;
        void *buf[2];
        if ((st = tile_grid_bytes(pl, tw, th, &bytes, &count)))
            break;
        if ((st = alloc_buffers(buf, bytes)) == GPUIMG_ENODEVMEM) {
            gpuimg_clear_error();
            st = GPUIMG_OK;
            continue;
        }
        if (st)
            break;
        r->upload_ms = r->download_ms = 0;
        memset(step_ms, 0, sizeof step_ms);
        for (int y = 0; !st && y < pl->out.h; y += th)
            for (int x = 0; !st && x < pl->out.w; x += tw) {
                const struct rect t = tile_at(pl, x, y, tw, th);
                if (!(st = tile_chain(pl, &t, &tc)))
                    st = run_tile(pl, &tc, call, ran, buf, img, &out, &t, timer, step_ms, r);
            }
        gpu_free(buf[0]);
        gpu_free(buf[1]);
        if (st == GPUIMG_ENODEVMEM) {   /* a step's tables did not fit beside the buffers: smaller tiles */
            gpuimg_clear_error();
            st = GPUIMG_OK;
            continue;
        }
        done = 1;
        r->tiles = count;
        r->tile_w = tw;
        r->tile_h = th;
    }
    gpu_timer_destroy(timer);
    if (st) {
        image_free(&out);
        return st;
    }
    r->process_ms = 0;
    r->nsteps = 0;
    for (int i = 0; i < pl->nsteps && r->nsteps < REPORT_MAX_STEPS; i++) {
        char kernel[40];
        gpu_kernel_label(kernel, sizeof kernel, &call[i], ran[i]);
        snprintf(r->steps[r->nsteps].label, sizeof r->steps[0].label, "%.46s [%s, tiles]", pl->steps[i].text, kernel);
        r->steps[r->nsteps++].ms = step_ms[i];
        r->process_ms += step_ms[i];
    }
    image_free(img);
    *img = out;
    return GPUIMG_OK;
}

/* The result went elsewhere than img's pixels (its encoded bytes, device memory of its own): the
 * pipeline closed and, where st is OK, *img the result's geometry with no pixels. */
static int kept_elsewhere(struct gpu_pipeline *gp, const struct plan *pl, struct image *img, int st)
{
    gpu_pipeline_close(gp, pl);
    if (st)
        return st;
    image_free(img);
    *img = (struct image){ pl->out.w, pl->out.h, pl->out.c, pl->out.depth, geom_bpp(&pl->out) * (size_t)pl->out.w, NULL, 0 };
    return GPUIMG_OK;
}

/* From the host image img, or (jpeg not NULL) from a JPEG's bytes decoded by nvJPEG straight
 * into the first device buffer; *img becomes the result. */
static int gpu_run(struct plan *pl, const struct gpu_run_opts *o, const struct io_input *jpeg, struct image *img,
                   const char **declined, struct run_report *r)
{
    char err[256], desc[512], why[256];
    if (backend_gpu_probe(o->device, desc, sizeof desc, why, sizeof why))
        return gpuimg_fail(GPUIMG_ENOGPU, "no usable GPU: %s", why);
    if (states_device != o->device)   /* kept states belong to the device they were made on */
        states_flush();
    states_device = o->device;
    if (gpu_use_device(o->device, err, sizeof err))   /* the current device is per thread */
        return cuda_fail("selecting the GPU", err);
    gpu_thread_keep_memory(o->keep);
    keep_states = o->keep && !mem_limit;
    if (!keep_states)
        states_flush();
    r->backend = "gpu";
    r->device = backend_gpu_name();
    r->gpu_init_ms = backend_gpu_init_ms();

    double t0 = timing_now_ms();
    struct gpu_pipeline gp;
    int st = gpu_pipeline_open(&gp, pl, o->variant, o->nofuse);
    if (st == GPUIMG_ENODEVMEM && !o->dev_src && !o->dev_out) {   /* the whole image does not fit: in tiles, from a decoded image */
        gpuimg_clear_error();
        if (jpeg)
            *declined = "the whole image does not fit on the device";
        return jpeg ? GPUIMG_OK : gpu_run_tiled(pl, o, img, r);
    }
    if (st)
        return st;
    size_t in_bytes, out_bytes;
    geom_bytes(&pl->in, &in_bytes);
    if (jpeg) {   /* upload: the pipeline's buffers and tables; decode: nvJPEG, the bytes' copy included */
        r->upload_ms = timing_now_ms() - t0;
        const double td = timing_now_ms();
        int jr = -1, hardware = 0;
#ifdef HAVE_NVJPEG
        jr = gpu_jpeg_decode(jpeg->buf, jpeg->len, gp.buf[0], jpeg->g.w, jpeg->g.h, jpeg->g.c, o->jpeg == 2, &hardware,
                             err, sizeof err);
#endif
        r->decode_ms += timing_now_ms() - td;
        if (jr) {   /* not taken or failed: the CPU decodes it, and judges it */
            gpu_pipeline_close(&gp, pl);
            *declined = "nvJPEG did not take it";
            return GPUIMG_OK;
        }
        r->decoder = hardware ? "nvJPEG (hardware)" : "nvJPEG";
    } else if (o->dev_src) {
        const size_t row = geom_bpp(&pl->in) * (size_t)pl->in.w;
        if (gpu_copy2d(gp.buf[0], row, o->dev_src, o->dev_pitch, row, (size_t)pl->in.h, GPU_D2D, err, sizeof err))
            st = cuda_fail("copying the device image", err);
        r->upload_ms = timing_now_ms() - t0;
    } else {
        int pinned = o->pin && gpu_pin(img->data, in_bytes, err, sizeof err) == 0;
        if ((o->stage && !pinned ? gpu_upload_staged : gpu_upload)(gp.buf[0], img->data, in_bytes, err, sizeof err))
            st = cuda_fail("uploading the image", err);
        if (pinned)
            gpu_unpin(img->data);
        r->upload_ms = timing_now_ms() - t0;
    }

    float step_ms[PLAN_MAX_STEPS], total = 0;
    int cur = 0;
    if (!st)
        st = gpu_pipeline_run(&gp, pl, step_ms, &total, &cur);
    geom_bytes(&pl->out, &out_bytes);   /* (after the run: a step that measures its input sizes it) */
    if (!st) {
        for (int i = 0; i < pl->nsteps && r->nsteps < REPORT_MAX_STEPS; i++) {
            double b;
            char label[200];
            if (!gpu_pipeline_step(&gp, pl, i, label, sizeof label, &b))
                continue;
            /* what ran: "blur=2+transpose [tiled]", "gray+resize=25% [vector: rows]", "transpose
             * [perpixel 32x2]" with a tuned shape */
            char kernel[40];
            gpu_kernel_label(kernel, sizeof kernel, &gp.call[i], gp.ran[i]);
            snprintf(r->steps[r->nsteps].label, sizeof r->steps[0].label, "%.52s [%s]", label, kernel);
            r->steps[r->nsteps++].ms = step_ms[i];
        }
        r->process_ms = 0;
        for (int i = 0; i < pl->nsteps; i++)
            r->process_ms += step_ms[i];
    }

    if (!st && o->enc) {   /* the result's encoded bytes come down, not its pixels */
        const double te = timing_now_ms();
        struct gpu_encode_request *q = o->enc;
        int er = -1;
#ifdef HAVE_NVCOMP
        float dev_ms;
        if (q->fmt == FMT_PNG) {
            er = gpu_png_deflate(gp.buf[cur], pl->out.w, pl->out.h, pl->out.c, pl->out.depth, q->level, &q->out, &dev_ms,
                                 err, sizeof err);
            q->method = gpu_png_method(q->level);
        }
#endif
#ifdef HAVE_NVJPEG
        if (q->fmt == FMT_JPEG) {
            er = gpu_jpeg_encode(gp.buf[cur], pl->out.w, pl->out.h, pl->out.c, q->quality, q->sampling, q->shared,
                                 &q->bytes, &q->len, err, sizeof err);
            q->method = "nvJPEG";
        }
#endif
        q->ms = timing_now_ms() - te;
        if (er > 0 && q->shared) {   /* not asked for: the cores encode it (the report names them) */
            free(q->bytes);
            q->bytes = NULL;
            q->len = 0;
            er = -1;
        }
        if (er > 0)
            st = gpuimg_fail(GPUIMG_EENCODE, "%s encoder on the GPU: %s", q->fmt == FMT_PNG ? "PNG" : "JPEG", err);
        if (er >= 0) {
            r->download_ms = 0;
            return kept_elsewhere(&gp, pl, img, st);
        }
    }
    struct image out = { 0 };
    double t1 = timing_now_ms();
    if (!st && o->dev_out) {   /* the result stays on the device, in memory of its own */
        *o->dev_out = NULL;
        if (gpu_image_malloc(o->dev_out, out_bytes, err, sizeof err))
            st = gpuimg_fail(GPUIMG_ENODEVMEM, "no device memory for the result (%zu bytes): %s", out_bytes, err);
        else if (gpu_copy_d2d(*o->dev_out, gp.buf[cur], out_bytes, err, sizeof err) || gpu_stream_sync(err, sizeof err)) {
            gpu_image_free(*o->dev_out);
            *o->dev_out = NULL;
            st = cuda_fail("copying the result", err);
        }
        r->download_ms = timing_now_ms() - t1;
        return kept_elsewhere(&gp, pl, img, st);
    }
    if (!st)
        st = image_alloc(&out, &pl->out);
    if (!st) {
        const int pinned = o->pin && gpu_pin(out.data, out_bytes, err, sizeof err) == 0;
        if ((o->stage && !pinned ? gpu_download_staged : gpu_download)(out.data, gp.buf[cur], out_bytes, err, sizeof err))
            st = cuda_fail("downloading the result", err);
        if (pinned)
            gpu_unpin(out.data);
    }
    r->download_ms = timing_now_ms() - t1;
    gpu_pipeline_close(&gp, pl);
    if (st) {
        image_free(&out);
        return st;
    }
    image_free(img);
    *img = out;
    return GPUIMG_OK;
}

int backend_gpu_run(struct plan *pl, const struct gpu_run_opts *o, struct image *img, struct run_report *r)
{
    return gpu_run(pl, o, NULL, img, NULL, r);
}

/* set once a batch large enough to repay the GPU encoder's first call has begun */
static int batch_codecs;

void backend_gpu_codecs_start(int device, int jpeg)
{
    batch_codecs = 1;
#ifdef HAVE_NVJPEG
    if (jpeg)
        gpu_jpeg_start(device);
#else
    (void)device;
    (void)jpeg;
#endif
}

int backend_gpu_jpeg_now(const struct gpu_run_opts *o)
{
#ifdef HAVE_NVJPEG
    return o->jpeg == 2 || (o->jpeg == 1 && gpu_jpeg_ready(o->device));
#else
    return 0;
#endif
}

double backend_gpu_jpeg_wait_ms(const struct gpu_run_opts *o, long long px)
{
#ifdef HAVE_NVJPEG
    return o->jpeg == 1 ? gpu_jpeg_wait_ms(o->device, px) : -1;
#else
    (void)o;
    (void)px;
    return -1;
#endif
}

int backend_gpu_jpeg_waiting(const struct gpu_run_opts *o)
{
#ifdef HAVE_NVJPEG
    return o->jpeg == 1 ? gpu_jpeg_waiting(o->device) : -1;
#else
    (void)o;
    return -1;
#endif
}

int backend_gpu_jpeg_made(int device)
{
#ifdef HAVE_NVJPEG
    return gpu_jpeg_ready(device);
#else
    (void)device;
    return 0;
#endif
}

int backend_gpu_jpeg_stats(int device, int brief, char *buf, size_t len)
{
#ifdef HAVE_NVJPEG
    long long calls, images;
    double ms, made;
    if (gpu_jpeg_stats(device, &calls, &images, &ms, &made))
        return -1;
    if (brief)
        snprintf(buf, len, "%lld images in %lld calls, %.2f s", images, calls, ms / 1e3);
    else
        snprintf(buf, len, "JPEG engines: %lld images in %lld calls (%.1f a call), %.2f s, made in %.0f ms", images,
                 calls, calls ? (double)images / (double)calls : 0.0, ms / 1e3, made);
    return 0;
#else
    (void)device;
    (void)brief;
    (void)buf;
    (void)len;
    return -1;
#endif
}

void backend_gpu_codecs_stop(void)
{
#ifdef HAVE_NVJPEG
    gpu_jpeg_stop();
#endif
}

int backend_gpu_encode_available(enum out_format fmt, enum encoder_choice want)
{
    /* By default in large batches only (and the server), as one process's first call of nvCOMP
     * or of nvJPEG's encoder costs more than the CPU's whole encode of a file. JPEG there is
     * shared: the cores encode whatever the GPU's encoder has no room for (run.c). */
    int built = 0, dflt = 0;
#ifdef HAVE_NVCOMP
    if (fmt == FMT_PNG) {
        built = 1;
        dflt = batch_codecs;
    }
#endif
#ifdef HAVE_NVJPEG
    if (fmt == FMT_JPEG) {
        built = 1;
        dflt = batch_codecs;
    }
#endif
    /* nvCOMP loaded only where it would be used; asked for, a library that cannot be loaded fails
     * the encode, saying why */
    return built && (want == ENCODER_GPU || (want == ENCODER_AUTO && dflt && (fmt != FMT_PNG || gpu_png_available())));
}

void backend_gpu_encode_free(struct gpu_encode_request *q)
{
#ifdef HAVE_NVCOMP
    gpu_png_chunks_free(&q->out);
#endif
    free(q->bytes);
    q->bytes = NULL;
    q->len = 0;
}

int backend_gpu_run_jpeg(struct plan *pl, const struct gpu_run_opts *o, const struct io_input *jpeg,
                         struct image *out, const char **declined, struct run_report *r)
{
    *declined = NULL;
    memset(out, 0, sizeof *out);
#ifdef HAVE_NVJPEG
    return gpu_run(pl, o, jpeg, out, declined, r);
#else
    *declined = "this gpuimg was built without nvJPEG";
    return GPUIMG_OK;
#endif
}

void backend_gpu_free(int device, void *p)
{
    char err[256];
    if (p && !gpu_use_device(device, err, sizeof err))
        gpu_image_free(p);
}

int backend_gpu_alloc(int device, void **p, size_t bytes)
{
    char err[256], desc[512];
    *p = NULL;
    if (backend_gpu_probe(device, desc, sizeof desc, err, sizeof err))
        return gpuimg_fail(GPUIMG_ENOGPU, "no usable GPU: %s", err);
    if (gpu_use_device(device, err, sizeof err))
        return cuda_fail("selecting the GPU", err);
    if (gpu_image_malloc(p, bytes, err, sizeof err))
        return gpuimg_fail(GPUIMG_ENODEVMEM, "no device memory for an image of %zu bytes: %s", bytes, err);
    return GPUIMG_OK;
}

int backend_gpu_copy2d(int device, void *dst, size_t dpitch, const void *src, size_t spitch, size_t row, int rows,
                       int dir)
{
    char err[256];
    if (gpu_use_device(device, err, sizeof err))
        return cuda_fail("selecting the GPU", err);
    if (gpu_copy2d(dst, dpitch, src, spitch, row, (size_t)rows, dir, err, sizeof err) || gpu_stream_sync(err, sizeof err))
        return cuda_fail("copying a device image", err);
    return GPUIMG_OK;
}

#else /* CPU-only build */

void backend_gpu_free(int device, void *p) {}
void backend_gpu_restore_device(void) {}
int backend_gpu_alloc(int device, void **p, size_t bytes)
{
    *p = NULL;
    return gpuimg_fail(GPUIMG_EUNSUPPORTED, "a device image: this gpuimg was built without CUDA");
}
int backend_gpu_copy2d(int device, void *dst, size_t dpitch, const void *src, size_t spitch, size_t row, int rows,
                       int dir)
{
    return gpuimg_fail(GPUIMG_EUNSUPPORTED, "a device image: this gpuimg was built without CUDA");
}

int backend_gpu_probe(int device, char *name, size_t namelen, char *why, size_t whylen)
{
    snprintf(why, whylen, "this gpuimg was built without CUDA");
    return GPUIMG_ENOGPU;
}
const char *backend_gpu_name(void) { return NULL; }
int backend_gpu_count(void) { return 0; }
int backend_gpu_devices(void) { return 0; }
int backend_gpu_cc(void) { return 0; }
double backend_gpu_init_ms(void) { return -1; }
void backend_gpu_set_mem_limit(uint64_t bytes) {}
void backend_gpu_thread_done(void) {}
int backend_gpu_encode_available(enum out_format fmt, enum encoder_choice want) { return 0; }
void backend_gpu_encode_free(struct gpu_encode_request *q) {}
void backend_gpu_codecs_start(int device, int jpeg) {}
void backend_gpu_codecs_stop(void) {}
int backend_gpu_jpeg_now(const struct gpu_run_opts *o) { return 0; }
double backend_gpu_jpeg_wait_ms(const struct gpu_run_opts *o, long long px) { return -1; }
int backend_gpu_jpeg_stats(int device, int brief, char *buf, size_t len) { return -1; }
int backend_gpu_jpeg_made(int device) { return 0; }
int backend_gpu_jpeg_waiting(const struct gpu_run_opts *o) { return -1; }
int backend_gpu_run(struct plan *pl, const struct gpu_run_opts *o, struct image *img, struct run_report *r)
{
    return gpuimg_fail(GPUIMG_EUNSUPPORTED, "this gpuimg was built without CUDA");
}
int backend_gpu_run_jpeg(struct plan *pl, const struct gpu_run_opts *o, const struct io_input *jpeg,
                         struct image *out, const char **declined, struct run_report *r)
{
    *declined = "this gpuimg was built without CUDA";
    return GPUIMG_OK;
}

#endif
