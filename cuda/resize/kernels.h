/* gpuimg: the resize kernels' launchers (cuda/resize/), in plain C for src/ops. Each that can fail
 * returns 0 or a CUDA error code with a one-line message in err (errlen bytes). */
#ifndef GPUIMG_CUDA_RESIZE_KERNELS_H
#define GPUIMG_CUDA_RESIZE_KERNELS_H
#include "cuda/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out(x, y) = in(xs[x], ys[y]). */
int gpu_nearest(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out, const int32_t *xs,
                const int32_t *ys, char *err, size_t errlen);
/* exactly 2:1 on both axes (bilinear or area: (a + b + c + d + 2) >> 2), 8-bit, one
 * or three channels: the vector kernel. */
int gpu_half(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out, char *err, size_t errlen);
int gpu_half_applies(int c, int depth, int iw, int ih, int ow, int oh);
/* exactly 1:2 on both axes, bilinear ((k + 8) >> 4 over {1, 3} x {1, 3} weights),
 * any layout (with alpha premultiplied): the vector kernel. */
int gpu_double(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out, char *err, size_t errlen);
int gpu_double_applies(int c, int depth, int iw, int ih, int ow, int oh);
/* bilinear over shared-memory tiles, 8-bit grey or RGB. gpu_resize_tiled_pitch checks
 * on the host tap tables (2 taps an output) that the largest source rectangle of a tile fits in
 * shared memory: 0 if not, else a value to pass to gpu_resize_tiled as fit. */
int gpu_resize_tiled_pitch(int c, int depth, int ow, int oh, const int32_t *xi, const int32_t *yi);
int gpu_resize_tiled(const struct gpu_image *in, const struct gpu_image *out, const int32_t *xi, const uint32_t *xw,
                     const int32_t *yi, const uint32_t *yw, int fit, char *err, size_t errlen);
/* two taps an axis (bilinear; area where it has two), 8-bit grey or RGB, any ratio
 * whose source span fits (gpu_resize_warp_fits checks the host's tables): vector's kernel outside
 * exact 1:2 and the rows kernel's cases (and for grey outside exact 2:1), a warp a column segment,
 * no block barriers. */
int gpu_resize_warp_fits(int c, int depth, int ow, const int32_t *xi);
/* vhalf: every output row weighs its two source rows 32768 each (an exact 2:1 down; cheaper
 * rounding) */
int gpu_resize_warp(const struct gpu_image *in, const struct gpu_image *out, const int32_t *xi, const uint32_t *xw,
                    const int32_t *yi, const uint32_t *yw, int vhalf, char *err, size_t errlen);
/* two taps an axis, 8-bit grey out (c = 1, or gray_from = 3: RGB read through the gray
 * step), a block a column segment of a run of output rows, the source rows read as 16-pixel groups
 * of the flat image: vector's kernel for gray-through, and grey from 32 MiB (resize.c), shrinking
 * by 1.6 or more.
 * gpu_resize_rows_fit picks the segment from the host's tables (0: the span does not fit) and the
 * staged row's bytes (*gs); both go to gpu_resize_rows. */
int gpu_resize_rows_fit(int c, int depth, int ow, const int32_t *xi, int *gs);
int gpu_resize_rows(const struct gpu_image *in, const struct gpu_image *out, const int32_t *xi, const uint32_t *xw,
                    const int32_t *yi, const uint32_t *yw, int vhalf, int seg, int gs, char *err, size_t errlen);
/* bilinear through the texture unit (one channel; weights have 8 fraction bits, so
 * results differ from the exact ones by at most GPU_TEXTURE_TOL8 / GPU_TEXTURE_TOL16 levels).
 * scratch: a pitched copy of the input when its rows are not aligned as textures need
 * (gpu_texture_scratch bytes, 0 when none is needed). */
#define GPU_TEXTURE_TOL8 2
#define GPU_TEXTURE_TOL16 514
int gpu_texture_bilinear(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out, void *scratch, char *err,
                         size_t errlen);
size_t gpu_texture_scratch(int w, int h, int depth);
/* cubic and lanczos3 (src/ops/resize/interp.h): the signed Q14 tables on the device, nx (ny)
 * taps an output column (row), and the same integers as the CPU's, their sums across 32-bit where
 * narrow (itaps_narrow) else 64. perpixel and coalesced (k->variant): two passes, across into sums
 * (out->w x in->h pixels of sums, gpu_interp_scratch bytes), then down into out. tiled: one pass
 * in tiles of tile_h output rows, whose source rows (tile_rows at most, itaps_span) are summed
 * across in gpu_interp_tile_bytes of shared memory (at most GPU_INTERP_TILE_MAX). */
struct gpu_interp_tables {
    const int32_t *xi, *yi;
    const int16_t *xw, *yw;
    int nx, ny, narrow;
    void *sums;
    int tile_h, tile_rows;
};
#define GPU_INTERP_TILE_MAX (48u << 10)
int gpu_interp(const struct gpu_call *k, const struct gpu_image *in, const struct gpu_image *out,
               const struct gpu_interp_tables *t, char *err, size_t errlen);
size_t gpu_interp_scratch(int ow, int ih, int c, int narrow);
size_t gpu_interp_tile_bytes(int rows, int c, int narrow);

#ifdef __cplusplus
}
#endif
#endif
