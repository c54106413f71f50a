/* gpuimg: the pointwise template, for an operation whose output pixel is a function of its input
 * pixel alone, in the same layout: each colour sample on its own, or a pixel's colour samples
 * together; alpha is copied. The operation says only that function, once here for the CPU and
 * once for the GPU (cuda/pointwise.cuh); the template gives the rest: 8 and 16 bits, 1 to 4
 * channels, the OpenMP loop, tiles (op_region_point), the perpixel, coalesced and vector kernels
 * and their launch. HACKING.md ("The registry and adding an operation") has an example.
 *
 * In src/ops/NAME/NAME.c, with a static inline function of the CPU
 *     uint32_t SAMPLE(uint32_t v, uint32_t top, const struct pw_args *p)
 * (v and its result 0..top, top = 255 or 65535; p: the step's parameters) write
 * POINTWISE_SAMPLES(NAME, SAMPLE), or with
 *     void PIXEL(uint32_t *v, int n, uint32_t top, const struct pw_args *p)
 * (the n colour samples of a pixel, 1 or 3, in place) POINTWISE_PIXELS(NAME, PIXEL); then
 * POINTWISE_FIELDS(NAME, AUTO) in the descriptor sets resolve, cpu, region and the GPU's fields,
 * AUTO being the variant --kernel=auto takes. */
#ifndef GPUIMG_OPS_POINTWISE_H
#define GPUIMG_OPS_POINTWISE_H
#include "core/error.h"
#include "core/op.h"
#include "cuda/pointwise.h"

_Static_assert(OP_MAX_PARAMS <= PW_MAX_PARAMS, "pw_args holds every parameter");

int pointwise_resolve(struct op_args *a, const struct geom *in, struct geom *out);
void pointwise_args(const struct op_args *a, struct pw_args *p);
#ifdef HAVE_CUDA
int pointwise_gpu(const struct op_desc *op, pw_launcher *fn, const struct op_args *a, const struct gpu_call *k,
                  const struct gpu_image *in, const struct gpu_image *out);
#endif

#define POINTWISE_VARIANTS (KV_BIT(KV_PERPIXEL) | KV_BIT(KV_COALESCED) | KV_BIT(KV_VECTOR))

/* One layout's rows: PIXEL on each pixel's colour samples, widened to uint32_t. */
#define POINTWISE_ROWS_(NAME, PIXEL, T, C)                                                               \
    static void NAME##_pw_##T##_##C(const struct image *in, struct image *out, const struct pw_args *p)  \
    {                                                                                                    \
        enum { NC = C == 2 || C == 4 ? C - 1 : C };                                                      \
        const uint32_t top = (T)~(T)0;                                                                   \
        _Pragma("omp parallel for schedule(static)")                                                     \
        for (int y = 0; y < in->h; y++) {                                                                \
            const T *s = (const T *)(in->data + (size_t)y * in->stride);                                 \
            T *d = (T *)(out->data + (size_t)y * out->stride);                                           \
            for (int x = 0; x < in->w; x++, s += C, d += C) {                                            \
                uint32_t v[C];                                                                           \
                for (int c = 0; c < C; c++)                                                              \
                    v[c] = s[c];                                                                         \
                PIXEL(v, NC, top, p);                                                                    \
                for (int c = 0; c < C; c++)                                                              \
                    d[c] = (T)v[c];                                                                      \
            }                                                                                            \
        }                                                                                                \
    }

#ifdef HAVE_CUDA
#define POINTWISE_GPU_(NAME)                                                                             \
    pw_launcher gpu_pw_##NAME;                                                                           \
    static int NAME##_pw_gpu(const struct op_args *a, const void *state, const struct gpu_call *k,       \
                             const struct gpu_image *in, const struct gpu_image *out, const char **ran)  \
    {                                                                                                    \
        return pointwise_gpu(&op_##NAME, gpu_pw_##NAME, a, k, in, out);                                  \
    }
#else
#define POINTWISE_GPU_(NAME)
#endif

#define POINTWISE_PIXELS(NAME, PIXEL)                                                                    \
    extern const struct op_desc op_##NAME;                                                               \
    POINTWISE_ROWS_(NAME, PIXEL, uint8_t, 1)                                                             \
    POINTWISE_ROWS_(NAME, PIXEL, uint8_t, 2)                                                             \
    POINTWISE_ROWS_(NAME, PIXEL, uint8_t, 3)                                                             \
    POINTWISE_ROWS_(NAME, PIXEL, uint8_t, 4)                                                             \
    POINTWISE_ROWS_(NAME, PIXEL, uint16_t, 1)                                                            \
    POINTWISE_ROWS_(NAME, PIXEL, uint16_t, 2)                                                            \
    POINTWISE_ROWS_(NAME, PIXEL, uint16_t, 3)                                                            \
    POINTWISE_ROWS_(NAME, PIXEL, uint16_t, 4)                                                            \
    static int NAME##_pw_cpu(const struct op_args *a, const struct image *in, struct image *out)        \
    {                                                                                                    \
        static void (*const rows[2][4])(const struct image *, struct image *, const struct pw_args *) = { \
            { NAME##_pw_uint8_t_1, NAME##_pw_uint8_t_2, NAME##_pw_uint8_t_3, NAME##_pw_uint8_t_4 },      \
            { NAME##_pw_uint16_t_1, NAME##_pw_uint16_t_2, NAME##_pw_uint16_t_3, NAME##_pw_uint16_t_4 },  \
        };                                                                                               \
        struct pw_args p;                                                                                \
        pointwise_args(a, &p);                                                                           \
        rows[in->depth == 16][in->c - 1](in, out, &p);                                                   \
        return GPUIMG_OK;                                                                                \
    }                                                                                                    \
    POINTWISE_GPU_(NAME)

#define POINTWISE_SAMPLES(NAME, SAMPLE)                                                                  \
    static inline void NAME##_pw_pixel(uint32_t *v, int n, uint32_t top, const struct pw_args *p)       \
    {                                                                                                    \
        for (int i = 0; i < n; i++)                                                                      \
            v[i] = SAMPLE(v[i], top, p);                                                                 \
    }                                                                                                    \
    POINTWISE_PIXELS(NAME, NAME##_pw_pixel)

#define POINTWISE_FIELDS(NAME, AUTO)                                                                     \
    .resolve = pointwise_resolve, .cpu = NAME##_pw_cpu, .region = op_region_point,                       \
    GPU_FIELDS(POINTWISE_VARIANTS, (AUTO), NULL, NAME##_pw_gpu, NULL), .gpu_shape = { [KV_VECTOR] = SHAPE_1D }

#endif
