/* gpuimg: device discovery, memory, copies and event timers. gpu_probe() decides whether a GPU
 * is usable: the runtime finds at least one device (cudaGetDeviceCount fails with cudaErrorNoDevice or, where no driver is
 * installed, cudaErrorInsufficientDriver (35)), a context can be made on the requested one, and a
 * one-thread kernel runs and writes back what it was told to. Context creation and that first
 * launch are timed here so that no operation's time ever includes them. */
#include <algorithm>
#include <chrono>
#include <iterator>
#include <mutex>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include "cuda/check.h"
#include "cuda/gpu.h"

__global__ void probe_kernel(int *out, int v) { *out = v; }

/* The thread's current CUDA context before our first switch, through the driver's own calls
 * (cuCtxGetCurrent, cuCtxSetCurrent: the runtime's cudaGetDevice would name device 0 for a thread
 * that has none, and setting it back would make that device's context): gpu_restore_device gives
 * it back, none included, so that a library's caller keeps its own. */
typedef int (*ctx_get_fn)(void **ctx);
typedef int (*ctx_set_fn)(void *ctx);
static thread_local int t_saved;   /* 1: t_callers holds the context to give back */
static thread_local void *t_callers;

static void driver_calls(ctx_get_fn *get, ctx_set_fn *set)
{
    static std::once_flag once;
    static ctx_get_fn g;
    static ctx_set_fn s;
    std::call_once(once, [] {
        void *p = nullptr, *q = nullptr;
        cudaDriverEntryPointQueryResult r1, r2;
        if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &p, 12000, cudaEnableDefault, &r1) == cudaSuccess
            && cudaGetDriverEntryPointByVersion("cuCtxSetCurrent", &q, 12000, cudaEnableDefault, &r2) == cudaSuccess
            && r1 == cudaDriverEntryPointSuccess && r2 == cudaDriverEntryPointSuccess) {
            g = (ctx_get_fn)p;
            s = (ctx_set_fn)q;
        }
        cudaGetLastError();
    });
    *get = g;
    *set = s;
}

static cudaError_t switch_to(int device)
{
    if (!t_saved) {
        ctx_get_fn get;
        ctx_set_fn set;
        driver_calls(&get, &set);
        t_saved = get && set && get(&t_callers) == 0;
    }
    return cudaSetDevice(device);
}

