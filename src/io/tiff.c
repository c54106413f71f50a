/* gpuimg: TIFF in and out (tiff.h). libtiff reads and writes through memory here, and its
 * messages come to a handler of each file's, so that the first becomes the file's error line
 * (nothing of libtiff's is printed). */
#include <config.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "core/dynlib.h"
#include "core/error.h"
#include "io/formats.h"
#include "io/meta.h"
#include "io/tiff.h"
#ifdef HAVE_TIFF
#include <pthread.h>
#include <tiffio.h>

/* the library's functions, loaded at its first use (core/dynlib.h) */
#define LT_FNS(X) \
    X(TIFFClientOpenExt) X(TIFFClose) X(TIFFComputeTile) X(TIFFCreateEXIFDirectory) X(TIFFDataWidth) \
    X(TIFFDefaultStripSize) X(TIFFFieldDataType) X(TIFFFieldPassCount) X(TIFFFieldSetGetCountSize) \
    X(TIFFFieldSetGetSize) X(TIFFFieldWithTag) X(TIFFFieldWriteCount) X(TIFFFindField) X(TIFFFlush) \
    X(TIFFGetField) X(TIFFGetFieldDefaulted) X(TIFFGetStrileByteCountWithErr) \
    X(TIFFGetStrileOffsetWithErr) X(TIFFGetVersion) X(TIFFIsCODECConfigured) X(TIFFIsTiled) \
    X(TIFFNumberOfStrips) X(TIFFNumberOfTiles) X(TIFFOpenOptionsAlloc) X(TIFFOpenOptionsFree) \
    X(TIFFOpenOptionsSetErrorHandlerExtR) X(TIFFOpenOptionsSetMaxSingleMemAlloc) \
    X(TIFFOpenOptionsSetWarningHandlerExtR) X(TIFFRGBAImageOK) X(TIFFReadEncodedStrip) \
    X(TIFFReadEncodedTile) X(TIFFReadRGBAImageOriented) X(TIFFScanlineSize64) X(TIFFSetDirectory) \
    X(TIFFSetErrorHandler) X(TIFFSetField) X(TIFFSetWarningHandler) X(TIFFStripSize) X(TIFFTileSize) \
    X(TIFFWriteCustomDirectory) X(TIFFWriteDirectory) X(TIFFWriteScanline)
DYNLIB_TABLE(lt, TIFF_SONAME, "TIFF", LT_FNS);

int tiff_need(const char *name) { return dynlib_need(&lt_lib, name); }

struct mem {
    const uint8_t *in;   /* reading: the file's bytes */
    uint8_t *out;        /* writing: the bytes so far, cap of room */
    size_t len, cap, pos;
    char msg[256];       /* libtiff's first error */
};

static tsize_t mem_read(thandle_t h, tdata_t p, tsize_t n)
{
    struct mem *m = (struct mem *)h;
    if (n < 0 || m->pos >= m->len)
        return 0;
    const size_t k = (size_t)n < m->len - m->pos ? (size_t)n : m->len - m->pos;
    memcpy(p, (m->in ? m->in : m->out) + m->pos, k);
    m->pos += k;
    return (tsize_t)k;
}

static tsize_t mem_write(thandle_t h, tdata_t p, tsize_t n)
{
    struct mem *m = (struct mem *)h;
    if (m->in || n < 0)
        return -1;
    const size_t end = m->pos + (size_t)n;
    if (end > m->cap) {
        size_t cap = m->cap ? m->cap : 1 << 16;
        while (cap < end)
            cap *= 2;
        uint8_t *grown = realloc(m->out, cap);
        if (!grown)
            return -1;
        memset(grown + m->cap, 0, cap - m->cap);
        m->out = grown;
        m->cap = cap;
    }
    memcpy(m->out + m->pos, p, (size_t)n);
    m->pos = end;
    if (end > m->len)
        m->len = end;
    return n;
}

static toff_t mem_seek(thandle_t h, toff_t off, int whence)
{
    struct mem *m = (struct mem *)h;
    const uint64_t base = whence == SEEK_CUR ? m->pos : whence == SEEK_END ? m->len : 0;
    if (off > UINT64_MAX - base || base + off > (uint64_t)SIZE_MAX / 2)
        return (toff_t)-1;
    m->pos = (size_t)(base + off);
    return m->pos;
}

static int mem_close(thandle_t h) { (void)h; return 0; }
static toff_t mem_size(thandle_t h) { return ((struct mem *)h)->len; }
static int mem_map(thandle_t h, tdata_t *p, toff_t *n) { (void)h; (void)p; (void)n; return 0; }
static void mem_unmap(thandle_t h, tdata_t p, toff_t n) { (void)h; (void)p; (void)n; }

