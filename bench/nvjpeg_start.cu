// gpuimg bench: where nvJPEG's hardware decoder spends its start, and its batched rate for a
// fixed batch size against one that changes every call (what a combiner of worker threads sees);
// then what keeps the engines busy: the pool nvjpegDecodeBatchedPreAllocate makes, how long the
// call holds its thread against the wait for the stream, and calls overlapped (two or four
// states, each on a thread and stream of its own).
//   nvcc -O2 -std=c++17 -arch=sm_90 -o nvjpeg_start bench/nvjpeg_start.cu -lnvjpeg
//   ./nvjpeg_start FLAGS a.jpg b.jpg ...      (FLAGS: nvjpegCreateEx's flags, 0 by default)
#include <algorithm>
#include <chrono>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>
#include <cuda_runtime.h>
#include <nvjpeg.h>

static double now()
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const unsigned flags = (unsigned)std::atoi(argv[1]);
    std::vector<std::vector<unsigned char>> jp;
    for (int i = 2; i < argc; i++) {
        std::ifstream f(argv[i], std::ios::binary);
        jp.emplace_back(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    }
    double t = now();
    cudaFree(nullptr);
    std::printf("context %.1f ms\n", now() - t);
    t = now();
    nvjpegHandle_t h;
    nvjpegStatus_t s = nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, nullptr, nullptr, flags, &h);
    std::printf("nvjpegCreateEx(HARDWARE, flags %u): status %d, %.1f ms\n", flags, (int)s, now() - t);
    if (s)
        return 1;
    t = now();
    nvjpegJpegState_t st;
    nvjpegJpegStateCreate(h, &st);
    std::printf("state %.1f ms\n", now() - t);
    int w = 0, hh = 0, nc, ws[4], hs[4];
    nvjpegChromaSubsampling_t ss;
    nvjpegGetImageInfo(h, jp[0].data(), jp[0].size(), &nc, &ss, ws, hs);
    w = ws[0];
    hh = hs[0];
    const int max = 64;
    std::vector<unsigned char *> dst(max);
    for (auto &d : dst)
        cudaMalloc(&d, (size_t)w * hh * 3);
    struct times { double init, call, decode; };   /* ms: initialise; the call's hold on its thread; call and wait */
    auto batch = [&](int n, nvjpegJpegState_t state, bool init) {
        std::vector<const unsigned char *> p(n);
        std::vector<size_t> l(n);
        std::vector<nvjpegImage_t> o(n);
        for (int i = 0; i < n; i++) {
            p[i] = jp[i % jp.size()].data();
            l[i] = jp[i % jp.size()].size();
            o[i] = nvjpegImage_t{};
            o[i].channel[0] = dst[i];
            o[i].pitch[0] = (size_t)w * 3;
        }
        double t0 = now();
        if (init)
            nvjpegDecodeBatchedInitialize(h, state, n, 1, NVJPEG_OUTPUT_RGBI);
        double t1 = now();
        nvjpegStatus_t q = nvjpegDecodeBatched(h, state, p.data(), l.data(), o.data(), 0);
        double tc = now();
        cudaDeviceSynchronize();
        double t2 = now();
        if (q)
            std::printf("  batch %d: status %d\n", n, (int)q);
        return times{ t1 - t0, tc - t1, t2 - t1 };
    };
    auto r = batch(16, st, true);
    std::printf("first batch of 16: init %.1f ms, decode %.1f ms\n", r.init, r.decode);
    for (int n : { 1, 4, 8, 16, 32, 64 }) {
        double best = 1e9;
        batch(n, st, true);
        for (int k = 0; k < 5; k++)
            best = std::min(best, batch(n, st, false).decode);
        std::printf("fixed batch %d: %.2f ms, %.0f images/s\n", n, best, n / best * 1e3);
    }
    double ti = 0, td = 0;
    int imgs = 0;
    for (int k = 0; k < 30; k++) {
        const int n = 4 + (k * 7) % 13;
        auto q = batch(n, st, true);
        ti += q.init;
        td += q.decode;
        imgs += n;
    }
    std::printf("changing batch sizes, re-initialised each call: init %.2f ms a call, decode %.0f images/s\n", ti / 30,
                imgs / td * 1e3);

    /* the pool: a state preallocated for 64 images of this size */
    double tp = now();
    nvjpegJpegState_t pst;
    nvjpegJpegStateCreate(h, &pst);
    nvjpegStatus_t ps = nvjpegDecodeBatchedPreAllocate(h, pst, max, w, hh, NVJPEG_CSS_444, NVJPEG_OUTPUT_RGBI);
    std::printf("preallocated state (64 of %dx%d): status %d, %.1f ms\n", w, hh, (int)ps, now() - tp);
    for (int n : { 16, 32, 64 }) {
        times best = { 0, 0, 1e9 };
        for (int k = 0; k < 5; k++) {
            const times q = batch(n, pst, true);
            if (q.decode < best.decode)
                best = q;
        }
        std::printf("preallocated, batch %d re-initialised: %.2f ms, %.0f images/s; the call holds its thread %.2f of "
                    "them\n", n, best.decode, n / best.decode * 1e3, best.call);
    }

    /* overlapped: S threads, each its own state (preallocated) and stream, batches of n */
    for (int S : { 1, 2, 4 })
        for (int n : { 16, 32, 64 }) {
            const int calls = std::max(4, 512 / (n * S));
            std::vector<unsigned char *> out((size_t)S * n);
            for (auto &d : out)
                cudaMalloc(&d, (size_t)w * hh * 3);
            std::vector<nvjpegJpegState_t> sts(S);
            std::vector<cudaStream_t> strm(S);
            for (int s = 0; s < S; s++) {
                nvjpegJpegStateCreate(h, &sts[s]);
                nvjpegDecodeBatchedPreAllocate(h, sts[s], n, w, hh, NVJPEG_CSS_444, NVJPEG_OUTPUT_RGBI);
                nvjpegDecodeBatchedInitialize(h, sts[s], n, 1, NVJPEG_OUTPUT_RGBI);
                cudaStreamCreateWithFlags(&strm[s], cudaStreamNonBlocking);
            }
            auto run = [&](int s, int ncalls) {
                std::vector<const unsigned char *> p(n);
                std::vector<size_t> l(n);
                std::vector<nvjpegImage_t> o(n);
                for (int c = 0; c < ncalls; c++) {
                    for (int i = 0; i < n; i++) {
                        const size_t k = (size_t)(c * n + i + s * 7) % jp.size();
                        p[i] = jp[k].data();
                        l[i] = jp[k].size();
                        o[i] = nvjpegImage_t{};
                        o[i].channel[0] = out[(size_t)s * n + i];
                        o[i].pitch[0] = (size_t)w * 3;
                    }
                    nvjpegDecodeBatched(h, sts[s], p.data(), l.data(), o.data(), strm[s]);
                    cudaStreamSynchronize(strm[s]);
                }
            };
            std::vector<std::thread> th;
            for (int s = 0; s < S; s++)   /* a warm-up call each */
                th.emplace_back(run, s, 1);
            for (auto &t : th)
                t.join();
            th.clear();
            double t0 = now();
            for (int s = 0; s < S; s++)
                th.emplace_back(run, s, calls);
            for (auto &t : th)
                t.join();
            const double ms = now() - t0;
            std::printf("overlapped: %d states x batches of %d, %d calls each: %.0f images/s\n", S, n, calls,
                        (double)S * n * calls / ms * 1e3);
            for (int s = 0; s < S; s++) {
                nvjpegJpegStateDestroy(sts[s]);
                cudaStreamDestroy(strm[s]);
            }
            for (auto &d : out)
                cudaFree(d);
        }
    return 0;
}
