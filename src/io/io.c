/* gpuimg: image file input and output (see io.h). */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>
#include "core/error.h"
#include "io/formats.h"
#include "io/heif.h"
#include "io/icc.h"
#include "io/io.h"
#include "io/jpeg.h"
#include "io/jxl.h"
#include "io/meta.h"
#include "io/pngdec.h"
#include "io/pngenc.h"
#include "io/tiff.h"
#include "io/webp.h"

/* ---- reading ------------------------------------------------------------------------------ */

/* The most bytes a file may have: stb_image takes its length as an int. */
#define IO_MAX_BYTES ((size_t)INT_MAX)

/* The formats this build reads, for the message that says a file is none of them. */
#ifdef HAVE_WEBP
#define READS_WEBP "WebP, "
#else
#define READS_WEBP ""
#endif
#ifdef HAVE_TIFF
#define READS_TIFF "TIFF, "
#else
#define READS_TIFF ""
#endif
#ifdef HAVE_HEIF
#define READS_HEIF "HEIC, AVIF, "
#else
#define READS_HEIF ""
#endif
#ifdef HAVE_JXL
#define READS_JXL "JPEG XL, "
#else
#define READS_JXL ""
#endif
#define IO_READS "PNG, JPEG, " READS_WEBP READS_TIFF READS_HEIF READS_JXL "BMP, TGA, PSD, GIF, PNM, HDR"
#define NOT_AN_IMAGE "not an image in a format gpuimg reads (" IO_READS ")"

/* len: the file's size, or 0 for a stream that passed the limit */
static int too_large(const char *name, unsigned long long len)
{
    if (!len)
        return gpuimg_fail(GPUIMG_ETOOBIG, "%s: more than 2 GiB, larger than the decoder takes", name);
    return gpuimg_fail(GPUIMG_ETOOBIG, "%s: file of %llu bytes is larger than the decoder takes (2 GiB)", name, len);
}

int io_stream_check(const char *name, const uint8_t *head, size_t headlen, unsigned long long total)
{
    if (headlen >= IO_SNIFF_BYTES && sniff_kind(head, headlen) == KIND_UNKNOWN)
        return gpuimg_fail(GPUIMG_EDECODE, "%s: " NOT_AN_IMAGE, name);
    return total > IO_MAX_BYTES ? too_large(name, 0) : GPUIMG_OK;
}

static int read_stream(int fd, const char *name, uint8_t **buf, size_t *len, size_t hint)
{
    size_t cap = hint ? hint + 1 : 1 << 16, n = 0;
    int sniffed = 0;
    uint8_t *b = malloc(cap);
    if (!b)
        return gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory reading the file", name);
    for (;;) {
        const int sniff = !sniffed && n >= IO_SNIFF_BYTES;
        sniffed |= sniff;
        int st = io_stream_check(name, b, sniff ? n : 0, n);
        if (st) {
            free(b);
            return st;
        }
        if (n == cap) {
            if (cap > SIZE_MAX / 2) {
                free(b);
                return too_large(name, 0);
            }
            uint8_t *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                return gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory reading the file", name);
            }
            b = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, b + n, cap - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            free(b);
            return gpuimg_fail(GPUIMG_EOPEN, "%s: read error: %s", name, strerror(e));
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    *buf = b;
    *len = n;
    return GPUIMG_OK;
}

/* An open file from its current offset (a regular file's size known first) */
static int read_fd(int fd, const char *name, uint8_t **buf, size_t *len)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return gpuimg_fail(GPUIMG_EOPEN, "%s: cannot stat: %s", name, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return gpuimg_fail(GPUIMG_EOPEN, "%s: is a directory", name);
    if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > IO_MAX_BYTES)   /* known before reading */
        return too_large(name, (unsigned long long)st.st_size);
    return read_stream(fd, name, buf, len, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0);
}

static int read_file(const char *path, uint8_t **buf, size_t *len)
{
    const char *name = io_display_name(path, 0);
    if (strcmp(path, "-") == 0)
        return read_stream(STDIN_FILENO, name, buf, len, 0);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return gpuimg_fail(GPUIMG_EOPEN, "%s: cannot open: %s", name, strerror(errno));
    int st = read_fd(fd, name, buf, len);
    close(fd);
    return st;
}

/* Whether this stb_image gives a 16-bit PNM's samples byte-swapped (its 16-bit PNM reader takes
 * them in the machine's order before version 2.28): asked once, of a one-pixel file. */
