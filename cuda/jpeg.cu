/* gpuimg: JPEG decoding on the GPU with nvJPEG (built when configure finds it). The compressed
 * bytes go in, the 8-bit grey or interleaved RGB image comes out in device memory, straight into
 * the pipeline's first buffer: no decode on the CPU and no upload of pixels.
 *
 * Two decoders:
 *  - the hardware engines (NVJPEG_BACKEND_HARDWARE: A100, H100, H200), batched: the requests of
 *    the threads decoding at once (a batch's workers) go into one nvjpegDecodeBatched call
 *    (combine.h). Each image is checked first (nvjpegDecodeBatchedSupported), so one it cannot
 *    take (progressive, 4:1:0, 4:1:1) never fails a batch; a batch that fails anyway is decoded
 *    again image by image, and an image that fails alone is handed back (-1) to the CPU;
 *  - nvJPEG's default backend, one image at a time (--jpeg-decoder=nvjpeg, for what the engines
 *    do not take), a decoder state per thread.
 * Only a file that ends with its EOI marker goes to the GPU: a cut file is the CPU decoder's to
 * judge (its error, not an image padded by the GPU). */
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>
#include <nvjpeg.h>
#include "cuda/check.h"
#include "cuda/combine.h"
#include "cuda/gpu.h"

#define NVJPEG_TRY(call)                                                                                     \
    do {                                                                                                      \
        nvjpegStatus_t s_ = (call);                                                                           \
        if (s_ != NVJPEG_STATUS_SUCCESS) {                                                                    \
            std::snprintf(err, errlen, "%s: nvJPEG status %d", #call, (int)s_);                              \
            return 1;                                                                                         \
        }                                                                                                     \
    } while (0)

#define MAX_BATCH GPU_JPEG_BATCH

/* ---- the hardware engines, batched ------------------------------------------------------- */

struct hw_req {
    const unsigned char *data;
    size_t len;
    void *dst;
    int w, c;
    long long px;
    int rc;   /* 0 decoded, 1 failed (the image alone) */
};

/* One a device: the handle, the decoder state its calls share (one call at a time), the
 * combiner of its threads' requests. Making the handle and state costs more than decoding many
 * files on the CPU, so a batch starts it on a thread of its own (gpu_jpeg_start) while the CPU decodes the first files;
 * callers that do not wait take the engines only once ready is set. */
struct hw_decoder {
    std::once_flag once;
    std::atomic<int> ready{0};      /* 1: made, 2: not available (no engines) */
    std::thread maker;
    nvjpegHandle_t handle;
    nvjpegJpegState_t state;
    int batch;                     /* the batch size and format the state was set up for */
    nvjpegOutputFormat_t fmt;
    combiner<hw_req> queue;
    /* the cost model the scheduler reads (gpu_jpeg_wait_ms): pixels submitted and not yet
     * decoded, and the calls' measured picoseconds a pixel (0: none yet), averaged */
    std::atomic<long long> pending{0};
    std::atomic<long long> ps_per_px{0};
    /* what they did (gpu_jpeg_stats): calls, images decoded, the calls' nanoseconds */
    std::atomic<long long> calls{0}, images{0}, busy_ns{0};
    std::atomic<int> waiting{0};   /* images submitted and not yet in a call */
    double made_ms;                /* how long the handle and state took to make */
};
static hw_decoder hw[GPU_MAX_DEVICES];

/* Interpolated chroma upsampling, as libjpeg-turbo's "fancy" upsampling: within one level of its
 * pixels instead of tens of levels at colour edges (tests/gpu_jpeg.sh). */
static long knob_flags = -1;   /* a measuring knob (gpu_jpeg_flags): nvjpegCreateEx's flags */

extern "C" void gpu_jpeg_flags(long flags) { knob_flags = flags; }

static void hw_make(hw_decoder *d, int dev)
{
    const auto t0 = std::chrono::steady_clock::now();
    const unsigned flags = knob_flags >= 0 ? (unsigned)knob_flags : NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION;
    int ok = cudaSetDevice(dev) == cudaSuccess
             && nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, nullptr, nullptr, flags, &d->handle) == NVJPEG_STATUS_SUCCESS;
    if (ok && nvjpegJpegStateCreate(d->handle, &d->state) != NVJPEG_STATUS_SUCCESS) {
        nvjpegDestroy(d->handle);
        ok = 0;
    }
    d->made_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    d->ready.store(ok ? 1 : 2);
}

