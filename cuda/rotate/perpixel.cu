/* gpuimg: rotate, perpixel: one thread an output pixel, a 2D grid (sample.h's arithmetic). */
#include "cuda/rotate/rotate.cuh"

template <typename T, int C>
__global__ void rotate_perpixel(const T *in, int iw, int ih, T *out, int ow, int oh, gpu_rot r)
{
    for_perpixel(ow, oh, [&](int x, int y) { rot_pixel<T, C>(r, in, iw, ih, out, ow, x, y); });
}

template <typename T, int C>
static int launch_perpixel(const gpu_call *k, const gpu_image *in, const gpu_image *out, const gpu_rot *r)
{
    const dim3 b = perpixel_block(k->shape), g = grid2d(out->w, out->h, b);
    launch(rotate_perpixel<T, C>, g, b, 0, 1, (const T *)in->data, in->w, in->h, (T *)out->data, out->w, out->h, *r);
    return 0;
}

ROTATE_LAUNCHER(gpu_rotate_perpixel, launch_perpixel)