static int stb_pnm16_swapped(void)
{
    static int answer = -1;
    if (answer < 0) {
        static const uint8_t one[] = "P5\n1 1\n65535\n\x01\x02";
        int w, h, c;
        uint16_t *v = stbi_load_16_from_memory(one, (int)sizeof one - 1, &w, &h, &c, 0);
        answer = v && v[0] == 0x0201;
        stbi_image_free(v);
    }
    return answer;
}

static const char *stb_reason(void)
{
    const char *r = stbi_failure_reason();
    if (!r)
        return "unknown decoder error";
    if (strcmp(r, "Image not of any known type, or corrupt") == 0 || strcmp(r, "unknown image type") == 0)
        return NOT_AN_IMAGE;
    return r;
}

int io_read(const char *path, const struct load_opts *o, struct io_input *in)
{
    memset(in, 0, sizeof *in);
    uint8_t *buf;
    size_t len;
    int st = o->in_fd > 0 ? read_fd(o->in_fd, io_display_name(path, 0), &buf, &len) : read_file(path, &buf, &len);
    return st ? st : io_parse(io_display_name(path, 0), buf, len, o, in);
}

int io_parse(const char *name, uint8_t *buf, size_t len, const struct load_opts *o, struct io_input *in)
{
    memset(in, 0, sizeof *in);
    int st = GPUIMG_OK;
    if (len == 0) {
        free(buf);
        return gpuimg_fail(GPUIMG_EDECODE, "%s: empty file", name);
    }
    if (len > IO_MAX_BYTES) {
        free(buf);
        return too_large(name, len);
    }
    uint32_t hw = 0, hh = 0;
    unsigned jxl_hold = 0;
    struct geom lib = { 0 };
    const enum file_kind kind = sniff_kind(buf, len);
    switch (kind) {
    case KIND_PNG: st = png_check(name, buf, len, &hw, &hh, &in->png); break;
    case KIND_JPEG:
        if (!(st = jpeg_check(name, buf, len, &hw, &hh, &in->jpeg_facts)))
            in->orient = jpeg_orientation(buf, len);
        break;
    case KIND_PNM: st = pnm_check(name, buf, len, &hw, &hh); break;
    case KIND_WEBP: st = webp_info(name, buf, len, &lib, &in->frames); break;
    case KIND_TIFF: st = tiff_info(name, buf, len, &lib); break;
    case KIND_HEIF:
        if (!(st = heif_check(name, buf, len)))
            st = heif_info(name, buf, len, &lib);
        break;
    case KIND_JXL: st = jxl_info(name, buf, len, &lib, &in->frames, &jxl_hold); break;
    default: break;
    }
    if (!st && lib.w) {   /* read by its own library, not stb_image */
        hw = (uint32_t)lib.w;
        hh = (uint32_t)lib.h;
    }
    if (!st && kind == KIND_PNG)
        len = png_drop_empty_idat(buf, len);
    if (!st && o->max_pixels && (uint64_t)hw * hh > o->max_pixels)
        st = gpuimg_fail(GPUIMG_ETOOBIG, "%s: image is %ux%u (%llu pixels), over the limit of %llu pixels (--max-pixels)",
                         name, hw, hh, (unsigned long long)hw * hh, (unsigned long long)o->max_pixels);
    int w = lib.w, h = lib.h, comp = lib.c;
    if (!st && !lib.w && !stbi_info_from_memory(buf, (int)len, &w, &h, &comp))
        st = hw ? gpuimg_fail(GPUIMG_ETOOBIG, "%s: the decoder cannot take this %ux%u image (stb_image: %s)", name, hw, hh,
                              stbi_failure_reason() ? stbi_failure_reason() : "refused")
                : gpuimg_fail(GPUIMG_EDECODE, "%s: %s", name, stb_reason());
    if (!st && (w <= 0 || h <= 0))
        st = gpuimg_fail(GPUIMG_EDECODE, "%s: image has a zero or negative size (%dx%d)", name, w, h);
    /* a header claiming more pixels than the file's bytes can encode: truncated, refused before
     * the decoder allocates them */
    if (!st && kind_max_px_per_byte(kind) > 0 && (double)w * h > kind_max_px_per_byte(kind) * (double)len)
        st = gpuimg_fail(GPUIMG_EDECODE, "%s: truncated %s: the header says %dx%d, more than its %zu bytes can hold", name,
                         kind_name(kind), w, h, len);
    /* The pixel limit is checked on the header, before the decoder allocates anything. */
    if (!st && o->max_pixels && (uint64_t)w * (uint64_t)h > o->max_pixels)
        st = gpuimg_fail(GPUIMG_ETOOBIG, "%s: image is %dx%d (%llu pixels), over the limit of %llu pixels (--max-pixels)",
                         name, w, h, (unsigned long long)w * (unsigned long long)h, (unsigned long long)o->max_pixels);
    if (st) {
        free(buf);
        return st;
    }
    in->buf = buf;
    in->len = len;
    in->name = name;
    in->jpeg = kind == KIND_JPEG;
    in->kind = kind;
    in->dec = kind == KIND_JPEG ? o->jpeg : kind == KIND_PNG ? o->png : DEC_STB;
    in->shrink = 1;
    in->threads = o->threads;
    if (!in->orient)
        in->orient = 1;
    if (kind == KIND_GIF)
        in->frames = gif_frames(buf, len);
    if (in->frames < 1)
        in->frames = 1;
    if (kind == KIND_PNG)
        comp = in->png.channels;
    in->g = lib.w ? lib : (struct geom){ w, h, comp, stbi_is_16_bit_from_memory(buf, (int)len) ? 16 : 8 };
    /* the bytes the decoder holds against the file's: checked on the header, before it allocates;
     * stb_image decodes Radiance HDR through floats (4 bytes a sample more) and GIF with a canvas
     * and a background beside its frame; libheif decodes to planes, then to the pixels it hands;
     * libwebpdemux composes an animation on two canvases of its own; libjxl holds jxl_hold bytes
     * a pixel beside them (jxl.h) */
    const unsigned factor = kind == KIND_HDR ? 5 : kind == KIND_GIF ? 2 : kind == KIND_HEIF ? 3
                          : kind == KIND_WEBP && in->frames > 1 ? 3 : 1;
    const unsigned long long out = (unsigned long long)in->g.w * in->g.h * (geom_bpp(&in->g) * factor + jxl_hold);
    if (o->max_expansion && out > IO_EXPANSION_FLOOR && out / o->max_expansion > len) {
        st = gpuimg_fail(GPUIMG_ETOOBIG, "%s: decoding this %dx%d image takes %llu MiB, over %u times the file's %zu "
                         "bytes: a decompression bomb? (--max-expansion=0 reads it)", name, in->g.w, in->g.h, (out + (1u << 20) - 1) >> 20,
                         o->max_expansion, len);
        free(buf);
        memset(in, 0, sizeof *in);
        return st;
    }
    return GPUIMG_OK;
}

