/* gpuimg: PNG encoding on several threads. The rows are cut into strips; every strip's rows are
 * filtered into a buffer of the strip's own (the five PNG filters, the one with the smallest sum
 * of absolute values kept, as libpng chooses) and then deflated on its own thread into raw deflate data that ends on a byte
 * boundary, not final. With libdeflate (built in unless GPUIMG_PNG_ZLIB=1) a strip is deflated
 * whole and then made to continue: its final block's header bit is cleared (zlib's inflate,
 * stopping at each block boundary, finds it) and an empty stored block ends it on a byte, as a
 * sync flush would. With zlib a strip is primed with the last 32 KiB of the strip before it and
 * ends with a sync flush. Strips depend on no other's work, so they can be encoded as soon as
 * their rows exist (pngenc_begin .. pngenc_end). The pieces, one zlib header and the Adler-32 of the whole combined from
 * the strips' make one ordinary zlib stream: libpng writes the signature, IHDR, the IDAT chunks
 * carrying it and IEND, so any PNG reader takes the file. */
#include <config.h>
#include <errno.h>
#include <math.h>
#include <png.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#include "core/error.h"
#include "core/hot.h"
#include "io/meta.h"
#include "io/pngenc.h"

#define STRIP_MIN_BYTES (256u << 10)
#define STRIP_MAX_BYTES (1u << 30)
#define DICT_BYTES 32768u
#define IDAT_MAX (1u << 20)

static inline unsigned sabs(uint8_t v) { return v < 128 ? v : 256u - v; }

