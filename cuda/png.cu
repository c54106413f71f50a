/* gpuimg: PNG's rows filtered and deflated on the GPU (built when configure finds nvCOMP). The
 * filter of each row is chosen as the CPU encoder chooses it (the five PNG filters, the smallest
 * sum of absolute values, the first of equals), so the filtered bytes are the CPU's; nvCOMP's
 * batched deflate compresses them in 64 KiB chunks, each a complete raw deflate stream; the
 * chunks are packed on the device and only their bytes come down. The host joins them into one
 * zlib stream (src/io/pngenc.c, pngenc_write_chunks). */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nvcomp/deflate.h>
#include "cuda/gpu.h"

#define CHUNK (64u << 10)   /* nvCOMP's largest deflate chunk, and its fastest */

/* Measuring knobs (bench/README.md): GPUIMG_PNG_GPU_CHUNK, bytes a chunk (a multiple of 8 from
 * 4096 to 65536), and GPUIMG_PNG_GPU_ALGO, nvCOMP's algorithm (0 to 5) for every level. */
static size_t chunk_bytes(void)
{
    const char *e = std::getenv("GPUIMG_PNG_GPU_CHUNK");
    const long v = e ? std::atol(e) : 0;
    return v >= 4096 && v <= (long)CHUNK && v % 8 == 0 ? (size_t)v : CHUNK;
}
#define ROOM 8u             /* bytes after each packed chunk: the join appends up to 6 */
#define THREADS 256

__device__ __forceinline__ unsigned sabs(unsigned char v) { return v < 128 ? v : 256u - v; }

__device__ __forceinline__ unsigned char paeth(int a, int b, int c)
{
    const int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    return (unsigned char)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

/* byte i of a row as PNG stores it: 16-bit samples big-endian (the device image is little-endian) */
__device__ __forceinline__ unsigned char at(const unsigned char *row, size_t i, int swap)
{
    return row[swap ? i ^ 1 : i];
}

__device__ __forceinline__ unsigned char filtered(int f, unsigned char x, unsigned char a, unsigned char b, unsigned char c)
{
    switch (f) {
    case 0: return x;
    case 1: return (unsigned char)(x - a);
    case 2: return (unsigned char)(x - b);
    case 3: return (unsigned char)(x - ((a + b) >> 1));
    default: return (unsigned char)(x - paeth(a, b, c));
    }
}

/* One block a row: the five filters' sums, the smallest chosen, the row written filtered after its
 * type byte. a, b, c are 0 off the image (left of the first pixel, above the first row). */
__global__ void filter_rows(const unsigned char *src, unsigned char *dst, size_t n, int bpp, int swap)
{
    const size_t y = blockIdx.x;
    const unsigned char *x = src + y * n, *p = y ? x - n : nullptr;
    unsigned long long s[5] = { 0, 0, 0, 0, 0 };
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
        const unsigned char v = at(x, i, swap), a = i >= (size_t)bpp ? at(x, i - bpp, swap) : 0;
        const unsigned char b = p ? at(p, i, swap) : 0, c = p && i >= (size_t)bpp ? at(p, i - bpp, swap) : 0;
        for (int f = 0; f < 5; f++)
            s[f] += sabs(filtered(f, v, a, b, c));
    }
    __shared__ unsigned long long part[5][THREADS / 32];
    __shared__ int best;
    for (int f = 0; f < 5; f++) {
        for (int o = 16; o > 0; o /= 2)
            s[f] += __shfl_down_sync(0xffffffffu, s[f], o);
        if ((threadIdx.x & 31) == 0)
            part[f][threadIdx.x / 32] = s[f];
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long t[5];
        for (int f = 0; f < 5; f++) {
            t[f] = 0;
            for (int w = 0; w < THREADS / 32; w++)
                t[f] += part[f][w];
        }
        best = 0;
        for (int f = 1; f < 5; f++)
            if (t[f] < t[best])
                best = f;
        dst[y * (n + 1)] = (unsigned char)best;
    }
    __syncthreads();
    unsigned char *out = dst + y * (n + 1) + 1;
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
        const unsigned char v = at(x, i, swap), a = i >= (size_t)bpp ? at(x, i - bpp, swap) : 0;
        const unsigned char b = p ? at(p, i, swap) : 0, c = p && i >= (size_t)bpp ? at(p, i - bpp, swap) : 0;
        out[i] = filtered(best, v, a, b, c);
    }
}

