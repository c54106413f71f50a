/* gpuimg: the pixel remaps shared by transpose, rotate, flip and copy (remap.c): each operation
 * names its map; the CPU loops, the tile regions and the GPU launch are the same for all seven. */
#ifndef GPUIMG_OPS_REMAP_H
#define GPUIMG_OPS_REMAP_H
#include "core/op.h"

enum map { M_TRANSPOSE, M_ROT90, M_ROT180, M_ROT270, M_FLIPH, M_FLIPV, M_COPY };

int remap_resolve(enum map m, const struct geom *in, struct geom *out);
int remap_cpu(enum map m, const struct image *in, struct image *out);
void remap_region(enum map m, const struct geom *in, const struct rect *want, struct rect *need, struct rect *yields);
#ifdef HAVE_CUDA
int remap_gpu(const struct op_desc *op, enum map m, const struct gpu_call *k, const struct gpu_image *in,
              const struct gpu_image *out);
#endif

/* vector: tiles of aligned 16-byte words for the maps that swap axes, mirrored row chunks for the
 * maps that keep rows whole */
#define REMAP_KERNELS (KV_BIT(KV_PERPIXEL) | KV_BIT(KV_COALESCED) | KV_BIT(KV_TILED) | KV_BIT(KV_VECTOR))
/* vector is fastest for every pixel size up to 6 bytes, most for rows that are not word-aligned;
 * 8-byte pixels (RGBA 16-bit) move whole through tiled's tile faster. */
static inline int remap_swap_auto_for(const struct geom *in)
{
    return in->c * (in->depth / 8) == 8 ? KV_TILED : KV_VECTOR;
}
#define REMAP_SWAP_AUTO_TEXT "vector, but tiled for RGBA 16-bit"

#endif
