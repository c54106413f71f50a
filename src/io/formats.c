/* gpuimg: PNG chunk and JPEG marker walks (see formats.h). They read only the container
 * structure; pixel decoding stays with stb_image. */
#include <config.h>
#include <string.h>
#include <zlib.h>
#include "core/error.h"
#include "io/formats.h"

static const uint8_t png_sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
static const uint8_t jxl_box[12] = { 0, 0, 0, 12, 'J', 'X', 'L', ' ', '\r', '\n', 0x87, '\n' };

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#define HEIF_BRANDS "heicheixhevchevxheimheismif1msf1"
#define AVIF_BRANDS "avifavis"

enum file_kind sniff_kind(const uint8_t *buf, size_t len)
{
    if (len >= 8 && memcmp(buf, png_sig, 8) == 0)
        return KIND_PNG;
    /* as stb_image finds the start of image: 0xFF, any fill bytes 0xFF, then 0xD8 */
    if (len >= 2 && buf[0] == 0xFF) {
        size_t i = 1;
        while (i < len && buf[i] == 0xFF)
            i++;
        if (i < len && buf[i] == 0xD8)
            return KIND_JPEG;
    }
    if (len >= 2 && buf[0] == 'P' && (buf[1] == '5' || buf[1] == '6'))
        return KIND_PNM;
    if (len >= 2 && buf[0] == 'B' && buf[1] == 'M')
        return KIND_BMP;
    if (len >= 4 && memcmp(buf, "GIF8", 4) == 0)
        return KIND_GIF;
    if (len >= 4 && memcmp(buf, "8BPS", 4) == 0)
        return KIND_PSD;
    if (len >= 2 && buf[0] == '#' && buf[1] == '?')
        return KIND_HDR;
    if (len >= 12 && !memcmp(buf, "RIFF", 4) && !memcmp(buf + 8, "WEBP", 4))
        return KIND_WEBP;
    if (len >= 4 && (!memcmp(buf, "II*\0", 4) || !memcmp(buf, "MM\0*", 4)))
        return KIND_TIFF;
    /* ISO media with a HEIF or AVIF brand: HEIC, AVIF and their image sequences */
    if (len >= 12 && !memcmp(buf + 4, "ftyp", 4))
        for (const char *b = HEIF_BRANDS AVIF_BRANDS; *b; b += 4)
            if (!memcmp(buf + 8, b, 4))
                return KIND_HEIF;
    /* JPEG XL: a bare codestream, or the ISO media container's signature box */
    if ((len >= 2 && buf[0] == 0xFF && buf[1] == 0x0A) || (len >= 12 && !memcmp(buf, jxl_box, 12)))
        return KIND_JXL;
    /* TGA has no signature: a header as stb_image's test takes it (colour map type 0 or 1,
     * image type 1-3 or 9-11, a colour-mapped type only with a map, 8 to 32 bits) */
    if (len >= 18 && buf[1] <= 1 && ((buf[2] >= 1 && buf[2] <= 3) || (buf[2] >= 9 && buf[2] <= 11))
        && (buf[1] == 1) == (buf[2] == 1 || buf[2] == 9) && (buf[12] | buf[13]) && (buf[14] | buf[15])
        && (buf[16] == 8 || buf[16] == 15 || buf[16] == 16 || buf[16] == 24 || buf[16] == 32))
        return KIND_TGA;
    return KIND_UNKNOWN;
}

/* The most pixels each byte of a file can stand for (its densest encoding): 1-bit BMP rows 8;
 * run-length TGA and PSD 128 pixels a 2-byte packet (a grey plane); HDR 127 a 2-byte run of each
 * of 4 planes; GIF's 12-bit LZW codes at most 4096 pixels each; PNM one sample a byte (stb_image
 * reads P5 and P6 only); JPEG at least one Huffman-coded bit for each 8x8 block's DC, 512 (stb_image
 * decodes no arithmetic coding). PNG: 0, its walk checks it (zlib makes ~1000 pixels a byte). WebP:
 * 0, libwebp checks its data against what the header says, and the pixel limit bounds what is
 * allocated. TIFF: 0, tiff.c checks its strips against the file and its compression. JPEG XL: 0,
 * a flat image codes in a few bytes whatever its size: --max-expansion bounds it, with the planes
 * libjxl decodes (jxl.h). */
