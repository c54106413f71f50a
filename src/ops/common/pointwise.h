/* gpuimg: the pointwise template, for an operation that maps each colour sample to a function of
 * it alone (and of the step's parameters), keeping the layout and copying alpha. The operation
 * says only that function, once here for the CPU and once for the GPU (cuda/pointwise.cuh); the
 * template gives the rest: 8 and 16 bits, 1 to 4 channels, the OpenMP loop, tiles
 * (op_region_point), the perpixel, coalesced and vector kernels and their launch. src/ops/invert/
 * and cuda/invert/ are one such operation, whole; HACKING.md ("The registry and adding an
 * operation") gives the steps around it. A function the GPU cannot repeat to the bit takes the
 * table form below: written once, for the CPU.
 *
 * In src/ops/NAME/NAME.c, with a static inline function
 *     uint32_t SAMPLE(uint32_t v, uint32_t top, const struct pw_args *p)
 * (v and its result 0..top, top = 255 or 65535; p: the step's parameters; no side effects: the
 * loop also calls it on alpha samples and drops those results) write POINTWISE_SAMPLES(NAME,
 * SAMPLE), and in the descriptor POINTWISE_FIELDS(NAME, AUTO), which sets resolve, cpu, region and
 * the GPU's fields, AUTO being the variant --kernel=auto takes. A function of a pixel's colours
 * together (a colour matrix) is not pointwise here: it needs loops of its own.
 *
 * SAMPLE and the GPU's sample must give the same integer for every v and p. Integer arithmetic
 * does. Floating point does only with each rounding spelled out: nvcc fuses a * b + c into one
 * fma, rounded once, and gcc only for a target that has one (x86-64's baseline has none), so the
 * GPU's products and sums are written __dmul_rn and __dadd_rn (never fused); CUDA's pow, exp and
 * log are not the C library's. */
#ifndef GPUIMG_OPS_POINTWISE_H
#define GPUIMG_OPS_POINTWISE_H
#include <math.h>
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

/* One layout's rows, a row as one run of samples. With alpha (every C-th sample, C = 2 or 4) the
 * result is blended with the input through a mask m of 16 samples (alpha's all ones): the loop
 * then has no branch and no pixel stride, and the compiler vectorises it (a loop over pixels is
 * not, for RGBA). The bounds are locals: a store through d could otherwise change in->w. */
