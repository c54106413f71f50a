// gpuimg bench: where nvJPEG's hardware decoder spends its start, and its batched rate for a
// fixed batch size against one that changes every call (what a combiner of worker threads sees).
//   nvcc -O2 -std=c++17 -arch=sm_90 -o nvjpeg_start bench/nvjpeg_start.cu -lnvjpeg
//   ./nvjpeg_start FLAGS a.jpg b.jpg ...      (FLAGS: nvjpegCreateEx's flags, 0 by default)
#include <chrono>
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
        cudaDeviceSynchronize();
        double t2 = now();
        if (q)
            std::printf("  batch %d: status %d\n", n, (int)q);
        return std::make_pair(t1 - t0, t2 - t1);
    };
    auto r = batch(16, st, true);
    std::printf("first batch of 16: init %.1f ms, decode %.1f ms\n", r.first, r.second);
    for (int n : { 1, 4, 8, 16, 32, 64 }) {
        double best = 1e9;
        batch(n, st, true);
        for (int k = 0; k < 5; k++)
            best = std::min(best, batch(n, st, false).second);
        std::printf("fixed batch %d: %.2f ms, %.0f images/s\n", n, best, n / best * 1e3);
    }
    double ti = 0, td = 0;
    int imgs = 0;
    for (int k = 0; k < 30; k++) {
        const int n = 4 + (k * 7) % 13;
        auto q = batch(n, st, true);
        ti += q.first;
        td += q.second;
        imgs += n;
    }
    std::printf("changing batch sizes, re-initialised each call: init %.2f ms a call, decode %.0f images/s\n", ti / 30,
                imgs / td * 1e3);
    return 0;
}
