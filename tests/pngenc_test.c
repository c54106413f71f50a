/* gpuimg tests: the multi-threaded PNG encoder. Every layout, 8 and 16 bit, odd sizes and sizes
 * cut into many strips, several thread counts and zlib levels: the file is read back with libpng's
 * own reader (CRCs and Adler-32 checked, nothing of ours) and must give the same samples; the
 * threaded file must be as small as one deflate stream within 1% and, for one thread, within 2%
 * (zlib) or 3% (libdeflate) of what libpng writes itself at the same level. Also raw deflate
 * chunks made elsewhere (as nvCOMP makes them) joined into one file: read back, and refused when
 * they are short or damaged. */
#include <config.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <zlib.h>
#include "core/error.h"
#include "io/pngenc.h"
#include "testutil.h"

static int failures;

struct mem { uint8_t *p; size_t n, off; };

static void mem_read(png_structp png, png_bytep out, size_t n)
{
    struct mem *m = png_get_io_ptr(png);
    if (m->off + n > m->n)
        png_error(png, "read past the end");
    memcpy(out, m->p + m->off, n);
    m->off += n;
}

/* Decode buf with libpng into im (16-bit samples in host order); 0 on success. */
static int libpng_read(uint8_t *buf, size_t n, struct image *im)
{
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    png_bytep *rows = NULL;
    if (setjmp(png_jmpbuf(png))) {
        free(rows);
        png_destroy_read_struct(&png, &info, NULL);
        return -1;
    }
    struct mem m = { buf, n, 0 };
    png_set_read_fn(png, &m, mem_read);
    png_read_info(png, info);
    const int ct = png_get_color_type(png, info);
    const int c = ct == PNG_COLOR_TYPE_GRAY ? 1 : ct == PNG_COLOR_TYPE_GRAY_ALPHA ? 2 : ct == PNG_COLOR_TYPE_RGB ? 3 : 4;
    struct geom g = { (int)png_get_image_width(png, info), (int)png_get_image_height(png, info), c,
                      png_get_bit_depth(png, info) };
    const uint16_t one = 1;
    if (g.depth == 16 && *(const uint8_t *)&one == 1)
        png_set_swap(png);
    if (image_alloc(im, &g))
        png_error(png, "alloc");
    rows = malloc(sizeof *rows * (size_t)g.h);
    for (int y = 0; y < g.h; y++)
        rows[y] = im->data + (size_t)y * im->stride;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}

/* libpng's own serial writer, for the size comparison. */
static size_t libpng_size(const struct image *im, int level)
{
    static const int ctype[5] = { 0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                  PNG_COLOR_TYPE_RGB_ALPHA };
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) {
        fprintf(stderr, "libpng write failed\n");
        exit(1);
    }
    png_init_io(png, f);
    png_set_compression_level(png, level);
    png_set_IHDR(png, info, (png_uint_32)im->w, (png_uint_32)im->h, im->depth, ctype[im->c], PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    const uint16_t one = 1;
    if (im->depth == 16 && *(const uint8_t *)&one == 1)
        png_set_swap(png);
    for (int y = 0; y < im->h; y++)
        png_write_row(png, im->data + (size_t)y * im->stride);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    fclose(f);
    free(buf);
    return n;
}

static size_t encode(const struct image *im, int level, int threads, uint8_t **out)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (pngenc_write(f, "test", im, level, threads, NULL)) {
        fprintf(stderr, "pngenc_write failed\n");
        exit(1);
    }
    fclose(f);
    *out = (uint8_t *)buf;
    return n;
}

/* Each thread count through zlib (GPUIMG_PNG_ZLIB=1: one serial stream against primed strips),
 * then in libdeflate builds through libdeflate (one stream against strips made to continue and
 * joined): read back, the strips within 1% of the one stream, the one stream within 2% (zlib) or
 * 3% (libdeflate: its level numbers are not zlib's, a file may be a little larger) of libpng's
 * size at the same level. */
