/* gpuimg: one file through the chain (see run.h). */
#include <config.h>
#include <string.h>
#include "error.h"
#include "run.h"

int run_load(const struct run_ctx *c, const char *in, const char *out, struct image *img, struct plan *pl,
             struct run_report *r)
{
    r->input = in;
    r->output = out;
    r->fallback = c->fallback;
    if (io_same_file(in, out))
        return gpuimg_fail(GPUIMG_EWRITE, "%s: the output is the input file; refusing to overwrite it", out);
    double t0 = timing_now_ms();
    struct load_opts lo = { c->max_pixels };
    int st = io_load(in, &lo, img);
    if (st)
        return st;
    r->decode_ms = timing_now_ms() - t0;
    r->in = image_geom(img);
    *pl = *c->plan;
    if ((st = plan_resolve(pl, &r->in, c->max_pixels)))
        image_free(img);
    return st;
}

int run_save(const struct run_ctx *c, const char *out, const struct image *img, struct run_report *r)
{
    struct save_opts so = c->save;
    if (c->per_file_format && io_format_from_path(out, &so.fmt))
        return gpuimg_fail(GPUIMG_EUSAGE, "%s: unknown output format (use .png, .jpg, .jpeg, .bmp or .tga, or --format)",
                           out);
    r->out = image_geom(img);
    double t0 = timing_now_ms();
    int st = io_save(out, img, &so);
    r->encode_ms = timing_now_ms() - t0;
    return st;
}

int run_file(const struct run_ctx *c, const char *in, const char *out, struct run_report *r)
{
    double t0 = timing_now_ms();
    struct image img;
    struct plan pl;
    int st = run_load(c, in, out, &img, &pl, r);
    if (st)
        return st;
    st = c->kind == BACKEND_GPU ? backend_gpu_run(&pl, &c->gpu, &img, r) : backend_cpu_run(&pl, &img, r);
    if (!st)
        st = run_save(c, out, &img, r);
    image_free(&img);
    r->total_ms = timing_now_ms() - t0;
    return st;
}
