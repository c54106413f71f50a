/* gpuimg: gaussian blur. A separable kernel of size round(6 sigma + 1) | 1 taps for 8 bits and
 * round(8 sigma + 1) | 1 for 16 bits (OpenCV's choice), with OpenCV's fixed-point weights (Q8 for
 * 8 bits, Q16 for 16; ops/common/gauss.h, which sharpen shares), run by the shared separable
 * engine (premultiplied alpha): bit-exact with cv2.GaussianBlur without alpha. Borders: reflect101
 * (dcb|abcd|cba, folded again for kernels wider than the image), replicate, or constant 0. */
#include <config.h>
#include <stdlib.h>
#include "core/error.h"
#include "core/op.h"
#include "ops/common/gauss.h"
#include "cuda/blur/kernels.h"
#include "cuda/sepfilter/kernels.h"

extern const struct op_desc op_blur;   /* this operation, defined at the end */

enum { P_SIGMA, P_BORDER };   /* border: GAUSS_REFLECT101, GAUSS_REPLICATE, GAUSS_CONSTANT in choice order */
static const struct op_param params[] = {
    { "sigma", PARAM_NUMBER, 0, 100, 1, NULL, NULL, "standard deviation of the gaussian in pixels" },
    { "border", PARAM_CHOICE, 0, 0, 0, "reflect101|replicate|constant", "reflect101",
      "what lies beyond the edges: mirror without repeating the edge, repeat the edge, or 0" },
};

static int resolve(struct op_args *a, const struct geom *in, struct geom *out)
{
    *out = *in;
    return GPUIMG_OK;
}

static int cpu(const struct op_args *a, const struct image *in, struct image *out)
{
    struct gauss g;
    int r = gauss_make(&g, a->v[P_SIGMA].num, in->depth, a->v[P_BORDER].choice, in->w, in->h);
    if (!r)
        r = sepfilter_run(in, out, &g.tx, &g.ty);
    gauss_free(&g);
    return r;
}

#ifdef HAVE_CUDA
/* Border map for the separable kernels: source index of positions -r .. n+r-1, or -1. */
static int32_t *border_map(int n, int rad, int mode)
{
    int32_t *m = malloc(sizeof *m * ((size_t)n + 2 * rad));
    if (m)
        for (int p = -rad; p < n + rad; p++)
            m[p + rad] = gauss_border_index(p, n, mode);
    return m;
}

/* A blur step's device state. perpixel, coalesced: the tap tables the CPU uses. separable, tiled
 * and tensor: the kernel, the two border maps and, for separable, scratch for the exact column
 * sums (gpu_blur_scratch); tensor also whether every Q8 weight fits a byte. */
struct blur_gpu {
    void *block;                       /* the one device allocation the tables below are in */
    int ksize;
    int q8_bytes;                      /* every Q8 weight below 256 (the tensor kernel's bytes) */
    const uint32_t *kern;              /* separable, tiled, tensor */
    const int32_t *bx, *by;
    void *scratch;                     /* NULL where the variant runs without */
    const int32_t *xi, *yi;            /* perpixel, coalesced: ksize taps an output */
    const uint32_t *xw, *yw;
};

static void gpu_release(void *state)
{
    struct blur_gpu *s = state;
    if (s)
        gpu_free(s->block);
    free(s);
}

static int gpu_prepare(const struct op_args *a, const struct geom *in, const struct geom *out, int variant,
                       void **state)
{
    const int mode = a->v[P_BORDER].choice;
    int ksize, r;
    struct blur_gpu *s = calloc(1, sizeof *s);
    uint32_t *kern = s ? gauss_kernel(a->v[P_SIGMA].num, in->depth, &ksize) : NULL;
    if (!kern) {
        free(s);
        return gpuimg_fail(GPUIMG_ENOMEM, "out of memory for the blur tables");
    }
    s->ksize = ksize;
    void *part[4];
    if (variant == KV_SEPARABLE || variant == KV_TILED || variant == KV_TENSOR) {
        const int rad = ksize / 2;
        int32_t *bx = border_map(in->w, rad, mode), *by = border_map(in->h, rad, mode);
        const void *host[4] = { kern, bx, by, NULL };
        s->q8_bytes = 1;   /* a weight of 256 (a tiny sigma's centre) does not fit the tensor kernel's bytes */
        for (int k = 0; k < ksize; k++)
            if (kern[k] > 255u << 8)
                s->q8_bytes = 0;
        /* scratch for the two-pass kernel (tiled and tensor need it only when they fall back to it) */
        const int scratch = variant == KV_SEPARABLE
                            || (!gpu_blur_tiled_scratchless(in->c, in->depth, ksize)
                                && !(variant == KV_TENSOR
                                     && gpu_blur_tensor_applies(in->c, in->depth, ksize, s->q8_bytes, in->w, in->h) == 1));
        const size_t bytes[4] = { (size_t)ksize * 4, ((size_t)in->w + 2 * rad) * 4, ((size_t)in->h + 2 * rad) * 4,
                                  scratch ? gpu_blur_scratch(in->w, in->h, in->c, in->depth) : 0 };
        r = bx && by ? op_upload_parts(&op_blur, variant, &s->block, 4, host, bytes, part)
                     : (int)gpuimg_fail(GPUIMG_ENOMEM, "out of memory for the blur tables");
        if (!r) {
            s->kern = part[0];
            s->bx = part[1];
            s->by = part[2];
            s->scratch = scratch ? part[3] : NULL;
        }
        free(bx);
        free(by);
    } else {
        struct gauss g;
        r = gauss_make(&g, a->v[P_SIGMA].num, in->depth, mode, in->w, in->h);
        if (!r) {
            const void *host[4] = { g.tx.idx, g.tx.w, g.ty.idx, g.ty.w };
            const size_t nx = (size_t)g.tx.count * ksize * 4, ny = (size_t)g.ty.count * ksize * 4;
            const size_t bytes[4] = { nx, nx, ny, ny };
            r = op_upload_parts(&op_blur, variant, &s->block, 4, host, bytes, part);
            gauss_free(&g);
        }
        if (!r) {
            s->xi = part[0];
            s->xw = part[1];
            s->yi = part[2];
            s->yw = part[3];
        }
    }
    free(kern);
    if (r)
        gpu_release(s);
    else
        *state = s;
    return r;
}

