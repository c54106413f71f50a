/* gpuimg: the CUDA runtime's plain-C face (cuda/device.cu, cuda/jpeg.cu, cuda/png.cu): kernel variant ids,
 * device images, launch requests, the probe, memory, copies and timers. Plain C
 * types only: no CUDA header is included outside cuda/. Each operation's launchers are in its
 * own cuda/NAME/kernels.h. Every function that can fail returns 0 or a CUDA error code, with a
 * one-line message in the caller's err buffer (errlen bytes). */
#ifndef GPUIMG_GPU_H
#define GPUIMG_GPU_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPU_MAX_DEVICES 16   /* devices gpuimg uses (--devices), each with its codecs' state */

/* Kernel variants, shared by every operation (each has a subset). */
enum kernel_variant {
    KV_PERPIXEL,    /* one thread per output pixel, 2D grid, bounds check */
    KV_COALESCED,   /* GPU_PPT pixels per thread, warp-stride so a warp's accesses are contiguous */
    KV_TILED,       /* shared-memory tiles: transpose, rotate, flip; blur in one pass with its halo */
    KV_SEPARABLE,   /* two passes with shared-memory halo tiles (blur) */
    KV_VECTOR,      /* several pixels per thread moved as whole words: 16-byte (gray), funnel-shifted
                       aligned words (resize 2:1) */
    KV_TEXTURE,     /* the texture unit's bilinear filtering (resize of one-channel images) */
    KV_TENSOR,      /* integer matrix products on the tensor cores (blur of 8-bit grey and RGB) */
    KV_COUNT
};
#define GPU_PPT 4   /* pixels per thread of the coalesced variants */
#define GPU_VPX 16  /* pixels per thread of the vector variants: always a whole number of 16 bytes */

struct gpu_info {
    char name[256];
    int device, count;
    int cc_major, cc_minor;
    size_t mem_total, mem_free;
    double init_ms;          /* context creation and the first launch */
};

/* A packed image in device memory (stride = w * c * depth / 8). Two fused forms, set only by
 * the pipeline for kernels whose operation says it takes them (op_desc.gpu_fuse):
 *  - input with gray_from = 3: data holds RGB and every pixel reads as its Y = (gray_w . RGB +
 *    16384) >> 15 (c = 1): the gray step before is done on load;
 *  - output with transposed = 1: pixel (x, y) of the w x h result is stored at (y, x) of an
 *    h x w image: the transpose step after is done on store. */
struct gpu_image {
    void *data;
    int w, h, c, depth;
    int gray_from;
    uint32_t gray_w[3];
    int transposed;
};

/* What the host asks of one launch: the variant, and its launch shape (0 fields: the kernel's
 * default): bx x by threads a block for perpixel kernels, bx * by threads for coalesced and vector
 * ones, by rows a block for tiled transposes; ppt pixels a thread for coalesced ones (1, 2, 4, 8).
 * Kernels whose shape is fixed by their shared-memory layout ignore it; gpu_last_launch says what
 * ran. */
struct gpu_shape { int bx, by, ppt; };
struct gpu_call {
    int variant;
    struct gpu_shape shape;
};
struct gpu_launch_info {
    unsigned grid, block;        /* blocks and threads a block of the last kernel launched */
    size_t smem;
    int px_per_thread;           /* output pixels a thread handles per step (the bytes it has in flight) */
    int regs, blocks_per_sm, sms, max_threads_per_sm;
};
int gpu_last_launch(struct gpu_launch_info *info, char *err, size_t errlen);

/* Is device usable? Counts devices, makes a context and runs a tiny kernel. */
int gpu_probe(int device, struct gpu_info *info, char *err, size_t errlen);
/* nvJPEG (HAVE_NVJPEG builds): decode a w x h JPEG of c = 1 (grey) or 3 (RGB, interleaved)
 * channels, 8 bits, into dst on the device: on the GPU's JPEG engines where it has them and they
 * take the file (*hardware = 1), batched with other threads' calls. any = 0: the engines only,
 * and only once gpu_jpeg_start has made their decoder (else -1: the CPU decodes meanwhile);
 * any = 1: the engines (made now if need be), else nvJPEG's default backend. 0: done; -1: not
 * taken (as said, CMYK, a header that disagrees, a file cut short): decode it on the CPU; > 0:
 * nvJPEG failed (err says why). */
