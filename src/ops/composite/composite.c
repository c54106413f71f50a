/* gpuimg: composite, an overlay image (a watermark, a logo) placed on the image by gravity and
 * blended (ImageMagick's composite -gravity, vips's composite2). The overlay is a file named in the
 * pipeline, read once when the pipeline is parsed (core/opfile.h); what the step composites is
 * the overlay made for the image's layout, depth and scaled size, kept for the process with the
 * file (one per geometry), on the GPU uploaded once a step's state. */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/op.h"
#include "core/plan.h"
#include "ops/common/place.h"
#include "cuda/composite/kernels.h"

extern const struct op_desc op_composite;   /* this operation, defined at the end */

enum { P_FILE, P_GRAVITY, P_X, P_Y, P_SCALE, P_OPACITY, P_MODE };
static const struct op_param params[] = {
    { "file", PARAM_FILE, 0, 0, 0, NULL, NULL,
      "the overlay: an image file in any input format (a PNG with alpha, typically), read once before any input" },
    { "gravity", PARAM_CHOICE, 0, 0, 0, GRAVITY_CHOICES, "northwest",
      "where the overlay sits: northwest (default), north, ..., southeast, centre" },
    { "x", PARAM_NUMBER, -16777216, 16777216, 0, NULL, "0",
      "pixels inward from the gravity's side (from the right for the east ones; rightward for the others)" },
    { "y", PARAM_NUMBER, -16777216, 16777216, 0, NULL, "0",
      "pixels inward from the gravity's side (from the bottom for the south ones; downward for the others)" },
    { "scale", PARAM_NUMBER, 0, 100, 0, NULL, "0",
      "the overlay's width as a fraction of the image's, its aspect kept; 0: its own size" },
    { "opacity", PARAM_NUMBER, 0, 1, 0, NULL, "1", "the overlay's alpha multiplied by it" },
    { "mode", PARAM_CHOICE, 0, 0, 0, "over|multiply|screen", "over",
      "the blend: over (the overlay on top), multiply (darkens) or screen (lightens), W3C's" },
};

/* The placing resolve leaves in the file parameter's size: the overlay's size (scaled) and its
 * corner in the input, which may lie outside (negative, or past the edges: clipped). */
#define PLACED(a) ((a)->v[P_FILE].size)

static int integral(double v) { return v == floor(v); }

static int then(const struct op_args *a, char *text, size_t n)
{
    (void)text;
    (void)n;
    if (!integral(a->v[P_X].num) || !integral(a->v[P_Y].num))
        return gpuimg_fail(GPUIMG_EPARAM, "composite: x and y are whole pixels, not %g and %g", a->v[P_X].num,
                           a->v[P_Y].num);
    return GPUIMG_OK;
}

/* the side of gravity g on an axis: -1 the start, 1 the end, 0 the middle */
static int side(int g, int axis) { return gravity_offset(g, axis, 2, 0) - 1; }

