/* gpuimg: the pointwise template's functions shared by its operations (pointwise.h). */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include "ops/common/pointwise.h"

int pointwise_resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    *out = *in;
    return GPUIMG_OK;
}

void pointwise_args(const struct op_args *a, struct pw_args *p)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < OP_MAX_PARAMS; i++) {
        p->num[i] = a->v[i].num;
        p->choice[i] = a->v[i].choice;
    }
}

/* The table form's table: fn of every v from 0 to top, as samples of the depth. */
static void *lut_build(pw_sample_fn *fn, int depth, const struct pw_args *p)
{
    const int top = depth == 16 ? 65535 : 255;
    void *t = malloc((size_t)(top + 1) * (size_t)(depth / 8));
    if (!t)
        return NULL;
    uint8_t *t8 = t;
    uint16_t *t16 = t;
#pragma omp parallel for schedule(static) if (depth == 16)
    for (int v = 0; v <= top; v++) {
        const uint32_t r = fn((uint32_t)v, (uint32_t)top, p);
        if (depth == 16)
            t16[v] = (uint16_t)r;
        else
            t8[v] = (uint8_t)r;
    }
    return t;
}

/* One layout's rows through table t, alpha (the last of 2 or 4 channels) copied. */
#define LUT_ROWS_(T, C)                                                                                  \
    static void lut_##T##_##C(const struct image *in, struct image *out, const void *t)                  \
    {                                                                                                    \
        enum { NC = C == 2 || C == 4 ? C - 1 : C };                                                      \
        const T *restrict lut = t;                                                                       \
        const int w = in->w, h = in->h;                                                                  \
        const size_t is = in->stride, os = out->stride;                                                  \
        const uint8_t *const src = in->data;                                                             \
        uint8_t *const dst = out->data;                                                                  \
        _Pragma("omp parallel for schedule(static)")                                                     \
        for (int y = 0; y < h; y++) {                                                                    \
            const T *restrict s = (const T *)(src + (size_t)y * is);                                     \
            T *restrict d = (T *)(dst + (size_t)y * os);                                                 \
            for (int x = 0; x < w; x++, s += C, d += C) {                                                \
                for (int c = 0; c < NC; c++)                                                             \
                    d[c] = lut[s[c]];                                                                    \
                if (NC < C)                                                                              \
                    d[C - 1] = s[C - 1];                                                                 \
            }                                                                                            \
        }                                                                                                \
    }
LUT_ROWS_(uint8_t, 1)
LUT_ROWS_(uint8_t, 2)
LUT_ROWS_(uint8_t, 3)
LUT_ROWS_(uint8_t, 4)
LUT_ROWS_(uint16_t, 1)
LUT_ROWS_(uint16_t, 2)
LUT_ROWS_(uint16_t, 3)
LUT_ROWS_(uint16_t, 4)

/* An image with fewer colour samples than the table has entries: fn on each (the table's values). */
static void lut_direct(pw_sample_fn *fn, const struct pw_args *p, const struct image *in, struct image *out)
{
    const int c = in->c, nc = c == 2 || c == 4 ? c - 1 : c, wide = in->depth == 16;
    const uint32_t top = wide ? 65535 : 255;
    for (int y = 0; y < in->h; y++)
        for (int x = 0; x < in->w; x++)
            for (int k = 0; k < c; k++) {
                const size_t i = (size_t)x * c + k;
                if (wide) {
                    const uint16_t v = ((const uint16_t *)(in->data + (size_t)y * in->stride))[i];
                    ((uint16_t *)(out->data + (size_t)y * out->stride))[i] = k < nc ? (uint16_t)fn(v, top, p) : v;
                } else {
                    const uint8_t v = in->data[(size_t)y * in->stride + i];
                    out->data[(size_t)y * out->stride + i] = k < nc ? (uint8_t)fn(v, top, p) : v;
                }
            }
}

int pointwise_lut_cpu(pw_sample_fn *fn, const struct op_args *a, const struct image *in, struct image *out)
{
    static void (*const rows[2][4])(const struct image *, struct image *, const void *) = {
        { lut_uint8_t_1, lut_uint8_t_2, lut_uint8_t_3, lut_uint8_t_4 },
        { lut_uint16_t_1, lut_uint16_t_2, lut_uint16_t_3, lut_uint16_t_4 },
    };
    struct pw_args p;
    pointwise_args(a, &p);
    const int c = in->c, nc = c == 2 || c == 4 ? c - 1 : c;
    if ((uint64_t)in->w * (uint64_t)in->h * (uint64_t)nc < (in->depth == 16 ? 65536u : 256u)) {
        lut_direct(fn, &p, in, out);
        return GPUIMG_OK;
    }
    void *t = lut_build(fn, in->depth, &p);
    if (!t)
        return gpuimg_fail(GPUIMG_ENOMEM, "out of memory for a look-up table");
    rows[in->depth == 16][c - 1](in, out, t);
    free(t);
    return GPUIMG_OK;
}

#ifdef HAVE_CUDA
/* The table form's GPU state: the table in device memory, and its operation for messages. */
struct pw_lut_gpu {
    const struct op_desc *op;
    void *block;          /* the device allocation */
    const void *table;    /* the table in it */
};

int pointwise_lut_prepare(const struct op_desc *op, pw_sample_fn *fn, const struct op_args *a, const struct geom *in,
                          int variant, void **state)
{
    struct pw_args p;
    pointwise_args(a, &p);
    struct pw_lut_gpu *s = calloc(1, sizeof *s);
    void *t = s ? lut_build(fn, in->depth, &p) : NULL;
    if (!t) {
        free(s);
        return gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory for its look-up table", op->name);
    }
    s->op = op;
    const void *host[1] = { t };
    const size_t bytes[1] = { (in->depth == 16 ? 65536u : 256u) * (size_t)(in->depth / 8) };
    void *part[1];
    int r = op_upload_parts(op, variant, &s->block, 1, host, bytes, part);
    free(t);
    if (r) {
        free(s);
        return r;
    }
    s->table = part[0];
    *state = s;
    return GPUIMG_OK;
}

int pointwise_lut_launch(const struct op_args *a, const void *state, const struct gpu_call *k,
                         const struct gpu_image *in, const struct gpu_image *out, const char **ran)
{
    const struct pw_lut_gpu *s = state;
    char err[256];
    return gpu_pw_lut(k, in, out, s->table, err, sizeof err) ? op_cuda_fail(s->op, k->variant, err) : GPUIMG_OK;
}

void pointwise_lut_release(void *state)
{
    struct pw_lut_gpu *s = state;
    if (s)
        gpu_free(s->block);
    free(s);
}

int pointwise_gpu(const struct op_desc *op, pw_launcher *fn, const struct op_args *a, const struct gpu_call *k,
                  const struct gpu_image *in, const struct gpu_image *out)
{
    struct pw_args p;
    pointwise_args(a, &p);
    char err[256];
    return fn(k, in, out, &p, err, sizeof err) ? op_cuda_fail(op, k->variant, err) : GPUIMG_OK;
}
#endif
