/* gpuimg: the GPU backend's host side. It talks to cuda/ only through cuda/gpu.h (no CUDA types
 * outside cuda/). This build probes the device (a context is made and a test kernel launched);
 * operations gain kernels in cuda/NAME.cu and list them in their descriptor's gpu table. */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include "backend.h"
#include "error.h"
#include "gpu.h"

int backend_gpu_supports(const struct plan *pl, const char **missing)
{
    for (int i = 0; i < pl->nsteps; i++)
        if (pl->steps[i].op->ngpu == 0) {
            if (missing)
                *missing = pl->steps[i].op->name;
            return 0;
        }
    return 1;
}

int backend_gpu_probe(int device, char *name, size_t namelen, char *why, size_t whylen)
{
#ifdef HAVE_CUDA
    struct gpu_info info;
    if (gpu_probe(device, &info, why, whylen) != 0)
        return GPUIMG_ENOGPU;
    snprintf(name, namelen, "device %d of %d: %s (sm_%d%d, %.1f GiB), context and first launch %.1f ms", info.device,
             info.count, info.name, info.cc_major, info.cc_minor, info.mem_total / 1073741824.0, info.init_ms);
    return GPUIMG_OK;
#else
    snprintf(why, whylen, "this gpuimg was built without CUDA");
    return GPUIMG_ENOGPU;
#endif
}

int backend_gpu_run(const struct plan *pl, int device, struct image *img, struct run_report *r)
{
    const char *missing = NULL;
    if (!backend_gpu_supports(pl, &missing))
        return gpuimg_fail(GPUIMG_EUNSUPPORTED, "%s: no GPU kernel for this operation in this build (use --backend=cpu)",
                           missing);
    return gpuimg_fail(GPUIMG_EUNSUPPORTED, "the GPU pipeline is not part of this build");
}