static int resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    *out = *in;
    const struct op_file *f = a->v[P_FILE].file;
    struct size_spec *p = &PLACED(a);
    if (p->offset)   /* placed already: a tile of the image (tile_args moved it) */
        return GPUIMG_OK;
    if (!f || !f->img.data)
        return gpuimg_fail(GPUIMG_EUNSUPPORTED, "composite: %s was not read (a pipeline's files are read by the "
                           "command that parses it)", f ? f->path : "the overlay");
    long ow = f->img.w, oh = f->img.h;
    const double scale = a->v[P_SCALE].num;
    if (scale > 0) {
        const double w = floor(scale * in->w + 0.5), h = floor(w * oh / ow + 0.5);
        if (w > 1 << 24 || h > 1 << 24 || w * h > fmax((double)in->w * in->h, (double)(1 << 24)))
            return gpuimg_fail(GPUIMG_ETOOBIG, "composite: scale=%g makes the overlay %.0fx%.0f, larger than the "
                               "%dx%d image", scale, w, h, in->w, in->h);
        ow = w < 1 ? 1 : (long)w;
        oh = h < 1 ? 1 : (long)h;
    }
    long xy[2];
    const long total[2] = { in->w, in->h }, n[2] = { ow, oh }, off[2] = { (long)a->v[P_X].num, (long)a->v[P_Y].num };
    for (int axis = 0; axis < 2; axis++) {   /* gravity_offset's, the middle rounded down also below 0 */
        const int sd = side(a->v[P_GRAVITY].choice, axis);
        const long d = total[axis] - n[axis];
        xy[axis] = (sd < 0 ? 0 : sd > 0 ? d : d >= 0 ? d / 2 : -((1 - d) / 2)) + (sd > 0 ? -off[axis] : off[axis]);
    }
    *p = (struct size_spec){ .kind = SIZE_PIXELS, .w = (int)ow, .h = (int)oh, .offset = 1, .x = (int)xy[0],
                             .y = (int)xy[1] };
    return GPUIMG_OK;
}

/* A tile needs its own rectangle (as op_region_point), but the step is not pointwise: where it
 * lies depends on the image's size, so no shrink on load passes it (run.c's test is that
 * function). */
static void region(const struct op_args *a, const struct geom *in, const struct geom *out, const struct rect *want,
                   struct rect *need, struct rect *yields)
{
    (void)a;
    (void)in;
    (void)out;
    *need = *want;
    *yields = *want;
}

static void tile_args(struct op_args *a, const struct rect *yields, const struct geom *out)
{
    (void)out;
    PLACED(a).x -= yields->x;
    PLACED(a).y -= yields->y;
}

/* ---- the overlay made for a geometry: the image's colours and an alpha, its depth, scaled ------ */

struct made {
    int w, h, c, depth;   /* c: 2 or 4 */
    struct image img;
    int refs;
    unsigned long used;
    struct made *next;
};
struct made_cache {
    struct made *list;
    int n;
    unsigned long clock;
};
#define MADE_KEEP 8   /* geometries kept beyond those in use (a batch of many sizes with scale) */

static void cache_free(void *p)
{
    struct made_cache *c = p;
    while (c->list) {
        struct made *m = c->list;
        c->list = m->next;
        image_free(&m->img);
        free(m);
    }
    free(c);
}

static uint32_t sample(const struct image *im, size_t i)
{
    return im->depth == 16 ? ((const uint16_t *)im->data)[i] : im->data[i];
}

/* src in c channels (grey+alpha or RGBA) at depth: its colours to grey by gray's BT.601 luma or
 * grey copied to RGB, alpha kept or opaque where it has none, depth 8 -> 16 v * 257, 16 -> 8
 * (v * 255 + 32767) / 65535. */
static int convert(const struct image *src, int c, int depth, struct image *dst)
{
    const struct geom g = { src->w, src->h, c, depth };
    int st = image_alloc(dst, &g);
    if (st)
        return st;
    const int sc = src->c, salpha = has_alpha(sc), scc = sc - salpha, cc = c - 1;
    const uint32_t stop = src->depth == 16 ? 65535u : 255u;
    const size_t n = (size_t)src->w * src->h;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        uint32_t v[4];
        if (scc == cc)
            for (int k = 0; k < cc; k++)
                v[k] = sample(src, i * sc + k);
        else if (cc == 3)
            v[0] = v[1] = v[2] = sample(src, i * sc);
        else
            v[0] = (9798u * sample(src, i * sc) + 19235u * sample(src, i * sc + 1) + 3735u * sample(src, i * sc + 2)
                    + 16384u) >> 15;
        v[cc] = salpha ? sample(src, i * sc + scc) : stop;
        for (int k = 0; k <= cc; k++) {
            uint32_t x = v[k];
            if (src->depth != depth)
                x = depth == 16 ? x * 257u : (x * 255u + 32767u) / 65535u;
            if (depth == 16)
                ((uint16_t *)dst->data)[i * c + k] = (uint16_t)x;
            else
                dst->data[i * c + k] = (uint8_t)x;
        }
    }
    return GPUIMG_OK;
}