#define POINTWISE_ROWS_(NAME, SAMPLE, T, C)                                                              \
    static void NAME##_pw_##T##_##C(const struct image *in, struct image *out, const struct pw_args *p)  \
    {                                                                                                    \
        const uint32_t top = (T)~(T)0;                                                                   \
        const size_t n = (size_t)in->w * C, is = in->stride, os = out->stride;                           \
        const uint8_t *const src = in->data;                                                             \
        uint8_t *const dst = out->data;                                                                  \
        const int h = in->h;                                                                             \
        T m[16];                                                                                         \
        for (int j = 0; j < 16; j++)                                                                     \
            m[j] = (C == 2 || C == 4) && j % C == C - 1 ? (T)top : 0;                                    \
        _Pragma("omp parallel for schedule(static)")                                                     \
        for (int y = 0; y < h; y++) {                                                                    \
            const T *restrict s = (const T *)(src + (size_t)y * is);                                     \
            T *restrict d = (T *)(dst + (size_t)y * os);                                                 \
            size_t i = 0;                                                                                \
            if (C == 1 || C == 3)                                                                        \
                for (; i < n; i++)                                                                       \
                    d[i] = (T)SAMPLE(s[i], top, p);                                                      \
            for (; i + 16 <= n; i += 16)                                                                 \
                for (int j = 0; j < 16; j++)                                                             \
                    d[i + j] = (T)(((T)SAMPLE(s[i + j], top, p) & (T)~m[j]) | (s[i + j] & m[j]));        \
            for (; i < n; i++)                                                                           \
                d[i] = (T)(((T)SAMPLE(s[i], top, p) & (T)~m[i % 16]) | (s[i] & m[i % 16]));              \
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

/* The eight layouts' rows, the cpu function that picks one, and the GPU's launch. */
#define POINTWISE_SAMPLES(NAME, SAMPLE)                                                                  \
    extern const struct op_desc op_##NAME;                                                               \
    POINTWISE_ROWS_(NAME, SAMPLE, uint8_t, 1)                                                            \
    POINTWISE_ROWS_(NAME, SAMPLE, uint8_t, 2)                                                            \
    POINTWISE_ROWS_(NAME, SAMPLE, uint8_t, 3)                                                            \
    POINTWISE_ROWS_(NAME, SAMPLE, uint8_t, 4)                                                            \
    POINTWISE_ROWS_(NAME, SAMPLE, uint16_t, 1)                                                           \
    POINTWISE_ROWS_(NAME, SAMPLE, uint16_t, 2)                                                           \
    POINTWISE_ROWS_(NAME, SAMPLE, uint16_t, 3)                                                           \
    POINTWISE_ROWS_(NAME, SAMPLE, uint16_t, 4)                                                           \
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

#define POINTWISE_FIELDS(NAME, AUTO)                                                                     \
    .resolve = pointwise_resolve, .cpu = NAME##_pw_cpu, .region = op_region_point,                       \
    GPU_FIELDS(POINTWISE_VARIANTS, (AUTO), NULL, NAME##_pw_gpu, NULL), .gpu_shape = { [KV_VECTOR] = SHAPE_1D }

/* The table form: a function the GPU cannot repeat to the bit (the C library's pow, exp or log:
 * CUDA's are others) is written once, for the CPU, in any arithmetic, as
 *     static uint32_t SAMPLE(uint32_t v, uint32_t top, const struct pw_args *p)
 * (the same contract as above) with POINTWISE_LUT(NAME, SAMPLE) beside it and
 * POINTWISE_LUT_FIELDS(NAME, AUTO) in the descriptor; it has no .cu. A step's table holds SAMPLE
 * of every v from 0 to top (256 or 65536 entries), built once: the CPU maps the image through it
 * (or calls SAMPLE on each sample of an image with fewer samples than the table has), and
 * gpu_prepare uploads it for the template's kernels (cuda/pointwise_lut.cu), which look each
 * colour sample up. So every path gives SAMPLE's integers. */
typedef uint32_t pw_sample_fn(uint32_t v, uint32_t top, const struct pw_args *p);

/* x to the nearest integer, halves up (floor(x + 0.5)), clamped to 0..top: the table form's
 * functions' rounding. */
static inline uint32_t pw_round(double x, uint32_t top)
{
    const double r = floor(x + 0.5);
    return r <= 0 ? 0 : r >= top ? top : (uint32_t)r;
}

int pointwise_lut_cpu(pw_sample_fn *fn, const struct op_args *a, const struct image *in, struct image *out);
#ifdef HAVE_CUDA
int pointwise_lut_prepare(const struct op_desc *op, pw_sample_fn *fn, const struct op_args *a, const struct geom *in,
                          int variant, void **state);
int pointwise_lut_launch(const struct op_args *a, const void *state, const struct gpu_call *k,
                         const struct gpu_image *in, const struct gpu_image *out, const char **ran);
void pointwise_lut_release(void *state);
#define POINTWISE_LUT_GPU_(NAME, SAMPLE)                                                                 \
    static int NAME##_lut_prepare(const struct op_args *a, const struct geom *in, const struct geom *out, \
                                  int variant, void **state)                                             \
    {                                                                                                    \
        return pointwise_lut_prepare(&op_##NAME, SAMPLE, a, in, variant, state);                         \
    }
#else
#define POINTWISE_LUT_GPU_(NAME, SAMPLE)
#endif

#define POINTWISE_LUT(NAME, SAMPLE)                                                                      \
    extern const struct op_desc op_##NAME;                                                               \
    static int NAME##_lut_cpu(const struct op_args *a, const struct image *in, struct image *out)       \
    {                                                                                                    \
        return pointwise_lut_cpu(SAMPLE, a, in, out);                                                    \
    }                                                                                                    \
    POINTWISE_LUT_GPU_(NAME, SAMPLE)

#define POINTWISE_LUT_FIELDS(NAME, AUTO)                                                                 \
    .resolve = pointwise_resolve, .cpu = NAME##_lut_cpu, .region = op_region_point,                      \
    GPU_FIELDS(POINTWISE_VARIANTS, (AUTO), NAME##_lut_prepare, pointwise_lut_launch, pointwise_lut_release), \
    .gpu_shape = { [KV_VECTOR] = SHAPE_1D }

#endif
