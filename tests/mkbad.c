/* gpuimg tests: craft damaged PNG files for the bad-input tests.
 *   mkbad header W H OUT      a valid signature, IHDR claiming WxH (0 allowed), tiny IDAT, IEND,
 *                             all CRCs right: a decompression bomb or a zero-sized image
 *   mkbad badcrc IN OUT       IN with one byte of its first IDAT's data changed (CRC now wrong)
 *   mkbad badzlib IN OUT      IN's first IDAT with its first deflate block's type made the
 *                             reserved 3 (CRC right): only the zlib stream is bad
 *   mkbad emptyidat IN OUT    IN with an empty IDAT chunk before its first (legal)
 *   mkbad ihdrlen IN OUT      IN with its IHDR chunk one byte short (CRC right)
 *   mkbad jpegsize W H IN OUT a JPEG IN whose frame header (SOF0/SOF2) claims WxH
 *   mkbad badadler IN OUT     IN's image data in one IDAT whose zlib stream's Adler-32 is wrong
 *   mkbad shortdata IN OUT    ... recompressed without its last row (a valid, short stream)
 *   mkbad badfilter IN OUT    ... with row 1's filter type 7 (0 to 4 exist)
 *   mkbad extradata IN OUT    ... with 100 zero bytes after the last row
 *   (IN: a PNG of at most 4 MiB whose image data inflates to at most 16 MiB; CRCs right)
 *   mkbad tiff KIND W H OUT   a little-endian RGBA TIFF of WxH whose strips do not hold its
 *                             pixels: shared (Deflate, 8 bits, 16 rows a strip, every strip the
 *                             same deflated zero rows), rawshared (uncompressed, 16 bits, a row a
 *                             strip, every strip the same bytes), past (uncompressed, 16 bits,
 *                             one strip past the end of the file: a header alone), thin (Deflate,
 *                             8 bits, 16 rows a strip, the strips apart but 8 bytes each)
 *   mkbad progressive W H N OUT  a valid grey progressive JPEG of WxH (all 128) in N scans (1 to
 *                             883): the DC, then each of the 63 AC coefficients in a scan of its
 *                             own from bit 13 and 13 refinements down to bit 0, every scan EOB runs
 *   mkbad flat png|hdr|gif W H C OUT  one flat colour (C channels: PNG's; RGB for HDR, a
 *                             palette for GIF) compressed as far as the format goes, a valid file */
#include <config.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void put32(FILE *f, uint32_t v)
{
    unsigned char b[4] = { (unsigned char)(v >> 24), (unsigned char)(v >> 16), (unsigned char)(v >> 8), (unsigned char)v };
    fwrite(b, 1, 4, f);
}

static void chunk(FILE *f, const char *type, const unsigned char *data, uint32_t len)
{
    put32(f, len);
    fwrite(type, 1, 4, f);
    if (len)
        fwrite(data, 1, len, f);
    uLong crc = crc32(crc32(0L, Z_NULL, 0), (const Bytef *)type, 4);
    if (len) /* crc32(crc, NULL, 0) would return the initial value, not crc */
        crc = crc32(crc, data, len);
    put32(f, (uint32_t)crc);
}

/* A TIFF entry: tag, type (3 SHORT, 4 LONG), count, the value or the offset of the values */
static void tiff_entry(unsigned char *p, unsigned tag, unsigned type, uint32_t count, uint32_t v)
{
    const unsigned char e[12] = { (unsigned char)tag, (unsigned char)(tag >> 8), (unsigned char)type, 0,
                                  (unsigned char)count, (unsigned char)(count >> 8), (unsigned char)(count >> 16),
                                  (unsigned char)(count >> 24), (unsigned char)v, (unsigned char)(v >> 8),
                                  (unsigned char)(v >> 16), (unsigned char)(v >> 24) };
    memcpy(p, e, 12);
}

static void le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> 8 * i);
}