static int on_error(TIFF *t, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)t;
    (void)module;
    struct mem *m = user;
    if (!m->msg[0])
        vsnprintf(m->msg, sizeof m->msg, fmt, ap);
    return 1;   /* handled: libtiff prints nothing */
}
static int on_warning(TIFF *t, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)t, (void)user, (void)module, (void)fmt, (void)ap;
    return 1;
}

/* libtiff's process-wide handlers, for the messages no file's handler takes: none */
static void quiet(void)
{
    lt.TIFFSetErrorHandler(NULL);
    lt.TIFFSetWarningHandler(NULL);
}

/* The most samples a pixel the RGBA reader is given, and the largest single allocation libtiff
 * may make for one file (a strip or tile's buffer; a larger one fails that file with
 * libtiff's message) */
#define TIFF_SAMPLES_MAX 16
#define TIFF_ALLOC_MAX ((tmsize_t)1 << 30)

static TIFF *open_mem(const char *name, struct mem *m, const char *mode)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, quiet);
    TIFFOpenOptions *o = lt.TIFFOpenOptionsAlloc();
    if (!o)
        return NULL;
    lt.TIFFOpenOptionsSetErrorHandlerExtR(o, on_error, m);
    lt.TIFFOpenOptionsSetWarningHandlerExtR(o, on_warning, m);
    lt.TIFFOpenOptionsSetMaxSingleMemAlloc(o, TIFF_ALLOC_MAX);
    TIFF *t = lt.TIFFClientOpenExt(name, mode, (thandle_t)m, mem_read, mem_write, mem_seek, mem_close, mem_size, mem_map,
                                mem_unmap, o);
    lt.TIFFOpenOptionsFree(o);
    return t;
}

static int fail_tiff(enum gpuimg_status s, const char *name, const struct mem *m, const char *what)
{
    return gpuimg_fail(s, "%s: %s%s%s", name, what, m->msg[0] ? ": " : "", m->msg);
}

/* The most bytes of samples a stored byte can decode to under compression c, or 0 for JPEG
 * (counted in pixels instead: at least a bit for each 8x8 block, 512 pixels a byte, as
 * formats.c's JPEG files): none 1; PackBits 64 (a 2-byte run stands for 128); LZW 1364 (after a
 * clear, each 9- to 12-bit code at most one byte longer than the one before, up to the 4096th);
 * Deflate 1032 (a 258-byte match in two bits); any other 32768 (Zstandard's densest block, 4
 * bytes for 128 KiB; more than LZMA or CCITT fax make of a blank page). */
static uint64_t tiff_max_ratio(unsigned c)
{
    switch (c) {
    case COMPRESSION_NONE: return 1;
    case COMPRESSION_PACKBITS: return 64;
    case COMPRESSION_LZW: return 1364;
    case COMPRESSION_ADOBE_DEFLATE: case COMPRESSION_DEFLATE: return 1032;
    case COMPRESSION_JPEG: case COMPRESSION_OJPEG: return 0;
    default: return 32768;
    }
}