static inline uint8_t paeth(int a, int b, int c)
{
    const int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    return (uint8_t)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

/* Filter one row x (previous row p, NULL for the first) of n bytes, bpp bytes a pixel, into
 * out[0] (the filter type) and out[1..n]; cand is scratch of 4 * n bytes. The candidates are made
 * in one pass and summed in another, in 32-bit sums over blocks of 2^24 bytes (each at most
 * 2^31), so that both loops vectorise (HOT: AVX2). */
HOT static void filter_row(uint8_t *restrict out, const uint8_t *restrict x, const uint8_t *restrict p, size_t n,
                           size_t bpp, uint8_t *restrict cand)
{
    uint8_t *sub = cand, *up = cand + n, *avg = cand + 2 * n, *pae = cand + 3 * n;
    for (size_t i = 0; i < bpp && i < n; i++) {   /* a = c = 0: paeth predicts b */
        const int b = p ? p[i] : 0;
        sub[i] = x[i];
        up[i] = (uint8_t)(x[i] - b);
        avg[i] = (uint8_t)(x[i] - (b >> 1));
        pae[i] = (uint8_t)(x[i] - b);
    }
    if (p) {
        for (size_t i = bpp; i < n; i++) {
            sub[i] = (uint8_t)(x[i] - x[i - bpp]);
            up[i] = (uint8_t)(x[i] - p[i]);
            avg[i] = (uint8_t)(x[i] - ((x[i - bpp] + p[i]) >> 1));
            pae[i] = (uint8_t)(x[i] - paeth(x[i - bpp], p[i], p[i - bpp]));
        }
    } else {
        for (size_t i = bpp; i < n; i++) {
            sub[i] = (uint8_t)(x[i] - x[i - bpp]);
            up[i] = x[i];
            avg[i] = (uint8_t)(x[i] - (x[i - bpp] >> 1));
            pae[i] = sub[i];   /* b = c = 0: the predictor is a */
        }
    }
    unsigned long s[5] = { 0, 0, 0, 0, 0 };
    for (size_t i0 = 0; i0 < n; i0 += (size_t)1 << 24) {
        const size_t i1 = n - i0 < ((size_t)1 << 24) ? n : i0 + ((size_t)1 << 24);
        uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0;
        for (size_t i = i0; i < i1; i++) {
            s0 += sabs(x[i]);
            s1 += sabs(sub[i]);
            s2 += sabs(up[i]);
            s3 += sabs(avg[i]);
            s4 += sabs(pae[i]);
        }
        s[0] += s0;
        s[1] += s1;
        s[2] += s2;
        s[3] += s3;
        s[4] += s4;
    }
    int best = 0;
    for (int f = 1; f < 5; f++)
        if (s[f] < s[best])
            best = f;
    out[0] = (uint8_t)best;
    memcpy(out + 1, best ? cand + (size_t)(best - 1) * n : x, n);
}

/* The row's bytes as PNG stores them: 16-bit samples big-endian. */
static const uint8_t *png_row(const struct image *im, int y, uint8_t *swap, size_t n)
{
    const uint8_t *r = im->data + (size_t)y * im->stride;
    if (im->depth == 8)
        return r;
    const uint16_t one = 1;
    if (*(const uint8_t *)&one == 0)
        return r;   /* big-endian host */
    for (size_t i = 0; i < n; i += 2) {
        swap[i] = r[i + 1];
        swap[i + 1] = r[i];
    }
    return swap;
}

struct strip {
    int y0, y1;
    uint8_t *z;        /* compressed bytes */
    size_t zlen;
    size_t raw;        /* the filtered bytes they hold */
    uLong adler;       /* of those */
    int status;
};

/* Filter rows y0..y1 of im into f (1 + n bytes a row). */
static int filter_strip(const struct image *im, int y0, int y1, uint8_t *f, size_t n, size_t bpp)
{
    uint8_t *buf = malloc(6 * n + 2);
    if (!buf)
        return GPUIMG_ENOMEM;
    uint8_t *cand = buf, *sw[2] = { buf + 4 * n, buf + 5 * n };
    const uint8_t *prev = y0 > 0 ? png_row(im, y0 - 1, sw[(y0 - 1) & 1], n) : NULL;   /* never row y0's buffer */
    for (int y = y0; y < y1; y++) {
        const uint8_t *x = png_row(im, y, sw[y & 1], n);
        filter_row(f + (size_t)(y - y0) * (n + 1), x, prev, n, bpp, cand);
        prev = x;
    }
    free(buf);
    return GPUIMG_OK;
}

static int zlib_only;

void pngenc_use_zlib(int on) { zlib_only = on; }

/* libdeflate, unless pngenc_use_zlib(1) */
static int use_libdeflate(void)
{
#ifdef HAVE_LIBDEFLATE
    return !zlib_only;
#else
    return 0;
#endif
}

static uLong adler_of(const uint8_t *p, size_t len)
{
#ifdef HAVE_LIBDEFLATE
    if (use_libdeflate())   /* its Adler-32 is vectorised; zlib 1.2's is not */
        return libdeflate_adler32(1, p, len);
#endif
    uLong a = adler32(0L, Z_NULL, 0);
    for (size_t off = 0; off < len;) {   /* zlib counts in uInt: at most 1 GiB a call */
        const size_t step = len - off < (1u << 30) ? len - off : (1u << 30);
        a = adler32(a, p + off, (uInt)step);
        off += step;
    }
    return a;
}

/* Deflate in[0..len) (dictionary: the dict bytes before in) into s->z, ending with a sync flush
 * (byte-aligned, not final) or, for the last strip, the final block. */
static int deflate_strip(struct strip *s, const uint8_t *in, size_t len, size_t dict, int level, int last)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_FILTERED) != Z_OK)
        return GPUIMG_ENOMEM;
    int st = GPUIMG_OK;
    if (dict && deflateSetDictionary(&z, in - dict, (uInt)dict) != Z_OK)
        st = GPUIMG_EINTERNAL;
    size_t cap = deflateBound(&z, len) + 4096, done = 0;
    if (!st && !(s->z = malloc(cap)))
        st = GPUIMG_ENOMEM;
    while (!st) {
        if (z.avail_in == 0 && done < len) {
            const size_t step = len - done < (1u << 30) ? len - done : (1u << 30);
            z.next_in = (Bytef *)(in + done);
            z.avail_in = (uInt)step;
            done += step;
        }
        const int flush = done < len || z.avail_in ? Z_NO_FLUSH : last ? Z_FINISH : Z_SYNC_FLUSH;
        if (cap - s->zlen < 4096) {
            uint8_t *nz = realloc(s->z, cap * 2);
            if (!nz) {
                st = GPUIMG_ENOMEM;
                break;
            }
            s->z = nz;
            cap *= 2;
        }
        const size_t room = cap - s->zlen < (1u << 30) ? cap - s->zlen : (1u << 30);
        z.next_out = s->z + s->zlen;
        z.avail_out = (uInt)room;
        const int rc = deflate(&z, flush);
        s->zlen += room - z.avail_out;
        if (rc == Z_STREAM_ERROR)
            st = GPUIMG_EINTERNAL;
        else if ((flush == Z_FINISH && rc == Z_STREAM_END) || (flush == Z_SYNC_FLUSH && z.avail_out > 0))
            break;   /* a sync flush is complete when it left output room unused */
    }
    deflateEnd(&z);
    s->adler = adler_of(in, len);
    s->raw = len;
    return st;
}