/* the converted overlay resized to w x h by resize=WxH! (its default filter), on the CPU */
static int scale_to(struct image *im, int w, int h)
{
    if (im->w == w && im->h == h)
        return GPUIMG_OK;
    char text[64];
    snprintf(text, sizeof text, "resize=%dx%d!", w, h);
    struct plan *pl = malloc(sizeof *pl);
    struct image out = { 0 };
    const struct geom g = image_geom(im);
    int st = pl ? plan_parse(text, pl) : (int)gpuimg_fail(GPUIMG_ENOMEM, "out of memory");
    for (int i = 0; !st && i < pl->nsteps; i++) {
        if (!(st = plan_resolve(pl, &g, 0)) && !(st = image_alloc(&out, &pl->steps[i].out))) {
            st = pl->steps[i].op->cpu(&pl->steps[i].args, im, &out);
            image_free(im);
            *im = out;
        }
    }
    free(pl);
    return st;
}

/* The overlay for a's placing on images of c channels at depth, held (release it with
 * made_release): made at its first use under the file's lock, kept with the file. */
static int made_get(const struct op_args *a, int c, int depth, struct made **out)
{
    struct op_file *f = a->v[P_FILE].file;
    const int mc = c - has_alpha(c) + 1, w = PLACED(a).w, h = PLACED(a).h;
    int st = GPUIMG_OK;
    pthread_mutex_lock(&f->mu);
    if (!f->cache) {
        f->cache = calloc(1, sizeof(struct made_cache));
        f->cache_free = cache_free;
    }
    struct made_cache *mc_ = f->cache;
    struct made *m = mc_ ? mc_->list : NULL;
    while (m && !(m->w == w && m->h == h && m->c == mc && m->depth == depth))
        m = m->next;
    if (!m && mc_ && (m = calloc(1, sizeof *m))) {
        *m = (struct made){ .w = w, .h = h, .c = mc, .depth = depth };
        if ((st = convert(&f->img, mc, depth, &m->img)) || (st = scale_to(&m->img, w, h))) {
            image_free(&m->img);
            free(m);
            m = NULL;
        } else {
            m->next = mc_->list;
            mc_->list = m;
            mc_->n++;
        }
        /* the least recently used geometries that no step holds go past MADE_KEEP */
        while (!st && mc_->n > MADE_KEEP) {
            struct made **old = NULL;
            for (struct made **q = &mc_->list; *q; q = &(*q)->next)
                if (!(*q)->refs && *q != m && (!old || (*q)->used < (*old)->used))
                    old = q;
            if (!old)
                break;
            struct made *gone = *old;
            *old = gone->next;
            image_free(&gone->img);
            free(gone);
            mc_->n--;
        }
    } else if (!m && !st)
        st = gpuimg_fail(GPUIMG_ENOMEM, "composite: out of memory");
    if (m) {
        m->refs++;
        m->used = ++mc_->clock;
    }
    pthread_mutex_unlock(&f->mu);
    *out = m;
    return st;
}

static void made_release(const struct op_args *a, struct made *m)
{
    struct op_file *f = a->v[P_FILE].file;
    pthread_mutex_lock(&f->mu);
    m->refs--;
    pthread_mutex_unlock(&f->mu);
}

/* the overlay's opacity as composite_alpha takes it */
static uint32_t opacity(const struct op_args *a) { return (uint32_t)floor(a->v[P_OPACITY].num * 65536 + 0.5); }

