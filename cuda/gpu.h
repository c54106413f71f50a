/* gpuimg: the C interface between src/ and cuda/. Plain C types only: no CUDA header is
 * included outside cuda/. Every function that can fail returns 0 or a CUDA error code, with a
 * one-line message in the caller's err buffer (errlen bytes). */
#ifndef GPUIMG_GPU_H
#define GPUIMG_GPU_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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

/* Per-step device data built on the host (tap tables, index maps, kernels) and uploaded once
 * into one allocation; part[i] points into it. The last part may be scratch (not uploaded). */
#define GPU_TABLE_PARTS 8
struct gpu_tables {
    void *block;
    void *part[GPU_TABLE_PARTS];
    int n[GPU_TABLE_PARTS];      /* caller's counts, kept for the launch */
};

/* The launch shape of the next launches from this thread (0 fields: the kernel's default):
 * bx x by threads a block for perpixel kernels, bx * by threads for coalesced and vector ones,
 * by rows a block for tiled transposes; ppt pixels a thread for coalesced ones (1, 2, 4, 8). Kernels
 * whose shape is fixed by their shared-memory layout ignore it; gpu_last_launch says what ran. */
struct gpu_shape { int bx, by, ppt; };
void gpu_set_shape(const struct gpu_shape *s);   /* NULL: defaults */
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
 * channels, 8 bits, into dst on the device. 0: done; -1: nvJPEG does not take this one (CMYK,
 * a header that disagrees): decode it on the CPU; > 0: failed (err says why). */
int gpu_jpeg_decode(const unsigned char *data, size_t len, void *dst, int w, int h, int c, char *err, size_t errlen);
/* Make device the calling thread's current one (each worker thread of a batch calls it). */
int gpu_use_device(int device, char *err, size_t errlen);

/* Device memory. Allocations fail with GPU_ERR_NOMEM when the device has no room or when this
 * thread's allocations would pass the limit set by gpu_set_mem_limit (bytes, 0: none), which
 * stands for a smaller device (--gpu-mem-limit): set it before any worker starts. */
#define GPU_ERR_NOMEM 2   /* cudaErrorMemoryAllocation */
void gpu_set_mem_limit(size_t bytes);
int gpu_mem_info(size_t *free_bytes, size_t *total_bytes, char *err, size_t errlen);
int gpu_malloc(void **p, size_t bytes, char *err, size_t errlen);
void gpu_free(void *p);
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
int gpu_sync(char *err, size_t errlen);
/* Upload nparts host arrays (bytes[i] each; host[i] NULL for scratch) into one block. */
int gpu_tables_upload(struct gpu_tables *t, int nparts, const void *const *host, const size_t *bytes, char *err,
                      size_t errlen);
void gpu_tables_free(struct gpu_tables *t);

/* Device-side timing with CUDA events: start, then stop returns the milliseconds between. */
struct gpu_timer;
int gpu_timer_create(struct gpu_timer **t, char *err, size_t errlen);
void gpu_timer_destroy(struct gpu_timer *t);
int gpu_timer_start(struct gpu_timer *t, char *err, size_t errlen);
int gpu_timer_stop(struct gpu_timer *t, float *ms, char *err, size_t errlen);

/* ---- launchers, one file each in cuda/ ------------------------------------------------------ */

/* gray.cu: Y = (w[0] R + w[1] G + w[2] B + 16384) >> 15; in has 3 or 4 channels. */
int gpu_gray(int variant, const struct gpu_image *in, const struct gpu_image *out, const uint32_t w[3], char *err,
             size_t errlen);
/* geometry.cu: out(x, y) = in(ax x + bx y + cx, ay x + by y + cy), coefficients in pixels. */
struct gpu_map { int ax, bx, cx, ay, by, cy; };
int gpu_remap(int variant, const struct gpu_image *in, const struct gpu_image *out, const struct gpu_map *m,
              char *err, size_t errlen);
/* resize.cu: out(x, y) = in(xs[x], ys[y]). */
int gpu_nearest(int variant, const struct gpu_image *in, const struct gpu_image *out, const int32_t *xs,
                const int32_t *ys, char *err, size_t errlen);
/* resize.cu: exactly 2:1 on both axes (bilinear or area: (a + b + c + d + 2) >> 2), 8-bit, one
 * or three channels: the vector kernel. */
int gpu_half(const struct gpu_image *in, const struct gpu_image *out, char *err, size_t errlen);
int gpu_half_applies(int c, int depth, int iw, int ih, int ow, int oh);
/* resize.cu: exactly 1:2 on both axes, bilinear ((k + 8) >> 4 over {1, 3} x {1, 3} weights),
 * any layout (with alpha premultiplied): the vector kernel. */
int gpu_double(const struct gpu_image *in, const struct gpu_image *out, char *err, size_t errlen);
int gpu_double_applies(int c, int depth, int iw, int ih, int ow, int oh);
/* resize.cu: bilinear over shared-memory tiles, 8-bit grey or RGB. gpu_resize_tiled_pitch checks
 * on the host tap tables (2 taps an output) that the largest source rectangle of a tile fits in
 * shared memory: 0 if not, else a value to pass to gpu_resize_tiled as fit. */
int gpu_resize_tiled_pitch(int c, int depth, int ow, int oh, const int32_t *xi, const int32_t *yi);
int gpu_resize_tiled(const struct gpu_image *in, const struct gpu_image *out, const int32_t *xi, const uint32_t *xw,
                     const int32_t *yi, const uint32_t *yw, int fit, char *err, size_t errlen);