/* Walk s->z, a raw deflate stream ending in a final block, through zlib's inflate, which with
 * Z_BLOCK returns after every block's end-of-block code and so tells where the next block's
 * header starts (the output is thrown away; inflate keeps its own window). Not last: make it
 * continue by clearing that final block's BFINAL bit and ending on a byte boundary with an empty
 * stored block (3 zero bits, padding, 00 00 FF FF; up to 6 bytes more). count: set s->raw and
 * s->adler from what it inflates to. */
static int walk_blocks(struct strip *s, int last, int count)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -15) != Z_OK)
        return GPUIMG_ENOMEM;
    uint8_t scratch[1 << 16];
    size_t header = 0, end = 0;   /* bit positions: the last block's header, the final block's end */
    uLong adler = adler32(0L, Z_NULL, 0);
    int st = GPUIMG_EINTERNAL, rc;
    z.next_in = s->z;
    z.avail_in = (uInt)s->zlen;   /* a strip or chunk is far below 4 GiB (STRIP_MAX_BYTES) */
    do {
        z.next_out = scratch;
        z.avail_out = sizeof scratch;
        rc = inflate(&z, Z_BLOCK);
        if (count)
            adler = adler32(adler, scratch, (uInt)(sizeof scratch - z.avail_out));
        const size_t bit = (size_t)(z.next_in - s->z) * 8 - (size_t)(z.data_type & 7);
        if ((z.data_type & 128) && (z.data_type & 64))   /* the final block's end-of-block code */
            end = bit;
        else if (z.data_type & 128)   /* another block's: a header follows */
            header = bit;
    } while (rc == Z_OK);
    if (count) {
        s->raw = z.total_out;
        s->adler = adler;
    }
    inflateEnd(&z);
    if (rc == Z_STREAM_END && last && end > 0) {
        s->zlen = (end + 7) / 8;   /* nothing after the final block */
        st = GPUIMG_OK;
    } else if (!last && rc == Z_STREAM_END && end > header && (s->z[header / 8] >> (header % 8) & 1)) {
        s->z[header / 8] &= (uint8_t)~(1u << (header % 8));
        s->zlen = (end + 7) / 8;
        if (end % 8)   /* the bits after the end must read as the stored block's zero header */
            s->z[s->zlen - 1] &= (uint8_t)((1u << (end % 8)) - 1);
        if (end % 8 == 0 || end % 8 > 5)   /* no room for 3 header bits in the last byte */
            s->z[s->zlen++] = 0;
        static const uint8_t stored[4] = { 0, 0, 0xff, 0xff };
        memcpy(s->z + s->zlen, stored, 4);
        s->zlen += 4;
        st = GPUIMG_OK;
    }
    return st;
}

#ifdef HAVE_LIBDEFLATE
/* in[0..len) as raw deflate by libdeflate (c, made for level); not the last strip: made to
 * continue (walk_blocks). */
static int deflate_libdeflate(struct strip *s, const uint8_t *in, size_t len, struct libdeflate_compressor *c, int last)
{
    const size_t cap = libdeflate_deflate_compress_bound(c, len) + 6;   /* + walk_blocks' bytes */
    int st = (s->z = malloc(cap)) ? GPUIMG_OK : GPUIMG_ENOMEM;
    if (!st && !(s->zlen = libdeflate_deflate_compress(c, in, len, s->z, cap)))
        st = GPUIMG_EINTERNAL;
    if (!st && !last)
        st = walk_blocks(s, 0, 0);
    s->adler = adler_of(in, len);
    s->raw = len;
    return st;
}
#endif


struct png_err { jmp_buf jb; char msg[200]; };

