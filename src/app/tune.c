/* gpuimg: `gpuimg tune` (see tune.h). For each operation and layout, every kernel variant runs
 * under each launch shape it honours (a shape that launches the same grid and block as one
 * already measured is not repeated); each result is compared with the OpenMP reference, then
 * timed with CUDA events (3 warm-ups, median of --repeat). The model printed beside it:
 *   t = 3 us + bytes / (B * f) * tail,
 * B the measured device-copy bandwidth, f = min(1, bytes in flight / (B * 1 us)) (Little's law:
 * what the resident threads have in flight, from the occupancy the registers and shared memory
 * allow, against what hides a microsecond of latency), tail = ceil(waves) / waves for the last
 * partial wave of blocks. The cache keeps, per operation and layout, the fastest exact variant and
 * shape; the texture variant (not exact) is measured but never chosen. */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "app/tune.h"
#include "core/error.h"
#include "core/plan.h"
#include "engine/backend.h"
#include "engine/measure.h"
#include "engine/files.h"
#include "engine/tune_cache.h"
#include "io/io.h"

#ifdef HAVE_CUDA

/* The launch shapes swept per variant ({0,0,0}: the kernel's default, always first). */
static const struct gpu_shape shapes_2d[] = {
    { 0, 0, 0 }, { 32, 1, 0 }, { 32, 2, 0 }, { 32, 4, 0 }, { 32, 16, 0 }, { 64, 2, 0 }, { 64, 4, 0 },
    { 128, 1, 0 }, { 128, 2, 0 }, { 16, 16, 0 }, { 256, 1, 0 },
};
static const struct gpu_shape shapes_1d[] = {
    { 0, 0, 0 }, { 128, 1, 1 }, { 128, 1, 2 }, { 128, 1, 4 }, { 128, 1, 8 }, { 256, 1, 1 }, { 256, 1, 2 },
    { 256, 1, 8 }, { 512, 1, 1 }, { 512, 1, 2 }, { 512, 1, 4 }, { 512, 1, 8 },
};
static const struct gpu_shape shapes_tiled[] = { { 0, 0, 0 }, { 32, 4, 0 }, { 32, 16, 0 }, { 32, 32, 0 } };

#define N_OF(a) (int)(sizeof a / sizeof *a)
/* The shapes a variant's launch honours (op_desc.gpu_shape). */
static int shapes_for(const struct op_desc *op, int v, const struct gpu_shape **sh)
{
    static const unsigned char usual[KV_COUNT] = { [KV_PERPIXEL] = SHAPE_2D, [KV_TEXTURE] = SHAPE_2D,
                                                   [KV_COALESCED] = SHAPE_1D, [KV_TILED] = SHAPE_ROWS };
    const int kind = op->gpu_shape[v] != SHAPE_USUAL ? op->gpu_shape[v] : usual[v] ? usual[v] : SHAPE_FIXED;
    *sh = kind == SHAPE_2D ? shapes_2d : kind == SHAPE_1D ? shapes_1d : shapes_tiled;
    return kind == SHAPE_2D ? N_OF(shapes_2d) : kind == SHAPE_1D ? N_OF(shapes_1d)
                                              : kind == SHAPE_ROWS ? N_OF(shapes_tiled) : 1;
}

static void fill_random(struct image *im, uint32_t seed)
{
    size_t n = im->stride * (size_t)im->h;
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        im->data[i] = (uint8_t)(x >> 24);
    }
}

static double model_ms(const struct gpu_launch_info *li, double bytes, double out_px, double copy_gbs)
{
    const double B = copy_gbs * 1e9;   /* bytes a second */
    if (!li->block || !li->sms || !li->blocks_per_sm)
        return 0;
    const double blocks_sm = fmin(li->blocks_per_sm, ceil((double)li->grid / li->sms));
    const double inflight = blocks_sm * li->block * li->px_per_thread * (bytes / out_px) * li->sms;
    const double f = fmin(1.0, inflight / (B * 1e-6));
    const double waves = (double)li->grid / ((double)li->sms * li->blocks_per_sm);
    const double tail = waves > 1 ? ceil(waves) / waves : 1;
    return 0.003 + bytes / (B * f) * tail * 1e3;
}

struct best { char op[32]; int c, depth, variant; struct gpu_shape shape; double ms; };