extern "C" void gpu_jpeg_start(int dev)
{
    if (dev < 0 || dev >= GPU_MAX_DEVICES)
        return;
    hw_decoder *d = &hw[dev];
    std::call_once(d->once, [d, dev] { d->maker = std::thread(hw_make, d, dev); });
}

extern "C" int gpu_jpeg_ready(int dev)
{
    return dev >= 0 && dev < GPU_MAX_DEVICES && hw[dev].ready.load() == 1;
}

extern "C" void gpu_jpeg_stop(void)
{
    for (hw_decoder &d : hw)
        if (d.maker.joinable())
            d.maker.join();
}

/* wait: make the engines' decoder now if need be and wait for it; else take it only if ready */
static hw_decoder *hw_get(int dev, int wait)
{
    hw_decoder *d = &hw[dev];
    if (wait) {
        std::call_once(d->once, [d, dev] { hw_make(d, dev); });
        if (d->maker.joinable())   /* started by gpu_jpeg_start: made on that thread */
            while (!d->ready.load())
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return d->ready.load() == 1 ? d : nullptr;
}

/* Each thread parses its images for the check with its own stream object, made with its
 * device's handle. */
static thread_local nvjpegJpegStream_t parsed;
static thread_local nvjpegHandle_t parsed_with;

static int hw_call(hw_decoder *d, hw_req *const *r, int n)
{
    const unsigned char *data[MAX_BATCH];
    size_t lens[MAX_BATCH];
    nvjpegImage_t img[MAX_BATCH];
    for (int i = 0; i < n; i++) {
        data[i] = r[i]->data;
        lens[i] = r[i]->len;
        img[i] = nvjpegImage_t{};
        img[i].channel[0] = static_cast<unsigned char *>(r[i]->dst);
        img[i].pitch[0] = (size_t)r[i]->w * r[i]->c;
    }
    const nvjpegOutputFormat_t fmt = r[0]->c == 1 ? NVJPEG_OUTPUT_Y : NVJPEG_OUTPUT_RGBI;
    if (d->batch != n || d->fmt != fmt) {
        if (nvjpegDecodeBatchedInitialize(d->handle, d->state, n, 1, fmt) != NVJPEG_STATUS_SUCCESS)
            return d->batch = 0, 1;
        d->batch = n;
        d->fmt = fmt;
    }
    if (nvjpegDecodeBatched(d->handle, d->state, data, lens, img, cudaStreamPerThread) != NVJPEG_STATUS_SUCCESS
        || cudaStreamSynchronize(cudaStreamPerThread) != cudaSuccess)
        return d->batch = 0, 1;   /* set up afresh after a failure */
    return 0;
}

static void hw_run(hw_decoder *d, std::vector<hw_req *> &batch)
{
    const int n = (int)batch.size();
    d->waiting.fetch_sub(n);
    const auto t0 = std::chrono::steady_clock::now();
    if (!hw_call(d, batch.data(), n)) {
        long long px = 0;
        for (hw_req *r : batch) {
            r->rc = 0;
            px += r->px;
        }
        const long long ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
        const long long ps = ns * 1000 / (px > 0 ? px : 1);
        d->calls.fetch_add(1);
        d->images.fetch_add(n);
        d->busy_ns.fetch_add(ns);
        const long long old = d->ps_per_px.load();
        d->ps_per_px.store(old ? (3 * old + ps) / 4 : ps);
        return;
    }
    for (hw_req *r : batch)   /* which one: each alone */
        r->rc = n == 1 ? 1 : hw_call(d, &r, 1);
}

/* 1 when the bytes end with EOI, trailing zero bytes aside (a cut file does not) */
static int ends_with_eoi(const unsigned char *p, size_t len)
{
    while (len > 2 && p[len - 1] == 0)
        len--;
    return len >= 4 && p[len - 2] == 0xFF && p[len - 1] == 0xD9;
}

/* 0: decoded; -1: the engines do not take it (or are not there, or not ready and not waited for) */
static int hw_decode(const unsigned char *data, size_t len, void *dst, int w, int h, int c, int wait)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= GPU_MAX_DEVICES)
        return -1;
    hw_decoder *d = hw_get(dev, wait);
    if (!d)
        return -1;
    if (parsed_with != d->handle) {
        if (parsed)
            nvjpegJpegStreamDestroy(parsed);
        parsed = nullptr;
        if (nvjpegJpegStreamCreate(d->handle, &parsed) != NVJPEG_STATUS_SUCCESS)
            return -1;
        parsed_with = d->handle;
    }
    unsigned pw = 0, ph = 0, nc = 0;
    int unsupported = 1;
    if (nvjpegJpegStreamParse(d->handle, data, len, 0, 0, parsed) != NVJPEG_STATUS_SUCCESS
        || nvjpegJpegStreamGetFrameDimensions(parsed, &pw, &ph) != NVJPEG_STATUS_SUCCESS
        || nvjpegJpegStreamGetComponentsNum(parsed, &nc) != NVJPEG_STATUS_SUCCESS
        || nvjpegDecodeBatchedSupported(d->handle, parsed, &unsupported) != NVJPEG_STATUS_SUCCESS || unsupported
        || (int)pw != w || (int)ph != h || (int)nc != c)
        return -1;
    hw_req r = { data, len, dst, w, c, (long long)w * h, 1 };
    d->pending.fetch_add(r.px);
    d->waiting.fetch_add(1);
    d->queue.submit(&r, MAX_BATCH, [d](std::vector<hw_req *> &b) { hw_run(d, b); },
                    [](const hw_req *a, const hw_req *b) { return a->c == b->c; });
    d->pending.fetch_sub(r.px);
    return r.rc ? -1 : 0;
}