static void on_error(png_structp png, png_const_charp msg)
{
    struct png_err *e = png_get_error_ptr(png);
    snprintf(e->msg, sizeof e->msg, "%s", msg);
    longjmp(e->jb, 1);
}
static void on_warning(png_structp png, png_const_charp msg) { (void)png; (void)msg; }

/* A text chunk, keyword key, of n bytes (up to a 0 among them): iTXt (UTF-8) for XMP and for a
 * text that is not ASCII, tEXt otherwise; libpng copies it. */
static void set_text(png_structp png, png_infop info, const char *key, const uint8_t *p, size_t n)
{
    char *t = malloc(n + 1);
    if (!t)
        return;
    memcpy(t, p, n);
    t[n] = 0;
    int ascii = strcmp(key, "Comment") == 0;
    for (size_t i = 0; ascii && i < n; i++)
        ascii = p[i] < 0x80;
    png_text text = { .compression = ascii ? PNG_TEXT_COMPRESSION_NONE : PNG_ITXT_COMPRESSION_NONE,
                      .key = (png_charp)key, .text = t, .text_length = strlen(t) };
    png_set_text(png, info, &text, 1);
    free(t);
}

/* The metadata kept (meta.h): a profile that fits the channels (libpng checks it further and
 * leaves out one it finds wrong, with a warning, not an error), EXIF, XMP, the comment, the
 * density per metre (IPTC has no place in PNG). */
static void set_meta(png_structp png, png_infop info, const struct geom *g, const struct io_meta *m)
{
    png_set_benign_errors(png, 1);
    if (meta_icc_fits(m, g->c))
        png_set_iCCP(png, info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, m->icc, (png_uint_32)m->icc_len);
#ifdef PNG_eXIf_SUPPORTED
    if (m->exif && m->exif_len <= UINT32_MAX)
        png_set_eXIf_1(png, info, (png_uint_32)m->exif_len, m->exif);
#endif
    if (m->xmp)
        set_text(png, info, "XML:com.adobe.xmp", m->xmp, m->xmp_len);
    if (m->comment)
        set_text(png, info, "Comment", m->comment, m->comment_len);
    if (m->density)
        png_set_pHYs(png, info, (png_uint_32)lround(m->xres / 0.0254), (png_uint_32)lround(m->yres / 0.0254),
                     PNG_RESOLUTION_METER);
}

/* Write the container with libpng around the zlib stream made of header + strips + adler. */
static int write_container(FILE *fp, const char *name, const struct geom *im, const uint8_t zhead[2],
                           const struct strip *s, int ns, const uint8_t ztail[4], const struct io_meta *m)
{
    static const int ctype[5] = { 0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                  PNG_COLOR_TYPE_RGB_ALPHA };
    struct png_err err = { .msg = "" };
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &err, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return gpuimg_fail(GPUIMG_ENOMEM, "%s: cannot start the PNG encoder", name);
    }
    /* volatile: set after setjmp, read after libpng's longjmp (otherwise a failed write leaks it) */
    uint8_t *volatile chunk = NULL;
    if (setjmp(err.jb)) {
        int e = errno;
        free(chunk);
        png_destroy_write_struct(&png, &info);
        if (ferror(fp))
            return gpuimg_write_error(name, e);
        return gpuimg_fail(GPUIMG_EENCODE, "%s: PNG encoder: %s", name, err.msg);
    }
    png_init_io(png, fp);
    png_set_IHDR(png, info, (png_uint_32)im->w, (png_uint_32)im->h, im->depth, ctype[im->c], PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (m)
        set_meta(png, info, im, m);
    png_write_info(png, info);
    /* IDAT chunks of up to 1 MiB, filled across the pieces */
    chunk = malloc(IDAT_MAX);
    if (!chunk)
        png_error(png, "out of memory");
    size_t fill = 0;
    for (int k = -1; k <= ns; k++) {
        const uint8_t *p = k < 0 ? zhead : k == ns ? ztail : s[k].z;
        size_t len = k < 0 ? 2 : k == ns ? 4 : s[k].zlen;
        while (len) {
            size_t take = IDAT_MAX - fill < len ? IDAT_MAX - fill : len;
            memcpy(chunk + fill, p, take);
            fill += take;
            p += take;
            len -= take;
            if (fill == IDAT_MAX || (k == ns && len == 0)) {
                png_write_chunk(png, (png_const_bytep) "IDAT", chunk, fill);
                fill = 0;
            }
        }
    }
    png_write_chunk(png, (png_const_bytep) "IEND", NULL, 0);
    free(chunk);
    chunk = NULL;
    png_destroy_write_struct(&png, &info);
    return GPUIMG_OK;
}