int io_read_meta(const struct io_input *in, struct io_meta *m)
{
    if (in->kind == KIND_WEBP)
        return webp_meta(in->buf, in->len, m);
    if (in->kind == KIND_TIFF)
        return tiff_meta(in->buf, in->len, m);
    if (in->kind == KIND_HEIF)
        return heif_meta(in->buf, in->len, m);
    if (in->kind == KIND_JXL)
        return jxl_meta(in->buf, in->len, m);
    return meta_read(in->buf, in->len, in->kind, m);
}

int io_can_shrink(const struct io_input *in)
{
#ifdef HAVE_LIBJPEG
    /* not CMYK: scaled before its conversion to RGB, it lands further off */
    return in->kind == KIND_JPEG && in->dec != DEC_STB && !in->jpeg_facts.four;
#else
    (void)in;
    return 0;
#endif
}

void io_shrink(struct io_input *in, int f)
{
    in->shrink = f;
    in->g.w = (in->g.w + f - 1) / f;
    in->g.h = (in->g.h + f - 1) / f;
}

void io_input_free(struct io_input *in)
{
    free(in->buf);
    in->buf = NULL;
}

void gpuimg_stbi_clear_reason(void);   /* third_party/stb_impl.c */

/* stb_image reads every format but PNG and JPEG (whose walks check their ends) through these
 * callbacks, so that a decoder asking for bytes past the end is seen: stb_image would read them
 * as zeros and return a padded image. Its format tests may read up to 92 bytes of any file, so
 * for files shorter than its 128-byte buffer a second decode with the bytes after the end set
 * to 0xFF tells instead (a decoder that reads past the end reads them). */
struct reader { const uint8_t *p; size_t len, pos; int past_end; };