static int gpu_launch(const struct op_args *a, const void *state, const struct gpu_call *k, const struct gpu_image *in,
                      const struct gpu_image *out, const char **ran)
{
    const struct blur_gpu *s = state;
    char err[256];
    int rc = k->variant == KV_SEPARABLE
                 ? gpu_blur_separable(in, out, s->kern, s->ksize, s->bx, s->by, s->scratch, err, sizeof err)
             : k->variant == KV_TILED
                 ? gpu_blur_tiled(in, out, s->kern, s->ksize, s->bx, s->by, s->scratch, ran, err, sizeof err)
             : k->variant == KV_TENSOR ? gpu_blur_tensor(in, out, s->kern, s->ksize, s->q8_bytes, s->bx, s->by,
                                                         s->scratch, ran, err, sizeof err)
                 : gpu_sepfilter(k, in, out, s->xi, s->xw, s->ksize, s->yi, s->yw, s->ksize, err, sizeof err);
    return rc ? op_cuda_fail(&op_blur, k->variant, err) : GPUIMG_OK;
}

/* The one-pass and tensor kernels write their tile transposed as easily as straight; the tensor
 * kernel only up to 64 MiB of image, where that is faster than a transpose apart; above, where
 * each tile's transposed rows of TH pixels at a time cost more, not. The tensor kernel takes
 * it wherever it runs itself (grey+alpha too, which no one-pass kernel writes transposed, and past
 * the one-pass kernels' taps) and where it falls back to the one-pass kernel
 * (gpu_blur_tensor_transposes). */
#define TENSOR_FUSE_MAX (64u << 20)
static unsigned gpu_fuse(const struct op_args *a, const struct geom *in, const struct geom *out, int variant,
                         const void *state)
{
    const struct blur_gpu *s = state;
    size_t bytes = 0;
    geom_bytes(in, &bytes);
    return (variant == KV_TILED && gpu_blur_onepass_applies(in->c, in->depth, s->ksize))
                   || (variant == KV_TENSOR && bytes <= TENSOR_FUSE_MAX
                       && gpu_blur_tensor_transposes(in->c, in->depth, s->ksize, s->q8_bytes, in->w, in->h))
               ? FUSE_TRANSPOSE_OUT
               : 0;
}
#endif

/* auto: the tensor-core kernel where it is the fastest, 8-bit images of 256 KiB and more,
 * grey+alpha from 1.5 MiB; below that the one-pass kernel runs. Each runs the next kernel (one-pass, then two passes) for the sizes it does
 * not take. */
#define TENSOR_MIN_BYTES (256u << 10)
#define TENSOR_MIN_BYTES_GA (3u << 19)
static int blur_auto_for(const struct geom *in)
{
    return in->depth == 8
                   && (size_t)in->w * in->h * in->c >= (in->c == 2 ? TENSOR_MIN_BYTES_GA : TENSOR_MIN_BYTES)
               ? KV_TENSOR
               : KV_TILED;
}

/* A tile needs the gaussian's halo (gauss_region). */
static void region(const struct op_args *a, const struct geom *in, const struct geom *out, const struct rect *want,
                   struct rect *need, struct rect *yields)
{
    gauss_region(a->v[P_SIGMA].num, in, want, need, yields);
}

const struct op_desc op_blur = {
    .name = "blur",
    .summary = "gaussian blur with standard deviation sigma (blur=2, blur=2:border=replicate)",
    .definition =
        "Separable gaussian of ksize = round(6*sigma+1)|1 taps for 8-bit images and round(8*sigma+1)|1 for "
        "16-bit, with OpenCV's fixed-point weights (Q8 for 8 bits, Q16 for 16: exp(-k^2/(2 sigma^2)) "
        "normalised, quantised from the outside in with the error carried inward, the centre making the sum "
        "exact), summed exactly and rounded once. border=reflect101 (default) mirrors without repeating the "
        "edge pixel (dcb|abcd|cba), replicate repeats it, constant uses 0. Without alpha the result equals "
        "cv2.GaussianBlur(img, (0,0), sigma) with the same border bit for bit, 8 and 16 bits. With alpha, "
        "colour is filtered premultiplied (within 1 level of OpenCV on premultiplied float planes; 4 of 65535).",
    .params = params,
    .nparams = 2,
    .resolve = resolve,
    .cpu = cpu,
    .region = region,
    GPU_FIELDS(KV_BIT(KV_PERPIXEL) | KV_BIT(KV_COALESCED) | KV_BIT(KV_TILED) | KV_BIT(KV_SEPARABLE) | KV_BIT(KV_TENSOR),
               KV_TILED,
               gpu_prepare, gpu_launch, gpu_release),
    GPU_FUSE(gpu_fuse),
    .gpu_state_reuse = 1,
    .gpu_auto_for = blur_auto_for,
    .gpu_auto_text = "tensor for 8-bit images of 256 KiB and more (grey+alpha from 1.5 MiB; with alpha up to 49 "
                     "taps), tiled otherwise (two passes, as separable, past 21 to 33 taps by layout)",
    .gpu_shape = { [KV_TILED] = SHAPE_FIXED },
    .examples = EXAMPLES("blur=2"),
};
