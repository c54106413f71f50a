/* gpuimg: pipelines in tiles (see tile.h). */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/timing.h"
#include "engine/tile.h"

int tile_supported(const struct plan *pl, const char **which)
{
    for (int i = 0; i < pl->nsteps; i++)
        if (!pl->steps[i].op->region || (pl->steps[i].op->tiles && !pl->steps[i].op->tiles(&pl->steps[i].args))) {
            *which = pl->steps[i].op->name;
            return 0;
        }
    return 1;
}

static int rect_inside(const struct rect *r, int w, int h)
{
    return r->x >= 0 && r->y >= 0 && r->w > 0 && r->h > 0 && r->x + r->w <= w && r->y + r->h <= h;
}

int tile_chain(const struct plan *pl, const struct rect *t, struct tile_chain *tc)
{
    struct rect want = *t, need[PLAN_MAX_STEPS], yields[PLAN_MAX_STEPS];
    tc->nsteps = pl->nsteps;
    for (int k = pl->nsteps - 1; k >= 0; k--) {   /* backwards: what each step needs */
        const struct step *st = &pl->steps[k];
        st->op->region(&st->args, &st->in, &st->out, &want, &need[k], &yields[k]);
        if (!rect_inside(&need[k], st->in.w, st->in.h) || want.x < yields[k].x || want.y < yields[k].y
            || want.x + want.w > yields[k].x + yields[k].w || want.y + want.h > yields[k].y + yields[k].h)
            return gpuimg_fail(GPUIMG_EINTERNAL, "%s: tile region out of bounds", st->text);
        tc->keep[k] = (struct rect){ want.x - yields[k].x, want.y - yields[k].y, want.w, want.h };
        want = need[k];
    }
    tc->src = want;
    /* forwards: each step on its tile, as the operation itself resolves it */
    struct geom g = { want.w, want.h, pl->in.c, pl->in.depth };
    size_t bytes;
    int r = geom_bytes(&g, &bytes);
    tc->max_bytes = bytes;
    for (int k = 0; !r && k < pl->nsteps; k++) {
        struct step *s = &tc->steps[k];
        *s = pl->steps[k];
        s->in = g;
        if (s->op->tile_args)
            s->op->tile_args(&s->args, &yields[k], &(struct geom){ yields[k].w, yields[k].h, g.c, g.depth });
        struct op_args a = s->args;
        if ((r = s->op->resolve(&a, &g, &s->out)))
            break;
        if (s->out.w != yields[k].w || s->out.h != yields[k].h)
            return gpuimg_fail(GPUIMG_EINTERNAL, "%s: a %dx%d tile gives %dx%d, not the %dx%d expected", s->text, g.w, g.h,
                               s->out.w, s->out.h, yields[k].w, yields[k].h);
        if ((r = geom_bytes(&s->out, &bytes)))
            break;
        if (bytes > tc->max_bytes)
            tc->max_bytes = bytes;
        g = s->out;
        g.w = tc->keep[k].w;
        g.h = tc->keep[k].h;
    }
    return r;
}

struct rect tile_at(const struct plan *pl, int x, int y, int tw, int th)
{
    return (struct rect){ x, y, tw < pl->out.w - x ? tw : pl->out.w - x, th < pl->out.h - y ? th : pl->out.h - y };
}

int tile_grid_bytes(const struct plan *pl, int tw, int th, uint64_t *max_bytes, int *count)
{
    static _Thread_local struct tile_chain tc;   /* large: off the stack */
    *max_bytes = 0;
    *count = 0;
    for (int y = 0; y < pl->out.h; y += th)
        for (int x = 0; x < pl->out.w; x += tw) {
            const struct rect t = tile_at(pl, x, y, tw, th);
            int r = tile_chain(pl, &t, &tc);
            if (r)
                return r;
            if (tc.max_bytes > *max_bytes)
                *max_bytes = tc.max_bytes;
            ++*count;
        }
    return GPUIMG_OK;
}

int tile_shrink(int *tw, int *th)
{
    if (*tw <= 1 && *th <= 1)
        return 0;
    if (*tw >= *th)
        *tw = (*tw + 1) / 2;
    else
        *th = (*th + 1) / 2;
    return 1;
}