#define STB_BUFFER 128   /* stb_image's read-ahead: it refills its buffer with reads of this size */
static int cb_read(void *user, char *data, int size)
{
    struct reader *r = user;
    const size_t n = r->len - r->pos < (size_t)size ? r->len - r->pos : (size_t)size;
    /* a refill at the end of the data, or a read of the bytes a decoder needs (any other size)
     * that comes back short */
    if (size > 0 && (n == 0 || (n < (size_t)size && size != STB_BUFFER)))
        r->past_end = 1;
    memcpy(data, r->p + r->pos, n);
    r->pos += n;
    return (int)n;
}
static void cb_skip(void *user, int n)
{
    struct reader *r = user;
    if (n < 0)
        r->pos = (size_t)-n > r->pos ? 0 : r->pos - (size_t)-n;
    else
        r->pos = (size_t)n > r->len - r->pos ? r->len : r->pos + (size_t)n;
}
static int cb_eof(void *user)
{
    const struct reader *r = user;
    return r->pos >= r->len;
}

static void *stb_load(const uint8_t *buf, size_t len, int is16, int *w, int *h, int *comp, int *past_end)
{
    static const stbi_io_callbacks cb = { cb_read, cb_skip, cb_eof };
    *past_end = 0;
    if (len < STB_BUFFER) {
        uint8_t padded[2 * STB_BUFFER];
        memcpy(padded, buf, len);
        memset(padded + len, 0xFF, sizeof padded - len);
        void *a = is16 ? (void *)stbi_load_16_from_memory(buf, (int)len, w, h, comp, 0)
                       : (void *)stbi_load_from_memory(buf, (int)len, w, h, comp, 0);
        int w2, h2, c2;
        void *b = a ? is16 ? (void *)stbi_load_16_from_memory(padded, (int)sizeof padded, &w2, &h2, &c2, 0)
                           : (void *)stbi_load_from_memory(padded, (int)sizeof padded, &w2, &h2, &c2, 0)
                    : NULL;
        *past_end = a && (!b || w2 != *w || h2 != *h || c2 != *comp
                          || memcmp(a, b, (size_t)*w * *h * *comp * (is16 ? 2 : 1)));
        stbi_image_free(b);
        return a;
    }
    struct reader r = { buf, len, 0, 0 };
    void *px = is16 ? (void *)stbi_load_16_from_callbacks(&cb, &r, w, h, comp, 0)
                    : (void *)stbi_load_from_callbacks(&cb, &r, w, h, comp, 0);
    *past_end = r.past_end;
    return px;
}

int io_can_stream(const struct io_input *in)
{
    return io_can_shrink(in);   /* libjpeg-turbo's rows come as they are decoded */
}

static int decode(struct io_input *in, struct image *out, const struct image_rows *rows)
{
#ifdef HAVE_LIBJPEG
    if (in->kind == KIND_JPEG && in->dec != DEC_STB) {
        in->codec = jpeg_codec_name();
        int st = jpeg_decode(in->name, in->buf, in->len, in->shrink, &in->g, out, rows);
        io_input_free(in);
        return st;
    }
#endif
    if (in->kind == KIND_WEBP || in->kind == KIND_TIFF || in->kind == KIND_HEIF || in->kind == KIND_JXL) {
        int st;
        switch (in->kind) {
        case KIND_WEBP:
            in->codec = webp_codec_name();
            st = webp_decode(in->name, in->buf, in->len, &in->g, out);
            break;
        case KIND_TIFF:
            in->codec = tiff_codec_name();
            st = tiff_decode(in->name, in->buf, in->len, &in->g, out);
            break;
        case KIND_HEIF:
            in->codec = heif_codec_name();
            st = heif_decode(in->name, in->buf, in->len, &in->g, out);
            break;
        default:
            in->codec = jxl_codec_name();
            st = jxl_decode(in->name, in->buf, in->len, &in->g, in->threads, out);
        }
        io_input_free(in);
        if (!st && rows)
            rows->done(rows->arg, out, out->h);
        return st;
    }
    if (in->kind == KIND_PNG && in->dec != DEC_STB) {
        int st = png_decode(in->name, in->buf, in->len, &in->g, &in->png, in->dec == DEC_LIBPNG, out, &in->codec);
        io_input_free(in);
        if (!st && rows)
            rows->done(rows->arg, out, out->h);
        return st;
    }
    in->codec = "stb_image";
    int w, h, comp, past_end = 0;
    const int is16 = in->g.depth == 16;
    gpuimg_stbi_clear_reason();   /* a reason left by an earlier file must not be this one's */
    void *px = in->kind == KIND_PNG || in->kind == KIND_JPEG
                   ? is16 ? (void *)stbi_load_16_from_memory(in->buf, (int)in->len, &w, &h, &comp, 0)
                          : (void *)stbi_load_from_memory(in->buf, (int)in->len, &w, &h, &comp, 0)
                   : stb_load(in->buf, in->len, is16, &w, &h, &comp, &past_end);
    const size_t len = in->len;
    io_input_free(in);
    if (px && past_end) {
        stbi_image_free(px);
        return gpuimg_fail(GPUIMG_EDECODE, "%s: truncated %s: its data ends at byte %zu, before the image does",
                           in->name, kind_name(in->kind), len);
    }
    if (!px)
        return gpuimg_fail(GPUIMG_EDECODE, "%s: cannot decode: %s", in->name,
                           stbi_failure_reason() ? stb_reason()
                           : in->kind == KIND_PNG ? "corrupt PNG: its compressed data does not decode"
                                                  : "the decoder gave no reason");
    struct geom g = { w, h, comp, is16 ? 16 : 8 };
    if (is16 && in->kind == KIND_PNM && stb_pnm16_swapped()) {   /* netpbm's samples are big-endian */
        uint16_t *v = px;
        for (size_t i = 0, n = (size_t)w * h * comp; i < n; i++)
            v[i] = (uint16_t)(v[i] << 8 | v[i] >> 8);
    }
    /* The plan was resolved on the header's geometry: a decoder that disagrees with its own
     * header must not hand the operations a buffer of another size. */
    if (g.w != in->g.w || g.h != in->g.h || g.c != in->g.c) {
        free(px);
        return gpuimg_fail(GPUIMG_EDECODE, "%s: corrupt image: the header says %dx%d with %d channels, the data %dx%d with %d",
                           in->name, in->g.w, in->g.h, in->g.c, w, h, comp);
    }
    image_wrap(out, &g, px);
    if (rows)
        rows->done(rows->arg, out, out->h);
    return GPUIMG_OK;
}