extern "C" double gpu_jpeg_wait_ms(int dev, long long px)
{
    if (dev < 0 || dev >= GPU_MAX_DEVICES || hw[dev].ready.load() != 1)
        return -1;
    const long long ps = hw[dev].ps_per_px.load();
    return ps ? (double)(hw[dev].pending.load() + px) * (double)ps * 1e-9 : -1;
}

extern "C" int gpu_jpeg_waiting(int dev)
{
    return dev >= 0 && dev < GPU_MAX_DEVICES && hw[dev].ready.load() == 1 ? hw[dev].waiting.load() : 0;
}

extern "C" int gpu_jpeg_stats(int dev, long long *calls, long long *images, double *busy_ms, double *made_ms)
{
    if (dev < 0 || dev >= GPU_MAX_DEVICES || hw[dev].ready.load() != 1)
        return -1;
    *calls = hw[dev].calls.load();
    *images = hw[dev].images.load();
    *busy_ms = (double)hw[dev].busy_ns.load() / 1e6;
    *made_ms = hw[dev].made_ms;
    return 0;
}

/* ---- nvJPEG's default backend, one image --------------------------------------------------- */

static nvjpegHandle_t handle;
static nvjpegStatus_t handle_status;
static std::once_flag handle_once;
static thread_local nvjpegJpegState_t state;