static void check(const struct geom *g, int level, const int *threads, int nthreads, int size_check)
{
    struct image im, back;
    test_make_image(&im, g, (uint32_t)(g->w * 31 + g->h * 7 + g->c + g->depth));
    size_t one = 0;
#ifdef HAVE_LIBDEFLATE
    const int runs = 2 * nthreads;
#else
    const int runs = nthreads;
#endif
    for (int t = 0; t < runs; t++) {
        const int libdeflate = t >= nthreads, th = threads[t % nthreads];
        pngenc_use_zlib(!libdeflate);
        const struct geom gg = image_geom(&im);
        if (!strstr(pngenc_name(&gg, th), libdeflate ? "libdeflate" : "zlib")) {
            fprintf(stderr, "FAIL: the encoder is %s, not %s\n", pngenc_name(&gg, th), libdeflate ? "libdeflate" : "zlib");
            failures++;
        }
        uint8_t *buf;
        size_t n = encode(&im, level, th, &buf);
        const char *what = NULL;
        if (libpng_read(buf, n, &back))
            what = "libpng cannot read it";
        else {
            if (!test_equal(&im, &back))
                what = "samples differ";
            image_free(&back);
        }
        if (t % nthreads == 0)
            one = n;
        else if (!what && size_check && (double)n > one * 1.01)
            what = "the strips' file over 1% larger than one stream";
        if (!what && t % nthreads == 0 && size_check) {
            size_t ref = libpng_size(&im, level);
            if ((double)n > ref * (libdeflate ? 1.03 : 1.02)) {
                fprintf(stderr, "  (libpng %zu bytes, ours %zu)\n", ref, n);
                what = libdeflate ? "over 3% larger than libpng's" : "over 2% larger than libpng's";
            }
        }
        if (what) {
            fprintf(stderr, "FAIL %dx%d c%d %d-bit level %d threads %d%s: %s (%zu bytes)\n", g->w, g->h, g->c,
                    g->depth, level, th, libdeflate ? " (libdeflate)" : " (zlib)", what, n);
            failures++;
        }
        free(buf);
    }
    image_free(&im);
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

/* A write that fails (a full disk: /dev/full) is an error, and the encoder frees what it held: 64
 * failed writes of an image whose IDAT chunks fill the encoder's 1 MiB buffer must not grow the
 * process by a buffer each (the buffer's pointer, set after libpng's setjmp, must survive its
 * longjmp). */
static void write_failures(void)
{
    FILE *probe = fopen("/dev/full", "w");
    if (!probe) {
        printf("pngenc: no /dev/full, write failures not checked\n");
        return;
    }
    fclose(probe);
    struct image im;
    const struct geom g = { 1200, 1000, 3, 8 };
    if (test_make_image(&im, &g, 5)) {
        failures++;
        return;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    const long before = ru.ru_maxrss;
    for (int i = 0; i < 64; i++) {
        FILE *f = fopen("/dev/full", "w");
        const int st = pngenc_write(f, "/dev/full", &im, 0, 2, NULL);
        fclose(f);
        gpuimg_clear_error();
        if (st != GPUIMG_EWRITE) {
            fprintf(stderr, "FAIL a write to /dev/full gave status %d, not a write error\n", st);
            failures++;
            break;
        }
    }
    getrusage(RUSAGE_SELF, &ru);
    /* (AddressSanitizer keeps freed blocks in quarantine, so the growth says nothing there; its
     * leak check at exit fails the test instead) */
    if (!UNDER_ASAN && ru.ru_maxrss - before > 24 * 1024) {   /* KiB: a leaked 1 MiB buffer a failure is 64 MiB */
        fprintf(stderr, "FAIL 64 failed writes grew the process by %ld KiB\n", ru.ru_maxrss - before);
        failures++;
    }
    image_free(&im);
}

/* pngenc_write_chunks, as the GPU encoder will call it: the rows filtered (none on even rows, sub
 * on odd ones), cut into chunks of csize bytes that ignore row ends, each deflated on its own by
 * zlib into a complete raw stream (several blocks at 64 KiB and level 9, stored blocks at level
 * 0), joined: libpng must read back the image. Then chunks holding one byte too few, and a
 * damaged chunk, must be refused. */
static int chunks_check(const struct geom *g, size_t csize, int level, int threads, int damage, int redo)
{
    struct image im;
    if (test_make_image(&im, g, (uint32_t)(csize + level)))
        return 1;
    const size_t bpp = image_bpp(&im), n = (size_t)g->w * bpp, total = (n + 1) * (size_t)g->h;
    uint8_t *f = malloc(total);
    uint8_t *x = malloc(n);
    for (int y = 0; y < g->h; y++) {
        memcpy(x, im.data + (size_t)y * im.stride, n);
        for (size_t i = 0; g->depth == 16 && i < n; i += 2) {   /* PNG's samples are big-endian */
            uint16_t v;
            memcpy(&v, &x[i], 2);
            x[i] = (uint8_t)(v >> 8);
            x[i + 1] = (uint8_t)v;
        }
        uint8_t *o = f + (size_t)y * (n + 1);
        o[0] = (uint8_t)(y & 1);
        for (size_t i = 0; i < n; i++)
            o[1 + i] = (uint8_t)(x[i] - (y & 1 && i >= bpp ? x[i - bpp] : 0));
    }
    free(x);
    const size_t have = damage == 1 ? total - 1 : total;   /* 1: a byte short */
    const int nc = (int)((have + csize - 1) / csize);
    uint8_t **chunks = calloc((size_t)nc, sizeof *chunks);
    size_t *lens = calloc((size_t)nc, sizeof *lens);
    for (int k = 0; k < nc; k++) {
        const size_t off = (size_t)k * csize, len = have - off < csize ? have - off : csize;
        z_stream z;
        memset(&z, 0, sizeof z);
        deflateInit2(&z, redo ? 0 : level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
        const size_t cap = deflateBound(&z, len) + 6;
        chunks[k] = malloc(cap);
        z.next_in = f + off;
        z.avail_in = (uInt)len;
        z.next_out = chunks[k];
        z.avail_out = (uInt)cap;
        deflate(&z, Z_FINISH);
        lens[k] = cap - z.avail_out;
        deflateEnd(&z);
    }
    if (damage == 2)   /* a block type that does not exist (BTYPE 11) at the start of the middle chunk */
        chunks[nc / 2][0] |= 6;
    /* redo: the chunks are stored blocks (level 0) and every other one comes with its filtered
     * bytes: deflated again at level, they must make the file smaller, with the same pixels */
    const uint8_t **raw = redo ? calloc((size_t)nc, sizeof *raw) : NULL;
    size_t *raw_lens = redo ? calloc((size_t)nc, sizeof *raw_lens) : NULL;
    for (int k = 0; redo && k < nc; k += 2) {
        raw[k] = f + (size_t)k * csize;
        raw_lens[k] = have - (size_t)k * csize < csize ? have - (size_t)k * csize : csize;
    }
    size_t plain = 0;
    if (redo) {   /* the size without, from copies: the join changes the chunks in place */
        uint8_t **copy = calloc((size_t)nc, sizeof *copy);
        for (int k = 0; k < nc; k++) {
            copy[k] = malloc(lens[k] + 6);
            memcpy(copy[k], chunks[k], lens[k]);
        }
        char *b0 = NULL;
        FILE *f0 = open_memstream(&b0, &plain);
        const int s0 = pngenc_write_chunks(f0, "chunks", g, level, copy, lens, NULL, NULL, nc, threads, NULL);
        fclose(f0);
        if (s0)
            plain = 0;
        free(b0);
        for (int k = 0; k < nc; k++)
            free(copy[k]);
        free(copy);
        gpuimg_clear_error();
    }
    char *buf = NULL;
    size_t bn = 0;
    FILE *fp = open_memstream(&buf, &bn);
    const int st = pngenc_write_chunks(fp, "chunks", g, level, chunks, lens, raw, raw_lens, nc, threads, NULL);
    fclose(fp);
    free(raw);
    free(raw_lens);
    int bad = 0;
    struct image back;
    if (damage) {
        bad = st == GPUIMG_OK;
        if (bad)
            fprintf(stderr, "FAIL chunks %dx%d c%d d%d: damage %d accepted\n", g->w, g->h, g->c, g->depth, damage);
        gpuimg_clear_error();
    } else if (st || libpng_read((uint8_t *)buf, bn, &back)) {
        fprintf(stderr, "FAIL chunks %dx%d c%d d%d of %zu bytes level %d: %s\n", g->w, g->h, g->c, g->depth, csize, level,
                st ? gpuimg_errmsg() : "libpng cannot read the file");
        bad = 1;
    } else {
        if (!test_equal(&im, &back)) {
            fprintf(stderr, "FAIL chunks %dx%d c%d d%d of %zu bytes level %d: other pixels\n", g->w, g->h, g->c, g->depth,
                    csize, level);
            bad = 1;
        }
        if (redo && !(plain && bn < plain)) {
            fprintf(stderr, "FAIL chunks %dx%d c%d d%d redeflated at level %d: %zu bytes, without %zu\n", g->w, g->h, g->c,
                    g->depth, level, bn, plain);
            bad = 1;
        }
        image_free(&back);
    }
    for (int k = 0; k < nc; k++)
        free(chunks[k]);
    free(chunks);
    free(lens);
    free(buf);
    free(f);
    image_free(&im);
    return bad;
}

int main(void)
{
    /* joined chunks: one chunk, chunks of 1000 bytes and 64 KiB, levels 0, 1 and 9 */
    static const struct { int w, h, c, d; size_t csize; int level; } cc[] = {
        { 7, 3, 3, 8, 65536, 6 },     { 13, 42, 1, 8, 100, 1 },     { 300, 200, 4, 8, 1000, 9 },
        { 300, 200, 2, 16, 1000, 0 }, { 1001, 626, 3, 8, 65536, 9 }, { 1001, 626, 4, 16, 65536, 1 },
    };
    int chunk_runs = 0;
    for (size_t i = 0; i < sizeof cc / sizeof cc[0]; i++)
        for (int damage = 0; damage <= 2; damage++) {
            const struct geom g = { cc[i].w, cc[i].h, cc[i].c, cc[i].d };
            if (damage == 2 && (size_t)(g.w * g.c * g.depth / 8 + 1) * g.h <= cc[i].csize)
                continue;   /* one chunk: the damaged middle one would be the first */
            failures += chunks_check(&g, cc[i].csize, cc[i].level, 1 + (int)i % 4, damage, 0);
            chunk_runs++;
        }
    /* chunks handed back with their filtered bytes, deflated again here */
    static const struct { int w, h, c, d; size_t csize; int level; } rc[] = {
        { 300, 200, 3, 8, 16384, 6 }, { 1001, 626, 1, 8, 16384, 1 }, { 333, 211, 4, 16, 4096, 9 },
    };
    for (size_t i = 0; i < sizeof rc / sizeof rc[0]; i++) {
        const struct geom g = { rc[i].w, rc[i].h, rc[i].c, rc[i].d };
        failures += chunks_check(&g, rc[i].csize, rc[i].level, 1 + (int)i, 0, 1);
        chunk_runs++;
    }
    printf("pngenc: %d joins of deflate chunks checked\n", chunk_runs);
    write_failures();
    static const int sizes[][2] = { { 1, 1 }, { 7, 3 }, { 13, 42 }, { 1001, 626 }, { 1600, 1000 } };
    static const int threads[] = { 1, 3, 8 };
    int runs = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int c = 1; c <= 4; c++)
            for (int d = 8; d <= 16; d += 8) {
                struct geom g = { sizes[s][0], sizes[s][1], c, d };
                const int big = g.w * g.h >= 600000, huge = g.w * g.h > 1000000;
                static const int levels_small[] = { 0, 1, 6, 9 }, levels_big[] = { 1, 6, 0 };
                const int *lv = big ? levels_big : levels_small;
                const int nl = huge ? 1 : big ? 3 : 4;   /* the largest only at level 1 (time) */
                for (int l = 0; l < nl; l++) {
                    /* sizes are compared where there is data enough for the filters to matter */
                    check(&g, lv[l], threads, 3, big && lv[l] > 0);
#ifdef HAVE_LIBDEFLATE
                    runs += 6;
#else
                    runs += 3;
#endif
                }
            }
    printf("pngenc: %d encodes read back by libpng, %d failures\n", runs, failures);
    return failures ? 1 : 0;
}
