/* gpuimg bench: NVIDIA NPP's functions for the same operations, timed like ours (3 warm-up calls,
 * then CUDA events around each call, median), on the same device buffers. Built only when
 * configure finds NPP. 8-bit only; NPP's gaussian for blur=2 is its fixed 13x13 mask (sigma about
 * 2), its resize NPPI_INTER_LINEAR for the default filter (the anchors the issue's targets were set
 * from), NPPI_INTER_CUBIC for :filter=cubic and NPPI_INTER_LANCZOS for :filter=lanczos3 (NPP's do
 * not widen their taps when shrinking: less work than ours, not the same bits). Other sigmas
 * (gpu_bench --sigma) run FilterGaussAdvancedBorder with gpuimg's tap count, round(6 sigma + 1) | 1,
 * and float weights exp(-k^2 / (2 sigma^2)) normalised: the same work, not the same bits. */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include <npp.h>

static NppStreamContext npp_ctx()
{
    NppStreamContext c;
    std::memset(&c, 0, sizeof c);
    cudaGetDevice(&c.nCudaDeviceId);
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, c.nCudaDeviceId);
    c.nMultiProcessorCount = p.multiProcessorCount;
    c.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
    c.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
    c.nSharedMemPerBlock = p.sharedMemPerBlock;
    c.nCudaDevAttrComputeCapabilityMajor = p.major;
    c.nCudaDevAttrComputeCapabilityMinor = p.minor;
    return c;
}

/* The gaussian for blur=sigma in device memory (taps in *ntaps), made once a sigma; NULL on failure */
static const Npp32f *gauss_taps(double sigma, int *ntaps)
{
    static double made = 0;
    static int n = 0;
    static Npp32f *dev = NULL;
    if (sigma != made) {
        n = (int)std::lround(sigma * 6 + 1) | 1;
        std::vector<float> k(n);
        double sum = 0;
        for (int i = 0; i < n; i++)
            sum += k[i] = (float)std::exp(-(double)(i - n / 2) * (i - n / 2) / (2 * sigma * sigma));
        for (int i = 0; i < n; i++)
            k[i] = (float)(k[i] / sum);
        cudaFree(dev);
        dev = NULL;
        if (cudaMalloc(&dev, n * sizeof(Npp32f)) != cudaSuccess
            || cudaMemcpy(dev, k.data(), n * sizeof(Npp32f), cudaMemcpyHostToDevice) != cudaSuccess)
            return NULL;
        made = sigma;
    }
    *ntaps = n;
    return dev;
}

/* NPP's interpolation for a resize step, or -1 where NPP has none like it */
static int resize_mode(const char *op)
{
    if (std::strncmp(op, "resize=", 7) || std::strchr(op, ','))
        return -1;
    const char *f = std::strstr(op, ":filter=");
    if (!f)
        return NPPI_INTER_LINEAR;
    f += 8;
    return !std::strcmp(f, "cubic") ? NPPI_INTER_CUBIC : !std::strcmp(f, "lanczos3") ? NPPI_INTER_LANCZOS : -1;
}

/* One call of NPP's function for op on c-channel 8-bit images; w x h is the input, dw x dh the
 * output. */
