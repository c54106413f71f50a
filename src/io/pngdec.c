/* gpuimg: PNG decoding (see pngdec.h). The common kinds go to libdeflate, whose inflate outruns
 * zlib's (bench/codec_bench measures it); the rows are then unfiltered in place, each written
 * over the bytes it was read from (an output row starts y + 1 bytes before its filtered row, so
 * no byte is overwritten before it is read). */
#include <config.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#include "core/error.h"
#include "io/pngdec.h"

const char *png_libpng_name(void)
{
    return "libpng " PNG_LIBPNG_VER_STRING;
}

/* ---- libpng: every kind --------------------------------------------------------------------- */

struct png_err { jmp_buf jb; char msg[200]; };
struct mem { const uint8_t *p; size_t n, pos; };

static void on_error(png_structp png, png_const_charp msg)
{
    struct png_err *e = png_get_error_ptr(png);
    snprintf(e->msg, sizeof e->msg, "%s", msg);
    longjmp(e->jb, 1);
}
static void on_warning(png_structp png, png_const_charp msg) { (void)png; (void)msg; }

static void mem_read(png_structp png, png_bytep d, size_t n)
{
    struct mem *m = png_get_io_ptr(png);
    if (n > m->n - m->pos)
        png_error(png, "the file ends early");
    memcpy(d, m->p + m->pos, n);
    m->pos += n;
}

static int host_little_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

static int decode_libpng(const char *name, const uint8_t *buf, size_t len, const struct geom *want, struct image *out)
{
    struct png_err err = { .msg = "" };
    struct mem m = { buf, len, 0 };
    memset(out, 0, sizeof *out);
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &err, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return gpuimg_fail(GPUIMG_ENOMEM, "%s: cannot start the PNG decoder", name);
    }
    png_bytep *volatile rows = NULL;   /* volatile: set after setjmp, freed after a longjmp */
    if (setjmp(err.jb)) {
        png_destroy_read_struct(&png, &info, NULL);
        free(rows);
        image_free(out);
        return gpuimg_fail(GPUIMG_EDECODE, "%s: corrupt PNG: %s", name, err.msg);
    }
    png_set_read_fn(png, &m, mem_read);
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);   /* gpuimg's own limits were applied */
    /* the text chunks skipped, not inflated (meta.c reads what it keeps of them, bounded) */
    static const png_byte text[] = "tEXt\0zTXt\0iTXt\0";
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, text, 3);
    png_read_info(png, info);
    png_set_expand(png);   /* palette to RGB(A), grey below 8 bits to 8, tRNS to alpha */
    if (png_get_bit_depth(png, info) == 16 && host_little_endian())
        png_set_swap(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    const int c = png_get_channels(png, info), depth = png_get_bit_depth(png, info);
    if ((int)png_get_image_width(png, info) != want->w || (int)png_get_image_height(png, info) != want->h
        || c != want->c || depth != want->depth) {
        snprintf(err.msg, sizeof err.msg, "libpng reads it as %ux%u with %d channels of %d bits, the header check "
                 "said %dx%d with %d of %d", png_get_image_width(png, info), png_get_image_height(png, info), c,
                 depth, want->w, want->h, want->c, want->depth);
        longjmp(err.jb, 1);
    }
    if (image_alloc(out, want) || !(rows = malloc((size_t)want->h * sizeof *rows))) {
        snprintf(err.msg, sizeof err.msg, "out of memory for %dx%d pixels", want->w, want->h);
        longjmp(err.jb, 1);
    }
    for (int y = 0; y < want->h; y++)
        rows[y] = out->data + (size_t)y * out->stride;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    return GPUIMG_OK;
}

