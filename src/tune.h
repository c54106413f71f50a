/* gpuimg: `gpuimg tune` and its cache. The tune sweeps every operation's kernel variants over
 * launch shapes (block shapes, pixels per thread) on the present GPU, checks every result against
 * the OpenMP reference, prints the measured times beside a simple time model, and stores the
 * fastest exact choice per operation and pixel layout in a cache file that --kernel=auto reads
 * (tune_lookup). The cache lives in $XDG_CACHE_HOME/gpuimg/ (else ~/.cache/gpuimg/), one file per
 * GPU model; GPUIMG_TUNE_CACHE names another file, or "off" for the built-in defaults. */
#ifndef GPUIMG_TUNE_H
#define GPUIMG_TUNE_H
#include <stddef.h>
#include "gpu.h"

struct tune_opts {
    int device;
    int w, h;          /* the image size swept (default 7680x4320: larger than any L2) */
    int repeat;        /* timings per configuration, median kept (default 30) */
    int quick;         /* RGB 8-bit only */
    int save;          /* write the cache (default 1) */
};

/* `gpuimg tune [OPTIONS]`: argv[0] is "tune". Returns a gpuimg status. */
int tune_main(int argc, char **argv);

/* The cached choice for an operation on a layout, for the GPU the backend probed: 1 and the
 * variant and shape, or 0 (no cache, no entry). */
int tune_lookup(const char *op, int c, int depth, int *variant, struct gpu_shape *shape);

/* The cache file for a device name and compute capability (for messages and tests). */
int tune_cache_path(const char *device, int cc, char *buf, size_t n);

/* One cache line "OP C DEPTH VARIANT BXxBY PPT MS": 1 and the fields when well formed. */
int tune_parse_line(const char *line, char *op, size_t opn, int *c, int *depth, int *variant,
                    struct gpu_shape *shape);

#endif