const char *kind_name(enum file_kind k)
{
    static const char *const n[] = { "file", "PNG", "JPEG", "PNM", "BMP", "GIF", "PSD", "HDR", "TGA", "WebP", "TIFF", "HEIF",
                                     "JPEG XL" };
    return n[k];
}

/* sub-blocks from pos: a size byte and that many bytes, to a size 0; the position after it */
static size_t gif_skip_blocks(const uint8_t *buf, size_t len, size_t pos)
{
    while (pos < len && buf[pos])
        pos += 1 + (size_t)buf[pos];
    return pos + 1;
}

int gif_frames(const uint8_t *buf, size_t len)
{
    if (len < 13)
        return 1;
    size_t pos = 13 + (buf[10] & 0x80 ? 3u << ((buf[10] & 7) + 1) : 0);   /* the global colour table */
    int frames = 0;
    while (pos < len && buf[pos] != 0x3B) {
        if (buf[pos] == 0x21 && pos + 1 < len) {   /* an extension: its label, its sub-blocks */
            pos = gif_skip_blocks(buf, len, pos + 2);
        } else if (buf[pos] == 0x2C && pos + 10 <= len) {   /* an image: descriptor, local table, LZW size, data */
            frames++;
            pos += 10 + (buf[pos + 9] & 0x80 ? 3u << ((buf[pos + 9] & 7) + 1) : 0);
            pos = gif_skip_blocks(buf, len, pos + 1);
        } else {
            break;
        }
    }
    return frames ? frames : 1;
}

const char *format_name(enum file_kind k, const uint8_t *buf, size_t len)
{
    if (k == KIND_HEIF && len >= 12)
        for (const char *b = AVIF_BRANDS; *b; b += 4)
            if (!memcmp(buf + 8, b, 4))
                return "AVIF";
    return kind_name(k);
}

int kind_unbuilt(const char *name, enum file_kind k, const char *lib, const char *pkg)
{
    return gpuimg_fail(GPUIMG_EUNSUPPORTED, "%s: %s, and this gpuimg was built without %s (install %s, then configure "
                       "and build again)", name, kind_name(k), lib, pkg);
}

double kind_max_px_per_byte(enum file_kind k)
{
    switch (k) {
    case KIND_BMP: return 8;
    case KIND_TGA: case KIND_PSD: return 64;
    case KIND_HDR: return 16;
    case KIND_GIF: return 2731;
    case KIND_PNM: return 1;
    case KIND_JPEG: return 512;
    default: return 0;
    }
}

size_t png_drop_empty_idat(uint8_t *buf, size_t len)
{
    size_t pos = 8, out = 8;
    while (pos + 12 <= len) {
        const size_t n = (size_t)be32(buf + pos) + 12;
        if (n > len - pos)
            break;
        if (!(n == 12 && memcmp(buf + pos + 4, "IDAT", 4) == 0)) {
            memmove(buf + out, buf + pos, n);
            out += n;
        }
        pos += n;
    }
    memmove(buf + out, buf + pos, len - pos);
    return out + (len - pos);
}

static void chunk_name(char out[5], const uint8_t *p)
{
    for (int i = 0; i < 4; i++)
        out[i] = (p[i] >= 32 && p[i] < 127) ? (char)p[i] : '?';
    out[4] = 0;
}

