/* gpuimg: the measuring knobs handed down (see knobs.h). */
#include <config.h>
#include "cuda/gpu.h"
#include "engine/knobs.h"
#include "engine/tune_cache.h"
#include "io/pngenc.h"
#include "ops/common/simd.h"

static int no_stream;

void engine_set_knobs(const struct engine_knobs *k)
{
    no_stream = k->no_stream;
    simd_allow(!k->no_simd);
    pngenc_use_zlib(k->png_zlib);
    tune_cache_place(k->tune_file, k->tune_dir);
#ifdef HAVE_NVCOMP
    gpu_png_tuning(k->png_gpu_algo, k->png_gpu_chunk);
#endif
#ifdef HAVE_NVJPEG
    gpu_jpeg_flags(k->nvjpeg_flags);
    gpu_jpeg_encode_share(k->jpeg_gpu_encodes);
#endif
}

int engine_streams(void)
{
    return !no_stream;
}
