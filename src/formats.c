/* gpuimg: PNG chunk and JPEG marker walks (see formats.h). They read only the container
 * structure; pixel decoding stays with stb_image. */
#include <config.h>
#include <string.h>
#include <zlib.h>
#include "error.h"
#include "formats.h"

static const uint8_t png_sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

enum file_kind sniff_kind(const uint8_t *buf, size_t len)
{
    if (len >= 8 && memcmp(buf, png_sig, 8) == 0)
        return KIND_PNG;
    if (len >= 3 && buf[0] == 0xFF && buf[1] == 0xD8 && buf[2] == 0xFF)
        return KIND_JPEG;
    return KIND_UNKNOWN;
}

static void chunk_name(char out[5], const uint8_t *p)
{
    for (int i = 0; i < 4; i++)
        out[i] = (p[i] >= 32 && p[i] < 127) ? (char)p[i] : '?';
    out[4] = 0;
}

int png_check(const char *name, const uint8_t *buf, size_t len, uint32_t *pw, uint32_t *ph)
{
    size_t pos = 8;
    int nchunk = 0;
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
            if (memcmp(cname, "IHDR", 4) != 0 || clen != 13)
                return gpuimg_fail(GPUIMG_EDECODE, "%s: corrupt PNG: first chunk is '%s', not IHDR", name, cname);
            uint32_t w = be32(buf + pos + 8), h = be32(buf + pos + 12);
            if (w == 0 || h == 0)
                return gpuimg_fail(GPUIMG_EDECODE, "%s: invalid PNG: image has zero %s", name, w == 0 ? "width" : "height");
            *pw = w;
            *ph = h;
        }
        nchunk++;
        if (memcmp(cname, "IEND", 4) == 0)
            return GPUIMG_OK;
        pos += (size_t)clen + 12;
    }
}

/* Walk JPEG markers from SOI to EOI, skipping entropy-coded data after each SOS. A file without
 * EOI was cut short: stb would fill the missing rows with grey and report success. */
int jpeg_check(const char *name, const uint8_t *buf, size_t len, uint32_t *pw, uint32_t *ph)
{
    size_t pos = 2;
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
        if (m == 0xD9)
            return GPUIMG_OK;
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
        }
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