/* resize.cu: two taps an axis (bilinear; area where it has two), 8-bit grey or RGB, any ratio
 * whose source span fits (gpu_resize_warp_fits checks the host's tables): vector's kernel outside
 * exact 1:2 and the rows kernel's cases (and for grey outside exact 2:1), a warp a column segment,
 * no block barriers. */
int gpu_resize_warp_fits(int c, int depth, int ow, const int32_t *xi);
/* vhalf: every output row weighs its two source rows 32768 each (an exact 2:1 down; cheaper
 * rounding) */
int gpu_resize_warp(const struct gpu_image *in, const struct gpu_image *out, const int32_t *xi, const uint32_t *xw,
                    const int32_t *yi, const uint32_t *yw, int vhalf, char *err, size_t errlen);
/* resize.cu: two taps an axis, 8-bit grey out (c = 1, or gray_from = 3: RGB read through the gray
 * step), a block a column segment of a run of output rows, the source rows read as 16-pixel groups
 * of the flat image: vector's kernel for gray-through, and grey from 32 MiB (resize.c), shrinking
 * by 1.6 or more.
 * gpu_resize_rows_fit picks the segment from the host's tables (0: the span does not fit) and the
 * staged row's bytes (*gs); both go to gpu_resize_rows. */
int gpu_resize_rows_fit(int c, int depth, int ow, const int32_t *xi, int *gs);
int gpu_resize_rows(const struct gpu_image *in, const struct gpu_image *out, const int32_t *xi, const uint32_t *xw,
                    const int32_t *yi, const uint32_t *yw, int vhalf, int seg, int gs, char *err, size_t errlen);
/* resize.cu: bilinear through the texture unit (one channel; weights have 8 fraction bits, so
 * results differ from the exact ones by at most GPU_TEXTURE_TOL8 / GPU_TEXTURE_TOL16 levels).
 * scratch: a pitched copy of the input when its rows are not aligned as textures need
 * (gpu_texture_scratch bytes, 0 when none is needed). */
#define GPU_TEXTURE_TOL8 2
#define GPU_TEXTURE_TOL16 514
int gpu_texture_bilinear(const struct gpu_image *in, const struct gpu_image *out, void *scratch, char *err,
                         size_t errlen);
size_t gpu_texture_scratch(int w, int h, int depth);
/* sepfilter.cu: the separable engine of src/ops/sepfilter.h, evaluated directly per output pixel
 * (perpixel, coalesced; vector: bilinear 8-bit with alpha only): Q16 tap tables (nx and ny taps
 * per output coordinate). */
int gpu_bilerp_applies(int c, int depth, int iw, int ih);   /* vector's layouts and sizes (bilinear) */
int gpu_sepfilter(int variant, const struct gpu_image *in, const struct gpu_image *out, const int32_t *xi,
                  const uint32_t *xw, int nx, const int32_t *yi, const uint32_t *yw, int ny, char *err,
                  size_t errlen);
/* blur.cu: a symmetric kernel (ksize Q16 weights) in two passes through scratch (gpu_blur_scratch
 * bytes: w*c columns of h rounded up to 32 words of 4 bytes, 8 for 16-bit with alpha); bx, by map
 * source positions -r..n+r-1 (offset by r) to a source index or -1 for the constant border. */
size_t gpu_blur_scratch(int w, int h, int c, int depth);
int gpu_blur_separable(const struct gpu_image *in, const struct gpu_image *out, const uint32_t *kern, int ksize,
                       const int32_t *bx, const int32_t *by, void *scratch, char *err, size_t errlen);
/* blur.cu: one pass over shared-memory tiles with their halo, for every layout with kernels of up
 * to 21 to 33 taps by layout (gpu_blur_tiled_scratchless); larger kernels go through
 * gpu_blur_separable (same bits), which is why it takes the same scratch. */
int gpu_blur_tiled(const struct gpu_image *in, const struct gpu_image *out, const uint32_t *kern, int ksize,
                   const int32_t *bx, const int32_t *by, void *scratch, char *err, size_t errlen);
int gpu_blur_onepass_applies(int c, int depth, int ksize);   /* also: takes transposed outputs */
int gpu_blur_tiled_scratchless(int c, int depth, int ksize);   /* whether gpu_blur_tiled runs in one pass */
/* blur.cu: the tensor-core kernel for 8-bit images (with alpha premultiplied) and kernels of up to
 * 177 taps (RGB past 81 as three grey planes through scratch; grey+alpha and RGBA up to 49)
 * whose Q8 weights are all below 256 (the flag says whether they are), where its shared memory fits
 * the GPU; gpu_blur_tensor_applies: 0 where it does not take the blur, 1 where it does, 2 where it
 * does only given the scratch (gpu_blur_scratch). Anything else goes through gpu_blur_tiled (same
 * bits). gpu_blur_tensor_transposes: whether it takes a transposed output (where it takes the blur
 * itself, 1, else where the one-pass kernel does). */
int gpu_blur_tensor_applies(int c, int depth, int ksize, int weights_below_256, int w, int h);
int gpu_blur_tensor_transposes(int c, int depth, int ksize, int weights_below_256, int w, int h);
int gpu_blur_tensor(const struct gpu_image *in, const struct gpu_image *out, const uint32_t *kern, int ksize,
                    int weights_below_256, const int32_t *bx, const int32_t *by, void *scratch, char *err,
                    size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