int io_decode(struct io_input *in, struct image *out)
{
    memset(out, 0, sizeof *out);   /* every decoder allocates its own */
    return decode(in, out, NULL);
}

int io_decode_rows(struct io_input *in, struct image *out, const struct image_rows *rows)
{
    return decode(in, out, rows);
}

int io_load(const char *path, const struct load_opts *o, struct image *out)
{
    struct io_input in;
    int st = io_read(path, o, &in);
    return st ? st : io_decode(&in, out);
}

/* ---- formats -------------------------------------------------------------------------------- */

static const struct { const char *name; enum out_format f; } fmt_names[] = {
    { "png", FMT_PNG }, { "jpg", FMT_JPEG }, { "jpeg", FMT_JPEG }, { "bmp", FMT_BMP }, { "tga", FMT_TGA },
    { "ppm", FMT_PNM }, { "pgm", FMT_PNM }, { "pnm", FMT_PNM }, { "webp", FMT_WEBP }, { "tif", FMT_TIFF },
    { "tiff", FMT_TIFF }, { "heic", FMT_HEIC }, { "heif", FMT_HEIC }, { "avif", FMT_AVIF }, { "jxl", FMT_JXL },
};

int io_format_from_name(const char *name, enum out_format *f)
{
    for (size_t i = 0; i < sizeof fmt_names / sizeof fmt_names[0]; i++)
        if (strcasecmp(name, fmt_names[i].name) == 0) {
            *f = fmt_names[i].f;
            return GPUIMG_OK;
        }
    return GPUIMG_EUSAGE;
}

int io_format_from_path(const char *path, enum out_format *f)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    if (!dot || !dot[1])
        return GPUIMG_EUSAGE;
    return io_format_from_name(dot + 1, f);
}