static int one_decode(const unsigned char *data, size_t len, void *dst, int w, int h, int c, char *err, size_t errlen)
{
    std::call_once(handle_once, [] { handle_status = nvjpegCreateSimple(&handle); });
    NVJPEG_TRY(handle_status);
    if (!state)
        NVJPEG_TRY(nvjpegJpegStateCreate(handle, &state));
    int nc = 0, ws[NVJPEG_MAX_COMPONENT], hs[NVJPEG_MAX_COMPONENT];
    nvjpegChromaSubsampling_t ss;
    NVJPEG_TRY(nvjpegGetImageInfo(handle, data, len, &nc, &ss, ws, hs));
    /* grey and YCbCr only; CMYK/YCCK and anything unexpected go to the CPU */
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

extern "C" int gpu_jpeg_decode(const unsigned char *data, size_t len, void *dst, int w, int h, int c, int any,
                               int *hardware, char *err, size_t errlen)
{
    *hardware = 0;
    if (!ends_with_eoi(data, len))
        return -1;
    if (!hw_decode(data, len, dst, w, h, c, any)) {
        *hardware = 1;
        return 0;
    }
    if (!any)
        return -1;
    return one_decode(data, len, dst, w, h, c, err, errlen);
}

/* ---- encoding: nvJPEG's GPU encoder, one image a call ------------------------------------ */

/* Each thread its encoder state and parameters, made with the default handle. */
static thread_local nvjpegEncoderState_t enc_state;
static thread_local nvjpegEncoderParams_t enc_params;

/* Shared requests (the cores encode the rest): at most enc_share at once on a device. */
static int enc_share = GPU_JPEG_ENCODE_SHARE;
static std::atomic<int> enc_busy[GPU_MAX_DEVICES];

extern "C" void gpu_jpeg_encode_share(int n) { enc_share = n < 0 ? GPU_JPEG_ENCODE_SHARE : n; }

static int encode(const void *src, int w, int h, int c, int quality, int sampling, unsigned char **out, size_t *len,
                  char *err, size_t errlen);

extern "C" int gpu_jpeg_encode(const void *src, int w, int h, int c, int quality, int sampling, int shared,
                               unsigned char **out, size_t *len, char *err, size_t errlen)
{
    *out = nullptr;
    *len = 0;
    int dev = 0;
    if (!shared)
        return encode(src, w, h, c, quality, sampling, out, len, err, errlen);
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= GPU_MAX_DEVICES)
        return -1;
    if (enc_busy[dev].fetch_add(1) >= enc_share) {
        enc_busy[dev].fetch_sub(1);
        return -1;
    }
    const int rc = encode(src, w, h, c, quality, sampling, out, len, err, errlen);
    enc_busy[dev].fetch_sub(1);
    return rc;
}

static int encode(const void *src, int w, int h, int c, int quality, int sampling, unsigned char **out, size_t *len,
                  char *err, size_t errlen)
{
    cudaStream_t st = cudaStreamPerThread;
    std::call_once(handle_once, [] { handle_status = nvjpegCreateSimple(&handle); });
    NVJPEG_TRY(handle_status);
    if (!enc_state)
        NVJPEG_TRY(nvjpegEncoderStateCreate(handle, &enc_state, st));
    if (!enc_params)
        NVJPEG_TRY(nvjpegEncoderParamsCreate(handle, &enc_params, st));
    /* as the CPU encoder: baseline, optimised Huffman tables, grey as one component */
    const nvjpegChromaSubsampling_t css = c == 1 ? NVJPEG_CSS_GRAY
                                          : sampling == 444 ? NVJPEG_CSS_444
                                          : sampling == 422 ? NVJPEG_CSS_422
                                                            : NVJPEG_CSS_420;
    NVJPEG_TRY(nvjpegEncoderParamsSetQuality(enc_params, quality, st));
    NVJPEG_TRY(nvjpegEncoderParamsSetOptimizedHuffman(enc_params, 1, st));
    NVJPEG_TRY(nvjpegEncoderParamsSetSamplingFactors(enc_params, css, st));
    nvjpegImage_t img = {};
    img.channel[0] = (unsigned char *)src;
    img.pitch[0] = (size_t)w * c;
    if (c == 1)
        NVJPEG_TRY(nvjpegEncodeYUV(handle, enc_state, enc_params, &img, NVJPEG_CSS_GRAY, w, h, st));
    else
        NVJPEG_TRY(nvjpegEncodeImage(handle, enc_state, enc_params, &img, NVJPEG_INPUT_RGBI, w, h, st));
    size_t n = 0;
    NVJPEG_TRY(nvjpegEncodeRetrieveBitstream(handle, enc_state, nullptr, &n, st));
    unsigned char *buf = (unsigned char *)std::malloc(n ? n : 1);
    if (!buf) {
        std::snprintf(err, errlen, "out of host memory for %zu bytes", n);
        return 1;
    }
    nvjpegStatus_t s = nvjpegEncodeRetrieveBitstream(handle, enc_state, buf, &n, st);
    if (s == NVJPEG_STATUS_SUCCESS && cudaStreamSynchronize(st) != cudaSuccess)
        s = NVJPEG_STATUS_EXECUTION_FAILED;
    if (s != NVJPEG_STATUS_SUCCESS) {
        std::free(buf);
        std::snprintf(err, errlen, "nvjpegEncodeRetrieveBitstream: nvJPEG status %d", (int)s);
        return 1;
    }
    *out = buf;
    *len = n;
    return 0;
}