extern "C" int gpu_probe(int device, struct gpu_info *info, char *err, size_t errlen)
{
    std::memset(info, 0, sizeof *info);
    /* Kernels load lazily (CUDA's default), each at its first launch, which counts in that
     * launch's time: eager loading would load every kernel of nvJPEG and nvCOMP into the context,
     * a cost every command pays whatever it runs. */
    auto t0 = std::chrono::steady_clock::now();
    int n = 0;
    const cudaError_t count = cudaGetDeviceCount(&n);
    if (count != cudaSuccess) {   /* in plain words first: the runtime's reads as "update your driver" */
        const char *why = count == cudaErrorNoDevice ? "no NVIDIA GPU found"
                          : count == cudaErrorInsufficientDriver
                              ? (access("/proc/driver/nvidia/version", F_OK) != 0
                                     ? "no NVIDIA driver (none is loaded on this machine)"
                                     : "the NVIDIA driver is older than this gpuimg's CUDA runtime needs")
                              : nullptr;
        if (why)
            std::snprintf(err, errlen, "%s; the CUDA runtime says: %s (%d)", why, cudaGetErrorString(count), (int)count);
        else
            std::snprintf(err, errlen, "cudaGetDeviceCount: %s (%d)", cudaGetErrorString(count), (int)count);
        return (int)count;
    }
    if (n <= 0 || device < 0 || device >= n) {
        std::snprintf(err, errlen, "device %d requested, %d present", device, n);
        return (int)cudaErrorInvalidDevice;
    }
    info->count = n;
    info->device = device;
    CUDA_TRY(switch_to(device), err, errlen);
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

extern "C" int gpu_device_count(void)
{
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

/* A thread's kept blocks and staging buffers belong to the device it used last: moving to another
 * (a server's worker given a request with --device) returns them first. */
static thread_local int t_device = -1;

extern "C" int gpu_use_device(int device, char *err, size_t errlen)
{
    if (t_device >= 0 && t_device != device)
        gpu_thread_release();
    CUDA_TRY(switch_to(device), err, errlen);
    t_device = device;
    return 0;
}

extern "C" void gpu_restore_device(void)
{
    if (!t_saved)
        return;
    ctx_get_fn get;
    ctx_set_fn set;
    driver_calls(&get, &set);
    void *cur = nullptr;
    if (get(&cur) == 0 && cur != t_callers)
        set(t_callers);
    t_saved = 0;
    t_callers = nullptr;
    cudaGetLastError();   /* nothing of this left for the next launch's check */
}

/* ---- memory, copies, timers ---------------------------------------------------------------- */

/* --gpu-mem-limit: each thread counts what it holds; a pointer's size is kept in a small table
 * (a pipeline holds two buffers and a table block per step). */
static size_t g_mem_limit;
static thread_local size_t t_mem_used;
static thread_local struct { void *p; size_t bytes; } t_allocs[2 * 32 + 8];
/* A batch worker keeps the blocks it frees for its next file: cudaFree waits for the whole
 * device, which stalls every other worker's copies and kernels. */
#define KEPT_BLOCKS 8
static thread_local int t_keep;
static thread_local struct { void *p; size_t bytes; } t_kept[KEPT_BLOCKS];

extern "C" void gpu_thread_keep_memory(int on) { t_keep = on; }

extern "C" void gpu_set_mem_limit(size_t bytes) { g_mem_limit = bytes; }

static void dev_free(void *p);

static int dev_alloc(void **p, size_t bytes, char *err, size_t errlen)
{
    *p = nullptr;
    bytes = bytes ? bytes : 1;
    if (g_mem_limit)   /* kept blocks count against a limit: given back rather than reused past it */
        for (auto &k : t_kept)
            if (k.p) {
                void *q = k.p;
                k.p = nullptr;
                dev_free(q);
            }
    int best = -1;   /* the smallest kept block that is large enough */
    for (int i = 0; i < KEPT_BLOCKS; i++)
        if (t_kept[i].p && t_kept[i].bytes >= bytes && (best < 0 || t_kept[i].bytes < t_kept[best].bytes))
            best = i;
    if (best >= 0) {
        *p = t_kept[best].p;
        t_kept[best].p = nullptr;
        return 0;
    }
    if (g_mem_limit && (bytes > g_mem_limit || t_mem_used > g_mem_limit - bytes)) {
        std::snprintf(err, errlen, "cudaMalloc(%zu bytes): over --gpu-mem-limit (%zu bytes, %zu held)", bytes,
                      g_mem_limit, t_mem_used);
        return GPU_ERR_NOMEM;
    }
    CUDA_TRY(cudaMalloc(p, bytes), err, errlen);
    for (auto &a : t_allocs)
        if (!a.p) {
            a.p = *p;
            a.bytes = bytes;
            t_mem_used += bytes;
            break;
        }
    return 0;
}

static void dev_free(void *p)
{
    if (!p)
        return;
    auto *rec = std::find_if(std::begin(t_allocs), std::end(t_allocs), [p](const auto &a) { return a.p == p; });
    const bool known = rec != std::end(t_allocs);
    if (t_keep && !g_mem_limit && known)   /* only blocks whose size is known; never under a limit */
        for (auto &k : t_kept)
            if (!k.p) {
                k.p = p;
                k.bytes = rec->bytes;
                return;
            }
    if (known) {
        t_mem_used -= rec->bytes;
        rec->p = nullptr;
    }
    cudaFree(p);
}

extern "C" int gpu_malloc(void **p, size_t bytes, char *err, size_t errlen)
{
    return dev_alloc(p, bytes, err, errlen);
}

extern "C" void gpu_free(void *p) { dev_free(p); }

/* Images handed out (the library's device images): stream-ordered memory from the device's pool,
 * which keeps what is freed for the next (no release threshold), so that an image freed on any
 * thread does not wait for the whole device as cudaFree does. */
extern "C" int gpu_image_malloc(void **p, size_t bytes, char *err, size_t errlen)
{
    static int pool_set[GPU_MAX_DEVICES];
    int dev = 0;
    *p = nullptr;
    CUDA_TRY(cudaGetDevice(&dev), err, errlen);
    if (dev >= 0 && dev < GPU_MAX_DEVICES && !__atomic_exchange_n(&pool_set[dev], 1, __ATOMIC_ACQ_REL)) {
        cudaMemPool_t pool;
        uint64_t keep = UINT64_MAX;
        if (cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess)
            cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    CUDA_TRY(cudaMallocAsync(p, bytes ? bytes : 1, cudaStreamPerThread), err, errlen);
    return 0;
}

extern "C" void gpu_image_free(void *p)
{
    if (p)
        cudaFreeAsync(p, cudaStreamPerThread);
}

extern "C" int gpu_stream_sync(char *err, size_t errlen)
{
    CUDA_TRY(cudaStreamSynchronize(cudaStreamPerThread), err, errlen);
    return 0;
}

extern "C" int gpu_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t rows, int dir,
                          char *err, size_t errlen)
{
    static const cudaMemcpyKind kinds[] = { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
    if (dir == GPU_D2D)
        CUDA_TRY(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, kinds[dir], 0), err, errlen);
    else
        CUDA_TRY(cudaMemcpy2D(dst, dpitch, src, spitch, width, rows, kinds[dir]), err, errlen);
    return 0;
}

extern "C" int gpu_upload(void *dst, const void *src, size_t bytes, char *err, size_t errlen)
{
    CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), err, errlen);
    return 0;
}

