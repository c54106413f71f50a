/* gpuimg: PNG's rows filtered and deflated on the GPU (built when configure finds nvCOMP). The
 * filter of each row is chosen as the CPU encoder chooses it (the five PNG filters, the smallest
 * sum of absolute values, the first of equals), so the filtered bytes are the CPU's; nvCOMP's
 * batched deflate entropy-codes them in 16 KiB chunks, each a complete raw deflate stream, the
 * chunks of the threads encoding at once in one call (combine.h); the chunks are packed on the
 * device and only their bytes come down, with the filtered bytes of those the CPU is to deflate
 * again (see "The split of the work"). The host joins them into one zlib stream
 * (src/io/pngenc.c, pngenc_write_chunks). */
#include <config.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <vector>
#include <nvcomp/deflate.h>
#include "cuda/combine.h"
#include "cuda/gpu.h"

/* nvCOMP is loaded at the first image deflated here, not linked: its library and the C++ runtime
 * it brings cost every process start milliseconds (a command the server runs never needs it). */
static struct {
    decltype(&::nvcompBatchedDeflateCompressAsync) nvcompBatchedDeflateCompressAsync;
    decltype(&::nvcompBatchedDeflateCompressGetMaxOutputChunkSize) nvcompBatchedDeflateCompressGetMaxOutputChunkSize;
    decltype(&::nvcompBatchedDeflateCompressGetTempSize) nvcompBatchedDeflateCompressGetTempSize;
} nv;
static std::once_flag nv_once;
static bool nv_ok;
static char nv_err[256];