/* Strips for an image of total filtered bytes: a few a thread evens out their costs; none
 * smaller than STRIP_MIN_BYTES, where a strip's fixed cost shows, or larger than STRIP_MAX_BYTES
 * (zlib counts in 32 bits). */
static int strip_count(const struct geom *g, int threads)
{
    const size_t total = (geom_bpp(g) * (size_t)g->w + 1) * (size_t)g->h;
    size_t ns = threads >= 2 ? 8 * (size_t)threads : 1;
    if (ns > total / STRIP_MIN_BYTES)
        ns = total / STRIP_MIN_BYTES;
    if (ns < total / STRIP_MAX_BYTES + 1)
        ns = total / STRIP_MAX_BYTES + 1;
    if (ns > (size_t)g->h)
        ns = (size_t)g->h;
    return ns < 1 ? 1 : (int)ns;
}

const char *pngenc_name(const struct geom *g, int threads)
{
    const int one = strip_count(g, threads) == 1;
    return use_libdeflate() ? one ? "libdeflate" : "libdeflate, strips joined" : one ? "zlib" : "zlib, strips joined";
}

/* The zlib header for level, the strips and the Adler-32 of the whole, in libpng's container. */
static int write_stream(FILE *fp, const char *name, const struct geom *g, int level, const struct strip *s, int ns,
                        uLong adler, const struct io_meta *m)
{
    const int flevel = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3;
    uint8_t zhead[2] = { 0x78, (uint8_t)(flevel << 6) };
    zhead[1] += (uint8_t)((31 - (zhead[0] * 256 + zhead[1]) % 31) % 31);
    const uint8_t ztail[4] = { (uint8_t)(adler >> 24), (uint8_t)(adler >> 16), (uint8_t)(adler >> 8), (uint8_t)adler };
    return write_container(fp, name, g, zhead, s, ns, ztail, m);
}

/* What a thread needs for a strip, kept for the next: the filtered rows' buffer and libdeflate's
 * compressor (its tables are large: made afresh for each strip, their fresh pages cost time). */
struct scratch {
    uint8_t *buf;
    size_t cap;
#ifdef HAVE_LIBDEFLATE
    struct libdeflate_compressor *c;
#endif
    struct scratch *next;
};

struct pngenc {
    struct geom g;
    size_t n, bpp, rowf;
    int level, libdeflate, ns;
    const struct io_meta *meta;   /* the caller's, until pngenc_end */
    struct strip *s;
    pthread_mutex_t mu;
    struct scratch *spare;        /* scratch no thread holds */
};

static struct scratch *scratch_take(struct pngenc *e)
{
    pthread_mutex_lock(&e->mu);
    struct scratch *sc = e->spare;
    if (sc)
        e->spare = sc->next;
    pthread_mutex_unlock(&e->mu);
    return sc ? sc : calloc(1, sizeof *sc);
}

static void scratch_give(struct pngenc *e, struct scratch *sc)
{
    pthread_mutex_lock(&e->mu);
    sc->next = e->spare;
    e->spare = sc;
    pthread_mutex_unlock(&e->mu);
}

int pngenc_begin(struct pngenc **out, const char *name, const struct geom *g, int level, int threads,
                 const struct io_meta *meta)
{
    struct pngenc *e = calloc(1, sizeof *e);
    const int ns = strip_count(g, threads);
    if (e)
        e->s = calloc((size_t)ns, sizeof *e->s);
    if (!e || !e->s) {
        free(e);
        return gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory for the PNG encoder", name);
    }
    pthread_mutex_init(&e->mu, NULL);
    e->g = *g;
    e->bpp = geom_bpp(g);
    e->n = (size_t)g->w * e->bpp;
    e->rowf = e->n + 1;
    e->level = level;
    e->meta = meta;
    e->libdeflate = use_libdeflate();
    e->ns = ns;
    for (int k = 0; k < ns; k++) {
        e->s[k].y0 = (int)((long long)g->h * k / ns);
        e->s[k].y1 = (int)((long long)g->h * (k + 1) / ns);
        e->s[k].status = -1;   /* not encoded yet */
    }
    *out = e;
    return GPUIMG_OK;
}