int tile_shrink_plan(const struct plan *pl, int *tw, int *th)
{
    if (*tw <= 1 || *th <= 1)
        return tile_shrink(tw, th);
    const int hw = (*tw + 1) / 2, hh = (*th + 1) / 2;
    uint64_t bw, bh;
    int n;
    if (tile_grid_bytes(pl, hw, *th, &bw, &n) || tile_grid_bytes(pl, *tw, hh, &bh, &n)) {
        gpuimg_clear_error();
        return tile_shrink(tw, th);
    }
    if (bw < bh || (bw == bh && *tw >= *th))
        *tw = hw;
    else
        *th = hh;
    return 1;
}

int image_crop(const struct image *src, const struct rect *r, struct image *dst)
{
    struct geom g = { r->w, r->h, src->c, src->depth };
    int st = image_alloc(dst, &g);
    if (st)
        return st;
    const size_t bpp = image_bpp(src);
    for (int y = 0; y < r->h; y++)
        memcpy(dst->data + (size_t)y * dst->stride, src->data + (size_t)(r->y + y) * src->stride + (size_t)r->x * bpp,
               dst->stride);
    return GPUIMG_OK;
}

void image_paste(struct image *dst, int x, int y, const struct image *src)
{
    const size_t bpp = image_bpp(dst);
    for (int j = 0; j < src->h; j++)
        memcpy(dst->data + (size_t)(y + j) * dst->stride + (size_t)x * bpp, src->data + (size_t)j * src->stride,
               src->stride);
}

/* The rows y .. y + r->h of src as an image, without copying: where r spans src's width. */
static int view(const struct image *src, const struct rect *r, struct image *v)
{
    if (r->x != 0 || r->w != src->w)
        return 0;
    *v = *src;
    v->h = r->h;
    v->data = src->data + (size_t)r->y * src->stride;
    return 1;
}

int tile_chain_cpu(const struct tile_chain *tc, const struct image *img, struct image *res, void **own, double *step_ms)
{
    struct image cur = { 0 };
    void *cur_own = NULL;   /* the allocation cur lies in, NULL: img's */
    int st = GPUIMG_OK;
    if (!view(img, &tc->src, &cur) && !(st = image_crop(img, &tc->src, &cur)))
        cur_own = cur.data;
    for (int k = 0; !st && k < tc->nsteps; k++) {
        const struct step *s = &tc->steps[k];
        struct image o, kept;
        if ((st = image_alloc(&o, &s->out)))
            break;
        const double t0 = step_ms ? timing_now_ms() : 0;
        st = s->op->cpu(&s->args, &cur, &o);
        if (step_ms)
            step_ms[k] += timing_now_ms() - t0;
        free(cur_own);
        cur_own = NULL;
        if (!st && view(&o, &tc->keep[k], &cur))
            cur_own = o.data;
        else {
            if (!st && !(st = image_crop(&o, &tc->keep[k], &kept))) {
                cur = kept;
                cur_own = kept.data;
            }
            image_free(&o);
        }
    }
    if (!st && !cur_own)   /* no step: still img's rows */
        st = image_crop(img, &tc->src, &cur) ? GPUIMG_ENOMEM : (cur_own = cur.data, GPUIMG_OK);
    if (st)
        free(cur_own);
    else {
        *res = cur;
        *own = cur_own;
    }
    return st;
}

int tile_run_cpu(const struct plan *pl, int tw, int th, struct image *img)
{
    const char *which;
    if (!tile_supported(pl, &which))
        return gpuimg_fail(GPUIMG_EUNSUPPORTED, "%s cannot run in tiles", which);
    static _Thread_local struct tile_chain tc;
    struct image out;
    int st = image_alloc(&out, &pl->out);
    for (int y = 0; !st && y < pl->out.h; y += th)
        for (int x = 0; !st && x < pl->out.w; x += tw) {
            const struct rect t = tile_at(pl, x, y, tw, th);
            struct image cur;
            void *own;
            if ((st = tile_chain(pl, &t, &tc)) || (st = tile_chain_cpu(&tc, img, &cur, &own, NULL)))
                break;
            image_paste(&out, x, y, &cur);
            free(own);
        }
    if (st) {
        image_free(&out);
        return st;
    }
    image_free(img);
    *img = out;
    return GPUIMG_OK;
}
