/* gpuimg: composite, coalesced: the copy engine copies the image, then a kernel composites over
 * the overlay's rectangle clipped to the image only, GPU_PPT pixels a thread along its rows, a
 * warp's pixels consecutive at each step. */
#include "cuda/composite/composite.cuh"

template <typename T, int C, int PPT>
__global__ void composite_rect(const T *in, T *out, int w, const T *ov, composite_place p, int x0, int y0, int rw,
                               int rh)
{
    constexpr int OC = (C == 2 || C == 4 ? C : C + 1);
    for_coalesced<PPT>(rw, rh, [&](int rx, int ry) {
        const int x = x0 + rx, y = y0 + ry;
        const size_t i = ((size_t)y * w + x) * C;
        composite_one<T, C>(in + i, ov + ((size_t)(y - p.y) * p.ow + (x - p.x)) * OC, out + i, p.o, p.mode);
    });
}

template <typename T, int C>
static int launch_rect(const gpu_call *k, const gpu_image *in, const gpu_image *out, const void *ov,
                       const composite_place &p, int x0, int y0, int rw, int rh, char *err, size_t errlen)
{
    const unsigned th = threads1d(k->shape);
    PPT_SWITCH(ppt_choice(k->shape), launch(composite_rect<T, C, P>, grid_coalesced(rw, rh, th, P), th, 0, P,
                                            (const T *)in->data, (T *)out->data, in->w, (const T *)ov, p, x0, y0, rw,
                                            rh));
    LAUNCH_TRY(err, errlen);
    return 0;
}

int composite_coalesced(const gpu_call *k, const gpu_image *in, const gpu_image *out, const void *ov,
                        const composite_place &p, int x0, int y0, int x1, int y1, char *err, size_t errlen)
{
    const size_t bytes = (size_t)in->w * in->h * bpp_of(in);
    CUDA_TRY(cudaMemcpyAsync(out->data, in->data, bytes, cudaMemcpyDeviceToDevice, 0), err, errlen);
    if (!ov)
        return 0;
    return DISPATCH_TC(in->depth, in->c, launch_rect, k, in, out, ov, p, x0, y0, x1 - x0, y1 - y0, err, errlen);
}