/* mkbad tiff KIND W H OUT (see the top) */
static int bad_tiff(const char *kind, uint32_t w, uint32_t h, const char *out)
{
    const int deflate = !strcmp(kind, "shared") || !strcmp(kind, "thin"), depth = deflate ? 8 : 16;
    const uint32_t rows = deflate ? 16 : !strcmp(kind, "past") ? h : 1, n = (h + rows - 1) / rows;
    const size_t strip = (size_t)w * rows * 4 * (depth / 8);
    static unsigned char data[1 << 22];
    uLongf dn = sizeof data;
    if (deflate) {
        unsigned char *zero = calloc(1, strip);
        if (!zero || compress2(data, &dn, zero, (uLong)strip, 9) != Z_OK)
            return 1;
        free(zero);
        if (!strcmp(kind, "thin"))
            dn = 8;
    } else {
        dn = !strcmp(kind, "past") ? 0 : strip;
        if (dn > sizeof data)
            return 1;
        memset(data, 0, dn);
    }
    enum { NE = 10 };
    const size_t ifd = 8, arrays = ifd + 2 + NE * 12 + 4, bps_at = arrays, offs_at = bps_at + 8,
                 counts_at = offs_at + 4 * (size_t)n, data_at = counts_at + 4 * (size_t)n;
    const int thin = !strcmp(kind, "thin");
    const size_t total = data_at + (thin ? (size_t)n * dn : dn);
    unsigned char *f = calloc(1, total + 4);
    if (!f)
        return 1;
    memcpy(f, "II*\0", 4);
    le32(f + 4, (uint32_t)ifd);
    f[ifd] = NE;
    unsigned char *e = f + ifd + 2;
    tiff_entry(e, 256, 4, 1, w);
    tiff_entry(e + 12, 257, 4, 1, h);
    tiff_entry(e + 24, 258, 3, 4, (uint32_t)bps_at);
    tiff_entry(e + 36, 259, 3, 1, deflate ? 8 : 1);
    tiff_entry(e + 48, 262, 3, 1, 2);
    tiff_entry(e + 60, 273, 4, n, n == 1 ? (uint32_t)data_at : (uint32_t)offs_at);
    tiff_entry(e + 72, 277, 3, 1, 4);
    tiff_entry(e + 84, 278, 4, 1, rows);
    tiff_entry(e + 96, 279, 4, n, n == 1 ? (uint32_t)strip : (uint32_t)counts_at);
    tiff_entry(e + 108, 338, 3, 1, 2);   /* extra sample: unassociated alpha */
    for (int k = 0; k < 4; k++)
        f[bps_at + 2 * k] = (unsigned char)depth;
    for (uint32_t i = 0; i < n; i++) {
        le32(f + offs_at + 4 * i, (uint32_t)(data_at + (thin ? i * dn : 0)));
        le32(f + counts_at + 4 * i, (uint32_t)dn);
    }
    for (uint32_t i = 0; i < (thin ? n : 1); i++)
        memcpy(f + data_at + i * dn, data, dn);
    FILE *o = fopen(out, "wb");
    const int bad = !o || fwrite(f, 1, total, o) != total || fclose(o) != 0;
    free(f);
    return bad;
}

/* Bits of a JPEG scan's entropy-coded data, 0xFF followed by a stuffed 0 */
struct bits { FILE *f; uint32_t acc; int n; };
static void put_bits(struct bits *b, uint32_t v, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        b->acc = b->acc << 1 | (v >> i & 1);
        if (++b->n == 8) {
            fputc((int)b->acc, b->f);
            if (b->acc == 0xFF)
                fputc(0, b->f);
            b->acc = 0;
            b->n = 0;
        }
    }
}
static void flush_bits(struct bits *b)
{
    while (b->n)
        put_bits(b, 1, 1);   /* padded with ones */
}

static void jpeg_segment(FILE *f, int marker, const unsigned char *p, size_t n)
{
    const unsigned char h[4] = { 0xFF, (unsigned char)marker, (unsigned char)((n + 2) >> 8), (unsigned char)(n + 2) };
    fwrite(h, 1, 4, f);
    fwrite(p, 1, n, f);
}

