/* gpuimg: JPEG decoding on the GPU with nvJPEG (built when configure finds it). The compressed
 * bytes go in, the 8-bit grey or interleaved RGB image comes out in device memory, straight into
 * the pipeline's first buffer: no decode on the CPU and no upload of pixels. One nvJPEG handle
 * for the process; a decoder state per thread, since the workers of a batch decode at once. */
#include <cstdio>
#include <mutex>
#include <nvjpeg.h>
#include "cuda/check.h"
#include "cuda/gpu.h"

static nvjpegHandle_t handle;
static nvjpegStatus_t handle_status;
static std::once_flag handle_once;
static thread_local nvjpegJpegState_t state;

#define NVJPEG_TRY(call)                                                                                     \
    do {                                                                                                      \
        nvjpegStatus_t s_ = (call);                                                                           \
        if (s_ != NVJPEG_STATUS_SUCCESS) {                                                                    \
            std::snprintf(err, errlen, "%s: nvJPEG status %d", #call, (int)s_);                              \
            return 1;                                                                                         \
        }                                                                                                     \
    } while (0)

extern "C" int gpu_jpeg_decode(const unsigned char *data, size_t len, void *dst, int w, int h, int c, char *err,
                               size_t errlen)
{
    std::call_once(handle_once, [] { handle_status = nvjpegCreateSimple(&handle); });
    NVJPEG_TRY(handle_status);
    if (!state)
        NVJPEG_TRY(nvjpegJpegStateCreate(handle, &state));
    int nc = 0, ws[NVJPEG_MAX_COMPONENT], hs[NVJPEG_MAX_COMPONENT];
    nvjpegChromaSubsampling_t ss;
    NVJPEG_TRY(nvjpegGetImageInfo(handle, data, len, &nc, &ss, ws, hs));
    /* grey and YCbCr only; CMYK/YCCK and anything unexpected go to stb_image */
    if (ws[0] != w || hs[0] != h || !((c == 1 && nc == 1) || (c == 3 && nc == 3)) || ss == NVJPEG_CSS_UNKNOWN)
        return -1;
    nvjpegImage_t img = {};
    img.channel[0] = static_cast<unsigned char *>(dst);
    img.pitch[0] = (size_t)w * c;
    NVJPEG_TRY(nvjpegDecode(handle, state, data, len, c == 1 ? NVJPEG_OUTPUT_Y : NVJPEG_OUTPUT_RGBI, &img,
                            cudaStreamPerThread));
    CUDA_TRY(cudaStreamSynchronize(cudaStreamPerThread), err, errlen);
    return 0;
}