int png_check(const char *name, const uint8_t *buf, size_t len, uint32_t *pw, uint32_t *ph, struct png_facts *f)
{
    size_t pos = 8;
    int nchunk = 0, ctype = 0;
    memset(f, 0, sizeof *f);
    for (;;) {
        if (len - pos < 8)
            return gpuimg_fail(GPUIMG_EDECODE, "%s: truncated PNG: file ends at byte %zu, before the IEND chunk",
                               name, len);
        uint32_t clen = be32(buf + pos);
        char cname[5];
        chunk_name(cname, buf + pos + 4);
        if (clen > 0x7fffffffu)
            return gpuimg_fail(GPUIMG_EDECODE, "%s: corrupt PNG: chunk '%s' at byte %zu claims %u bytes",
                               name, cname, pos, clen);
        if ((size_t)clen + 12 > len - pos)
            return gpuimg_fail(GPUIMG_EDECODE,
                               "%s: truncated PNG: chunk '%s' at byte %zu needs %u bytes, the file ends after %zu",
                               name, cname, pos, clen + 12, len - pos);
        uint32_t want = be32(buf + pos + 8 + clen);
        uint32_t got = (uint32_t)crc32(crc32(0L, Z_NULL, 0), buf + pos + 4, clen + 4);
        if (want != got)
            return gpuimg_fail(GPUIMG_EDECODE, "%s: corrupt PNG: bad CRC in chunk '%s' at byte %zu", name, cname, pos);
        if (nchunk == 0) {
            if (memcmp(cname, "IHDR", 4) != 0)
                return gpuimg_fail(GPUIMG_EDECODE, "%s: corrupt PNG: first chunk is '%s', not IHDR", name, cname);
            if (clen != 13)
                return gpuimg_fail(GPUIMG_EDECODE, "%s: corrupt PNG: IHDR chunk of %u bytes, not 13", name, clen);
            uint32_t w = be32(buf + pos + 8), h = be32(buf + pos + 12);
            if (w == 0 || h == 0)
                return gpuimg_fail(GPUIMG_EDECODE, "%s: invalid PNG: image has zero %s", name, w == 0 ? "width" : "height");
            *pw = w;
            *ph = h;
            ctype = buf[pos + 17];
        }
        if (!memcmp(cname, "IDAT", 4) && clen) {
            f->idat_bytes += clen;
            f->idat_chunks++;
        }
        if (!memcmp(cname, "tRNS", 4) && !f->idat_chunks && (ctype == 0 || ctype == 2 || ctype == 3))
            f->trns = 1;
        nchunk++;
        if (memcmp(cname, "IEND", 4) == 0) {
            static const int base[7] = { 1, 0, 3, 3, 2, 0, 4 };
            f->channels = (ctype <= 6 && base[ctype] ? base[ctype] : 1) + f->trns;
            return GPUIMG_OK;
        }
        pos += (size_t)clen + 12;
    }
}

/* A DHT segment's tables: stb_image writes a table's code lengths and symbols into arrays of
 * 257 and 256 entries without checking that the 16 counts sum to at most 256 (found by
 * tests/fuzz; tests/crashers/load/jpeg-dht-overflow.jpg). */
static int dht_check(const char *name, const uint8_t *p, size_t n, size_t at, unsigned defined[2])
{
    size_t i = 0;
    while (i < n) {
        if (n - i < 17 || (p[i] >> 4) > 1 || (p[i] & 15) > 3)
            return gpuimg_fail(GPUIMG_EDECODE, "%s: corrupt JPEG: bad Huffman table in the segment at byte %zu", name, at);
        size_t count = 0;
        for (int k = 1; k <= 16; k++)
            count += p[i + k];
        if (count > 256 || count > n - i - 17)
            return gpuimg_fail(GPUIMG_EDECODE, "%s: corrupt JPEG: Huffman table with %zu codes in the segment at byte %zu",
                               name, count, at);
        defined[p[i] >> 4] |= 1u << (p[i] & 15);
        i += 17 + count;
    }
    return GPUIMG_OK;
}

/* A scan (SOS) must use only Huffman tables defined before it: stb_image allocates its decoder
 * without clearing it and would decode with whatever the memory held (found by tests/fuzz).
 * Baseline scans use both tables of each component; a progressive DC scan its DC table (none
 * when refining), an AC scan its AC table. */
static int sos_check(const char *name, const uint8_t *p, size_t n, size_t at, int progressive, const unsigned defined[2])
{
    if (n < 1 || n < 1 + 2 * (size_t)p[0] + 3)
        return GPUIMG_OK;   /* stb refuses a short scan header itself */
    const int ns = p[0];
    const uint8_t ss = p[1 + 2 * ns], ah = p[3 + 2 * ns] >> 4;
    for (int i = 0; i < ns; i++) {
        const int td = p[2 + 2 * i] >> 4, ta = p[2 + 2 * i] & 15;
        const int need_dc = !progressive || (ss == 0 && ah == 0), need_ac = !progressive || ss != 0;
        if ((need_dc && td < 4 && !(defined[0] >> td & 1)) || (need_ac && ta < 4 && !(defined[1] >> ta & 1)))
            return gpuimg_fail(GPUIMG_EDECODE, "%s: corrupt JPEG: the scan at byte %zu uses a Huffman table never defined",
                               name, at);
    }
    return GPUIMG_OK;
}

/* Walk JPEG markers from SOI to EOI, skipping entropy-coded data after each SOS. A file without
 * EOI was cut short: stb would fill the missing rows with grey and report success. Each scan is
 * a pass over every block of its components, however few bytes it holds (a progressive scan of
 * end-of-band runs skips 32767 blocks in two bytes), so scans past JPEG_SCANS_MAX, or more scans
 * times pixels than the bytes carry (JPEG_SCAN_PX_PER_BYTE), are refused here, before any
 * decoder (libjpeg-turbo, stb_image, nvJPEG) starts on them. */