/* mkbad progressive W H N OUT (see the top) */
static int progressive(unsigned w, unsigned h, int scans, const char *out)
{
    FILE *f = fopen(out, "wb");
    if (!f || scans < 1 || scans > 1 + 63 * 14 || !w || !h || w > 65535 || h > 65535)
        return 1;
    fwrite("\xFF\xD8", 1, 2, f);
    unsigned char dqt[65] = { 0 };
    memset(dqt + 1, 1, 64);
    jpeg_segment(f, 0xDB, dqt, sizeof dqt);
    const unsigned char sof[9] = { 8, (unsigned char)(h >> 8), (unsigned char)h, (unsigned char)(w >> 8), (unsigned char)w,
                                   1, 1, 0x11, 0 };
    jpeg_segment(f, 0xC2, sof, sizeof sof);
    /* DC table 0: difference category 0 as the code 0; AC table 0: EOB0 to EOB14 as 4-bit codes */
    unsigned char dht[1 + 16 + 1 + 1 + 16 + 15] = { 0x00, 1 };
    unsigned char *ac = dht + 18;
    ac[0] = 0x10;
    ac[4] = 15;
    for (int i = 0; i < 15; i++)
        ac[17 + i] = (unsigned char)(i << 4);
    jpeg_segment(f, 0xC4, dht, sizeof dht);
    const uint64_t blocks = (uint64_t)((w + 7) / 8) * ((h + 7) / 8);
    for (int s = 0; s < scans; s++) {
        const int band = s ? 1 + (s - 1) / 14 : 0, step = s ? (s - 1) % 14 : 0;   /* step 0: bit 13 first */
        const int ah = step ? 14 - step : 0, al = s ? 13 - step : 0;
        const unsigned char sos[6] = { 1, 1, 0x00, (unsigned char)band, (unsigned char)band, (unsigned char)(ah << 4 | al) };
        jpeg_segment(f, 0xDA, sos, sizeof sos);
        struct bits b = { f, 0, 0 };
        if (!s)
            for (uint64_t i = 0; i < blocks; i++)
                put_bits(&b, 0, 1);
        else
            for (uint64_t left = blocks; left;) {   /* EOBn: 2^n + the n bits after it blocks */
                const uint64_t run = left < 32767 ? left : 32767;
                int n = 0;
                while (run >> (n + 1))
                    n++;
                put_bits(&b, (uint32_t)n, 4);
                put_bits(&b, (uint32_t)(run - ((uint64_t)1 << n)), n);
                left -= run;
            }
        flush_bits(&b);
    }
    fwrite("\xFF\xD9", 1, 2, f);
    return fclose(f) != 0;
}

/* The whole of a file (at most 4 MiB), or NULL. */
/* mkbad flat png|hdr|gif W H C OUT: one flat colour compressed as far as the format goes */
static int flat_png(unsigned w, unsigned h, unsigned c, FILE *f)
{
    static const unsigned char type[5] = { 0, 0, 4, 2, 6 };
    unsigned char ihdr[13] = { (unsigned char)(w >> 24), (unsigned char)(w >> 16), (unsigned char)(w >> 8),
                               (unsigned char)w, (unsigned char)(h >> 24), (unsigned char)(h >> 16),
                               (unsigned char)(h >> 8), (unsigned char)h, 8, type[c], 0, 0, 0 };
    fwrite("\x89PNG\r\n\x1a\n", 1, 8, f);
    chunk(f, "IHDR", ihdr, 13);
    const size_t row = (size_t)w * c + 1;
    unsigned char *in = calloc(row, 1), out[65536];
    z_stream z = { 0 };
    if (!in || deflateInit(&z, 9) != Z_OK)
        return 1;
    for (unsigned y = 0; y <= h; y++) {
        z.next_in = in;
        z.avail_in = y < h ? (uInt)row : 0;
        do {
            z.next_out = out;
            z.avail_out = sizeof out;
            deflate(&z, y < h ? Z_NO_FLUSH : Z_FINISH);
            if (sizeof out - z.avail_out)
                chunk(f, "IDAT", out, (uint32_t)(sizeof out - z.avail_out));
        } while (z.avail_out == 0);
    }
    deflateEnd(&z);
    free(in);
    chunk(f, "IEND", NULL, 0);
    return 0;
}

