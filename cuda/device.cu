/* gpuimg: device discovery. gpu_probe() decides whether a GPU is usable: the runtime finds at
 * least one device (cudaGetDeviceCount fails with cudaErrorNoDevice or, where no driver is
 * installed, cudaErrorInsufficientDriver (35)), a context can be made on the requested one, and a
 * one-thread kernel runs and writes back what it was told to. Context creation and that first
 * launch are timed here so that no operation's time ever includes them. */
#include <chrono>
#include <cstring>
#include "check.h"
#include "gpu.h"

__global__ void probe_kernel(int *out, int v) { *out = v; }

extern "C" int gpu_probe(int device, struct gpu_info *info, char *err, size_t errlen)
{
    std::memset(info, 0, sizeof *info);
    auto t0 = std::chrono::steady_clock::now();
    int n = 0;
    CUDA_TRY(cudaGetDeviceCount(&n), err, errlen);
    if (n <= 0 || device < 0 || device >= n) {
        std::snprintf(err, errlen, "device %d requested, %d present", device, n);
        return (int)cudaErrorInvalidDevice;
    }
    info->count = n;
    info->device = device;
    CUDA_TRY(cudaSetDevice(device), err, errlen);
    cudaDeviceProp p;
    CUDA_TRY(cudaGetDeviceProperties(&p, device), err, errlen);
    std::snprintf(info->name, sizeof info->name, "%s", p.name);
    info->cc_major = p.major;
    info->cc_minor = p.minor;
    int *d = nullptr, h = 0;
    CUDA_TRY(cudaMalloc(&d, sizeof(int)), err, errlen);
    probe_kernel<<<1, 1>>>(d, 0x5eed);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    cudaFree(d);
    if (e != cudaSuccess) {
        std::snprintf(err, errlen, "test kernel on device %d (%s, sm_%d%d): %s (%d)", device, p.name, p.major, p.minor,
                      cudaGetErrorString(e), (int)e);
        return (int)e;
    }
    if (h != 0x5eed) {
        std::snprintf(err, errlen, "test kernel on device %d returned a wrong value", device);
        return (int)cudaErrorUnknown;
    }
    CUDA_TRY(cudaMemGetInfo(&info->mem_free, &info->mem_total), err, errlen);
    info->init_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return 0;
}