int gpu_jpeg_decode(const unsigned char *data, size_t len, void *dst, int w, int h, int c, int any, int *hardware,
                    char *err, size_t errlen);
/* Begin making the JPEG engines' decoder of a device on a thread of its own (it is slow to make);
 * gpu_jpeg_stop waits for every such thread (before the process exits). */
void gpu_jpeg_start(int device);
/* nvJPEG's GPU encoder: a w x h device image of c = 1 (grey, written as one component) or 3
 * (interleaved RGB) 8-bit channels to a baseline JPEG of quality 1..100 with optimised Huffman
 * tables, chroma 420, 422 or 444 (sampling); *out (malloc'd, len bytes) holds the file. 0: done;
 * 1: failed (err says why); -1 (shared only): the device's encoder already runs its share of
 * encodes (gpu_jpeg_encode_share), the caller encodes it elsewhere. */
int gpu_jpeg_encode(const void *src, int w, int h, int c, int quality, int sampling, int shared, unsigned char **out,
                    size_t *len, char *err, size_t errlen);
/* A measuring knob, set once before any work: the encodes a device's encoder runs at once for
 * shared requests (-1: the default, GPU_JPEG_ENCODE_SHARE; 0: none). */
void gpu_jpeg_encode_share(int n);
#define GPU_JPEG_ENCODE_SHARE 16
int gpu_jpeg_ready(int device);   /* 1 once the engines' decoder of device is made */
/* The ms until device's engines would have decoded an image of px pixels: the pixels submitted
 * and not yet decoded, and this one, at the rate their calls have run (an average of the recent
 * ones); -1 before their first call. */
double gpu_jpeg_wait_ms(int device, long long px);
int gpu_jpeg_waiting(int device);   /* images submitted to the engines and not yet in a call */
#define GPU_JPEG_BATCH 64            /* images an engines' call takes at most */
/* What the engines of device did since they were made: batched calls, images decoded in them,
 * the calls' time, and the time their making took; -1 where they are not made. */
int gpu_jpeg_stats(int device, long long *calls, long long *images, double *busy_ms, double *made_ms);
void gpu_jpeg_stop(void);
/* A measuring knob, set once before any work: the JPEG engines' nvjpegCreateEx flags (-1: the
 * default, interpolated chroma upsampling). */
void gpu_jpeg_flags(long flags);
/* nvCOMP (HAVE_NVCOMP builds): PNG's rows of a w x h device image (c channels, depth bits, 16-bit
 * samples in host order) filtered as the CPU encoder filters them and deflated by nvCOMP's
 * entropy coding in 16 KiB chunks, packed into out->buf (each with 8 bytes of room after it) for
 * pngenc_write_chunks. Chunks that entropy coding compressed well enough to show repeats (the
 * rule for level: gpu_png_method) also come back filtered, raw[k] (raw_lens[k] bytes; NULL
 * elsewhere), for the CPU to deflate at the level, keeping the smaller. *ms: the device's time.
 * 0: done; 1: failed (err says why). */
struct gpu_png_chunks {
    unsigned char *buf, **chunks;
    size_t *lens, bytes;
    const unsigned char **raw;
    size_t *raw_lens;
    int n;
};
int gpu_png_deflate(const void *src, int w, int h, int c, int depth, int level, struct gpu_png_chunks *out, float *ms,
                    char *err, size_t errlen);