struct span { uint64_t off, end; uint32_t i; };
static int span_cmp(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* The strips (or tiles) against the file's bytes, before anything the image's size is allocated
 * (strips that share their bytes or lie past the end would have a small file decode to, or
 * allocate, an image of any size): each holds at least one byte, lies inside the file and
 * shares none with another, and together they hold what the compression needs for the image's
 * samples (tiff_max_ratio). */
static int strips_check(TIFF *t, const char *name, const struct mem *m, uint16_t compression, uint32_t w, uint32_t h,
                        int planes)
{
    const int tiled = lt.TIFFIsTiled(t);
    const char *what = tiled ? "tile" : "strip";
    const uint32_t n = tiled ? lt.TIFFNumberOfTiles(t) : lt.TIFFNumberOfStrips(t);
    if (!n)
        return gpuimg_fail(GPUIMG_EDECODE, "%s: invalid TIFF: no %ss", name, what);
    if (n > m->len)
        return gpuimg_fail(GPUIMG_EDECODE, "%s: truncated TIFF: %u %ss, more than its %zu bytes can hold", name, n, what,
                           m->len);
    uint64_t sum = 0, last_end = 0;
    int ordered = 1;   /* each range after the one before: none overlaps */
    for (uint32_t i = 0; i < n; i++) {
        int err = 0;
        const uint64_t off = lt.TIFFGetStrileOffsetWithErr(t, i, &err), len = lt.TIFFGetStrileByteCountWithErr(t, i, &err);
        if (err || !len)
            return gpuimg_fail(GPUIMG_EDECODE, "%s: invalid TIFF: %s %u holds no bytes", name, what, i);
        if (off > m->len || len > m->len - off)
            return gpuimg_fail(GPUIMG_EDECODE, "%s: truncated TIFF: %s %u is bytes %llu to %llu, past the end of the "
                               "file (%zu bytes)", name, what, i, (unsigned long long)off,
                               (unsigned long long)(off + len - 1), m->len);
        ordered &= off >= last_end;
        last_end = off + len;
        sum += len;
    }
    if (!ordered) {   /* the ranges in order of offset, each after the one before */
        struct span *s = malloc((size_t)n * sizeof *s);
        if (!s)
            return gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory for the TIFF's %ss", name, what);
        for (uint32_t i = 0; i < n; i++) {
            int err = 0;
            const uint64_t off = lt.TIFFGetStrileOffsetWithErr(t, i, &err);
            s[i] = (struct span){ off, off + lt.TIFFGetStrileByteCountWithErr(t, i, &err), i };
        }
        qsort(s, n, sizeof *s, span_cmp);
        int st = GPUIMG_OK;
        for (uint32_t i = 1; !st && i < n; i++)
            if (s[i].off < s[i - 1].end) {
                const uint32_t a = s[i - 1].i < s[i].i ? s[i - 1].i : s[i].i, b = s[i - 1].i ^ s[i].i ^ a;
                st = gpuimg_fail(GPUIMG_EDECODE, "%s: invalid TIFF: %ss %u and %u share bytes (from byte %llu)", name,
                                 what, a, b, (unsigned long long)s[i].off);
            }
        free(s);
        if (st)
            return st;
    }
    const uint64_t ratio = tiff_max_ratio(compression), row = ratio ? lt.TIFFScanlineSize64(t) : 1;
    if (!row)
        return fail_tiff(GPUIMG_EDECODE, name, m, "invalid TIFF");
    const uint64_t rows = (uint64_t)h * (uint64_t)planes;   /* rows of samples (a plane's apart) */
    const uint64_t need = !ratio ? ((uint64_t)w * h + 511) / 512 : row > UINT64_MAX / rows ? UINT64_MAX : row * rows;
    if (sum * (ratio ? ratio : 1) < need)
        return gpuimg_fail(GPUIMG_EDECODE, "%s: truncated TIFF: the header says %ux%u, more than its %ss' %llu bytes can "
                           "hold", name, w, h, what, (unsigned long long)sum);
    return GPUIMG_OK;
}

/* How the first image is read: straight from its samples (direct), or through the RGBA reader. */
struct layout {
    struct geom g;
    int direct, assoc, alpha, planes;   /* planes: 1 (samples together) or the samples a pixel */
};

static int layout_of(TIFF *t, const char *name, struct mem *m, struct layout *l)
{
    uint32_t w = 0, h = 0;
    uint16_t spp = 1, bps = 1, photo = 0xFFFF, planar = PLANARCONFIG_CONTIG, fmt = SAMPLEFORMAT_UINT, nextra = 0,
             compression = COMPRESSION_NONE;
    uint16_t *extra = NULL;
    if (!lt.TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &w) || !lt.TIFFGetField(t, TIFFTAG_IMAGELENGTH, &h) || !w || !h)
        return fail_tiff(GPUIMG_EDECODE, name, m, "invalid TIFF: no image size");
    if (w > 1u << 24 || h > 1u << 24)
        return gpuimg_fail(GPUIMG_ETOOBIG, "%s: a %ux%u TIFF, over the %d pixels a side gpuimg takes", name, w, h, 1 << 24);
    lt.TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &spp);
    lt.TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &bps);
    lt.TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &planar);
    lt.TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, &fmt);
    lt.TIFFGetFieldDefaulted(t, TIFFTAG_EXTRASAMPLES, &nextra, &extra);
    lt.TIFFGetFieldDefaulted(t, TIFFTAG_COMPRESSION, &compression);
    lt.TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &photo);
    const int colour = photo == PHOTOMETRIC_MINISBLACK ? 1 : photo == PHOTOMETRIC_RGB ? 3 : 0;
    l->alpha = nextra >= 1 && extra && extra[0] != EXTRASAMPLE_UNSPECIFIED;
    l->assoc = l->alpha && extra[0] == EXTRASAMPLE_ASSOCALPHA;
    if (!lt.TIFFIsCODECConfigured(compression))
        return gpuimg_fail(GPUIMG_EUNSUPPORTED, "%s: a TIFF compressed with scheme %u, which this libtiff cannot decode",
                           name, compression);
    l->direct = colour && (bps == 8 || bps == 16) && fmt == SAMPLEFORMAT_UINT
                && (planar == PLANARCONFIG_CONTIG || planar == PLANARCONFIG_SEPARATE)
                && (spp == colour || (spp == colour + 1 && l->alpha));
    l->planes = planar == PLANARCONFIG_SEPARATE ? spp : 1;
    /* images have a few samples a pixel (CMYK and alpha: 5); thousands would only make libtiff's
     * reader allocate and walk them */
    if (!l->direct && spp > TIFF_SAMPLES_MAX)
        return gpuimg_fail(GPUIMG_EUNSUPPORTED, "%s: a TIFF of %u samples a pixel (gpuimg reads up to %d)", name, spp,
                           TIFF_SAMPLES_MAX);
    const int st = strips_check(t, name, m, compression, w, h, l->planes);
    if (st)
        return st;
    if (l->direct) {
        l->g = (struct geom){ (int)w, (int)h, spp, bps };
        return GPUIMG_OK;
    }
    char why[1024] = "";
    if (!lt.TIFFRGBAImageOK(t, why))
        return gpuimg_fail(GPUIMG_EUNSUPPORTED, "%s: a TIFF gpuimg cannot read (libtiff: %s)", name, why);
    l->g = (struct geom){ (int)w, (int)h, l->alpha ? 4 : 3, 8 };
    return GPUIMG_OK;
}