static void nv_load()
{
    void *h = dlopen(NVCOMP_SONAME, RTLD_NOW | RTLD_LOCAL);
    const char *why = h ? nullptr : dlerror();
#define NV_SYM(f)                                                                                            \
    if (!why && !(nv.f = (decltype(nv.f))dlsym(h, #f)))                                                      \
        why = "no " #f;
    NV_SYM(nvcompBatchedDeflateCompressAsync)
    NV_SYM(nvcompBatchedDeflateCompressGetMaxOutputChunkSize)
    NV_SYM(nvcompBatchedDeflateCompressGetTempSize)
#undef NV_SYM
    if (why)
        std::snprintf(nv_err, sizeof nv_err, "%s cannot be loaded: %s", NVCOMP_SONAME, why);
    nv_ok = !why;
}

extern "C" int gpu_png_available(void)
{
    std::call_once(nv_once, nv_load);
    return nv_ok;
}

/* Bytes a chunk: a batch's images are a few hundred chunks at this size, enough to fill the
 * GPU; 64 KiB (nvCOMP's largest) is 1-3% smaller and slower on a batch. */
#define CHUNK (16u << 10)
#define MAX_CHUNK (64u << 10)

/* Measuring knobs (gpu_png_tuning): bytes a chunk (a multiple of 8 from 4096 to 65536), and
 * nvCOMP's algorithm (0 to 5) alone for every level. */
static long knob_chunk;
static int knob_algo = -1;

extern "C" void gpu_png_tuning(int algorithm, long chunk)
{
    knob_algo = algorithm >= 0 && algorithm <= 5 ? algorithm : -1;
    knob_chunk = chunk;
}

static size_t chunk_bytes(void)
{
    const long v = knob_chunk;
    return v >= 4096 && v <= (long)MAX_CHUNK && v % 8 == 0 ? (size_t)v : CHUNK;
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

/* One block a chunk: its compressed bytes (the kept algorithm's) to their place in the packed buffer. */
__global__ void pack_chunks(const unsigned char *const *in, const size_t *lens, const size_t *offs, unsigned char *out)
{
    const unsigned char *s = in[blockIdx.x];
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

/* The split of the work. Entropy coding alone (nvCOMP's algorithm 0) is fast and, on
 * photographs' filtered rows, which hold few repeats, smaller than zlib's level 6; LZ matching
 * wins where rows repeat (flat and smooth areas, renders, text), and nvCOMP's matching algorithms
 * are slower on a batch than the host's libdeflate. Entropy coding shows repeats by
 * compressing well: chunks it brings below 1/FLAT of their bytes (just above Huffman coding's
 * floor of one bit a byte: flat areas) come back with their filtered bytes for the CPU to deflate
 * at the level, the smaller result kept; from level 4 also those below 1/SMOOTH where the whole
 * image came below 1/SMOOTH (a smooth full-size photograph, not the busier rows of a reduced
 * one), and at level 9 those below 1/SMOOTH in any image. */
#define FLAT 7
#define SMOOTH 4
static int knob_algorithm(void)   /* that algorithm alone, no chunk back */
{
    return knob_algo;
}

/* the bar below which a chunk goes back: 1/redo of its bytes, given the image's first pass */
static size_t redo_of(int level, size_t in_bytes, size_t out_bytes)
{
    if (level >= 9 || (level >= 4 && out_bytes * SMOOTH < in_bytes))
        return SMOOTH;
    return FLAT;
}

extern "C" const char *gpu_png_method(int level)
{
    static const char *one[] = { "algorithm 0", "algorithm 1", "algorithm 2", "algorithm 3", "algorithm 4",
                                 "algorithm 5" };
    const int k = knob_algorithm();
    if (k >= 0)
        return one[k];
    return level >= 9  ? "algorithm 0; chunks it brings under 1/4 by the CPU"
           : level >= 4 ? "algorithm 0; flat chunks, or under 1/4 in a smooth image, by the CPU"
                        : "algorithm 0; flat chunks by the CPU";
}

/* One image's chunks for the device's deflate combiner: the compressed sizes and statuses come
 * back into hsizes[nch..2 nch) and hstatus. */
struct deflate_req {
    size_t nch, chunk;
    int algorithm;
    void *const *in;        /* host arrays: nch chunk pointers in, nch slots out, nch sizes in */
    void *const *out;
    const size_t *in_sizes;
    size_t *out_sizes;
    nvcompStatus_t *status;
    int rc;
    char err[512];
};

/* Deflate calls of the threads encoding at once go into one nvCOMP call a device and algorithm:
 * a small result (a 1280x800 grey image is 64 chunks) leaves the GPU idle alone. */
#define MAX_CALL_CHUNKS (1u << 16)
static combiner<deflate_req> deflaters[GPU_MAX_DEVICES][6];
/* The stream-ordered allocations below come from the device's default pool, which by default
 * returns its memory at every synchronisation: kept up to this much, they are reused instead. */
#define POOL_KEEP (512ull << 20)
static std::once_flag pool_once[GPU_MAX_DEVICES];

static void deflate_batch(std::vector<deflate_req *> &b)
{
    size_t n = 0;
    for (deflate_req *r : b)
        n += r->nch;
    const size_t chunk = b[0]->chunk;
    nvcompBatchedDeflateCompressOpts_t opt = nvcompBatchedDeflateCompressDefaultOpts;
    opt.algorithm = b[0]->algorithm;
    cudaStream_t st = cudaStreamPerThread;
    std::vector<void *> hptrs(2 * n);
    std::vector<size_t> hsizes(2 * n);
    std::vector<nvcompStatus_t> hstatus(n);
    void **ptrs = nullptr;
    size_t *sizes = nullptr, tempb = 0;
    nvcompStatus_t *status = nullptr;
    unsigned char *temp = nullptr;
    char err[512] = "";
    const size_t errlen = sizeof err;
    size_t k = 0;
    for (deflate_req *r : b)
        for (size_t i = 0; i < r->nch; i++, k++) {
            hptrs[k] = r->in[i];
            hptrs[n + k] = r->out[i];
            hsizes[k] = r->in_sizes[i];
        }
    NVCOMP_TRY(nv.nvcompBatchedDeflateCompressGetTempSize(n, chunk, opt, &tempb, n * chunk, st));
    CUDA_GO(cudaMallocAsync((void **)&temp, tempb ? tempb : 1, st));
    CUDA_GO(cudaMallocAsync((void **)&ptrs, 2 * n * sizeof(void *), st));
    CUDA_GO(cudaMallocAsync((void **)&sizes, 2 * n * sizeof(size_t), st));
    CUDA_GO(cudaMallocAsync((void **)&status, n * sizeof(nvcompStatus_t), st));
    CUDA_GO(cudaMemcpyAsync(ptrs, hptrs.data(), 2 * n * sizeof(void *), cudaMemcpyHostToDevice, st));
    CUDA_GO(cudaMemcpyAsync(sizes, hsizes.data(), n * sizeof(size_t), cudaMemcpyHostToDevice, st));
    NVCOMP_TRY(nv.nvcompBatchedDeflateCompressAsync((const void *const *)ptrs, sizes, chunk, n, temp, tempb,
                                                 (void *const *)(ptrs + n), sizes + n, opt, status, st));
    CUDA_GO(cudaMemcpyAsync(hsizes.data() + n, sizes + n, n * sizeof(size_t), cudaMemcpyDeviceToHost, st));
    CUDA_GO(cudaMemcpyAsync(hstatus.data(), status, n * sizeof(nvcompStatus_t), cudaMemcpyDeviceToHost, st));
    CUDA_GO(cudaStreamSynchronize(st));
done:
    void *dev[] = { temp, ptrs, sizes, status };
    for (void *d : dev)
        if (d)
            cudaFreeAsync(d, st);
    k = 0;
    for (deflate_req *r : b) {
        r->rc = err[0] != 0;
        std::snprintf(r->err, sizeof r->err, "%s", err);
        for (size_t i = 0; i < r->nch; i++, k++) {
            r->out_sizes[i] = hsizes[n + k];
            r->status[i] = hstatus[k];
        }
    }
}

/* Each thread's pinned buffer for the chunks' download: pageable copies of many threads queue on
 * the driver's one staging buffer. Kept and grown for the thread's next image. */
struct pinned_buf {
    unsigned char *p = nullptr;
    size_t n = 0;
    ~pinned_buf()
    {
        if (p)
            cudaFreeHost(p);
    }
};
static thread_local pinned_buf down;

extern "C" int gpu_png_deflate(const void *src, int w, int h, int c, int depth, int level, struct gpu_png_chunks *out,
                               float *ms, char *err, size_t errlen)
{
    std::memset(out, 0, sizeof *out);
    const size_t bpp = (size_t)c * (depth / 8), n = (size_t)w * bpp, total = (n + 1) * (size_t)h;
    const size_t chunk = chunk_bytes(), nch = (total + chunk - 1) / chunk;
    const int knob = knob_algorithm();
    const int alg = knob >= 0 ? knob : 0;
    cudaStream_t st = cudaStreamPerThread;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    unsigned char *filt = nullptr, *comp = nullptr, *packed = nullptr, *host = nullptr;
    size_t *table = nullptr; /* device: per chunk source pointer, size, offset; then the same for the raw chunks */
    size_t maxo = 0, slot = 0, packed_bytes = 0, raw_bytes = 0, nredo = 0, first = 0;
    /* host: nch sizes in, nch sizes out, then the two pack tables (3 nch each); nch in and out pointers */
    size_t *hsizes = (size_t *)std::malloc(8 * nch * sizeof(size_t));
    void **hptrs = (void **)std::malloc(2 * nch * sizeof(void *));
    nvcompStatus_t *hstatus = (nvcompStatus_t *)std::malloc(nch * sizeof(nvcompStatus_t));
    size_t *ptab = hsizes ? hsizes + 2 * nch : nullptr, *rtab = hsizes ? hsizes + 5 * nch : nullptr;
    int rc = 1, dev = 0;
    deflate_req req;
    std::vector<size_t> idx;   /* the chunks the CPU deflates again */
    nvcompBatchedDeflateCompressOpts_t opt = nvcompBatchedDeflateCompressDefaultOpts;
    opt.algorithm = alg;
    err[0] = 0;
    if (!gpu_png_available()) {
        std::snprintf(err, errlen, "%s", nv_err);
        goto done;
    }
    if (!hsizes || !hptrs || !hstatus) {
        std::snprintf(err, errlen, "out of host memory");
        goto done;
    }
    CUDA_GO(cudaGetDevice(&dev));
    if (dev < 0 || dev >= GPU_MAX_DEVICES || nch > MAX_CALL_CHUNKS) {
        std::snprintf(err, errlen, "device %d or %zu chunks: past what the GPU deflate takes", dev, nch);
        goto done;
    }
    std::call_once(pool_once[dev], [dev] {
        cudaMemPool_t pool;
        unsigned long long keep = POOL_KEEP;
        if (cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess)
            cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    });
    NVCOMP_TRY(nv.nvcompBatchedDeflateCompressGetMaxOutputChunkSize(chunk, opt, &maxo));
    slot = (maxo + 7) & ~(size_t)7;
    CUDA_GO(cudaEventCreate(&e0));
    CUDA_GO(cudaEventCreate(&e1));
    CUDA_GO(cudaMallocAsync((void **)&filt, total, st));
    CUDA_GO(cudaMallocAsync((void **)&comp, nch * slot, st));
    CUDA_GO(cudaMallocAsync((void **)&table, 6 * nch * sizeof(size_t), st));
    for (size_t k = 0; k < nch; k++) {
        hptrs[k] = filt + k * chunk;
        hptrs[nch + k] = comp + k * slot;
        hsizes[k] = total - k * chunk < chunk ? total - k * chunk : chunk;
    }
    CUDA_GO(cudaEventRecord(e0, st));
    filter_rows<<<(unsigned)h, THREADS, 0, st>>>((const unsigned char *)src, filt, n, (int)bpp, depth == 16);
    CUDA_GO(cudaGetLastError());
    CUDA_GO(cudaStreamSynchronize(st));   /* filtered before another thread's stream deflates it */
    req = { nch, chunk, alg, hptrs, hptrs + nch, hsizes, hsizes + nch, hstatus, 1, "" };
    deflaters[dev][alg].submit(&req, MAX_CALL_CHUNKS, deflate_batch, [](const deflate_req *x, const deflate_req *y) {
        return x->algorithm == y->algorithm && x->chunk == y->chunk;
    });
    if (req.rc) {
        std::snprintf(err, errlen, "%s", req.err);
        goto done;
    }
    for (size_t k = 0; k < nch; k++) {
        if (hstatus[k] != nvcompSuccess || hsizes[nch + k] == 0 || hsizes[nch + k] > maxo) {
            std::snprintf(err, errlen, "nvCOMP deflate of chunk %zu: status %d", k, (int)hstatus[k]);
            goto done;
        }
        first += hsizes[nch + k];
    }
    /* packed: every chunk's stream, then the filtered bytes of those the CPU deflates again */
    for (size_t k = 0; k < nch; k++) {
        ptab[k] = (size_t)(comp + k * slot);
        ptab[nch + k] = hsizes[nch + k];
        ptab[2 * nch + k] = packed_bytes;
        packed_bytes += hsizes[nch + k] + ROOM;
    }
    if (knob < 0) {
        const size_t redo = redo_of(level, total, first);
        for (size_t k = 0; k < nch; k++)
            if (hsizes[nch + k] * redo < hsizes[k])
                idx.push_back(k);
    }
    nredo = idx.size();
    for (size_t i = 0; i < nredo; i++) {
        rtab[i] = (size_t)hptrs[idx[i]];
        rtab[nredo + i] = hsizes[idx[i]];
        rtab[2 * nredo + i] = packed_bytes + raw_bytes;
        raw_bytes += hsizes[idx[i]];
    }
    CUDA_GO(cudaMallocAsync((void **)&packed, packed_bytes + raw_bytes, st));
    CUDA_GO(cudaMemcpyAsync(table, ptab, 3 * nch * sizeof(size_t), cudaMemcpyHostToDevice, st));
    pack_chunks<<<(unsigned)nch, THREADS, 0, st>>>((const unsigned char *const *)table, table + nch, table + 2 * nch,
                                                 packed);
    CUDA_GO(cudaGetLastError());
    if (nredo) {
        CUDA_GO(cudaMemcpyAsync(table + 3 * nch, rtab, 3 * nredo * sizeof(size_t), cudaMemcpyHostToDevice, st));
        pack_chunks<<<(unsigned)nredo, THREADS, 0, st>>>((const unsigned char *const *)(table + 3 * nch),
                                                       table + 3 * nch + nredo, table + 3 * nch + 2 * nredo, packed);
        CUDA_GO(cudaGetLastError());
    }
    CUDA_GO(cudaEventRecord(e1, st));
    if (down.n < packed_bytes + raw_bytes) {
        if (down.p)
            cudaFreeHost(down.p);
        down.p = nullptr;
        down.n = 0;
        CUDA_GO(cudaMallocHost((void **)&down.p, (packed_bytes + raw_bytes) * 3 / 2));
        down.n = (packed_bytes + raw_bytes) * 3 / 2;
    }
    if (!(host = (unsigned char *)std::malloc(packed_bytes + raw_bytes))) {
        std::snprintf(err, errlen, "out of host memory for %zu bytes", packed_bytes + raw_bytes);
        goto done;
    }
    CUDA_GO(cudaMemcpyAsync(down.p, packed, packed_bytes + raw_bytes, cudaMemcpyDeviceToHost, st));
    CUDA_GO(cudaStreamSynchronize(st));
    std::memcpy(host, down.p, packed_bytes + raw_bytes);
    CUDA_GO(cudaEventElapsedTime(ms, e0, e1));
    out->chunks = (unsigned char **)std::malloc(nch * sizeof *out->chunks);
    out->lens = (size_t *)std::malloc(nch * sizeof *out->lens);
    out->raw = (const unsigned char **)std::calloc(nch, sizeof *out->raw);
    out->raw_lens = (size_t *)std::calloc(nch, sizeof *out->raw_lens);
    if (!out->chunks || !out->lens || !out->raw || !out->raw_lens) {
        std::snprintf(err, errlen, "out of host memory");
        goto done;
    }
    for (size_t k = 0; k < nch; k++) {
        out->chunks[k] = host + ptab[2 * nch + k];
        out->lens[k] = ptab[nch + k];
    }
    for (size_t i = 0; i < nredo; i++) {
        out->raw[idx[i]] = host + rtab[2 * nredo + i];
        out->raw_lens[idx[i]] = rtab[nredo + i];
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
        std::free(out->raw);
        std::free(out->raw_lens);
        std::memset(out, 0, sizeof *out);
    }
    std::free(host);
    void *dev_bufs[] = { filt, comp, table, packed };
    for (void *d : dev_bufs)
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
    std::free(c->raw);
    std::free(c->raw_lens);
    std::memset(c, 0, sizeof *c);
}