void gpu_png_chunks_free(struct gpu_png_chunks *c);
int gpu_png_available(void);   /* 1 once nvCOMP is loaded (at the first call) */
/* Measuring knobs, set once before any work: nvCOMP's algorithm (0 to 5) alone for every level
 * (-1: by level), and bytes a chunk (a multiple of 8 from 4096 to 65536; else the default). */
void gpu_png_tuning(int algorithm, long chunk);
const char *gpu_png_method(int level);   /* "algorithm 0; flat chunks by the CPU" */
const char *gpu_nvcomp_version(void);   /* "6.0.0" */
/* Make device the calling thread's current one (each worker thread of a batch calls it). */
int gpu_device_count(void);   /* devices the runtime shows (no context made); 0 on any error */
int gpu_use_device(int device, char *err, size_t errlen);
/* The calling thread's current device as it was before gpu_use_device first changed it (since
 * the last call of this): a library call gives the caller's device back. */
void gpu_restore_device(void);

/* Device memory. Allocations fail with GPU_ERR_NOMEM when the device has no room or when this
 * thread's allocations would pass the limit set by gpu_set_mem_limit (bytes, 0: none), which
 * stands for a smaller device (--gpu-mem-limit): set it before any worker starts. */
#define GPU_ERR_NOMEM 2   /* cudaErrorMemoryAllocation */
void gpu_set_mem_limit(size_t bytes);
int gpu_malloc(void **p, size_t bytes, char *err, size_t errlen);
void gpu_free(void *p);
/* The library's device images (gpu_image_free on any thread, the device current): stream-ordered
 * memory from the device's pool; gpu_stream_sync waits for this thread's work on the device. */
int gpu_image_malloc(void **p, size_t bytes, char *err, size_t errlen);
void gpu_image_free(void *p);
int gpu_stream_sync(char *err, size_t errlen);
/* rows x width bytes between pitched images; dir: GPU_H2D, GPU_D2H or GPU_D2D */
enum { GPU_H2D, GPU_D2H, GPU_D2D };
int gpu_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t rows, int dir, char *err,
               size_t errlen);
int gpu_upload(void *dst, const void *src, size_t bytes, char *err, size_t errlen);
int gpu_download(void *dst, const void *src, size_t bytes, char *err, size_t errlen);
int gpu_copy_d2d(void *dst, const void *src, size_t bytes, char *err, size_t errlen);
int gpu_fill(void *dst, int byte, size_t bytes, char *err, size_t errlen);
/* Copies through this thread's two pinned 4 MiB staging halves, the host-side memcpy of one chunk
 * overlapping the DMA of the other: no page-locking of the image, and no driver staging shared
 * with other threads (a batch's workers). gpu_thread_release frees the halves. */
int gpu_upload_staged(void *dst, const void *src, size_t bytes, char *err, size_t errlen);
int gpu_download_staged(void *dst, const void *src, size_t bytes, char *err, size_t errlen);
void gpu_thread_release(void);
/* on: device blocks this thread frees are kept (up to 8) for its next allocations, not returned
 * with cudaFree, which waits for the whole device; gpu_thread_release returns them. */
void gpu_thread_keep_memory(int on);
/* Page-lock host memory for faster copies (and unlock). */
int gpu_pin(void *p, size_t bytes, char *err, size_t errlen);
void gpu_unpin(void *p);
/* Upload nparts host arrays (bytes[i] each; host[i] NULL for scratch) into one device allocation
 * *block (gpu_free frees it; on failure there is none), each part 512-byte aligned (textures need
 * it): part[i] is where part i starts. */
int gpu_upload_parts(void **block, int nparts, const void *const *host, const size_t *bytes, void **part, char *err,
                     size_t errlen);

/* Device-side timing with CUDA events: start, then stop returns the milliseconds between. */
struct gpu_timer;
int gpu_timer_create(struct gpu_timer **t, char *err, size_t errlen);
void gpu_timer_destroy(struct gpu_timer *t);
int gpu_timer_start(struct gpu_timer *t, char *err, size_t errlen);
int gpu_timer_stop(struct gpu_timer *t, float *ms, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