static int jpeg_walk(const char *name, const uint8_t *buf, size_t len, uint32_t *pw, uint32_t *ph, struct jpeg_facts *f,
                     int head)
{
    size_t pos = 1;
    int st, progressive = 0, four = 0, scans = 0, comps = 0;
    unsigned defined[2] = { 0, 0 };   /* Huffman tables seen: DC, AC (bit = table id) */
    while (pos < len && buf[pos] == 0xFF)   /* sniff_kind saw 0xFF... 0xD8 */
        pos++;
    pos++;
    for (;;) {
        if (pos >= len)
            break;
        if (buf[pos] != 0xFF)
            return gpuimg_fail(GPUIMG_EDECODE, "%s: corrupt JPEG: expected a marker at byte %zu", name, pos);
        while (pos < len && buf[pos] == 0xFF)
            pos++;
        if (pos >= len)
            break;
        uint8_t m = buf[pos++];
        if (m == 0xD9) {
            if (head)
                return gpuimg_fail(GPUIMG_EDECODE, "%s: corrupt JPEG: it ends before a scan", name);
            const unsigned long long work = (unsigned long long)scans * *pw * *ph;
            if (progressive && work > JPEG_SCAN_PX_FLOOR && work / JPEG_SCAN_PX_PER_BYTE > len)
                return gpuimg_fail(GPUIMG_ETOOBIG,
                                   "%s: a progressive JPEG of %d scans over %ux%u, more decoding than its %zu bytes "
                                   "carry (gpuimg decodes up to 2^30 pixels of scans, or %d a byte)",
                                   name, scans, *pw, *ph, len, JPEG_SCAN_PX_PER_BYTE);
            *f = (struct jpeg_facts){ progressive, four, comps };
            return GPUIMG_OK;
        }
        if ((m >= 0xD0 && m <= 0xD7) || m == 0x01)
            continue;
        if (m == 0xD8 || m == 0x00)
            return gpuimg_fail(GPUIMG_EDECODE, "%s: corrupt JPEG: unexpected marker 0x%02X at byte %zu", name, m, pos - 1);
        if (len - pos < 2)
            break;
        size_t seg = (size_t)buf[pos] << 8 | buf[pos + 1];
        if (seg < 2)
            return gpuimg_fail(GPUIMG_EDECODE, "%s: corrupt JPEG: segment 0x%02X at byte %zu has length %zu",
                               name, m, pos - 2, seg);
        if (seg > len - pos)
            break;
        /* SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC): precision, height, width */
        if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC && seg >= 7 && !*pw) {
            *ph = (uint32_t)buf[pos + 3] << 8 | buf[pos + 4];
            *pw = (uint32_t)buf[pos + 5] << 8 | buf[pos + 6];
            four = seg >= 8 && buf[pos + 7] == 4;
            comps = seg >= 8 ? buf[pos + 7] : 0;
        }
        if (m == 0xC2)
            progressive = 1;
        if (m == 0xC4 && (st = dht_check(name, buf + pos + 2, seg - 2, pos - 2, defined)))
            return st;
        if (m == 0xDA && (st = sos_check(name, buf + pos + 2, seg - 2, pos - 2, progressive, defined)))
            return st;
        if (m == 0xDA && head) {
            *f = (struct jpeg_facts){ progressive, four, comps };
            return GPUIMG_OK;
        }
        if (m == 0xDA && ++scans > JPEG_SCANS_MAX)
            return gpuimg_fail(GPUIMG_ETOOBIG, "%s: a JPEG of more than %d scans (gpuimg decodes up to %d)", name,
                               JPEG_SCANS_MAX, JPEG_SCANS_MAX);
        pos += seg;
        if (m == 0xDA) { /* entropy-coded data runs to the next marker that is not RSTn or a stuffed 0 */
            while (pos + 1 < len) {
                if (buf[pos] == 0xFF && buf[pos + 1] != 0x00 && !(buf[pos + 1] >= 0xD0 && buf[pos + 1] <= 0xD7)
                    && buf[pos + 1] != 0xFF)
                    break;
                pos++;
            }
            if (pos + 1 >= len)
                break;
        }
    }
    return gpuimg_fail(GPUIMG_EDECODE, "%s: truncated JPEG: the file ends at byte %zu without an end-of-image marker",
                       name, len);
}

