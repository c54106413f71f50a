/* gpuimg: resize, texture: bilinear by the texture unit, one channel; within GPU_TEXTURE_TOL of exact. */
#include "cuda/common.cuh"
#include "cuda/resize/kernels.h"

/* texture: bilinear by the texture unit, for one-channel images. The source is bound as a
 * pitched 2D texture (normalised reads, clamp to edge, unnormalised coordinates): sampling at
 * (x' + 0.5) * in/out, which is pixel centre (x' + 0.5) * in/out - 0.5 in the hardware's +0.5
 * convention, gives the same taps as the exact kernel with weights of 8 fraction bits. Rows that
 * are not aligned as textures need are copied into a pitched scratch first (timed with it). */
template <typename T>
__global__ void tex_bilinear(cudaTextureObject_t tex, T *out, int ow, int oh, float sx, float sy)
{
    const float scale = sizeof(T) == 1 ? 255.f : 65535.f;
    for_perpixel(ow, oh, [&](int x, int y) {
        const float v = tex2D<float>(tex, (x + 0.5f) * sx, (y + 0.5f) * sy);
        out[(size_t)y * ow + x] = (T)__float2uint_rn(v * scale);
    });
}

static size_t tex_pitch(int w, int depth)
{
    const int align = dev_attr(cudaDevAttrTexturePitchAlignment, 512);
    const size_t row = (size_t)w * (depth / 8);
    return (row + align - 1) / align * align;
}

extern "C" size_t gpu_texture_scratch(int w, int h, int depth)
{
    const size_t p = tex_pitch(w, depth);
    return p == (size_t)w * (depth / 8) ? 0 : p * h;
}

extern "C" int gpu_texture_bilinear(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out, void *scratch, char *err,
                                    size_t errlen)
{
    if (in->c != 1 || in->gray_from) {
        snprintf(err, errlen, "gpu_texture_bilinear: %d channels", in->c);
        return (int)cudaErrorInvalidValue;
    }
    const size_t row = (size_t)in->w * (in->depth / 8), pitch = tex_pitch(in->w, in->depth);
    void *src = in->data;
    if (pitch != row || (uintptr_t)src % dev_attr(cudaDevAttrTextureAlignment, 512)) {
        if (!scratch) {
            snprintf(err, errlen, "gpu_texture_bilinear: unaligned input and no scratch");
            return (int)cudaErrorInvalidValue;
        }
        CUDA_TRY(cudaMemcpy2DAsync(scratch, pitch, in->data, row, row, in->h, cudaMemcpyDeviceToDevice), err, errlen);
        src = scratch;
    }
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypePitch2D;
    rd.res.pitch2D.devPtr = src;
    rd.res.pitch2D.desc = in->depth == 8 ? cudaCreateChannelDesc<uint8_t>() : cudaCreateChannelDesc<uint16_t>();
    rd.res.pitch2D.width = in->w;
    rd.res.pitch2D.height = in->h;
    rd.res.pitch2D.pitchInBytes = pitch;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeNormalizedFloat;
    td.normalizedCoords = 0;
    cudaTextureObject_t tex = 0;
    CUDA_TRY(cudaCreateTextureObject(&tex, &rd, &td, nullptr), err, errlen);
    const float sx = (float)in->w / out->w, sy = (float)in->h / out->h;
    const dim3 b = perpixel_block(k->shape), g = grid2d(out->w, out->h, b);
    if (in->depth == 8)
        launch(tex_bilinear<uint8_t>, g, b, 0, 1, tex, (uint8_t *)out->data, out->w, out->h, sx, sy);
    else
        launch(tex_bilinear<uint16_t>, g, b, 0, 1, tex, (uint16_t *)out->data, out->w, out->h, sx, sy);
    const cudaError_t le = cudaGetLastError();
    /* destroying is deferred by the driver until the work using it is done */
    cudaDestroyTextureObject(tex);
    if (le != cudaSuccess) {
        snprintf(err, errlen, "%s", cudaGetErrorString(le));
        return (int)le;
    }
    return 0;
}