int io_check_size(const char *path, enum out_format f, const struct geom *g)
{
    /* JPEG: libjpeg's JPEG_MAX_DIMENSION (the format's 16 bits would allow 65535; stb_image_write
     * builds are held to the same rule) */
    /* HEIC: x265 encodes at most 16384 a side in one picture (libheif 1.15 makes no grid) */
    static const int max_side[] = { [FMT_PNG] = 1000000, [FMT_JPEG] = 65500, [FMT_BMP] = 1 << 24, [FMT_TGA] = 65535,
                                    [FMT_PNM] = 1 << 24, [FMT_WEBP] = 16383, [FMT_TIFF] = 1 << 24,
                                    [FMT_HEIC] = 16384, [FMT_AVIF] = 65536, [FMT_JXL] = 1 << 30 };
    static const char *const what[] = { [FMT_PNG] = "PNG (libpng)", [FMT_JPEG] = "JPEG", [FMT_BMP] = "BMP",
                                        [FMT_TGA] = "TGA", [FMT_PNM] = "PNM", [FMT_WEBP] = "WebP", [FMT_TIFF] = "TIFF",
                                        [FMT_HEIC] = "HEIC (x265)", [FMT_AVIF] = "AVIF", [FMT_JXL] = "JPEG XL" };
    /* the formats written through a library a build may lack: the library, its Debian package, its
     * name in this build (NULL without it), and its loading where it is loaded at its first use */
    static const struct { const char *lib, *pkg; const char *(*built)(void); int (*need)(const char *); } lib[] = {
        [FMT_WEBP] = { "libwebp", "libwebp-dev", webp_codec_name },
        [FMT_TIFF] = { "libtiff", "libtiff-dev", tiff_codec_name, tiff_need },
        [FMT_HEIC] = { "libheif", "libheif-dev", heif_codec_name, heif_need },
        [FMT_AVIF] = { "libheif", "libheif-dev", heif_codec_name, heif_need },
        [FMT_JXL] = { "libjxl", "libjxl-dev", jxl_codec_name, jxl_need } };
    const char *out = strcmp(path, "-") ? path : "<stdout>";
    const int known = (size_t)f < sizeof lib / sizeof lib[0];
    if (known && lib[f].built && !lib[f].built())
        return gpuimg_fail(GPUIMG_EUNSUPPORTED, "%s: this gpuimg was built without %s (install %s, then configure and "
                           "build again)", out, lib[f].lib, lib[f].pkg);
    if (known && lib[f].need && lib[f].need(out))
        return GPUIMG_EUNSUPPORTED;
    if ((f == FMT_HEIC || f == FMT_AVIF) && !heif_can_write(f == FMT_AVIF))
        return gpuimg_fail(GPUIMG_EUNSUPPORTED, "%s: this libheif has no %s encoder (install %s)", out,
                           f == FMT_AVIF ? "AV1" : "HEVC", f == FMT_AVIF ? "libheif-plugin-aomenc" : "libheif-plugin-x265");
    if (has_alpha(g->c) && !io_holds_alpha(f))
        return gpuimg_fail(GPUIMG_EUNSUPPORTED, "%s: %s holds no alpha and the image has one (%s): flatten it first (a "
                           "run does, onto --background)", out, f == FMT_JPEG ? "JPEG" : "PNM",
                           g->c == 2 ? "grey+alpha" : "RGBA");
    if (g->w <= max_side[f] && g->h <= max_side[f])
        return GPUIMG_OK;
    return gpuimg_fail(GPUIMG_ETOOBIG, "%s: %s holds at most %d pixels a side; the result would be %dx%d",
                       out, what[f], max_side[f], g->w, g->h);
}

int io_holds_alpha(enum out_format f)
{
    return f != FMT_JPEG && f != FMT_PNM;
}

const char *io_format_name(enum out_format f)
{
    static const char *const n[] = { "png", "jpeg", "bmp", "tga", "pnm", "webp", "tiff", "heic", "avif", "jxl" };
    return n[f];
}

/* ---- encoders -------------------------------------------------------------------------------- */

struct sink { FILE *fp; int failed; int err; };

static void sink_write(void *ctx, void *data, int size)
{
    struct sink *s = ctx;
    if (!s->failed && fwrite(data, 1, (size_t)size, s->fp) != (size_t)size) {
        s->failed = 1;
        s->err = errno;
    }
}

