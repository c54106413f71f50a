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
 *   (IN: a PNG of at most 4 MiB whose image data inflates to at most 16 MiB; CRCs right) */
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

/* The whole of a file (at most 4 MiB), or NULL. */
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
    fprintf(stderr, "usage: mkbad header W H OUT | mkbad badcrc|badzlib|emptyidat|ihdrlen IN OUT | "
                    "mkbad jpegsize W H IN OUT | mkbad badadler|shortdata|badfilter|extradata IN OUT\n");
    return 2;
}
