/* gpuimg: the C interface between src/ and cuda/. Plain C types only: no CUDA header is
 * included outside cuda/. Every function returns 0 on success or a CUDA error code, with a
 * message in the caller's buffer. */
#ifndef GPUIMG_GPU_H
#define GPUIMG_GPU_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gpu_info {
    char name[256];
    int device, count;
    int cc_major, cc_minor;
    size_t mem_total, mem_free;
    double init_ms;          /* context creation and the first launch */
};

/* Is device usable? Counts devices, makes a context and runs a tiny kernel. */
int gpu_probe(int device, struct gpu_info *info, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