static int write_stb(FILE *fp, const char *name, const struct image *im, const struct save_opts *o)
{
    const uint8_t *px = im->data;
    uint8_t *tmp = NULL;
    int c = im->c;
    if (o->fmt == FMT_BMP && c == 2) {   /* stb writes alpha in 32-bit BMPs alone: grey+alpha as RGBA */
        c = 4;
        const size_t n = (size_t)im->w * im->h;
        if (!(tmp = malloc(n * 4)))
            return gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory", name);
        for (size_t i = 0; i < n; i++) {
            const uint8_t *s8 = im->data + 2 * i;
            const uint16_t *s16 = (const uint16_t *)im->data + 2 * i;
            const uint8_t v = im->depth == 16 ? (uint8_t)((s16[0] + 128u) / 257u) : s8[0];
            tmp[4 * i] = tmp[4 * i + 1] = tmp[4 * i + 2] = v;
            tmp[4 * i + 3] = im->depth == 16 ? (uint8_t)((s16[1] + 128u) / 257u) : s8[1];
        }
        px = tmp;
    } else if (im->depth == 16) { /* these formats are 8-bit: round each sample, v8 = round(v16 / 257) */
        size_t n = (size_t)im->w * im->h * im->c;
        tmp = malloc(n);
        if (!tmp)
            return gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory converting to 8 bits", name);
        const uint16_t *s = (const uint16_t *)im->data;
        for (size_t i = 0; i < n; i++)
            tmp[i] = (uint8_t)((s[i] + 128u) / 257u);
        px = tmp;
    }
    struct sink s = { fp, 0, 0 };
    int ok;
    switch (o->fmt) {
    case FMT_JPEG: ok = stbi_write_jpg_to_func(sink_write, &s, im->w, im->h, c, px, o->jpeg_quality); break;
    case FMT_BMP: ok = stbi_write_bmp_to_func(sink_write, &s, im->w, im->h, c, px); break;
    case FMT_TGA: ok = stbi_write_tga_to_func(sink_write, &s, im->w, im->h, im->c, px); break;
    default: ok = 0;
    }
    free(tmp);
    if (s.failed)
        return gpuimg_write_error(name, s.err);
    if (!ok)
        return gpuimg_fail(GPUIMG_EENCODE, "%s: the %s encoder failed", name, io_format_name(o->fmt));
    return GPUIMG_OK;
}

int io_jpeg_sampling(const struct save_opts *o)
{
    return o->jpeg_sampling ? o->jpeg_sampling : o->jpeg_quality <= 90 ? 420 : 444;
}

/* Binary PGM (P5, grey) or PPM (P6, RGB), maxval 255 or 65535 with 16-bit samples big-endian,
 * as netpbm defines them: every sample kept. */
static int write_pnm(FILE *fp, const char *name, const struct image *im)
{
    const size_t row = (size_t)im->w * im->c, bytes = im->depth / 8;
    unsigned char *b = malloc(row * bytes);
    if (!b)
        return gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory", name);
    int ok = fprintf(fp, "P%c\n%d %d\n%d\n", im->c == 1 ? '5' : '6', im->w, im->h, im->depth == 16 ? 65535 : 255) > 0;
    for (int y = 0; ok && y < im->h; y++) {
        const unsigned char *src = (const unsigned char *)im->data + (size_t)y * im->stride;
        if (bytes == 1)
            memcpy(b, src, row);
        else
            for (size_t i = 0; i < row; i++) {
                uint16_t v;
                memcpy(&v, src + 2 * i, 2);
                b[2 * i] = (unsigned char)(v >> 8);
                b[2 * i + 1] = (unsigned char)v;
            }
        ok = fwrite(b, bytes, row, fp) == row;
    }
    free(b);
    return ok ? GPUIMG_OK : gpuimg_write_error(name, errno);
}

/* The flush and its errors are io_pending_close's. */
static int encode_to(FILE *fp, const char *name, const struct image *im, const struct save_opts *o)
{
#ifdef HAVE_LIBJPEG
    if (o->fmt == FMT_JPEG) {
        const struct jpeg_opts jo = { o->jpeg_quality, io_jpeg_sampling(o), o->jpeg_progressive, o->meta };
        return jpeg_encode(fp, name, im, &jo);
    }
#endif
    if (o->fmt == FMT_PNM)
        return write_pnm(fp, name, im);
    if (o->fmt == FMT_WEBP)
        return webp_encode(fp, name, im, o->webp_quality, o->webp_lossless, o->webp_effort, o->meta);
    if (o->fmt == FMT_TIFF)
        return tiff_encode(fp, name, im, o->meta);
    if (o->fmt == FMT_HEIC || o->fmt == FMT_AVIF)
        return heif_encode(fp, name, im, o->fmt == FMT_AVIF, o->heif_quality, o->heif_effort, o->meta);
    if (o->fmt == FMT_JXL)
        return jxl_encode(fp, name, im, o->jxl_distance, o->jxl_effort, o->threads, o->meta);
    return o->fmt == FMT_PNG ? pngenc_write(fp, name, im, o->png_level, o->threads, o->meta) : write_stb(fp, name, im, o);
}

/* A JPEG encoded elsewhere, with the metadata put in as libjpeg-turbo's files carry it. */
static int write_jpeg_bytes(FILE *fp, const char *name, const struct io_result *res, const struct io_meta *m)
{
    if (m && meta_jpeg_splice(fp, res->bytes, res->len, m, res->g.c))
        return ferror(fp) ? gpuimg_write_error(name, errno)
                          : gpuimg_fail(GPUIMG_EENCODE, "%s: the GPU's JPEG does not start as a JPEG", name);
    if (!m && fwrite(res->bytes, 1, res->len, fp) != res->len)
        return gpuimg_write_error(name, errno);
    return GPUIMG_OK;
}