int tiff_info(const char *name, const uint8_t *buf, size_t len, struct geom *g)
{
    if (tiff_need(name))
        return GPUIMG_EUNSUPPORTED;
    struct mem m = { .in = buf, .len = len };
    TIFF *t = open_mem(name, &m, "rm");
    if (!t)
        return fail_tiff(GPUIMG_EDECODE, name, &m, "invalid TIFF");
    struct layout l;
    const int st = layout_of(t, name, &m, &l);
    lt.TIFFClose(t);
    if (!st)
        *g = l.g;
    return st;
}

/* Colour from premultiplied (associated alpha, and the RGBA reader's) to straight: round(c * max
 * / a), at most max, 0 where a is 0. */
static uint32_t straight(uint64_t c, uint64_t a, uint64_t max)
{
    const uint64_t v = a ? (c * max + a / 2) / a : 0;
    return (uint32_t)(v > max ? max : v);
}

static void unpremultiply(struct image *im)
{
    const uint32_t max = im->depth == 16 ? 65535 : 255;
    const int e = im->c - 1;
    for (int y = 0; y < im->h; y++) {
        uint8_t *row8 = im->data + (size_t)y * im->stride;
        uint16_t *row16 = (uint16_t *)row8;
        for (size_t i = 0; i < (size_t)im->w * im->c; i += (size_t)im->c)
            for (int k = 0; k < e; k++) {
                if (im->depth == 16)
                    row16[i + k] = (uint16_t)straight(row16[i + k], row16[i + e], max);
                else
                    row8[i + k] = (uint8_t)straight(row8[i + k], row8[i + e], max);
            }
    }
}

/* n units of u bytes from src into every step-th unit's place of dst (a plane into its pixels) */
static void scatter(uint8_t *dst, const uint8_t *src, size_t n, size_t u, size_t step)
{
    if (u == step) {
        memcpy(dst, src, n * u);
        return;
    }
    for (size_t i = 0; i < n; i++)
        memcpy(dst + i * step, src + i * u, u);
}

