/* gpuimg bench: each codec on one thread, megapixels a second (median of RUNS), through the same
 * calls gpuimg makes (io_parse + io_decode, pngenc_write, io_save's JPEG encoder). For each image:
 * every decoder that reads it (PNG: libdeflate, libpng, stb_image; JPEG: libjpeg-turbo, its DCT
 * scaling at 1/2, 1/4 and 1/8, stb_image), then the PNG encoders (libdeflate and zlib at levels
 * 1, 6 and 9, with the output's size) and the JPEG encoder at quality 90.
 *   bench/codec_bench [--runs=N] IMAGE...      (pin it to one core: taskset -c 0) */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/error.h"
#include "core/timing.h"
#include "io/formats.h"
#include "io/io.h"
#include "io/pngenc.h"

static int runs = 5;

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    uint8_t *b = len > 0 ? malloc((size_t)len) : NULL;
    if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *n = (size_t)len;
    return b;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *t)
{
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    return t[runs / 2];
}

/* One decode of buf with o (shrink: 1 none); the image in *im. */
static int decode(const uint8_t *buf, size_t n, const struct load_opts *o, int shrink, struct image *im,
                  const char **codec)
{
    uint8_t *copy = malloc(n);
    struct io_input in;
    if (!copy)
        return GPUIMG_ENOMEM;
    memcpy(copy, buf, n);
    int st = io_parse("bench", copy, n, o, &in);
    if (!st && shrink > 1 && !io_can_shrink(&in)) {
        io_input_free(&in);
        return gpuimg_fail(GPUIMG_EUNSUPPORTED, "no decoder that shrinks in this build");
    }
    if (!st && shrink > 1)
        io_shrink(&in, shrink);
    if (!st)
        st = io_decode(&in, im);
    *codec = in.codec;
    return st;
}

static void bench_decoders(const char *path, const uint8_t *buf, size_t n, struct image *keep)
{
    const enum file_kind k = sniff_kind(buf, n);
    struct { enum io_decoder png, jpeg; int shrink; } cfg[] = {
        { DEC_AUTO, DEC_AUTO, 1 }, { DEC_LIBPNG, DEC_AUTO, 1 }, { DEC_STB, DEC_STB, 1 },
        { DEC_AUTO, DEC_AUTO, 2 }, { DEC_AUTO, DEC_AUTO, 4 }, { DEC_AUTO, DEC_AUTO, 8 },
    };
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
        if ((k == KIND_PNG && cfg[c].shrink > 1) || (k == KIND_JPEG && cfg[c].png == DEC_LIBPNG))
            continue;
        const struct load_opts o = { 0, cfg[c].jpeg, cfg[c].png };
        double t[64], mp = 0;
        const char *codec = "?";
        int ok = 1;
        for (int r = 0; r < runs && ok; r++) {
            struct image im;
            const double t0 = timing_now_ms();
            if (decode(buf, n, &o, cfg[c].shrink, &im, &codec)) {
                printf("  decode %-28s %s\n", codec ? codec : "?", gpuimg_errmsg());
                gpuimg_clear_error();
                ok = 0;
                break;
            }
            t[r] = timing_now_ms() - t0;
            mp = (double)im.w * im.h / 1e6;
            if (c == 0 && r == 0 && keep)
                *keep = im;
            else
                image_free(&im);
        }
        if (ok)
            printf("  decode %-20s%s %8.1f ms %7.1f MP/s (of the file's pixels)\n", codec,
                   cfg[c].shrink > 1 ? (cfg[c].shrink == 2 ? " 1/2" : cfg[c].shrink == 4 ? " 1/4" : " 1/8") : "    ",
                   median(t), mp * cfg[c].shrink * cfg[c].shrink / (median(t) / 1e3));
    }
    (void)path;
}

static void bench_encoders(const struct image *im)
{
    const double mp = (double)im->w * im->h / 1e6;
    static const int levels[] = { 1, 6, 9 };
    for (int z = 0; z < 2; z++) {
        pngenc_use_zlib(z);
        for (int l = 0; l < 3; l++) {
            double t[64];
            size_t size = 0;
            for (int r = 0; r < runs; r++) {
                char *mem = NULL;
                FILE *f = open_memstream(&mem, &size);
                const double t0 = timing_now_ms();
                if (!f || pngenc_write(f, "bench", im, levels[l], 1, NULL)) {
                    printf("  PNG encoder failed: %s\n", gpuimg_errmsg());
                    exit(1);
                }
                fclose(f);
                t[r] = timing_now_ms() - t0;
                free(mem);
            }
            printf("  encode PNG %-10s level %d %8.1f ms %7.1f MP/s %10zu bytes\n", pngenc_name(&(struct geom){ im->w, im->h, im->c, im->depth }, 1), levels[l],
                   median(t), mp / (median(t) / 1e3), size);
        }
    }
    pngenc_use_zlib(0);
    const struct save_opts so = { FMT_JPEG, 6, 90, 1, 1, 0, 0 };
    double t[64];
    size_t size = 0;
    for (int r = 0; r < runs; r++) {
        char path[] = "/tmp/codec_bench.XXXXXX";
        int fd = mkstemp(path);
        if (fd < 0)
            return;
        close(fd);
        const double t0 = timing_now_ms();
        if (io_save(path, im, &so)) {
            printf("  JPEG encoder failed: %s\n", gpuimg_errmsg());
            remove(path);
            return;
        }
        t[r] = timing_now_ms() - t0;
        FILE *f = fopen(path, "rb");
        if (f) {
            fseek(f, 0, SEEK_END);
            size = (size_t)ftell(f);
            fclose(f);
        }
        remove(path);
    }
    printf("  encode JPEG %-27s q90 %8.1f ms %7.1f MP/s %10zu bytes\n", io_encoder_name(&(struct geom){ im->w, im->h, im->c, im->depth }, &so), median(t),
           mp / (median(t) / 1e3), size);
}

int main(int argc, char **argv)
{
    int first = 1;
    if (argc > 1 && !strncmp(argv[1], "--runs=", 7)) {
        runs = atoi(argv[1] + 7);
        if (runs < 1 || runs > 64)
            runs = 5;
        first = 2;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: codec_bench [--runs=N] IMAGE...\n");
        return 2;
    }
    for (int a = first; a < argc; a++) {
        size_t n;
        uint8_t *buf = slurp(argv[a], &n);
        if (!buf) {
            fprintf(stderr, "codec_bench: cannot read %s\n", argv[a]);
            return 1;
        }
        struct image im = { 0 };
        printf("%s (%zu bytes)\n", argv[a], n);
        bench_decoders(argv[a], buf, n, &im);
        if (im.data) {
            printf("  %dx%d %s %d-bit\n", im.w, im.h, layout_name(im.c), im.depth);
            bench_encoders(&im);
            image_free(&im);
        }
        free(buf);
    }
    return 0;
}