static int write_result(FILE *fp, const char *name, const struct io_result *res, const struct save_opts *o)
{
    switch (res->kind) {
    case IO_RESULT_PIXELS: return encode_to(fp, name, res->img, o);
    case IO_RESULT_PNG_STRIPS: return pngenc_end(res->strips, fp, name);
    case IO_RESULT_PNG_CHUNKS:
        return pngenc_write_chunks(fp, name, &res->g, o->png_level, res->chunks, res->lens, res->raw, res->raw_lens,
                                   res->nchunks, o->threads, o->meta);
    case IO_RESULT_JPEG_BYTES: return write_jpeg_bytes(fp, name, res, o->meta);
    }
    return gpuimg_fail(GPUIMG_EINTERNAL, "%s: no such result", name);
}

int io_write(const char *path, const struct io_result *res, const struct save_opts *o, struct io_pending *hold)
{
    struct io_pending local, *p = hold ? hold : &local;
    memset(p, 0, sizeof *p);
    p->slot = -1;
    int r = io_check_size(path, o->fmt, &res->g);
    if (!r)
        r = o->out_fd > 0 ? io_pending_fd(o->out_fd, path, p) : io_pending_open(path, o->force, p);
    if (!r)
        r = write_result(p->fp, io_display_name(path, 1), res, o);
    if (!r)
        r = io_pending_close(p);
    if (r)
        io_pending_discard(p);
    else if (!hold)
        r = io_pending_publish(p);
    return r;
}

int io_write_to(FILE *fp, const char *name, const struct io_result *res, const struct save_opts *o)
{
    int r = io_check_size(name, o->fmt, &res->g);
    return r ? r : write_result(fp, name, res, o);
}

int io_save(const char *path, const struct image *im, const struct save_opts *o)
{
    const struct io_result res = { .kind = IO_RESULT_PIXELS, .g = image_geom(im), .img = im };
    return io_write(path, &res, o, NULL);
}

const char *io_encoder_name(const struct geom *g, const struct save_opts *o)
{
    switch (o->fmt) {
    case FMT_PNG: return pngenc_name(g, o->threads);
#ifdef HAVE_LIBJPEG
    case FMT_JPEG: return jpeg_codec_name();
#endif
    case FMT_PNM: return "netpbm (gpuimg)";
    case FMT_WEBP: return webp_codec_name();
    case FMT_TIFF: return tiff_codec_name();
    case FMT_HEIC: case FMT_AVIF: return heif_codec_name();
    case FMT_JXL: return jxl_codec_name();
    default: return "stb_image_write";
    }
}

void io_codecs(FILE *f)
{
#ifdef HAVE_LIBJPEG
    const char *jpeg = jpeg_codec_name();
#else
    const char *jpeg = "stb_image";
#endif
#ifdef HAVE_LIBDEFLATE
    const char *png = "libdeflate " LIBDEFLATE_VERSION_STRING " and ";
#else
    const char *png = "";
#endif
    const char *webp = webp_codec_name(), *tiff = tiff_codec_name(), *heif = heif_codec_name(), *jxl = jxl_codec_name();
    fprintf(f, "decoders: %s%s (PNG), %s (JPEG), %s (WebP), %s (TIFF), %s (HEIC, AVIF), %s (JPEG XL), stb_image (BMP, "
               "TGA, PSD, GIF, PNM, HDR; PNG and JPEG with --decoder=stb); encoders: PNG (%szlib %s strips, libpng's "
               "container), %s (JPEG), %s (WebP), %s (TIFF), %s (HEIC%s, AVIF%s), %s (JPEG XL), stb_image_write (BMP, "
               "TGA), netpbm (PGM, PPM); colour: %s\n",
            png, png_libpng_name(), jpeg, webp ? webp : "none", tiff ? tiff : "none", heif ? heif : "none",
            jxl ? jxl : "none", png, zlibVersion(), strcmp(jpeg, "stb_image") ? jpeg : "stb_image_write",
            webp ? webp : "none", tiff ? tiff : "none", heif ? heif : "none", heif && !heif_can_write(0) ? ": no encoder" : "",
            heif && !heif_can_write(1) ? ": no encoder" : "", jxl ? jxl : "none", icc_codec_name() ? icc_codec_name() : "none");
}