int jpeg_check(const char *name, const uint8_t *buf, size_t len, uint32_t *pw, uint32_t *ph, struct jpeg_facts *f)
{
    return jpeg_walk(name, buf, len, pw, ph, f, 0);
}

int jpeg_check_head(const char *name, const uint8_t *buf, size_t len, uint32_t *pw, uint32_t *ph, struct jpeg_facts *f)
{
    return jpeg_walk(name, buf, len, pw, ph, f, 1);
}

/* An ISO media box at p (n bytes from there): its size (a 32-bit size, or 1 and a 64-bit one, or
 * 0: to the end) and type; the header's length, or 0 where it does not fit n */
static size_t bmff_box(const uint8_t *p, size_t n, uint64_t *size, const uint8_t **type)
{
    if (n < 8)
        return 0;
    uint64_t s = be32(p);
    size_t h = 8;
    if (s == 1) {
        if (n < 16)
            return 0;
        s = (uint64_t)be32(p + 8) << 32 | be32(p + 12);
        h = 16;
    } else if (s == 0) {
        s = n;
    }
    if (s < h || s > n)
        return 0;
    *size = s;
    *type = p + 4;
    return h;
}

int heif_check(const char *name, const uint8_t *buf, size_t len)
{
    uint64_t size, csize;
    const uint8_t *type, *ctype;
    for (size_t pos = 0, h; (h = bmff_box(buf + pos, len - pos, &size, &type)); pos += size) {
        if (memcmp(type, "meta", 4))
            continue;
        const uint8_t *m = buf + pos + h + 4;   /* a full box: version and flags first */
        const size_t mn = size - h < 4 ? 0 : size - h - 4;
        for (size_t c = 0, ch; (ch = bmff_box(m + c, mn - c, &csize, &ctype)); c += csize) {
            const uint8_t *b = m + c + ch;
            const size_t bn = csize - ch;
            uint32_t items = 0;
            if (!memcmp(ctype, "iinf", 4) && bn >= 6)   /* version 0: a 16-bit count, else 32 */
                items = b[0] == 0 ? (uint32_t)b[4] << 8 | b[5] : bn >= 8 ? be32(b + 4) : 0;
            else if (!memcmp(ctype, "iloc", 4) && bn >= 8)   /* version, flags, 2 bytes of sizes, the count */
                items = b[0] < 2 ? (uint32_t)b[6] << 8 | b[7] : bn >= 10 ? be32(b + 6) : 0;
            if (items > HEIF_ITEMS_MAX)
                return gpuimg_fail(GPUIMG_ETOOBIG, "%s: a HEIF of %u items (gpuimg reads up to %d)", name, items,
                                   HEIF_ITEMS_MAX);
        }
    }
    return GPUIMG_OK;
}

/* Binary PGM/PPM: stb_image reads the width, height and maximum value as ints with no overflow
 * check (undefined behaviour past 2^31, found by tests/fuzz). The same tokens, read here first:
 * whitespace and '#' comments, then digits. */
int pnm_check(const char *name, const uint8_t *buf, size_t len, uint32_t *pw, uint32_t *ph)
{
    static const char *const what[3] = { "width", "height", "maximum value" };
    uint64_t v[3] = { 0, 0, 0 };
    size_t pos = 2;
    for (int k = 0; k < 3; k++) {
        for (;;) {
            while (pos < len && (buf[pos] == ' ' || (buf[pos] >= '\t' && buf[pos] <= '\r')))
                pos++;
            if (pos >= len || buf[pos] != '#')
                break;
            while (pos < len && buf[pos] != '\n' && buf[pos] != '\r')
                pos++;
        }
        size_t digits = 0;
        for (; pos < len && buf[pos] >= '0' && buf[pos] <= '9'; pos++, digits++)
            if (digits < 12)
                v[k] = v[k] * 10 + (uint64_t)(buf[pos] - '0');
        if (digits > 9 || v[k] > (k < 2 ? (uint64_t)1 << 24 : 65535))
            return gpuimg_fail(GPUIMG_EDECODE, "%s: invalid PNM header: the %s (%s%llu) is out of range", name, what[k],
                               digits > 12 ? "more than " : "", (unsigned long long)v[k]);
    }
    *pw = (uint32_t)v[0];
    *ph = (uint32_t)v[1];
    return GPUIMG_OK;
}