static int read_direct(TIFF *t, const char *name, struct mem *m, const struct layout *l, struct image *out)
{
    const size_t px = image_bpp(out), bpp = l->planes > 1 ? (size_t)out->depth / 8 : px;
    tmsize_t size = lt.TIFFIsTiled(t) ? lt.TIFFTileSize(t) : lt.TIFFStripSize(t);
    uint8_t *buf = size > 0 ? malloc((size_t)size) : NULL;
    if (!buf)
        return size > 0 ? (int)gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory for a TIFF strip", name)
                        : fail_tiff(GPUIMG_EDECODE, name, m, "invalid TIFF strips");
    int st = GPUIMG_OK;
    if (lt.TIFFIsTiled(t)) {
        uint32_t tw = 0, th = 0;
        lt.TIFFGetField(t, TIFFTAG_TILEWIDTH, &tw);
        lt.TIFFGetField(t, TIFFTAG_TILELENGTH, &th);
        if (!tw || !th || (size_t)tw * th * bpp > (size_t)size)
            st = fail_tiff(GPUIMG_EDECODE, name, m, "invalid TIFF tiles");
        for (int p = 0; p < l->planes; p++)
            for (uint32_t y = 0; !st && y < (uint32_t)out->h; y += th)
                for (uint32_t x = 0; !st && x < (uint32_t)out->w; x += tw) {
                    if (lt.TIFFReadEncodedTile(t, lt.TIFFComputeTile(t, x, y, 0, (uint16_t)p), buf, size) < 0) {
                        st = fail_tiff(GPUIMG_EDECODE, name, m, "cannot decode a TIFF tile");
                        break;
                    }
                    const uint32_t rows = th < out->h - y ? th : out->h - y, cols = tw < out->w - x ? tw : out->w - x;
                    for (uint32_t r = 0; r < rows; r++)
                        scatter(out->data + (size_t)(y + r) * out->stride + (size_t)x * px + (size_t)p * bpp,
                                buf + (size_t)r * tw * bpp, cols, bpp, px);
                }
    } else {
        uint32_t rps = 0;
        lt.TIFFGetFieldDefaulted(t, TIFFTAG_ROWSPERSTRIP, &rps);
        if (!rps || rps > (uint32_t)out->h)
            rps = (uint32_t)out->h;
        const size_t row = (size_t)out->w * bpp;
        const uint32_t per_plane = (uint32_t)((out->h + rps - 1) / rps);
        for (int p = 0; p < l->planes; p++)
            for (uint32_t s = 0, y = 0; !st && y < (uint32_t)out->h; s++, y += rps) {
                const uint32_t rows = rps < out->h - y ? rps : out->h - y;
                const tmsize_t got = lt.TIFFReadEncodedStrip(t, (uint32_t)p * per_plane + s, buf, size);
                if (got < 0 || (size_t)got < rows * row) {
                    st = fail_tiff(GPUIMG_EDECODE, name, m, got < 0 ? "cannot decode a TIFF strip" : "truncated TIFF strip");
                    break;
                }
                for (uint32_t r = 0; r < rows; r++)
                    scatter(out->data + (size_t)(y + r) * out->stride + (size_t)p * bpp, buf + r * row, (size_t)out->w,
                            bpp, px);
            }
    }
    free(buf);
    return st;
}

static int read_rgba(TIFF *t, const char *name, struct mem *m, struct image *out)
{
    uint32_t *raster = malloc((size_t)out->w * out->h * 4);
    if (!raster)
        return gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory for the TIFF", name);
    if (!lt.TIFFReadRGBAImageOriented(t, (uint32_t)out->w, (uint32_t)out->h, raster, ORIENTATION_TOPLEFT, 0)) {
        free(raster);
        return fail_tiff(GPUIMG_EDECODE, name, m, "cannot decode TIFF");
    }
    for (int y = 0; y < out->h; y++)
        for (int x = 0; x < out->w; x++) {
            const uint32_t p = raster[(size_t)y * out->w + x];
            uint8_t *d = out->data + (size_t)y * out->stride + (size_t)x * out->c;
            d[0] = (uint8_t)TIFFGetR(p);
            d[1] = (uint8_t)TIFFGetG(p);
            d[2] = (uint8_t)TIFFGetB(p);
            if (out->c == 4)
                d[3] = (uint8_t)TIFFGetA(p);
        }
    free(raster);
    return GPUIMG_OK;
}

int tiff_decode(const char *name, const uint8_t *buf, size_t len, const struct geom *g, struct image *out)
{
    if (tiff_need(name))
        return GPUIMG_EUNSUPPORTED;
    struct mem m = { .in = buf, .len = len };
    TIFF *t = open_mem(name, &m, "rm");
    if (!t)
        return fail_tiff(GPUIMG_EDECODE, name, &m, "invalid TIFF");
    struct layout l;
    int st = layout_of(t, name, &m, &l);
    if (!st && memcmp(&l.g, g, sizeof *g))
        st = gpuimg_fail(GPUIMG_EINTERNAL, "%s: the TIFF's layout changed between its header and its decode", name);
    if (!st)
        st = image_alloc(out, g);
    if (!st) {
        st = l.direct ? read_direct(t, name, &m, &l, out) : read_rgba(t, name, &m, out);
        if (!st && l.alpha && (l.assoc || !l.direct))   /* the RGBA reader premultiplies */
            unpremultiply(out);
        if (st)
            image_free(out);
    }
    lt.TIFFClose(t);
    return st;
}

/* The bytes of one element of the IPTC tag as this libtiff declares it */
static size_t iptc_word(TIFF *t)
{
    const TIFFField *f = lt.TIFFFieldWithTag(t, TIFFTAG_RICHTIFFIPTC);
    const int w = f ? lt.TIFFDataWidth(lt.TIFFFieldDataType(f)) : 0;
    return w == 4 ? 4 : 1;
}