int pngenc_strips(const struct pngenc *e) { return e->ns; }

void pngenc_strip_rows(const struct pngenc *e, int k, int *y0, int *y1)
{
    *y0 = e->s[k].y0;
    *y1 = e->s[k].y1;
}

/* Strip k on its own: its rows filtered into a thread's scratch buffer and deflated. zlib's dictionary
 * is the filtered end of the strip before, filtered again here from the rows above (at most
 * 32 KiB), so that strips need not wait for one another. */
int pngenc_strip(struct pngenc *e, const struct image *im, int k)
{
    struct strip *s = &e->s[k];
    const size_t rows_dict = e->libdeflate ? 0 : (DICT_BYTES + e->rowf - 1) / e->rowf;
    const int ya = (size_t)s->y0 > rows_dict ? s->y0 - (int)rows_dict : 0;
    const size_t pre = (size_t)(s->y0 - ya) * e->rowf, len = (size_t)(s->y1 - s->y0) * e->rowf;
    const size_t dict = pre < DICT_BYTES ? pre : DICT_BYTES;
    struct scratch *sc = scratch_take(e);
    int st = sc ? GPUIMG_OK : GPUIMG_ENOMEM;
    if (!st && sc->cap < pre + len) {
        uint8_t *nb = realloc(sc->buf, pre + len);
        if (nb) {
            sc->buf = nb;
            sc->cap = pre + len;
        } else
            st = GPUIMG_ENOMEM;
    }
    if (!st)
        st = filter_strip(im, ya, s->y1, sc->buf, e->n, e->bpp);
    const int last = k == e->ns - 1;
#ifdef HAVE_LIBDEFLATE
    if (!st && e->libdeflate) {
        if (!sc->c && !(sc->c = libdeflate_alloc_compressor(e->level)))
            st = GPUIMG_ENOMEM;
        if (!st)
            st = deflate_libdeflate(s, sc->buf + pre, len, sc->c, last);
    } else
#endif
    if (!st)
        st = deflate_strip(s, sc->buf + pre, len, dict, e->level, last);
    if (sc)
        scratch_give(e, sc);
    s->status = st;
    return st;
}

int pngenc_end(struct pngenc *e, FILE *fp, const char *name)
{
    int st = GPUIMG_OK;
    uLong adler = adler32(0L, Z_NULL, 0);
    for (int k = 0; k < e->ns && !st; k++) {
        const struct strip *s = &e->s[k];
        if (s->status)
            st = gpuimg_fail(s->status < 0 ? GPUIMG_EINTERNAL : s->status, "%s: PNG encoder: %s", name,
                             s->status < 0                  ? "a strip was not encoded"
                             : s->status == GPUIMG_ENOMEM ? "out of memory"
                             : e->libdeflate              ? "libdeflate failed"
                                                          : "zlib failed");
        else
            adler = adler32_combine(adler, s->adler, (z_off_t)s->raw);
    }
    return st ? st : write_stream(fp, name, &e->g, e->level, e->s, e->ns, adler, e->meta);
}

void pngenc_free(struct pngenc *e)
{
    if (!e)
        return;
    for (struct scratch *sc = e->spare, *next; sc; sc = next) {
        next = sc->next;
        free(sc->buf);
#ifdef HAVE_LIBDEFLATE
        libdeflate_free_compressor(sc->c);
#endif
        free(sc);
    }
    pthread_mutex_destroy(&e->mu);
    for (int k = 0; k < e->ns; k++)
        free(e->s[k].z);
    free(e->s);
    free(e);
}

int pngenc_write(FILE *fp, const char *name, const struct image *im, int level, int threads, const struct io_meta *meta)
{
    const struct geom g = image_geom(im);
    struct pngenc *e;
    int st = pngenc_begin(&e, name, &g, level, threads, meta);
    if (st)
        return st;
    const int nthreads = threads < 1 ? 1 : threads > e->ns ? e->ns : threads;
    (void)nthreads;   /* unused without OpenMP */
    #pragma omp parallel for num_threads(nthreads) schedule(dynamic, 1)
    for (int k = 0; k < e->ns; k++)
        pngenc_strip(e, im, k);
    st = pngenc_end(e, fp, name);
    pngenc_free(e);
    return st;
}

