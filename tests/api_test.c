/* gpuimg tests: the library through include/gpuimg.h alone, as a program of its own links it
 * (the build tree's libgpuimg.so in make check, the installed one through pkg-config in make
 * installcheck). Usage: api_test SAMPLES_DIR WORK_DIR. Writes WORK_DIR/convert.png (gpuimg_convert
 * of gray,resize=50%) for tests/api.sh to compare with the command's bytes. Exit 0: every check
 * passed; 1: a check failed (each said on stderr). */
#define _POSIX_C_SOURCE 200809L   /* nanosleep */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gpuimg.h>

static int failures;
static gpuimg_ctx *ctx;

#define CHECK(cond, ...)                                                                                    \
    do {                                                                                                    \
        if (!(cond)) {                                                                                      \
            fprintf(stderr, "api_test:%d: ", __LINE__);                                                     \
            fprintf(stderr, __VA_ARGS__);                                                                   \
            fprintf(stderr, " [%s]\n", gpuimg_ctx_error(ctx));                                              \
            failures++;                                                                                     \
        }                                                                                                   \
    } while (0)

static int same_pixels(const gpuimg_image *a, const gpuimg_image *b)
{
    if (a->width != b->width || a->height != b->height || a->channels != b->channels || a->depth != b->depth)
        return 0;
    const size_t row = (size_t)a->width * (size_t)a->channels * (size_t)(a->depth / 8);
    for (int y = 0; y < a->height; y++)
        if (memcmp((const char *)a->data + (size_t)y * a->stride, (const char *)b->data + (size_t)y * b->stride, row))
            return 0;
    return 1;
}