int tiff_meta(const uint8_t *buf, size_t len, struct io_meta *m)
{
    memset(m, 0, sizeof *m);
    if (!dynlib_load(&lt_lib))
        return GPUIMG_OK;
    struct mem mm = { .in = buf, .len = len };
    TIFF *t = open_mem("meta", &mm, "rm");
    if (!t)
        return GPUIMG_OK;
    uint32_t n = 0;
    void *icc = NULL;
    int st = GPUIMG_OK;
    if (lt.TIFFGetField(t, TIFFTAG_ICCPROFILE, &n, &icc) && n && icc && n <= META_ICC_MAX) {
        if ((m->icc = malloc(n))) {
            memcpy(m->icc, icc, n);
            m->icc_len = n;
        } else
            st = GPUIMG_ENOMEM;
    }
    /* XMP (bytes); IPTC, counted in the elements of the type this libtiff declares it (UNDEFINED
     * bytes in 4.5, LONG words in others) */
    const size_t word = iptc_word(t);
    void *xmp = NULL, *iptc = NULL;
    uint32_t xn = 0, in = 0;
    if (!st && lt.TIFFGetField(t, TIFFTAG_XMLPACKET, &xn, &xmp) && xn && xmp && xn <= META_XMP_MAX) {
        if ((m->xmp = malloc(xn))) {
            memcpy(m->xmp, xmp, xn);
            m->xmp_len = xn;
        } else
            st = GPUIMG_ENOMEM;
    }
    if (!st && lt.TIFFGetField(t, TIFFTAG_RICHTIFFIPTC, &in, &iptc) && in && iptc && in <= META_XMP_MAX / word) {
        if ((m->iptc = malloc((size_t)in * word))) {
            memcpy(m->iptc, iptc, (size_t)in * word);
            m->iptc_len = (size_t)in * word;
        } else
            st = GPUIMG_ENOMEM;
    }
    float xr = 0, yr = 0;
    uint16_t unit = RESUNIT_INCH;
    lt.TIFFGetFieldDefaulted(t, TIFFTAG_RESOLUTIONUNIT, &unit);
    if (lt.TIFFGetField(t, TIFFTAG_XRESOLUTION, &xr) && lt.TIFFGetField(t, TIFFTAG_YRESOLUTION, &yr) && xr > 0 && yr > 0
        && isfinite(xr) && isfinite(yr) && (unit == RESUNIT_INCH || unit == RESUNIT_CENTIMETER)) {
        m->density = 1;
        m->xres = unit == RESUNIT_INCH ? xr : xr * 2.54;
        m->yres = unit == RESUNIT_INCH ? yr : yr * 2.54;
    }
    lt.TIFFClose(t);
    if (!st)
        st = meta_tiff_exif(buf, len, m);
    if (st)
        meta_free(m);
    return st ? gpuimg_fail(st, "out of memory for the image's metadata") : GPUIMG_OK;
}

/* A text entry set as a C string (EXIF's need not end in a NUL); whether libtiff took it */
static int put_text_field(TIFF *t, const struct exif_entry *e)
{
    char *v = malloc(e->count + 1);
    int took = 0;
    if (v) {
        memcpy(v, e->val, e->count);
        v[e->count] = 0;
        took = lt.TIFFSetField(t, e->tag, v) == 1;
        free(v);
    }
    return took;
}

/* IFD0's text entries a TIFF's own IFD0 holds too (exif_ifd0_text), set on the output's. */
static void put_text(void *arg, const struct exif_entry *e)
{
    if (e->type == 2 && exif_ifd0_text(e->tag))
        (void)put_text_field(arg, e);
}

/* A TIFF's EXIF directory being set, and how many entries libtiff took */
struct exif_put {
    TIFF *t;
    int took;
};

/* v as a 64-bit integer, saturated (NaN: 0): EXIF's numbers may lie outside any type's range */
static int64_t whole(double v)
{
    return v != v ? 0 : v <= -0x1p63 ? INT64_MIN : v >= 0x1p63 ? INT64_MAX : (int64_t)v;
}

/* An Exif IFD entry into the output's EXIF directory, as libtiff declares the tag: its text, a
 * scalar, a fixed array of its length or a counted array, numbers in the type libtiff takes them
 * in (rationals as its floats or doubles). Left out: tags libtiff does not know, entries of
 * another shape, the maker note (its offsets point into the file it came from) and the
 * interoperability IFD. */