static NppStatus call(const char *op, int c, int w, int h, int dw, int dh, const Npp8u *in, Npp8u *out,
                      NppStreamContext ctx)
{
    NppiSize sz = { w, h };
    if (!std::strncmp(op, "blur=", 5) && std::strcmp(op, "blur=2")) {
        int n;
        const Npp32f *k = gauss_taps(std::atof(op + 5), &n);
        NppiPoint o = { 0, 0 };
        if (!k)
            return NPP_MEMORY_ALLOCATION_ERR;
        return c == 1 ? nppiFilterGaussAdvancedBorder_8u_C1R_Ctx(in, w, sz, o, out, w, sz, n, k, NPP_BORDER_REPLICATE,
                                                                 ctx)
             : c == 3 ? nppiFilterGaussAdvancedBorder_8u_C3R_Ctx(in, w * 3, sz, o, out, w * 3, sz, n, k,
                                                                 NPP_BORDER_REPLICATE, ctx)
                      : nppiFilterGaussAdvancedBorder_8u_C4R_Ctx(in, w * 4, sz, o, out, w * 4, sz, n, k,
                                                                 NPP_BORDER_REPLICATE, ctx);
    }
    if (!std::strcmp(op, "gray"))
        return c == 3 ? nppiRGBToGray_8u_C3C1R_Ctx(in, w * 3, out, w, sz, ctx)
                      : nppiRGBToGray_8u_AC4C1R_Ctx(in, w * 4, out, w, sz, ctx);
    const int mode = resize_mode(op);
    if (mode >= 0) {
        NppiSize dsz = { dw, dh };
        NppiRect sr = { 0, 0, w, h }, dr = { 0, 0, dw, dh };
        return c == 1 ? nppiResize_8u_C1R_Ctx(in, w, sz, sr, out, dw, dsz, dr, mode, ctx)
             : c == 3 ? nppiResize_8u_C3R_Ctx(in, w * 3, sz, sr, out, dw * 3, dsz, dr, mode, ctx)
                      : nppiResize_8u_C4R_Ctx(in, w * 4, sz, sr, out, dw * 4, dsz, dr, mode, ctx);
    }
    if (!std::strcmp(op, "blur=2")) {
        NppiPoint o = { 0, 0 };
        return c == 1 ? nppiFilterGaussBorder_8u_C1R_Ctx(in, w, sz, o, out, w, sz, NPP_MASK_SIZE_13_X_13,
                                                         NPP_BORDER_REPLICATE, ctx)
             : c == 3 ? nppiFilterGaussBorder_8u_C3R_Ctx(in, w * 3, sz, o, out, w * 3, sz, NPP_MASK_SIZE_13_X_13,
                                                         NPP_BORDER_REPLICATE, ctx)
                      : nppiFilterGaussBorder_8u_C4R_Ctx(in, w * 4, sz, o, out, w * 4, sz, NPP_MASK_SIZE_13_X_13,
                                                         NPP_BORDER_REPLICATE, ctx);
    }
    if (!std::strcmp(op, "transpose"))
        return c == 1 ? nppiTranspose_8u_C1R_Ctx(in, w, out, h, sz, ctx)
             : c == 3 ? nppiTranspose_8u_C3R_Ctx(in, w * 3, out, h * 3, sz, ctx)
                      : nppiTranspose_8u_C4R_Ctx(in, w * 4, out, h * 4, sz, ctx);
    return NPP_NOT_SUPPORTED_MODE_ERROR;
}

/* 0 and *ms (median of repeat) when NPP has the operation for this layout, 1 when it has not,
 * -1 on an error (message in err). w x h is the input, dw x dh the output. */
extern "C" int bench_npp(const char *op, int c, int depth, int w, int h, int dw, int dh, const void *in, void *out,
                         int repeat, double *ms, char *err, size_t errlen)
{
    if (depth != 8 || c == 2 || (!std::strcmp(op, "gray") && c < 3))
        return 1;
    if (std::strcmp(op, "gray") && resize_mode(op) < 0 && std::strncmp(op, "blur=", 5) && std::strcmp(op, "transpose"))
        return 1;
    NppStreamContext ctx = npp_ctx();
    const Npp8u *s = (const Npp8u *)in;
    Npp8u *d = (Npp8u *)out;
    for (int k = 0; k < 3; k++) {
        NppStatus st = call(op, c, w, h, dw, dh, s, d, ctx);
        if (st != NPP_SUCCESS) {
            std::snprintf(err, errlen, "NPP %s on %d channels: status %d", op, c, (int)st);
            return -1;
        }
    }
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> t(repeat);
    for (int k = 0; k < repeat; k++) {
        cudaEventRecord(a);
        call(op, c, w, h, dw, dh, s, d, ctx);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        cudaEventElapsedTime(&t[k], a, b);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        std::snprintf(err, errlen, "NPP %s: %s", op, cudaGetErrorString(e));
        return -1;
    }
    std::sort(t.begin(), t.end());
    *ms = t[repeat / 2];
    return 0;
}
