/* gpuimg: resize, vector at exactly 2:1, 8-bit, no alpha (half_u8). Exact. */
#include "cuda/common.cuh"
#include "cuda/resize/kernels.h"

/* vector (exact 2:1, 8-bit, no alpha): a thread makes HP = 4 output pixels of a row from 8x2
 * source pixels, each source row read as aligned words funnel-shifted into place (bytes at the
 * ragged ends of the image one by one). */
#define HP 4

__device__ __forceinline__ uint32_t byte_of(const uint32_t *wd, int j) { return (wd[j >> 2] >> (8 * (j & 3))) & 255u; }

template <int C>
__global__ void half_u8(const uint8_t *__restrict__ in, int iw, int ih, uint8_t *__restrict__ out, int ow, int oh)
{
    constexpr int CI = C, CO = C, NB = 2 * HP * CI, NW = NB / 4;   /* source bytes of one row a thread reads */
    const int k = blockIdx.x * blockDim.x + threadIdx.x, x0 = HP * k;
    if (x0 >= ow)
        return;
    const int n = min(HP, ow - x0);
    const size_t total = (size_t)iw * ih * CI;
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < oh; y += gridDim.y * blockDim.y) {
        uint32_t s[HP * CO] = {};
#pragma unroll
        for (int r = 0; r < 2; r++) {
            const size_t a = ((size_t)(2 * y + r) * iw + 2 * (size_t)x0) * CI, a0 = a & ~(size_t)3;
            uint32_t wd[NW];
            if (n == HP && a0 + 4 * (NW + 1) <= total) {
                load_shifted((const uint32_t *)(in + a0), 8 * (unsigned)(a & 3), wd);
            } else {
#pragma unroll
                for (int i = 0; i < NW; i++)
                    wd[i] = 0;
                for (int j = 0; j < 2 * n * CI; j++)
                    wd[j >> 2] |= (uint32_t)in[a + j] << (8 * (j & 3));
            }
#pragma unroll
            for (int p = 0; p < 2 * HP; p++)
#pragma unroll
                for (int c = 0; c < CO; c++)
                    s[(p / 2) * CO + c] += byte_of(wd, p * CI + c);
        }
        const size_t o = ((size_t)y * ow + x0) * CO;
        if (n == HP && (o & 3) == 0) {
#pragma unroll
            for (int i = 0; i < CO; i++) {   /* HP * CO bytes = CO words */
                uint32_t wv = 0;
#pragma unroll
                for (int b = 0; b < 4; b++)
                    wv |= ((s[4 * i + b] + 2u) >> 2) << (8 * b);
                ((uint32_t *)(out + o))[i] = wv;
            }
        } else {
            for (int j = 0; j < n * CO; j++)
                out[o + j] = (uint8_t)((s[j] + 2u) >> 2);
        }
    }
}

extern "C" int gpu_half_applies(int c, int depth, int iw, int ih, int ow, int oh)
{
    return depth == 8 && (c == 1 || c == 3) && iw == 2 * ow && ih == 2 * oh;
}

extern "C" int gpu_half(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out, char *err, size_t errlen)
{
    const uint8_t *s = (const uint8_t *)in->data;
    uint8_t *d = (uint8_t *)out->data;
    const dim3 block = perpixel_block(k->shape);
    const dim3 grid(grid2d((out->w + HP - 1) / HP, out->h, block));
    if (!gpu_half_applies(in->c, in->depth, in->w, in->h, out->w, out->h) || in->gray_from) {
        snprintf(err, errlen, "gpu_half: no kernel for %d channels at %d bits", in->c, in->depth);
        return (int)cudaErrorInvalidValue;
    }
    if (in->c == 1)
        launch(half_u8<1>, grid, block, 0, HP, s, in->w, in->h, d, out->w, out->h);
    else
        launch(half_u8<3>, grid, block, 0, HP, s, in->w, in->h, d, out->w, out->h);
    LAUNCH_TRY(err, errlen);
    return 0;
}