extern "C" int gpu_download(void *dst, const void *src, size_t bytes, char *err, size_t errlen)
{
    CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), err, errlen);
    return 0;
}

extern "C" int gpu_copy_d2d(void *dst, const void *src, size_t bytes, char *err, size_t errlen)
{
    CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0), err, errlen);
    return 0;
}

extern "C" int gpu_fill(void *dst, int byte, size_t bytes, char *err, size_t errlen)
{
    CUDA_TRY(cudaMemsetAsync(dst, byte, bytes, 0), err, errlen);
    return 0;
}

/* ---- staged copies ------------------------------------------------------------------------- */

#define STAGE_CHUNK ((size_t)4 << 20)
static thread_local struct {
    char *half[2];
    cudaEvent_t done[2];
} stage;

static int stage_ready(char *err, size_t errlen)
{
    if (stage.half[0])
        return 0;
    void *p = nullptr;
    CUDA_TRY(cudaHostAlloc(&p, 2 * STAGE_CHUNK, cudaHostAllocDefault), err, errlen);
    cudaError_t e = cudaEventCreateWithFlags(&stage.done[0], cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = cudaEventCreateWithFlags(&stage.done[1], cudaEventDisableTiming);
    if (e != cudaSuccess) {
        cudaFreeHost(p);
        std::snprintf(err, errlen, "cudaEventCreate: %s (%d)", cudaGetErrorString(e), (int)e);
        return (int)e;
    }
    stage.half[0] = (char *)p;
    stage.half[1] = (char *)p + STAGE_CHUNK;
    return 0;
}

extern "C" int gpu_upload_staged(void *dst, const void *src, size_t bytes, char *err, size_t errlen)
{
    if (int r = stage_ready(err, errlen))
        return r;
    size_t k = 0;
    for (size_t off = 0; off < bytes; off += STAGE_CHUNK, k++) {
        const int h = (int)(k & 1);
        const size_t n = bytes - off < STAGE_CHUNK ? bytes - off : STAGE_CHUNK;
        if (k >= 2)   /* this half's previous DMA must be done before it is refilled */
            CUDA_TRY(cudaEventSynchronize(stage.done[h]), err, errlen);
        std::memcpy(stage.half[h], (const char *)src + off, n);
        CUDA_TRY(cudaMemcpyAsync((char *)dst + off, stage.half[h], n, cudaMemcpyHostToDevice, cudaStreamPerThread), err,
                 errlen);
        CUDA_TRY(cudaEventRecord(stage.done[h], cudaStreamPerThread), err, errlen);
    }
    CUDA_TRY(cudaStreamSynchronize(cudaStreamPerThread), err, errlen);
    return 0;
}

extern "C" int gpu_download_staged(void *dst, const void *src, size_t bytes, char *err, size_t errlen)
{
    if (int r = stage_ready(err, errlen))
        return r;
    const size_t chunks = (bytes + STAGE_CHUNK - 1) / STAGE_CHUNK;
    auto issue = [&](size_t k) -> int {   /* chunk k into half k & 1 */
        const size_t off = k * STAGE_CHUNK, n = bytes - off < STAGE_CHUNK ? bytes - off : STAGE_CHUNK;
        CUDA_TRY(cudaMemcpyAsync(stage.half[k & 1], (const char *)src + off, n, cudaMemcpyDeviceToHost,
                                 cudaStreamPerThread), err, errlen);
        CUDA_TRY(cudaEventRecord(stage.done[k & 1], cudaStreamPerThread), err, errlen);
        return 0;
    };
    if (chunks)
        if (int r = issue(0))
            return r;
    for (size_t k = 0; k < chunks; k++) {
        if (k + 1 < chunks)   /* the next chunk's DMA runs while this one is copied out */
            if (int r = issue(k + 1))
                return r;
        CUDA_TRY(cudaEventSynchronize(stage.done[k & 1]), err, errlen);
        const size_t off = k * STAGE_CHUNK, n = bytes - off < STAGE_CHUNK ? bytes - off : STAGE_CHUNK;
        std::memcpy((char *)dst + off, stage.half[k & 1], n);
    }
    return 0;
}

extern "C" void gpu_thread_release(void)
{
    t_keep = 0;
    for (auto &k : t_kept)
        if (k.p) {
            void *p = k.p;
            k.p = nullptr;
            dev_free(p);
        }
    if (!stage.half[0])
        return;
    cudaEventDestroy(stage.done[0]);
    cudaEventDestroy(stage.done[1]);
    cudaFreeHost(stage.half[0]);
    stage.half[0] = stage.half[1] = nullptr;
}

extern "C" int gpu_pin(void *p, size_t bytes, char *err, size_t errlen)
{
    CUDA_TRY(cudaHostRegister(p, bytes, cudaHostRegisterDefault), err, errlen);
    return 0;
}

extern "C" void gpu_unpin(void *p) { cudaHostUnregister(p); }

extern "C" int gpu_upload_parts(void **block, int nparts, const void *const *host, const size_t *bytes, void **part,
                                char *err, size_t errlen)
{
    size_t off[16], total = 0;
    if (nparts > 16) {
        snprintf(err, errlen, "gpu_upload_parts: %d parts", nparts);
        return (int)cudaErrorInvalidValue;
    }
    for (int i = 0; i < nparts; i++) {
        off[i] = total;
        total += (bytes[i] + 511) & ~(size_t)511;   /* each part 512-byte aligned (textures need it) */
    }
    *block = nullptr;
    if (int r = dev_alloc(block, total, err, errlen))
        return r;
    for (int i = 0; i < nparts; i++) {
        part[i] = (char *)*block + off[i];
        if (host[i] && bytes[i]) {
            const cudaError_t e = cudaMemcpy(part[i], host[i], bytes[i], cudaMemcpyHostToDevice);
            if (e != cudaSuccess) {
                snprintf(err, errlen, "%s", cudaGetErrorString(e));
                dev_free(*block);
                *block = nullptr;
                return (int)e;
            }
        }
    }
    return 0;
}

struct gpu_timer { cudaEvent_t a, b; };

extern "C" int gpu_timer_create(struct gpu_timer **t, char *err, size_t errlen)
{
    *t = new gpu_timer();
    CUDA_TRY(cudaEventCreate(&(*t)->a), err, errlen);
    CUDA_TRY(cudaEventCreate(&(*t)->b), err, errlen);
    return 0;
}

extern "C" void gpu_timer_destroy(struct gpu_timer *t)
{
    if (!t)
        return;
    cudaEventDestroy(t->a);
    cudaEventDestroy(t->b);
    delete t;
}

extern "C" int gpu_timer_start(struct gpu_timer *t, char *err, size_t errlen)
{
    CUDA_TRY(cudaEventRecord(t->a, 0), err, errlen);
    return 0;
}

extern "C" int gpu_timer_stop(struct gpu_timer *t, float *ms, char *err, size_t errlen)
{
    CUDA_TRY(cudaEventRecord(t->b, 0), err, errlen);
    CUDA_TRY(cudaEventSynchronize(t->b), err, errlen);
    CUDA_TRY(cudaEventElapsedTime(ms, t->a, t->b), err, errlen);
    return 0;
}

/* ---- what was launched (gpuimg tune's time model) ---------------------------------------------- */

static thread_local struct {
    const void *fn;
    dim3 grid, block;
    size_t smem;
    int ppt;
} last;

void note_launch(const void *fn, dim3 grid, dim3 block, size_t smem, int px_per_thread)
{
    last.fn = fn;
    last.grid = grid;
    last.block = block;
    last.smem = smem;
    last.ppt = px_per_thread;
}

extern "C" int gpu_last_launch(struct gpu_launch_info *info, char *err, size_t errlen)
{
    std::memset(info, 0, sizeof *info);
    if (!last.fn) {
        std::snprintf(err, errlen, "no launch recorded");
        return (int)cudaErrorInvalidValue;
    }
    int dev = 0;
    cudaFuncAttributes fa;
    CUDA_TRY(cudaGetDevice(&dev), err, errlen);
    CUDA_TRY(cudaFuncGetAttributes(&fa, last.fn), err, errlen);
    const int threads = (int)(last.block.x * last.block.y * last.block.z);
    CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&info->blocks_per_sm, last.fn, threads, last.smem), err,
             errlen);
    CUDA_TRY(cudaDeviceGetAttribute(&info->sms, cudaDevAttrMultiProcessorCount, dev), err, errlen);
    CUDA_TRY(cudaDeviceGetAttribute(&info->max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev), err,
             errlen);
    info->grid = last.grid.x * last.grid.y * last.grid.z;
    info->block = (unsigned)threads;
    info->smem = last.smem;
    info->px_per_thread = last.ppt;
    info->regs = fa.numRegs;
    return 0;
}