/* Radiance RGBE in run-length scanlines: runs of 127 of each component, two bytes a run */
static int flat_hdr(unsigned w, unsigned h, FILE *f)
{
    fprintf(f, "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y %u +X %u\n", h, w);
    for (unsigned y = 0; y < h; y++) {
        const unsigned char start[4] = { 2, 2, (unsigned char)(w >> 8), (unsigned char)w };
        fwrite(start, 1, 4, f);
        for (int k = 0; k < 4; k++)
            for (unsigned x = 0; x < w; x += 127) {
                const unsigned n = w - x < 127 ? w - x : 127;
                fputc((int)(128 + n), f);
                fputc(128, f);
            }
    }
    return 0;
}

/* GIF: one frame of colour 0 in LZW codes of 3 to 12 bits, a clear code when the table is full */
struct lzw { FILE *f; uint32_t acc; int n; unsigned char blk[255]; int len; };
static void lzw_put(struct lzw *b, unsigned code, int size)
{
    b->acc |= (uint32_t)code << b->n;
    for (b->n += size; b->n >= 8; b->n -= 8, b->acc >>= 8) {
        b->blk[b->len++] = (unsigned char)b->acc;
        if (b->len == 255) {
            fputc(255, b->f);
            fwrite(b->blk, 1, 255, b->f);
            b->len = 0;
        }
    }
}
static int flat_gif(unsigned w, unsigned h, FILE *f)
{
    const unsigned char head[13] = { 'G', 'I', 'F', '8', '9', 'a', (unsigned char)w, (unsigned char)(w >> 8),
                                     (unsigned char)h, (unsigned char)(h >> 8), 0x80, 0, 0 };
    const unsigned char pal[6] = { 0, 0, 0, 255, 255, 255 };
    const unsigned char desc[10] = { 0x2C, 0, 0, 0, 0, (unsigned char)w, (unsigned char)(w >> 8),
                                     (unsigned char)h, (unsigned char)(h >> 8), 0 };
    fwrite(head, 1, 13, f);
    fwrite(pal, 1, 6, f);
    fwrite(desc, 1, 10, f);
    fputc(2, f);   /* minimum code size: codes 0-3 colours, 4 clear, 5 end */
    static uint16_t next[4096];   /* the code of (code, colour 0), 0: none yet */
    struct lzw b = { .f = f };
    unsigned avail = 6, size = 3, cur = 0;
    lzw_put(&b, 4, size);
    for (unsigned long long i = 1, n = (unsigned long long)w * h; i < n; i++) {
        if (next[cur]) {
            cur = next[cur];
            continue;
        }
        lzw_put(&b, cur, size);
        if (avail == 4096) {
            lzw_put(&b, 4, size);
            memset(next, 0, sizeof next);
            avail = 6;
            size = 3;
        } else {
            next[cur] = (uint16_t)avail++;
            if (avail > (1u << size) && size < 12)
                size++;
        }
        cur = 0;
    }
    lzw_put(&b, cur, size);
    lzw_put(&b, 5, size);
    lzw_put(&b, 0, 7);   /* flush the last bits */
    if (b.len) {
        fputc(b.len, f);
        fwrite(b.blk, 1, (size_t)b.len, f);
    }
    fputc(0, f);
    fputc(0x3B, f);
    return 0;
}