/* A chunk handed back with its filtered bytes, deflated here as a last strip is (a final block),
 * with the room walk_blocks needs after it; c: the calling thread's libdeflate compressor, made
 * on first use. */
static int redeflate(struct strip *s, const uint8_t *in, size_t len, int level, void **c)
{
    int st;
#ifdef HAVE_LIBDEFLATE
    if (use_libdeflate()) {
        if (!*c && !(*c = libdeflate_alloc_compressor(level)))
            return GPUIMG_ENOMEM;
        st = deflate_libdeflate(s, in, len, *c, 1);
    } else
#endif
        st = deflate_strip(s, in, len, 0, level, 1);
    uint8_t *z = st ? NULL : realloc(s->z, s->zlen + 6);
    if (z)
        s->z = z;
    return st ? st : z ? GPUIMG_OK : GPUIMG_ENOMEM;
}

static void free_compressor(void *c)
{
#ifdef HAVE_LIBDEFLATE
    if (c)
        libdeflate_free_compressor(c);
#else
    (void)c;
#endif
}

int pngenc_write_chunks(FILE *fp, const char *name, const struct geom *g, int level, uint8_t *const *chunks,
                        const size_t *lens, const uint8_t *const *raw, const size_t *raw_lens, int n, int threads,
                        const struct io_meta *meta)
{
    struct strip *s = n > 0 ? calloc((size_t)n, sizeof *s) : NULL;
    uint8_t **own = n > 0 ? calloc((size_t)n, sizeof *own) : NULL;
    const int nthreads = threads < 1 ? 1 : threads > n ? n : threads;
    void **comp = calloc((size_t)nthreads, sizeof *comp);
    if (!s || !own || !comp) {
        free(s);
        free(own);
        free(comp);
        return gpuimg_fail(n > 0 ? GPUIMG_ENOMEM : GPUIMG_EINTERNAL, "%s: PNG encoder: %s", name,
                           n > 0 ? "out of memory" : "no deflate chunks");
    }
    for (int k = 0; k < n; k++) {
        s[k].z = chunks[k];
        s[k].zlen = lens[k];
    }
    #pragma omp parallel for num_threads(nthreads) schedule(dynamic, 1)
    for (int k = 0; k < n; k++) {
        if (raw && raw[k]) {   /* deflated here too; the smaller kept */
#ifdef _OPENMP
            void **c = &comp[omp_get_thread_num()];
#else
            void **c = &comp[0];
#endif
            struct strip t = { 0 };
            if (!redeflate(&t, raw[k], raw_lens[k], level, c) && t.zlen < lens[k]) {
                own[k] = t.z;
                s[k] = t;
            } else
                free(t.z);
        }
        /* a chunk made here knows its Adler-32; one made elsewhere is counted as it is walked */
        s[k].status = s[k].zlen > UINT32_MAX ? GPUIMG_EINTERNAL : walk_blocks(&s[k], k == n - 1, !own[k]);
    }
    int st = GPUIMG_OK;
    size_t total = 0;
    uLong adler = adler32(0L, Z_NULL, 0);
    for (int k = 0; k < n && !st; k++) {
        if (s[k].status)
            st = gpuimg_fail(s[k].status, "%s: PNG encoder: deflate chunk %d of %d %s", name, k + 1, n,
                             s[k].status == GPUIMG_ENOMEM ? "cannot be read: out of memory" : "does not inflate to its end");
        adler = adler32_combine(adler, s[k].adler, (z_off_t)s[k].raw);
        total += s[k].raw;
    }
    const size_t want = (geom_bpp(g) * (size_t)g->w + 1) * (size_t)g->h;
    if (!st && total != want)
        st = gpuimg_fail(GPUIMG_EINTERNAL, "%s: PNG encoder: the deflate chunks hold %zu bytes, the filtered rows %zu", name,
                         total, want);
    if (!st)
        st = write_stream(fp, name, g, level, s, n, adler, meta);
    for (int k = 0; k < n; k++)
        free(own[k]);
    for (int t = 0; t < nthreads; t++)
        free_compressor(comp[t]);
    free(own);
    free(comp);
    free(s);
    return st;
}
