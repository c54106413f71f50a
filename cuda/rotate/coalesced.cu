/* gpuimg: rotate, coalesced: GPU_PPT (or the shape's) pixels a thread along an output row,
 * warp-stride, so that a warp's stores are contiguous and its reads follow a line of the source
 * (sample.h's arithmetic). */
#include "cuda/rotate/rotate.cuh"

template <typename T, int C, int PPT>
__global__ void rotate_coalesced(const T *in, int iw, int ih, T *out, int ow, int oh, gpu_rot r)
{
    for_coalesced<PPT>(ow, oh, [&](int x, int y) { rot_pixel<T, C>(r, in, iw, ih, out, ow, x, y); });
}

template <typename T, int C>
static int launch_coalesced(const gpu_call *k, const gpu_image *in, const gpu_image *out, const gpu_rot *r)
{
    const unsigned th = threads1d(k->shape);
    PPT_SWITCH(ppt_choice(k->shape), launch(rotate_coalesced<T, C, P>, grid_coalesced(out->w, out->h, th, P), th, 0, P,
                                            (const T *)in->data, in->w, in->h, (T *)out->data, out->w, out->h, *r));
    return 0;
}

ROTATE_LAUNCHER(gpu_rotate_coalesced, launch_coalesced)