/* The overlay's rectangle clipped to the image: columns [x0, x1), rows [y0, y1); 0 when empty. */
static int clip(const struct op_args *a, int w, int h, int *x0, int *x1, int *y0, int *y1)
{
    const struct size_spec *p = &PLACED(a);
    *x0 = p->x > 0 ? p->x : 0;
    *y0 = p->y > 0 ? p->y : 0;
    *x1 = (long)p->x + p->w < w ? p->x + p->w : w;
    *y1 = (long)p->y + p->h < h ? p->y + p->h : h;
    return *x0 < *x1 && *y0 < *y1;
}

#define DEFINE_COMPOSITE_ROW(T, U, SUF)                                                                \
    static void row_##SUF(const T *b, const T *s, T *d, int n, int c, uint32_t o, int mode)            \
    {                                                                                                  \
        const int alpha = has_alpha(c), cc = c - alpha;                                                \
        const U top = sizeof(T) == 1 ? 255u : 65535u;                                                  \
        for (int x = 0; x < n; x++, b += c, d += c, s += cc + 1) {                                     \
            const U as = composite_alpha(s[cc], o);                                                    \
            T da;                                                                                      \
            if (!as) {                                                                                 \
                memcpy(d, b, sizeof(T) * (size_t)c);                                                   \
                continue;                                                                              \
            }                                                                                          \
            composite_##SUF(s, as, b, alpha ? b[cc] : top, cc, mode, d, &da);                          \
            if (alpha)                                                                                 \
                d[cc] = da;                                                                            \
        }                                                                                              \
    }
DEFINE_COMPOSITE_ROW(uint8_t, uint32_t, px8)
DEFINE_COMPOSITE_ROW(uint16_t, uint64_t, px16)

static int cpu(const struct op_args *a, const struct image *in, struct image *out)
{
    int x0, x1, y0, y1;
    const int any = clip(a, in->w, in->h, &x0, &x1, &y0, &y1);
    struct made *m = NULL;
    int st = any ? made_get(a, in->c, in->depth, &m) : GPUIMG_OK;
    if (st)
        return st;
    const size_t bpp = image_bpp(in);
    const uint32_t o = opacity(a);
    const int mode = a->v[P_MODE].choice, sx = any ? x0 - PLACED(a).x : 0, sy = any ? y0 - PLACED(a).y : 0;
#pragma omp parallel for schedule(static)
    for (int y = 0; y < in->h; y++) {
        const uint8_t *b = in->data + (size_t)y * in->stride;
        uint8_t *d = out->data + (size_t)y * out->stride;
        if (!any || y < y0 || y >= y1) {
            memcpy(d, b, (size_t)in->w * bpp);
            continue;
        }
        memcpy(d, b, (size_t)x0 * bpp);
        memcpy(d + (size_t)x1 * bpp, b + (size_t)x1 * bpp, (size_t)(in->w - x1) * bpp);
        const uint8_t *s = m->img.data + (size_t)(sy + y - y0) * m->img.stride + (size_t)sx * image_bpp(&m->img);
        if (in->depth == 16)
            row_px16((const uint16_t *)(b + (size_t)x0 * bpp), (const uint16_t *)s, (uint16_t *)(d + (size_t)x0 * bpp),
                     x1 - x0, in->c, o, mode);
        else
            row_px8(b + (size_t)x0 * bpp, s, d + (size_t)x0 * bpp, x1 - x0, in->c, o, mode);
    }
    if (m)
        made_release(a, m);
    return GPUIMG_OK;
}

#ifdef HAVE_CUDA
/* A step's GPU state: the overlay made for its geometry, on the device. */
struct composite_gpu {
    void *block;   /* the device allocation */
    void *ov;      /* the overlay in it */
};

static void gpu_release(void *state)
{
    struct composite_gpu *s = state;
    if (s)
        gpu_free(s->block);
    free(s);
}

