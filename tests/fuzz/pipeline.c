/* gpuimg fuzz target: load + pipeline + encode on the CPU path. The input is a pipeline text,
 * a newline, then an image file's bytes. The image is checked and decoded as gpuimg does, the
 * pipeline run by the OpenMP backend and the result encoded to PNG by pngenc on 1 to 4 threads
 * (the first byte picks the count and the zlib level) and, in libjpeg-turbo builds, to JPEG (the
 * first byte's quality, sampling and progressive; flattened first where it has alpha). Checked: no crash, the result has the geometry
 * the plan promised, the PNG decodes back to exactly the result and the JPEG to its geometry. */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stb/stb_image.h>
#include "engine/backend.h"
#include "core/error.h"
#include "fuzz.h"
#include "io/io.h"
#include "io/jpeg.h"
#include "io/pngenc.h"

static void check_png(const uint8_t *png, size_t len, const struct image *im)
{
    int w, h, c;
    void *px = im->depth == 16 ? (void *)stbi_load_16_from_memory(png, (int)len, &w, &h, &c, 0)
                               : (void *)stbi_load_from_memory(png, (int)len, &w, &h, &c, 0);
    if (!px)
        fuzz_fail("the encoded PNG does not decode");
    if (w != im->w || h != im->h || c != im->c || memcmp(px, im->data, im->stride * (size_t)im->h) != 0)
        fuzz_fail("the encoded PNG decodes to something else");
    stbi_image_free(px);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size < 256 ? size : 256);
    if (!nl || nl == data)
        return 0;
    const unsigned knob = data[0];
    char text[256];
    memcpy(text, data, (size_t)(nl - data));
    text[nl - data] = 0;
    static struct plan pl;
    if (plan_parse(text, &pl) != GPUIMG_OK) {
        gpuimg_clear_error();
        return 0;
    }
    const size_t ilen = size - (size_t)(nl + 1 - data);
    uint8_t *buf = malloc(ilen ? ilen : 1);
    if (!buf)
        return 0;
    memcpy(buf, nl + 1, ilen);
    struct load_opts lo = { FUZZ_MAX_PIXELS, DEC_AUTO, DEC_AUTO, 0, IO_EXPANSION_DEFAULT, 0 };   /* no open file, one thread */
    struct io_input in;
    struct image im = { 0 };
    if (io_parse("fuzz", buf, ilen, &lo, &in) == GPUIMG_OK) {
        if (plan_resolve(&pl, &in.g, FUZZ_MAX_PIXELS) != GPUIMG_OK)
            io_input_free(&in);
        else if (io_decode(&in, &im) == GPUIMG_OK) {
            struct run_report r;
            timing_report_init(&r);
            if (backend_cpu_run(&pl, &im, &r) == GPUIMG_OK) {
                if (im.w != pl.out.w || im.h != pl.out.h || im.c != pl.out.c || im.depth != pl.out.depth)
                    fuzz_fail("the result's geometry is not the plan's");
                char *png = NULL;
                size_t plen = 0;
                FILE *f = open_memstream(&png, &plen);
                if (f) {
                    int st = pngenc_write(f, "fuzz", &im, (int)(knob % 10), 1 + (int)(knob / 10 % 4), NULL);
                    if (fclose(f) == 0 && st == GPUIMG_OK)
                        check_png((const uint8_t *)png, plen, &im);
                    free(png);
                }
#ifdef HAVE_LIBJPEG
                char *jpg = NULL;
                size_t jlen = 0;
                const int sampling[3] = { 420, 422, 444 };
                const struct jpeg_opts jo = { 1 + (int)(knob % 100), sampling[knob % 3], (int)(knob >> 7), NULL };
                static struct plan flat;   /* JPEG holds no alpha: flattened first, as a run's plan ends */
                const struct geom g = image_geom(&im);
                if (has_alpha(im.c) && (plan_parse("flatten", &flat) != GPUIMG_OK || plan_resolve(&flat, &g, 0) != GPUIMG_OK
                                        || backend_cpu_run(&flat, &im, &r) != GPUIMG_OK))
                    fuzz_fail("flatten failed");
                f = open_memstream(&jpg, &jlen);
                if (f) {
                    int st = jpeg_encode(f, "fuzz", &im, &jo);
                    if (fclose(f) == 0 && st == GPUIMG_OK) {
                        const struct geom want = { im.w, im.h, im.c <= 2 ? 1 : 3, 8 };
                        struct image back = { 0 };
                        if (jpeg_decode("fuzz", (const uint8_t *)jpg, jlen, 1, &want, &back, NULL) != GPUIMG_OK)
                            fuzz_fail("the encoded JPEG does not decode to its geometry");
                        image_free(&back);
                    }
                    free(jpg);
                }
#endif
            }
            image_free(&im);
        }
    }
    gpuimg_clear_error();
    return 0;
}
