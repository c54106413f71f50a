/* gpuimg: choosing the backend. auto takes the GPU only when this build has CUDA, every step
 * has a GPU kernel and a device answers; otherwise the CPU, with the reason kept for -v (and
 * printed once when the reason is that no GPU could be used). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include "engine/backend.h"
#include "core/error.h"

int backend_select(enum backend_kind want, const struct plan *pl, int device, struct backend_choice *out)
{
    memset(out, 0, sizeof *out);
    out->kind = BACKEND_CPU;
    if (want == BACKEND_CPU)
        return GPUIMG_OK;
    char name[256], why[256];
    const char *missing = NULL;
    int supported = backend_gpu_supports(pl, &missing);
    if (want == BACKEND_AUTO && !supported) {
        snprintf(out->note, sizeof out->note, "running on the CPU: this build has no GPU kernels (%s)", missing);
        return GPUIMG_OK;
    }
    if (backend_gpu_probe(device, name, sizeof name, why, sizeof why) != GPUIMG_OK) {
        if (want == BACKEND_GPU)
            return gpuimg_fail(GPUIMG_ENOGPU, "--backend=gpu: no usable GPU: %s", why);
        snprintf(out->note, sizeof out->note, "no usable GPU (%.200s): running on the CPU", why);
        out->note_is_fallback = 1;
        return GPUIMG_OK;
    }
    if (!supported)   /* want == GPU */
        return gpuimg_fail(GPUIMG_EUNSUPPORTED, "--backend=gpu: %s has no GPU kernel in this build (use --backend=cpu)",
                           missing);
    out->kind = BACKEND_GPU;
    return GPUIMG_OK;
}
