/* gpuimg: backends run a whole resolved plan on an image. The CPU backend (OpenMP, backend_cpu.h)
 * is the reference; the GPU backend (backend_gpu.h) uploads once, runs every step on the device
 * and downloads once. backend_select() makes the auto/cpu/gpu decision and says why. */
#ifndef GPUIMG_BACKEND_H
#define GPUIMG_BACKEND_H
#include "core/plan.h"
#include "engine/backend_cpu.h"
#include "engine/backend_gpu.h"

enum backend_kind { BACKEND_AUTO, BACKEND_CPU, BACKEND_GPU };

struct backend_choice {
    enum backend_kind kind;   /* CPU or GPU after selection */
    char note[256];           /* why auto chose the CPU (printed with -v) */
    int note_is_fallback;     /* the reason is that no GPU could be used (said in the timing line) */
};

int backend_select(enum backend_kind want, const struct plan *pl, int device, struct backend_choice *out);

#endif