static int flat(const char *kind, unsigned w, unsigned h, unsigned c, const char *out)
{
    FILE *f = fopen(out, "wb");
    if (!f || c < 1 || c > 4)
        return 1;
    const int bad = !strcmp(kind, "png") ? flat_png(w, h, c, f) : !strcmp(kind, "hdr") ? flat_hdr(w, h, f)
                  : !strcmp(kind, "gif") ? flat_gif(w, h, f) : 1;
    return fclose(f) != 0 || bad;
}

static unsigned char *slurp(const char *path, size_t *n)
{
    static unsigned char buf[1 << 22];
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    *n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "header")) {
        FILE *f = fopen(argv[4], "wb");
        if (!f)
            return 1;
        static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
        fwrite(sig, 1, 8, f);
        uint32_t w = (uint32_t)strtoul(argv[2], NULL, 10), h = (uint32_t)strtoul(argv[3], NULL, 10);
        unsigned char ihdr[13] = { (unsigned char)(w >> 24), (unsigned char)(w >> 16), (unsigned char)(w >> 8),
                                   (unsigned char)w, (unsigned char)(h >> 24), (unsigned char)(h >> 16),
                                   (unsigned char)(h >> 8), (unsigned char)h, 8, 0, 0, 0, 0 };
        chunk(f, "IHDR", ihdr, 13);
        unsigned char raw[64] = { 0 }, z[128];
        uLongf zl = sizeof z;
        compress(z, &zl, raw, sizeof raw);
        chunk(f, "IDAT", z, (uint32_t)zl);
        chunk(f, "IEND", NULL, 0);
        return fclose(f) != 0;
    }
    if (argc == 4 && !strcmp(argv[1], "badcrc")) {
        size_t n;
        unsigned char *buf = slurp(argv[2], &n);
        if (!buf)
            return 1;
        for (size_t p = 8; p + 12 <= n;) {
            uint32_t len = (uint32_t)buf[p] << 24 | buf[p + 1] << 16 | buf[p + 2] << 8 | buf[p + 3];
            if (!memcmp(buf + p + 4, "IDAT", 4) && len > 2) {
                buf[p + 8 + len / 2] ^= 0x55;
                FILE *o = fopen(argv[3], "wb");
                if (!o)
                    return 1;
                fwrite(buf, 1, n, o);
                return fclose(o) != 0;
            }
            p += 12 + (size_t)len;
        }
        return 1;
    }
    if (argc == 4 && (!strcmp(argv[1], "badzlib") || !strcmp(argv[1], "emptyidat") || !strcmp(argv[1], "ihdrlen"))) {
        size_t n;
        unsigned char *buf = slurp(argv[2], &n);
        if (!buf)
            return 1;
        FILE *o = fopen(argv[3], "wb");
        if (!o || n < 8)
            return 1;
        fwrite(buf, 1, 8, o);
        int first = 1;
        for (size_t p = 8; p + 12 <= n;) {
            uint32_t len = (uint32_t)buf[p] << 24 | buf[p + 1] << 16 | buf[p + 2] << 8 | buf[p + 3];
            char type[5] = { 0 };
            memcpy(type, buf + p + 4, 4);
            unsigned char *data = buf + p + 8;
            if (!strcmp(type, "IDAT") && first) {
                first = 0;
                if (!strcmp(argv[1], "emptyidat"))
                    chunk(o, "IDAT", NULL, 0);
                if (!strcmp(argv[1], "badzlib") && len > 2)
                    data[2] |= 0x06;   /* the first block's type: 3, reserved (any deflater's stream) */
            }
            chunk(o, type, data, !strcmp(type, "IHDR") && !strcmp(argv[1], "ihdrlen") ? len - 1 : len);
            p += 12 + (size_t)len;
        }
        return fclose(o) != 0;
    }
    if (argc == 4 && (!strcmp(argv[1], "badadler") || !strcmp(argv[1], "shortdata") || !strcmp(argv[1], "badfilter")
                      || !strcmp(argv[1], "extradata"))) {
        size_t n;
        unsigned char *buf = slurp(argv[2], &n);
        static unsigned char z[1 << 22], raw[(1 << 24) + 100];
        size_t zn = 0;
        if (!buf || n < 33)
            return 1;
        for (size_t p = 8; p + 12 <= n;) {   /* the IDAT data, joined */
            uint32_t len = (uint32_t)buf[p] << 24 | buf[p + 1] << 16 | buf[p + 2] << 8 | buf[p + 3];
            if (!memcmp(buf + p + 4, "IDAT", 4) && zn + len <= sizeof z) {
                memcpy(z + zn, buf + p + 8, len);
                zn += len;
            }
            p += 12 + (size_t)len;
        }
        uLongf rn = sizeof raw - 100;
        if (uncompress(raw, &rn, z, (uLong)zn) != Z_OK)
            return 1;
        const uint32_t h = (uint32_t)buf[20] << 24 | buf[21] << 16 | buf[22] << 8 | buf[23];
        if (!strcmp(argv[1], "shortdata"))
            rn -= rn / h;
        if (!strcmp(argv[1], "badfilter"))
            raw[rn / h] = 7;
        if (!strcmp(argv[1], "extradata")) {
            memset(raw + rn, 0, 100);
            rn += 100;
        }
        uLongf zl = sizeof z;
        if (compress(z, &zl, raw, rn) != Z_OK)
            return 1;
        if (!strcmp(argv[1], "badadler"))
            z[zl - 1] ^= 1;
        FILE *o = fopen(argv[3], "wb");
        if (!o)
            return 1;
        fwrite(buf, 1, 33, o);   /* signature and IHDR */
        chunk(o, "IDAT", z, (uint32_t)zl);
        chunk(o, "IEND", NULL, 0);
        return fclose(o) != 0;
    }
    if (argc == 6 && !strcmp(argv[1], "jpegsize")) {
        size_t n;
        unsigned char *buf = slurp(argv[4], &n);
        if (!buf)
            return 1;
        const unsigned w = (unsigned)strtoul(argv[2], NULL, 10), h = (unsigned)strtoul(argv[3], NULL, 10);
        for (size_t p = 2; p + 9 <= n; p++)
            if (buf[p] == 0xFF && (buf[p + 1] == 0xC0 || buf[p + 1] == 0xC2)) {
                buf[p + 5] = (unsigned char)(h >> 8);
                buf[p + 6] = (unsigned char)h;
                buf[p + 7] = (unsigned char)(w >> 8);
                buf[p + 8] = (unsigned char)w;
                FILE *o = fopen(argv[5], "wb");
                return !o || fwrite(buf, 1, n, o) != n || fclose(o) != 0;
            }
        return 1;
    }
    if (argc == 6 && !strcmp(argv[1], "progressive"))
        return progressive((unsigned)strtoul(argv[2], NULL, 10), (unsigned)strtoul(argv[3], NULL, 10), atoi(argv[4]),
                           argv[5]);
    if (argc == 7 && !strcmp(argv[1], "flat"))
        return flat(argv[2], (unsigned)strtoul(argv[3], NULL, 10), (unsigned)strtoul(argv[4], NULL, 10),
                    (unsigned)strtoul(argv[5], NULL, 10), argv[6]);
    if (argc == 6 && !strcmp(argv[1], "tiff"))
        return bad_tiff(argv[2], (uint32_t)strtoul(argv[3], NULL, 10), (uint32_t)strtoul(argv[4], NULL, 10), argv[5]);
    fprintf(stderr, "usage: mkbad header W H OUT | mkbad badcrc|badzlib|emptyidat|ihdrlen IN OUT | "
                    "mkbad jpegsize W H IN OUT | mkbad badadler|shortdata|badfilter|extradata IN OUT | "
                    "mkbad tiff shared|rawshared|past|thin W H OUT | mkbad progressive W H N OUT | "
                    "mkbad flat png|hdr|gif W H C OUT\n");
    return 2;
}