static char *path(const char *dir, const char *name)
{
    static char buf[4][4096];
    static int n;
    char *p = buf[n++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

/* gpuimg_ctx_cancel from another thread every 10 ms until the call returns (one issued before
 * the call begins has no effect) */
static gpuimg_ctx *cancel_ctx;
static int cancel_stop;
static void *cancel_soon(void *arg)
{
    (void)arg;
    struct timespec t = { 0, 10 * 1000 * 1000 };
    while (!__atomic_load_n(&cancel_stop, __ATOMIC_ACQUIRE)) {
        nanosleep(&t, NULL);
        gpuimg_ctx_cancel(cancel_ctx);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: api_test SAMPLES_DIR WORK_DIR\n");
        return 2;
    }
    const char *samples = argv[1], *work = argv[2];
    ctx = gpuimg_ctx_new();
    if (!ctx)
        return 1;
    CHECK(gpuimg_version()[0] >= '0' && gpuimg_version()[0] <= '9', "version '%s'", gpuimg_version());
    CHECK(!strcmp(gpuimg_strerror(GPUIMG_EDECODE), "cannot decode image"), "strerror");

    /* options: the command's names and values; a bad one leaves the context as it was */
    CHECK(gpuimg_ctx_set(ctx, "backend", "cpu") == GPUIMG_OK, "backend cpu");
    CHECK(gpuimg_ctx_set(ctx, "no-such-option", "1") == GPUIMG_EUSAGE && strstr(gpuimg_ctx_error(ctx), "no-such-option"),
          "an unknown option");
    CHECK(gpuimg_ctx_set(ctx, "jpeg-quality", "101") == GPUIMG_EUSAGE && strstr(gpuimg_ctx_error(ctx), "101"),
          "a value out of range");
    CHECK(gpuimg_ctx_set(ctx, "backend", "fast") == GPUIMG_EUSAGE, "a bad choice");
    CHECK(gpuimg_ctx_set(ctx, "devices", "all") == GPUIMG_EUSAGE, "a batch's option is not the library's");
    CHECK(gpuimg_ctx_set(ctx, "jobs", "4") == GPUIMG_OK, "jobs: a batch's files at once");
    CHECK(gpuimg_ctx_set(ctx, "force", "1") == GPUIMG_OK && gpuimg_ctx_set(ctx, "force", "0") == GPUIMG_OK, "force");
    CHECK(gpuimg_ctx_set(ctx, "threads", "2") == GPUIMG_OK, "threads");
    CHECK(gpuimg_ctx_get(ctx, "threads") && !strcmp(gpuimg_ctx_get(ctx, "threads"), "2")
              && !strcmp(gpuimg_ctx_get(ctx, "backend"), "cpu") && !gpuimg_ctx_get(ctx, "jpeg-sampling")
              && !gpuimg_ctx_get(ctx, "no-such-option"),
          "options read back");
    CHECK(gpuimg_ctx_set(ctx, "backend", "fast") == GPUIMG_EUSAGE && !strcmp(gpuimg_ctx_get(ctx, "backend"), "cpu"),
          "a refused value leaves the one before");
    int sets = 0;
    for (int i = 0; i < 500; i++)   /* a value set again replaces the one before: no limit */
        sets += gpuimg_ctx_set(ctx, "jpeg-quality", i % 2 ? "80" : "90") == GPUIMG_OK;
    CHECK(sets == 500, "setting an option 500 times: %d took", sets);
    CHECK(gpuimg_ctx_set(NULL, "force", "1") == GPUIMG_EUSAGE && gpuimg_ctx_error(NULL)[0], "a NULL context");

    /* read -> run -> write, and the same pipeline file to file */
    gpuimg_image in, out, back, mem;
    gpuimg_info inf;
    CHECK(gpuimg_info_read(ctx, path(samples, "path-640x400.jpg"), &inf) == GPUIMG_OK && !strcmp(inf.format, "JPEG")
              && inf.width == 640 && inf.height == 400 && inf.channels == 3 && inf.depth == 8 && inf.progressive == 0
              && inf.frames == 1 && inf.bytes > 0,
          "info of a JPEG: %s %dx%d", inf.format, inf.width, inf.height);
    CHECK(gpuimg_info_read(ctx, path(samples, "no-such.png"), &inf) == GPUIMG_EOPEN
              && strstr(gpuimg_ctx_error(ctx), "no-such.png"),
          "info of a missing file");
    CHECK(gpuimg_read(ctx, path(samples, "elarun-640x400.png"), &in) == GPUIMG_OK, "read");
    CHECK(in.width == 640 && in.height == 400 && in.depth == 8 && in.device == -1 && in.owner, "read's geometry %dx%d",
          in.width, in.height);
    CHECK(gpuimg_run(ctx, "gray,resize=50%", &in, &out) == GPUIMG_OK, "run");
    CHECK(out.width == 320 && out.height == 200 && out.channels == (in.channels == 4 ? 2 : 1), "run's geometry");
    CHECK(!strcmp(gpuimg_ctx_backend(ctx), "cpu"), "backend '%s'", gpuimg_ctx_backend(ctx));
    {   /* a pipeline naming a file: read by the library, relative to the working directory */
        char pipe[4200];
        gpuimg_image wm = { .device = -1 };
        snprintf(pipe, sizeof pipe, "composite=%s:gravity=southeast:scale=0.25:opacity=0.5", path(samples, "canopee-960x540.png"));
        CHECK(strchr(pipe + 10, ',') || gpuimg_run(ctx, pipe, &in, &wm) == GPUIMG_OK, "composite");
        gpuimg_image_free(&wm);
        CHECK(gpuimg_run(ctx, "composite=no-such-overlay.png", &in, &wm) == GPUIMG_EOPEN
                  && strstr(gpuimg_ctx_error(ctx), "no-such-overlay.png"), "a missing overlay");
        gpuimg_image_free(&wm);
    }
    CHECK(gpuimg_write(ctx, path(work, "api.png"), &out) == GPUIMG_OK, "write");
    CHECK(gpuimg_write(ctx, path(work, "api.png"), &out) == GPUIMG_EEXISTS, "an existing output without force");
    CHECK(gpuimg_convert(ctx, "gray,resize=50%", path(samples, "elarun-640x400.png"), path(work, "convert.png"))
              == GPUIMG_OK, "convert");
    CHECK(gpuimg_read(ctx, path(work, "convert.png"), &back) == GPUIMG_OK && same_pixels(&back, &out),
          "convert's pixels are run's");
    gpuimg_image_free(&back);

    /* into memory and back */
    void *buf = NULL;
    size_t len = 0;
    CHECK(gpuimg_encode(ctx, &out, "png", &buf, &len) == GPUIMG_OK && len > 8 && !memcmp(buf, "\x89PNG", 4), "encode");
    CHECK(gpuimg_decode(ctx, buf, len, "mem.png", &mem) == GPUIMG_OK && same_pixels(&mem, &out), "decode");
    gpuimg_image_free(&mem);
    CHECK(gpuimg_decode(ctx, buf, len / 2, "half.png", &mem) == GPUIMG_EDECODE && strstr(gpuimg_ctx_error(ctx), "half.png"),
          "a truncated PNG in memory");
    free(buf);
    CHECK(gpuimg_encode(ctx, &out, "gif87", &buf, &len) == GPUIMG_EUSAGE && !buf, "an unknown format");
    /* RGBA to JPEG: flattened onto the background, as the command does */
    CHECK(gpuimg_encode(ctx, &in, "jpg", &buf, &len) == GPUIMG_OK && len > 2 && !memcmp(buf, "\xff\xd8", 2), "jpeg");
    free(buf);

    /* a batch: files and bytes at once, each as it would be alone; a bad one fails alone */
    {
        const char *paths[4] = { path(samples, "elarun-640x400.png"), NULL, path(samples, "path-640x400.jpg"), NULL };
        const void *bufs[4] = { NULL, NULL, NULL, "no image" };
        size_t lens[4] = { 0, 0, 0, 8 };
        void *png = NULL;
        size_t plen = 0;
        CHECK(gpuimg_encode(ctx, &in, "png", &png, &plen) == GPUIMG_OK, "encode for the batch");
        bufs[1] = png;
        lens[1] = plen;
        gpuimg_image outs[4], one;
        int status[4];
        CHECK(gpuimg_decode_batch(ctx, 4, paths, bufs, lens, "gray,resize=50%", -1, outs, status) == GPUIMG_EDECODE
                  && status[3] == GPUIMG_EDECODE && !outs[3].data && strstr(gpuimg_ctx_error(ctx), "input 3"),
              "a batch with a bad input");
        CHECK(status[0] == GPUIMG_OK && status[1] == GPUIMG_OK && status[2] == GPUIMG_OK, "the batch's good inputs");
        gpuimg_image ref;
        CHECK(gpuimg_run(ctx, "gray,resize=50%", &in, &ref) == GPUIMG_OK && same_pixels(&outs[0], &ref)
                  && same_pixels(&outs[1], &ref), "a batch's results are run's");
        CHECK(gpuimg_read(ctx, paths[2], &one) == GPUIMG_OK, "read the JPEG");
        gpuimg_image_free(&ref);
        CHECK(gpuimg_run(ctx, "gray,resize=50%", &one, &ref) == GPUIMG_OK && same_pixels(&outs[2], &ref),
              "a batch's JPEG is read's");
        for (int i = 0; i < 4; i++)
            gpuimg_image_free(&outs[i]);
        gpuimg_image_free(&one);
        gpuimg_image_free(&ref);

        /* cancelled from another thread: a long batch (one job, one thread) stops before its next
         * input, those not begun ECANCELED, nothing left behind; the next call runs */
        enum { N = 3000 };
        const void **many = malloc(N * sizeof *many);
        size_t *mlens = malloc(N * sizeof *mlens);
        gpuimg_image *mouts = malloc(N * sizeof *mouts);
        int *mst = malloc(N * sizeof *mst);
        gpuimg_ctx *cc = gpuimg_ctx_new();
        CHECK(many && mlens && mouts && mst && cc && gpuimg_ctx_set(cc, "backend", "cpu") == GPUIMG_OK
                  && gpuimg_ctx_set(cc, "jobs", "1") == GPUIMG_OK && gpuimg_ctx_set(cc, "threads", "1") == GPUIMG_OK,
              "a context to cancel");
        for (int i = 0; i < N; i++) {
            many[i] = png;
            mlens[i] = plen;
        }
        pthread_t canceller;
        cancel_ctx = cc;
        CHECK(!pthread_create(&canceller, NULL, cancel_soon, NULL), "the cancelling thread");
        const int bst = gpuimg_decode_batch(cc, N, NULL, many, mlens, "gray", -1, mouts, mst);
        __atomic_store_n(&cancel_stop, 1, __ATOMIC_RELEASE);
        pthread_join(canceller, NULL);
        int done = 0, cancelled = 0;
        for (int i = 0; i < N; i++) {
            done += mst[i] == GPUIMG_OK && mouts[i].data;
            cancelled += mst[i] == GPUIMG_ECANCELED && !mouts[i].data;
            gpuimg_image_free(&mouts[i]);
        }
        CHECK(bst == GPUIMG_ECANCELED && done + cancelled == N && cancelled > 0 && strstr(gpuimg_ctx_error(cc), "cancel"),
              "a cancelled batch: %d done, %d cancelled, status %d (%s)", done, cancelled, bst, gpuimg_ctx_error(cc));
        CHECK(gpuimg_decode_batch(cc, 2, NULL, many, mlens, "gray", -1, mouts, mst) == GPUIMG_OK, "the next call");
        gpuimg_image_free(&mouts[0]);
        gpuimg_image_free(&mouts[1]);
        gpuimg_ctx_free(cc);
        free(many);
        free(mlens);
        free(mouts);
        free(mst);
        free(png);
    }

    /* the caller's memory: rows with padding, 16 bits; read, never freed or changed */
    const int w = 37, h = 23, c = 3;
    const size_t stride = (size_t)w * c * 2 + 10;
    uint8_t *own = malloc(stride * h), *copy = malloc(stride * h);
    for (size_t i = 0; i < stride * h; i++)
        own[i] = (uint8_t)(i * 7 + 3);
    memcpy(copy, own, stride * h);
    gpuimg_image mine = gpuimg_image_wrap(own, w, h, c, 16, stride, -1), flipped, twice;
    CHECK(gpuimg_run(ctx, "flip=h", &mine, &flipped) == GPUIMG_OK && flipped.stride == (size_t)w * c * 2, "flip");
    CHECK(gpuimg_run(ctx, "flip=h", &flipped, &twice) == GPUIMG_OK && same_pixels(&twice, &mine), "flip twice");
    CHECK(!memcmp(own, copy, stride * h), "the caller's image changed");
    const uint16_t *f0 = flipped.data, *m0 = (const uint16_t *)own;
    CHECK(f0[0] == m0[(w - 1) * c] && f0[2] == m0[(w - 1) * c + 2], "flip's first pixel");
    gpuimg_image_free(&flipped);
    gpuimg_image_free(&twice);
    gpuimg_image_free(&mine);   /* the caller's: nothing freed */
    CHECK(own[0] == copy[0], "image_free of the caller's image");
    free(own);
    free(copy);

    /* out may be in: the library's input replaced, the caller's left as it was */
    {
        gpuimg_image x;
        CHECK(gpuimg_image_copy(ctx, &in, -1, &x) == GPUIMG_OK, "a host copy");
        CHECK(gpuimg_run(ctx, "flip=h", &x, &x) == GPUIMG_OK && gpuimg_run(ctx, "flip=h", &x, &x) == GPUIMG_OK
                  && same_pixels(&x, &in), "run in place");
        CHECK(gpuimg_run(ctx, "pad=1x1", &x, &x) == GPUIMG_EGEOMETRY && x.data && same_pixels(&x, &in),
              "a failed run in place keeps its input");
        gpuimg_image_free(&x);
        uint8_t px[2 * 3 * 3] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18 };
        gpuimg_image packed = gpuimg_image_wrap(px, 3, 2, 3, 8, 0, -1), none0;
        CHECK(packed.stride == 9 && gpuimg_run(ctx, "copy", &packed, &x) == GPUIMG_OK && same_pixels(&x, &packed),
              "stride 0: packed");
        gpuimg_image_free(&x);
        packed.width = 0;
        CHECK(gpuimg_run(ctx, "copy", &packed, &none0) == GPUIMG_EUSAGE, "a 0-pixel-wide image");
        void *b2 = NULL;
        size_t l2 = 0;
        CHECK(gpuimg_encode(ctx, &in, ".png", &b2, &l2) == GPUIMG_OK, "encode \".png\"");
        free(b2);
    }

    /* bad input: one message naming the file, nothing made */
    gpuimg_image none;
    CHECK(gpuimg_read(ctx, path(work, "missing.png"), &none) == GPUIMG_EOPEN && strstr(gpuimg_ctx_error(ctx), "missing.png")
              && !none.data, "a missing file");
    CHECK(gpuimg_decode(ctx, "not an image at all, only text", 30, "text", &none) == GPUIMG_EDECODE && !none.data,
          "text");
    CHECK(gpuimg_run(ctx, "resize=50%,nosuchop", &in, &none) == GPUIMG_EPARAM && strstr(gpuimg_ctx_error(ctx), "nosuchop")
              && !none.data, "a bad pipeline");
    CHECK(gpuimg_run(ctx, "pad=10x10", &in, &none) == GPUIMG_EGEOMETRY && !none.data, "a pad smaller than the image");
    CHECK(gpuimg_ctx_set(ctx, "max-pixels", "1000") == GPUIMG_OK, "max-pixels");
    CHECK(gpuimg_read(ctx, path(samples, "elarun-640x400.png"), &none) == GPUIMG_ETOOBIG, "over max-pixels");
    gpuimg_image_free(&out);
    CHECK(gpuimg_ctx_set(ctx, "max-pixels", "268435456") == GPUIMG_OK && gpuimg_run(ctx, "copy", &in, &out) == GPUIMG_OK,
          "a context goes on after a failure");
    CHECK(gpuimg_ctx_error(ctx)[0] == 0, "no message after a success");
    gpuimg_image_free(&out);

    /* a device image where there is a GPU (the backend's choice: auto) */
    gpuimg_ctx *g = gpuimg_ctx_new();
    gpuimg_image up, res, down, ref;
    if (gpuimg_image_copy(g, &in, 0, &up) == GPUIMG_OK) {
        CHECK(up.device == 0, "copy up");
        CHECK(gpuimg_run(g, "gray,resize=50%", &up, &res) == GPUIMG_OK && res.device == 0, "run on the device [%s]",
              gpuimg_ctx_error(g));
        CHECK(gpuimg_image_copy(g, &res, -1, &down) == GPUIMG_OK && down.device == -1, "copy down");
        CHECK(gpuimg_run(ctx, "gray,resize=50%", &in, &ref) == GPUIMG_OK && same_pixels(&down, &ref),
              "the device's pixels are the CPU's");
        CHECK(gpuimg_write(g, path(work, "device.png"), &res) == GPUIMG_OK, "write a device image");
        /* a batch into device memory, the JPEG engines taking what they take */
        const char *many[8];
        for (int i = 0; i < 8; i++)
            many[i] = path(samples, i % 2 ? "path-640x400.jpg" : "elarun-640x400.png");
        gpuimg_image douts[8], host;
        CHECK(gpuimg_decode_batch(g, 8, many, NULL, NULL, "resize=224x224!", 0, douts, NULL) == GPUIMG_OK, "a batch on "
              "the device [%s]", gpuimg_ctx_error(g));
        for (int i = 0; i < 8; i++) {
            CHECK(douts[i].device == 0 && douts[i].width == 224 && douts[i].height == 224, "batch output %d", i);
            CHECK(gpuimg_image_copy(g, &douts[i], -1, &host) == GPUIMG_OK, "copy a batch's output down");
            gpuimg_image_free(&host);
            gpuimg_image_free(&douts[i]);
        }
        gpuimg_image_free(&up);
        gpuimg_image_free(&res);
        gpuimg_image_free(&down);
        gpuimg_image_free(&ref);
        printf("api_test: device images checked on GPU 0\n");
    } else
        printf("api_test: no device images (%s)\n", gpuimg_ctx_error(g));
    gpuimg_ctx_free(g);

    gpuimg_image_free(&in);
    gpuimg_ctx_free(ctx);
    if (failures)
        fprintf(stderr, "api_test: %d checks failed\n", failures);
    return failures ? 1 : 0;
}
