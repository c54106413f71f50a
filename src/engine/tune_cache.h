/* gpuimg: the tune cache (tune_cache.c), read by the GPU backend and written by `gpuimg tune`. */
#ifndef GPUIMG_TUNE_CACHE_H
#define GPUIMG_TUNE_CACHE_H
#include <stddef.h>
#include "cuda/gpu.h"

#define TUNE_MAX 256   /* entries a cache file holds */

/* The cached choice for an operation on a layout on the GPU named device (compute capability cc,
 * as 10 * major + minor): 1 and the variant and shape, or 0 (no device, no cache, no entry). The
 * file is read once, on the first call. */
int tune_lookup(const char *device, int cc, const char *op, int c, int depth, int *variant, struct gpu_shape *shape);

/* Where the cache is: file (a path, or "off" for none), else one file a GPU model in dir (NULL:
 * none). Set once, before any work. */
void tune_cache_place(const char *file, const char *dir);
/* The cache file for a device name and compute capability (for messages and tests). */
int tune_cache_path(const char *device, int cc, char *buf, size_t n);

/* One cache line "OP C DEPTH VARIANT BXxBY PPT MS": 1 and the fields when well formed. */
int tune_parse_line(const char *line, char *op, size_t opn, int *c, int *depth, int *variant,
                    struct gpu_shape *shape);

#endif