static void put_exif(void *arg, const struct exif_entry *e)
{
    struct exif_put *p = arg;
    TIFF *t = p->t;
    const TIFFField *f = lt.TIFFFindField(t, e->tag, TIFF_ANY);
    if (!f || e->tag == EXIFTAG_MAKERNOTE || e->tag == 0xA005 || e->count > 65535)
        return;
    const TIFFDataType dt = lt.TIFFFieldDataType(f);
    const int pass = lt.TIFFFieldPassCount(f), wc = lt.TIFFFieldWriteCount(f), size = lt.TIFFFieldSetGetSize(f);
    if (dt == TIFF_ASCII || e->type == 2) {
        if (dt == TIFF_ASCII && e->type == 2 && !pass)
            p->took += put_text_field(t, e);
        return;
    }
    const int real = dt == TIFF_RATIONAL || dt == TIFF_SRATIONAL || dt == TIFF_FLOAT || dt == TIFF_DOUBLE;
    if (size != 1 && size != 2 && size != 4 && size != 8)
        return;
    if (!pass && wc == 1) {
        const double v = exif_value(e, 0);
        if (e->count != 1)
            return;
        if (real)
            p->took += lt.TIFFSetField(t, e->tag, v) == 1;
        else if (size <= 2)
            p->took += lt.TIFFSetField(t, e->tag, (int)(uint16_t)whole(v)) == 1;
        else if (size == 4)
            p->took += lt.TIFFSetField(t, e->tag, (uint32_t)whole(v)) == 1;
        else
            p->took += lt.TIFFSetField(t, e->tag, (uint64_t)whole(v)) == 1;
        return;
    }
    if (!pass && (wc < 0 || (uint32_t)wc != e->count))
        return;
    uint8_t *buf = malloc((size_t)e->count * size);
    for (uint32_t i = 0; buf && i < e->count; i++) {
        const double v = exif_value(e, i);
        uint8_t *d = buf + (size_t)i * size;
        if (real && size == 4) {
            const float x = v != v ? 0.0f : v > FLT_MAX ? FLT_MAX : v < -FLT_MAX ? -FLT_MAX : (float)v;
            memcpy(d, &x, 4);
        } else if (real) {
            memcpy(d, &v, 8);
        } else if (size == 1) {
            *d = (uint8_t)whole(v);
        } else if (size == 2) {
            const uint16_t x = (uint16_t)whole(v);
            memcpy(d, &x, 2);
        } else if (size == 4) {
            const uint32_t x = (uint32_t)whole(v);
            memcpy(d, &x, 4);
        } else {
            const uint64_t x = (uint64_t)whole(v);
            memcpy(d, &x, 8);
        }
    }
    if (buf && !pass)
        p->took += lt.TIFFSetField(t, e->tag, buf) == 1;
    else if (buf && lt.TIFFFieldSetGetCountSize(f) == 4)
        p->took += lt.TIFFSetField(t, e->tag, e->count, buf) == 1;
    else if (buf)
        p->took += lt.TIFFSetField(t, e->tag, (int)e->count, buf) == 1;
    free(buf);
}

/* How many of m's Exif IFD entries libtiff takes, set on a TIFF of their own: an EXIF directory
 * with none is written only as libtiff's "Out of memory", failing the file. */
static int exif_taken(const struct io_meta *meta)
{
    struct mem m = { 0 };
    struct exif_put p = { open_mem("exif", &m, "w"), 0 };
    if (p.t && !lt.TIFFCreateEXIFDirectory(p.t))   /* 0: made */
        meta_exif_each(meta, 1, put_exif, &p);
    if (p.t)
        lt.TIFFClose(p.t);
    free(m.out);
    return p.took;
}