static int tune_layout(const struct cli_opts *o, int c, int depth, double *copy_gbs, struct best *best, int *nbest)
{
    struct geom g = { o->tune_w, o->tune_h, c, depth };
    struct image src = { 0 };
    int r = image_alloc(&src, &g);
    if (r)
        return r;
    fill_random(&src, (uint32_t)(c * 100 + depth));
    size_t bytes;
    geom_bytes(&g, &bytes);
    void *din = NULL, *dout = NULL;
    struct gpu_timer *timer = NULL;
    /* room for the largest result: resize=200% of the full image */
    if ((r = measure_buffers(&din, bytes, &dout, 4 * bytes, &timer)))
        goto done;
    /* the ceiling: a device-to-device copy of the same bytes */
    double copy_ms;
    if ((r = measure_copy_ms(dout, din, bytes, o->tune_repeat, timer, &copy_ms)))
        goto done;
    *copy_gbs = 2.0 * bytes / copy_ms / 1e6;
    const char *cases[64];
    const int ncases = op_examples(cases, 64, 0);
    engine_files_examples();   /* the files examples name are made, not read */
    for (int k = 0; k < ncases && !r; k++) {
        struct plan pl;
        struct image in = { 0 }, ref = { 0 };
        struct run_report rep;
        timing_report_init(&rep);
        if ((r = plan_parse(cases[k], &pl)) || (r = plan_resolve(&pl, &g, 0)))
            break;
        const struct step *st = &pl.steps[0];
        if (st->op->copies_on & (1u << c))
            continue;
        if ((r = image_alloc(&in, &g)))
            break;
        memcpy(in.data, src.data, bytes);
        if ((r = backend_cpu_run(&pl, &in, &rep)))   /* in becomes the reference */
            break;
        ref = in;
        if ((r = measure_upload(din, src.data, bytes))) {
            image_free(&ref);
            break;
        }
        const double io = geom_size(&st->in) + geom_size(&st->out), out_px = (double)st->out.w * st->out.h;
        struct best *b = &best[*nbest];
        b->ms = -1;
        for (int v = 0; v < KV_COUNT && !r; v++) {
            if (!(st->op->gpu_variants & KV_BIT(v)))
                continue;
            const struct gpu_shape *sh;
            const int nsh = shapes_for(st->op, v, &sh);
            struct gpu_launch_info seen[16];
            int nseen = 0;
            for (int s = 0; s < nsh && !r; s++) {
                double ms;
                long diff, tol;
                const struct gpu_call call = { v, sh[s] };
                const char *ran;
                r = measure_gpu_variant(st, &call, din, dout, &ref, o->tune_repeat, timer, &ms, &diff, &tol, &ran);
                struct gpu_launch_info li;
                int have = !r && measure_last_launch(&li);
                if (r)
                    break;
                int dup = 0;   /* a shape this kernel ignores: same launch as one already timed */
                for (int i = 0; have && i < nseen; i++)
                    dup |= seen[i].grid == li.grid && seen[i].block == li.block
                           && seen[i].px_per_thread == li.px_per_thread;
                if (dup)
                    continue;
                if (have && nseen < 16)
                    seen[nseen++] = li;
                char shape[32], check[48];
                if (sh[s].bx)
                    snprintf(shape, sizeof shape, "%dx%d/%d", sh[s].bx, sh[s].by, have ? li.px_per_thread : 0);
                else
                    snprintf(shape, sizeof shape, "default/%d", have ? li.px_per_thread : 0);
                const int bad = measure_check_text(check, sizeof check, diff, tol);
                if (bad)
                    r = gpuimg_fail(GPUIMG_ECUDA, "tune: %s %s %s differs from the OpenMP result (%s)", cases[k],
                                    kernel_names[v], shape, check);
                const double model = have ? model_ms(&li, io, out_px, *copy_gbs) : 0;
                printf("%-12s %-6s %-10s %-14s %9.4f %9.4f %7.1f %6.1f%% %4d %4d  %s\n", cases[k], layout_name(c),
                       kernel_names[v], shape, ms, model, io / ms / 1e6, 100 * io / ms / 1e6 / *copy_gbs,
                       have ? li.regs : 0, have ? li.blocks_per_sm : 0, check);
                if (!bad && !diff && v != KV_TEXTURE && (b->ms < 0 || ms < b->ms)) {
                    snprintf(b->op, sizeof b->op, "%s", st->op->name);
                    b->c = c;
                    b->depth = depth;
                    b->variant = v;
                    b->shape = sh[s];
                    if (!b->shape.bx && have && v == KV_COALESCED)
                        b->shape.ppt = 0;
                    b->ms = ms;
                }
            }
        }
        fflush(stdout);
        image_free(&ref);
        /* one entry per operation and layout: its first example's (resize=50%, not resize=200%) */
        int dup = 0;
        for (int i = 0; i < *nbest; i++)
            dup |= !strcmp(best[i].op, b->op) && best[i].c == c && best[i].depth == depth;
        if (!r && b->ms >= 0 && !dup && *nbest < TUNE_MAX - 1)
            (*nbest)++;
    }
done:
    measure_buffers_free(din, dout, timer);
    image_free(&src);
    return r;
}