static int gpu_prepare(const struct op_args *a, const struct geom *in, const struct geom *out, int variant,
                       void **state)
{
    (void)out;
    int x0, x1, y0, y1;
    *state = NULL;
    if (!clip(a, in->w, in->h, &x0, &x1, &y0, &y1))
        return GPUIMG_OK;   /* outside the image: a copy, nothing to upload */
    struct made *m;
    int st = made_get(a, in->c, in->depth, &m);
    if (st)
        return st;
    struct composite_gpu *s = calloc(1, sizeof *s);
    const void *host = m->img.data;
    const size_t bytes = m->img.stride * (size_t)m->img.h;
    if (!s)
        st = gpuimg_fail(GPUIMG_ENOMEM, "composite: out of memory");
    else if (!(st = op_upload_parts(&op_composite, variant, &s->block, 1, &host, &bytes, &s->ov)))
        *state = s;
    else
        free(s);
    made_release(a, m);
    return st;
}

static int gpu(const struct op_args *a, const void *state, const struct gpu_call *k, const struct gpu_image *in,
               const struct gpu_image *out, const char **ran)
{
    (void)ran;
    const struct composite_gpu *s = state;
    const struct size_spec *p = &PLACED(a);
    char err[256];
    return gpu_composite(k, in, out, s ? s->ov : NULL, p->w, p->h, p->x, p->y, opacity(a), a->v[P_MODE].choice, err,
                         sizeof err)
               ? op_cuda_fail(&op_composite, k->variant, err)
               : GPUIMG_OK;
}
#endif

const struct op_desc op_composite = {
    .name = "composite",
    .summary = "an overlay image on the image: a watermark (composite=logo.png:gravity=southeast:x=10:y=10:scale=0.2:"
               "opacity=0.5)",
    .definition =
        "The overlay is read once, before any input, and made for the image: its colours to the image's (grey to "
        "RGB copied, RGB to grey by BT.601 luma as gray gives it), an opaque alpha where it has none, the image's "
        "depth (8 to 16 bits v*257, 16 to 8 (v*255 + 32767) / 65535), then with scale > 0 resized as resize=WxH! "
        "gives it to W = floor(scale*in_w + 0.5), H = floor(W*h/w + 0.5) (at least 1). It is placed by gravity as "
        "pad places an image, x and y moving it inward from the gravity's sides (X = in_w - W - x for the east "
        "gravities, X = X0 + x otherwise), and clipped to the image: wholly outside, the step copies its input. "
        "Each pixel under it is W3C Compositing's source-over with a separable blend mode B (premultiplied alpha), "
        "in integers exactly, levels 0..M (M = 255 or 65535): the overlay's alpha as = (a*O + 32768) >> 16 with O = "
        "round(opacity*65536), the image's ab (M without alpha); Bn = s*M (over), s*b (multiply), (s + b)*M - s*b "
        "(screen); X = (M - ab)*s*M + ab*Bn; co = as*X + ab*b*(M - as)*M; ao = as*M + ab*(M - as); colour = (co + "
        "floor(M*ao/2)) / (M*ao), alpha = (ao + floor(M/2)) / M (32-bit integers at 8 bits, 64-bit at 16). Where "
        "as = 0 the pixel is unchanged. The result has the image's layout. A path cannot hold ',' or ':' (the "
        "pipeline's separators); a relative one is the command's working directory's, and a pipeline with a "
        "composite runs in the command's process, never the server.",
    .params = params,
    .nparams = 7,
    .resolve = resolve,
    .cpu = cpu,
    .then = then,
    .region = region,
    .tile_args = tile_args,
    GPU_FIELDS(KV_BIT(KV_PERPIXEL) | KV_BIT(KV_COALESCED), KV_COALESCED, gpu_prepare, gpu, gpu_release),
    .examples = EXAMPLES("composite=overlay-c4-d8.png:gravity=southeast:x=3:y=2",
                         "composite=overlay-c2-d16.png:gravity=centre:scale=0.6:opacity=0.7:mode=multiply",
                         "composite=overlay-c3-d8.png:gravity=northeast:x=-5:y=4:mode=screen",
                         "composite=overlay-c1-d16.png:gravity=southwest:x=2:scale=1.3:opacity=0.5"),
};