/* One block a chunk: its compressed bytes to their place in the packed buffer. */
__global__ void pack_chunks(const unsigned char *in, size_t slot, const size_t *lens, const size_t *offs, unsigned char *out)
{
    const unsigned char *s = in + blockIdx.x * slot;
    unsigned char *d = out + offs[blockIdx.x];
    for (size_t i = threadIdx.x; i < lens[blockIdx.x]; i += blockDim.x)
        d[i] = s[i];
}

#define NVCOMP_TRY(call)                                                                                     \
    do {                                                                                                      \
        nvcompStatus_t s_ = (call);                                                                           \
        if (s_ != nvcompSuccess) {                                                                            \
            std::snprintf(err, errlen, "%s: nvCOMP status %d", #call, (int)s_);                             \
            goto done;                                                                                        \
        }                                                                                                     \
    } while (0)
#define CUDA_GO(call)                                                                                        \
    do {                                                                                                      \
        cudaError_t e_ = (call);                                                                              \
        if (e_ != cudaSuccess) {                                                                              \
            std::snprintf(err, errlen, "%s: %s", #call, cudaGetErrorString(e_));                             \
            goto done;                                                                                        \
        }                                                                                                     \
    } while (0)

#define STR2(x) #x
#define STR(x) STR2(x)
extern "C" const char *gpu_nvcomp_version(void)
{
    return STR(NVCOMP_VER_MAJOR) "." STR(NVCOMP_VER_MINOR) "." STR(NVCOMP_VER_PATCH);
}

extern "C" int gpu_png_algorithm(int level)
{
    const char *e = std::getenv("GPUIMG_PNG_GPU_ALGO");
    if (e && e[0] >= '0' && e[0] <= '5' && !e[1])
        return e[0] - '0';
    /* nvCOMP's own words: 2 beats zlib level 1 on ratio, 4 beats level 6 */
    return level <= 5 ? 2 : 4;
}

extern "C" int gpu_png_deflate(const void *src, int w, int h, int c, int depth, int level, struct gpu_png_chunks *out,
                               float *ms, char *err, size_t errlen)
{
    std::memset(out, 0, sizeof *out);
    const size_t bpp = (size_t)c * (depth / 8), n = (size_t)w * bpp, total = (n + 1) * (size_t)h;
    const size_t chunk = chunk_bytes(), nch = (total + chunk - 1) / chunk;
    nvcompBatchedDeflateCompressOpts_t opt = nvcompBatchedDeflateCompressDefaultOpts;
    opt.algorithm = gpu_png_algorithm(level);
    cudaStream_t st = cudaStreamPerThread;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    unsigned char *filt = nullptr, *comp = nullptr, *packed = nullptr, *temp = nullptr, *host = nullptr;
    void **ptrs = nullptr;   /* device: nch input pointers, nch output pointers */
    size_t *sizes = nullptr; /* device: nch input sizes, nch output sizes, nch offsets */
    nvcompStatus_t *status = nullptr;
    size_t maxo = 0, tempb = 0, slot, packed_bytes = 0;
    size_t *hsizes = (size_t *)std::malloc(3 * nch * sizeof(size_t));
    void **hptrs = (void **)std::malloc(2 * nch * sizeof(void *));
    nvcompStatus_t *hstatus = (nvcompStatus_t *)std::malloc(nch * sizeof(nvcompStatus_t));
    int rc = 1;
    err[0] = 0;
    if (!hsizes || !hptrs || !hstatus) {
        std::snprintf(err, errlen, "out of host memory");
        goto done;
    }
    NVCOMP_TRY(nvcompBatchedDeflateCompressGetMaxOutputChunkSize(chunk, opt, &maxo));
    NVCOMP_TRY(nvcompBatchedDeflateCompressGetTempSize(nch, chunk, opt, &tempb, total, st));
    slot = (maxo + 7) & ~(size_t)7;
    CUDA_GO(cudaEventCreate(&e0));
    CUDA_GO(cudaEventCreate(&e1));
    CUDA_GO(cudaMallocAsync((void **)&filt, total, st));
    CUDA_GO(cudaMallocAsync((void **)&comp, nch * slot, st));
    CUDA_GO(cudaMallocAsync((void **)&temp, tempb ? tempb : 1, st));
    CUDA_GO(cudaMallocAsync((void **)&ptrs, 2 * nch * sizeof(void *), st));
    CUDA_GO(cudaMallocAsync((void **)&sizes, 3 * nch * sizeof(size_t), st));
    CUDA_GO(cudaMallocAsync((void **)&status, nch * sizeof(nvcompStatus_t), st));
    for (size_t k = 0; k < nch; k++) {
        hptrs[k] = filt + k * chunk;
        hptrs[nch + k] = comp + k * slot;
        hsizes[k] = total - k * chunk < chunk ? total - k * chunk : chunk;
    }
    CUDA_GO(cudaMemcpyAsync(ptrs, hptrs, 2 * nch * sizeof(void *), cudaMemcpyHostToDevice, st));
    CUDA_GO(cudaMemcpyAsync(sizes, hsizes, nch * sizeof(size_t), cudaMemcpyHostToDevice, st));
    CUDA_GO(cudaEventRecord(e0, st));
    filter_rows<<<(unsigned)h, THREADS, 0, st>>>((const unsigned char *)src, filt, n, (int)bpp, depth == 16);
    CUDA_GO(cudaGetLastError());
    NVCOMP_TRY(nvcompBatchedDeflateCompressAsync((const void *const *)ptrs, sizes, chunk, nch, temp, tempb,
                                                 (void *const *)(ptrs + nch), sizes + nch, opt, status, st));
    CUDA_GO(cudaMemcpyAsync(hsizes + nch, sizes + nch, nch * sizeof(size_t), cudaMemcpyDeviceToHost, st));
    CUDA_GO(cudaMemcpyAsync(hstatus, status, nch * sizeof(nvcompStatus_t), cudaMemcpyDeviceToHost, st));
    CUDA_GO(cudaStreamSynchronize(st));
    for (size_t k = 0; k < nch; k++) {
        if (hstatus[k] != nvcompSuccess || hsizes[nch + k] > maxo) {
            std::snprintf(err, errlen, "nvCOMP deflate of chunk %zu: status %d", k, (int)hstatus[k]);
            goto done;
        }
        hsizes[2 * nch + k] = packed_bytes;
        packed_bytes += hsizes[nch + k] + ROOM;
    }
    CUDA_GO(cudaMallocAsync((void **)&packed, packed_bytes, st));
    CUDA_GO(cudaMemcpyAsync(sizes + 2 * nch, hsizes + 2 * nch, nch * sizeof(size_t), cudaMemcpyHostToDevice, st));
    pack_chunks<<<(unsigned)nch, THREADS, 0, st>>>(comp, slot, sizes + nch, sizes + 2 * nch, packed);
    CUDA_GO(cudaGetLastError());
    CUDA_GO(cudaEventRecord(e1, st));
    if (!(host = (unsigned char *)std::malloc(packed_bytes))) {
        std::snprintf(err, errlen, "out of host memory for %zu bytes", packed_bytes);
        goto done;
    }
    CUDA_GO(cudaMemcpyAsync(host, packed, packed_bytes, cudaMemcpyDeviceToHost, st));
    CUDA_GO(cudaStreamSynchronize(st));
    CUDA_GO(cudaEventElapsedTime(ms, e0, e1));
    out->chunks = (unsigned char **)std::malloc(nch * sizeof *out->chunks);
    out->lens = (size_t *)std::malloc(nch * sizeof *out->lens);
    if (!out->chunks || !out->lens) {
        std::snprintf(err, errlen, "out of host memory");
        goto done;
    }
    for (size_t k = 0; k < nch; k++) {
        out->chunks[k] = host + hsizes[2 * nch + k];
        out->lens[k] = hsizes[nch + k];
    }
    out->buf = host;
    out->n = (int)nch;
    out->bytes = packed_bytes;
    host = nullptr;
    rc = 0;
done:
    if (rc) {
        std::free(out->chunks);
        std::free(out->lens);
        std::memset(out, 0, sizeof *out);
    }
    std::free(host);
    void *dev[] = { filt, comp, temp, ptrs, sizes, status, packed };
    for (void *d : dev)
        if (d)
            cudaFreeAsync(d, st);
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    std::free(hsizes);
    std::free(hptrs);
    std::free(hstatus);
    return rc;
}

extern "C" void gpu_png_chunks_free(struct gpu_png_chunks *c)
{
    std::free(c->buf);
    std::free(c->chunks);
    std::free(c->lens);
    std::memset(c, 0, sizeof *c);
}