/* ---- libdeflate: the common kinds ----------------------------------------------------------- */
#ifdef HAVE_LIBDEFLATE

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint8_t paeth(int a, int b, int c)
{
    const int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    return (uint8_t)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

/* One row: s (filter type ft) into x, p the row above (NULL on the first). x may start before s
 * in the same buffer (never after): each byte is read before anything overwrites it. Inlined
 * with bpp a constant, so that each pixel size gets its own loops. */
static inline __attribute__((always_inline)) void unfilter(uint8_t *x, const uint8_t *s, const uint8_t *p, size_t n,
                                                           size_t bpp, int ft)
{
    size_t i = 0;
    if (!p && ft == 2)
        ft = 0;   /* the row above the first is zeros: up adds nothing, paeth predicts the left */
    if (!p && ft == 4)
        ft = 1;
    switch (ft) {
    case 0:
        memmove(x, s, n);
        break;
    case 1:
        for (; i < bpp; i++)
            x[i] = s[i];
        for (; i < n; i++)
            x[i] = (uint8_t)(s[i] + x[i - bpp]);
        break;
    case 2:
        for (; i < n; i++)
            x[i] = (uint8_t)(s[i] + p[i]);
        break;
    case 3:
        if (p) {
            for (; i < bpp; i++)
                x[i] = (uint8_t)(s[i] + (p[i] >> 1));
            for (; i < n; i++)
                x[i] = (uint8_t)(s[i] + ((x[i - bpp] + p[i]) >> 1));
        } else {
            for (; i < bpp; i++)
                x[i] = s[i];
            for (; i < n; i++)
                x[i] = (uint8_t)(s[i] + (x[i - bpp] >> 1));
        }
        break;
    case 4:
        for (; i < bpp; i++)
            x[i] = (uint8_t)(s[i] + p[i]);
        for (; i < n; i++)
            x[i] = (uint8_t)(s[i] + paeth(x[i - bpp], p[i], p[i - bpp]));
        break;
    }
}

static void swap16(uint8_t *r, size_t n)
{
    for (size_t i = 0; i + 1 < n; i += 2) {
        const uint8_t t = r[i];
        r[i] = r[i + 1];
        r[i + 1] = t;
    }
}

/* Unfilter h rows of n bytes stored as 1 + n bytes each in f, in place, into rows of n bytes.
 * Returns the first row with an unknown filter type, or -1. */
static long unfilter_image(uint8_t *f, size_t n, long h, size_t bpp, int swap)
{
    for (long y = 0; y < h; y++) {
        const uint8_t *s = f + (size_t)y * (n + 1);
        const int ft = s[0];
        uint8_t *x = f + (size_t)y * n;
        const uint8_t *p = y ? x - n : NULL;
        if (ft > 4)
            return y;
        switch (bpp) {
        case 1: unfilter(x, s + 1, p, n, 1, ft); break;
        case 2: unfilter(x, s + 1, p, n, 2, ft); break;
        case 3: unfilter(x, s + 1, p, n, 3, ft); break;
        case 4: unfilter(x, s + 1, p, n, 4, ft); break;
        case 6: unfilter(x, s + 1, p, n, 6, ft); break;
        default: unfilter(x, s + 1, p, n, 8, ft); break;
        }
        if (swap && y)   /* the row above is done with: to host order */
            swap16(x - n, n);
    }
    if (swap)
        swap16(f + (size_t)(h - 1) * n, n);
    return -1;
}

enum { FAST_OK, FAST_NOT_TAKEN };

/* The image data: the one IDAT chunk's bytes in place, or several chunks' joined into *copy
 * (NULL when out of memory). The chunks were walked by png_check: their lengths are in bounds. */
static const uint8_t *image_data(const uint8_t *buf, size_t len, const struct png_facts *pf, uint8_t **copy)
{
    *copy = NULL;
    if (pf->idat_chunks > 1 && !(*copy = malloc(pf->idat_bytes)))
        return NULL;
    size_t at = 0;
    for (size_t pos = 8; pos + 12 <= len && memcmp(buf + pos + 4, "IEND", 4);) {
        const size_t clen = be32(buf + pos);
        if (clen && !memcmp(buf + pos + 4, "IDAT", 4)) {
            if (!*copy)
                return buf + pos + 8;
            memcpy(*copy + at, buf + pos + 8, clen);
            at += clen;
        }
        pos += clen + 12;
    }
    return *copy ? *copy : (const uint8_t *)"";   /* no image data: inflating nothing fails below */
}

/* The kinds taken here; anything else returns FAST_NOT_TAKEN with nothing recorded. */
static int decode_fast(const char *name, const uint8_t *buf, size_t len, const struct geom *want,
                       const struct png_facts *pf, struct image *out, int *st)
{
    const uint8_t *ihdr = buf + 16;
    const int depth = ihdr[8], ctype = ihdr[9], interlace = ihdr[12];
    static const int channels[7] = { 1, 0, 3, 0, 2, 0, 4 };
    if ((depth != 8 && depth != 16) || ctype > 6 || !channels[ctype] || interlace != 0 || pf->trns)
        return FAST_NOT_TAKEN;
    if ((int)be32(ihdr) != want->w || (int)be32(ihdr + 4) != want->h || channels[ctype] != want->c || depth != want->depth)
        return FAST_NOT_TAKEN;
    const size_t bpp = geom_bpp(want), n = (size_t)want->w * bpp;
    if (n + 1 > SIZE_MAX / (size_t)want->h)
        return FAST_NOT_TAKEN;
    const size_t flen = (n + 1) * (size_t)want->h;
    uint8_t *copy, *f = malloc(flen);
    const uint8_t *z = image_data(buf, len, pf, &copy);
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    if (!z || !f || !d) {
        free(copy);
        free(f);
        libdeflate_free_decompressor(d);
        *st = gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory for %dx%d pixels", name, want->w, want->h);
        return FAST_OK;
    }
    /* NULL for the output size: the rows must fill f exactly (the Adler-32 is checked) */
    const enum libdeflate_result r = libdeflate_zlib_decompress(d, z, pf->idat_bytes, f, flen, NULL);
    libdeflate_free_decompressor(d);
    free(copy);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {   /* more data than rows: libpng decides */
        free(f);
        return FAST_NOT_TAKEN;
    }
    if (r != LIBDEFLATE_SUCCESS) {
        free(f);
        *st = gpuimg_fail(GPUIMG_EDECODE, r == LIBDEFLATE_SHORT_OUTPUT
                                              ? "%s: truncated PNG: its compressed data ends before the image does"
                                              : "%s: corrupt PNG: its compressed data does not inflate (a bad block or "
                                                "a wrong Adler-32)", name);
        return FAST_OK;
    }
    const long bad = unfilter_image(f, n, want->h, bpp, depth == 16 && host_little_endian());
    if (bad >= 0) {
        const int ft = f[(size_t)bad * (n + 1)];
        free(f);
        *st = gpuimg_fail(GPUIMG_EDECODE, "%s: corrupt PNG: row %ld has filter type %d (0 to 4 exist)", name, bad, ft);
        return FAST_OK;
    }
    uint8_t *px = realloc(f, n * (size_t)want->h);   /* the rows now fill the front */
    image_wrap(out, want, px ? px : f);
    *st = GPUIMG_OK;
    return FAST_OK;
}
#endif

int png_decode(const char *name, const uint8_t *buf, size_t len, const struct geom *want, const struct png_facts *f,
               int force_libpng, struct image *out, const char **codec)
{
#ifdef HAVE_LIBDEFLATE
    int st;
    if (!force_libpng && decode_fast(name, buf, len, want, f, out, &st) == FAST_OK) {
        *codec = "libdeflate";
        return st;
    }
#else
    (void)force_libpng;
    (void)f;
#endif
    *codec = png_libpng_name();
    return decode_libpng(name, buf, len, want, out);
}