int tiff_encode(FILE *fp, const char *name, const struct image *im, const struct io_meta *meta)
{
    if (tiff_need(name))
        return GPUIMG_EUNSUPPORTED;
    struct mem m = { 0 };
    TIFF *t = open_mem(name, &m, "w");
    if (!t)
        return fail_tiff(GPUIMG_EENCODE, name, &m, "TIFF encoder (libtiff)");
    const int deflate = lt.TIFFIsCODECConfigured(COMPRESSION_ADOBE_DEFLATE);
    lt.TIFFSetField(t, TIFFTAG_IMAGEWIDTH, (uint32_t)im->w);
    lt.TIFFSetField(t, TIFFTAG_IMAGELENGTH, (uint32_t)im->h);
    lt.TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, (uint16_t)im->depth);
    lt.TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)im->c);
    lt.TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT);
    lt.TIFFSetField(t, TIFFTAG_PHOTOMETRIC, im->c <= 2 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB);
    lt.TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    /* as stored: 1 once turned upright, the EXIF's with --no-auto-orient */
    lt.TIFFSetField(t, TIFFTAG_ORIENTATION, meta && meta->exif ? exif_orientation(meta->exif, meta->exif_len, NULL) : 1);
    lt.TIFFSetField(t, TIFFTAG_COMPRESSION, deflate ? COMPRESSION_ADOBE_DEFLATE : COMPRESSION_NONE);
    if (deflate)
        lt.TIFFSetField(t, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
    if (im->c == 2 || im->c == 4) {
        const uint16_t extra[1] = { EXTRASAMPLE_UNASSALPHA };
        lt.TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, extra);
    }
    lt.TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, lt.TIFFDefaultStripSize(t, 0));
    if (meta && meta_icc_fits(meta, im->c))
        lt.TIFFSetField(t, TIFFTAG_ICCPROFILE, (uint32_t)meta->icc_len, meta->icc);
    if (meta && meta->xmp && meta->xmp_len <= UINT32_MAX)
        lt.TIFFSetField(t, TIFFTAG_XMLPACKET, (uint32_t)meta->xmp_len, meta->xmp);
    const size_t word = iptc_word(t);
    uint8_t *iptc = meta && meta->iptc ? calloc((meta->iptc_len + 3) / 4, 4) : NULL;   /* padded to words */
    if (iptc) {
        memcpy(iptc, meta->iptc, meta->iptc_len);
        lt.TIFFSetField(t, TIFFTAG_RICHTIFFIPTC, (uint32_t)((meta->iptc_len + 3) / 4 * 4 / word), iptc);
        free(iptc);
    }
    if (meta && meta->density) {
        lt.TIFFSetField(t, TIFFTAG_XRESOLUTION, (float)meta->xres);
        lt.TIFFSetField(t, TIFFTAG_YRESOLUTION, (float)meta->yres);
        lt.TIFFSetField(t, TIFFTAG_RESOLUTIONUNIT, RESUNIT_INCH);
    }
    /* EXIF: IFD0's text in the TIFF's IFD0, the Exif IFD as its EXIF directory where libtiff
     * takes any of its entries, written after the image; the pointer to it is set (0 for now)
     * so that the IFD has its room */
    const int exif = meta && meta_exif_each(meta, 1, NULL, NULL) > 0 && exif_taken(meta) > 0;
    struct exif_put put = { t, 0 };
    if (meta)
        meta_exif_each(meta, 0, put_text, t);
    if (exif)
        lt.TIFFSetField(t, TIFFTAG_EXIFIFD, (uint64_t)0);
    const size_t row = (size_t)im->w * image_bpp(im);
    uint8_t *scratch = malloc(row);   /* the predictor differences a row in place */
    int st = scratch ? GPUIMG_OK : gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory for the TIFF encoder", name);
    for (int y = 0; !st && y < im->h; y++) {
        memcpy(scratch, im->data + (size_t)y * im->stride, row);
        if (lt.TIFFWriteScanline(t, scratch, (uint32_t)y, 0) < 0)
            st = fail_tiff(GPUIMG_EENCODE, name, &m, "TIFF encoder (libtiff)");
    }
    uint64_t at = 0;
    if (!st && exif
        && (!lt.TIFFWriteDirectory(t) || lt.TIFFCreateEXIFDirectory(t) /* 0: made */ || (meta_exif_each(meta, 1, put_exif, &put), 0)
            || !lt.TIFFWriteCustomDirectory(t, &at) || !lt.TIFFSetDirectory(t, 0) || !lt.TIFFSetField(t, TIFFTAG_EXIFIFD, at)
            || !lt.TIFFWriteDirectory(t)))
        st = fail_tiff(GPUIMG_EENCODE, name, &m, "TIFF encoder (libtiff), EXIF");
    if (!st && !exif && !lt.TIFFFlush(t))
        st = fail_tiff(GPUIMG_EENCODE, name, &m, "TIFF encoder (libtiff)");
    lt.TIFFClose(t);
    free(scratch);
    if (!st && fwrite(m.out, 1, m.len, fp) != m.len)
        st = gpuimg_write_error(name, errno);
    free(m.out);
    return st;
}

const char *tiff_codec_name(void)
{
    if (!dynlib_load(&lt_lib))
        return "libtiff (cannot be loaded)";
    static _Thread_local char name[32];
    const char *v = lt.TIFFGetVersion(), *num = strstr(v, "Version ");
    snprintf(name, sizeof name, "libtiff %.16s", num ? num + 8 : "");
    char *nl = strchr(name, '\n');
    if (nl)
        *nl = 0;
    return name;
}
#else
static int refuse(const char *name) { return kind_unbuilt(name, KIND_TIFF, "libtiff", "libtiff-dev"); }
int tiff_need(const char *name) { return refuse(name); }
int tiff_info(const char *name, const uint8_t *buf, size_t len, struct geom *g) { return refuse(name); }
int tiff_decode(const char *name, const uint8_t *buf, size_t len, const struct geom *g, struct image *out)
{
    return refuse(name);
}
int tiff_meta(const uint8_t *buf, size_t len, struct io_meta *m)
{
    memset(m, 0, sizeof *m);
    return GPUIMG_OK;
}
int tiff_encode(FILE *fp, const char *name, const struct image *im, const struct io_meta *meta) { return refuse(name); }
const char *tiff_codec_name(void) { return NULL; }
#endif