static int save_cache(const char *path, const char *dev, const struct cli_opts *o, const struct best *b, int n)
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    int st = io_make_dirs(path, NULL, NULL);
    if (st)
        return st;
    FILE *f = fopen(tmp, "w");
    if (!f)
        return gpuimg_fail(GPUIMG_EWRITE, "%s: cannot write the tune cache", path);
    fprintf(f, "# gpuimg tune cache: %s, %dx%d, median of %d\n# op channels depth variant BXxBY ppt ms\n", dev, o->tune_w,
            o->tune_h, o->tune_repeat);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s %d %d %s %dx%d %d %.5f\n", b[i].op, b[i].c, b[i].depth, kernel_names[b[i].variant], b[i].shape.bx,
                b[i].shape.by, b[i].shape.ppt, b[i].ms);
    if (fclose(f) || rename(tmp, path)) {
        remove(tmp);
        return gpuimg_fail(GPUIMG_EWRITE, "%s: cannot write the tune cache", path);
    }
    return GPUIMG_OK;
}

static int tune_run(const struct cli_opts *o)
{
    char desc[512], why[256], path[1024];
    if (backend_gpu_probe(options_device(o), desc, sizeof desc, why, sizeof why))
        return gpuimg_fail(GPUIMG_ENOGPU, "tune: no usable GPU: %s", why);
    printf("gpuimg tune: %s; %dx%d, median of %d; model: 3 us + bytes / (copy bandwidth x in-flight share) x tail\n",
           desc, o->tune_w, o->tune_h, o->tune_repeat);
    printf("%-12s %-6s %-10s %-14s %9s %9s %7s %7s %4s %4s  %s\n", "operation", "layout", "variant", "shape/px", "ms",
           "model", "GB/s", "copy%", "regs", "b/SM", "check");
    static struct best best[TUNE_MAX];
    int nbest = 0, r = GPUIMG_OK;
    double copy = 0;
    for (int depth = 8; depth <= 16 && !r; depth += 8)
        for (int c = 1; c <= 4 && !r; c++)
            if (c != 2 && (!o->tune_quick || (c == 3 && depth == 8))) {
                r = tune_layout(o, c, depth, &copy, best, &nbest);
                printf("(device copy for this layout: %.0f GB/s)\n", copy);
            }
    if (r)
        return r;
    printf("\nfastest exact choice per operation and layout:\n");
    for (int i = 0; i < nbest; i++)
        printf("  %-10s %-6s %-10s %dx%d ppt %d  %.4f ms\n", best[i].op, layout_name(best[i].c), kernel_names[best[i].variant],
               best[i].shape.bx, best[i].shape.by, best[i].shape.ppt, best[i].ms);
    if (o->tune_no_save)
        return GPUIMG_OK;
    if (!tune_cache_path(backend_gpu_name(), backend_gpu_cc(), path, sizeof path))
        return gpuimg_fail(GPUIMG_EUSAGE, "tune: no cache location (GPUIMG_TUNE_CACHE=off, or no HOME)");
    if ((r = save_cache(path, desc, o, best, nbest)))
        return r;
    printf("saved: %s (--kernel=auto reads it)\n", path);
    return GPUIMG_OK;
}
#endif

int tune_parse(int argc, char **argv, struct cli_opts *o)
{
    int first = 1, st = options_init(o);
    if (!st)
        st = options_parse(o, argc, argv, &first, OPT_TUNE);
    if (!st && first < argc)
        st = gpuimg_fail(GPUIMG_EUSAGE, "unexpected argument '%s'", argv[first]);
    if (!st)
        st = options_env_error();
    if (st) {   /* said as tune's */
        char msg[512];
        snprintf(msg, sizeof msg, "%s", gpuimg_errmsg() ? gpuimg_errmsg() : gpuimg_strerror(st));
        gpuimg_clear_error();
        st = gpuimg_fail(st, "tune: %s", msg);
    }
    return st;
}

int tune_main(const struct cli_opts *o)
{
#ifdef HAVE_CUDA
    return tune_run(o);
#else
    (void)o;
    return gpuimg_fail(GPUIMG_ENOGPU, "tune: this gpuimg was built without CUDA");
#endif
}
