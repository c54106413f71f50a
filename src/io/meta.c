/* gpuimg: metadata kept from input to output (meta.h). */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "core/error.h"
#include "io/formats.h"
#include "io/meta.h"

static unsigned u16(const uint8_t *p, int be) { return be ? (unsigned)p[0] << 8 | p[1] : (unsigned)p[1] << 8 | p[0]; }
static uint32_t u32(const uint8_t *p, int be)
{
    return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
              : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* IFD0's offset in EXIF's TIFF structure t (n bytes) and its byte order, or 0 where t is none */
static size_t exif_ifd0(const uint8_t *t, size_t n, int *be)
{
    if (n < 8 || !((t[0] == 'I' && t[1] == 'I') || (t[0] == 'M' && t[1] == 'M')))
        return 0;
    *be = t[0] == 'M';
    const uint32_t ifd = u32(t + 4, *be);
    return u16(t + 2, *be) == 42 && ifd >= 8 && ifd <= n - 2 ? ifd : 0;
}

/* The offset of tag's 12-byte entry in the IFD at ifd, or 0 (none, or the IFD leaves t) */
static size_t ifd_entry(const uint8_t *t, size_t n, size_t ifd, unsigned tag, int be)
{
    if (ifd < 8 || ifd > n - 2)
        return 0;
    const unsigned count = u16(t + ifd, be);
    for (unsigned i = 0; i < count; i++) {
        const size_t e = ifd + 2 + (size_t)i * 12;
        if (e + 12 > n)
            return 0;
        if (u16(t + e, be) == tag)
            return e;
    }
    return 0;
}

static void put16(uint8_t *p, unsigned v, int be)
{
    p[be ? 0 : 1] = (uint8_t)(v >> 8);
    p[be ? 1 : 0] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v, int be)
{
    for (int i = 0; i < 4; i++)
        p[be ? i : 3 - i] = (uint8_t)(v >> (8 * (3 - i)));
}

int exif_orientation(const uint8_t *t, size_t n, size_t *at)
{
    int be = 0;
    const size_t ifd0 = exif_ifd0(t, n, &be), e = ifd_entry(t, n, ifd0, 0x0112, be);
    if (at)
        *at = 0;
    if (!e || u16(t + e + 2, be) != 3 || u32(t + e + 4, be) != 1)
        return 1;
    const unsigned v = u16(t + e + 8, be);   /* a SHORT sits in the value field's first 2 bytes */
    if (at)
        *at = e + 8;
    return v >= 1 && v <= 8 ? (int)v : 1;
}

static unsigned type_size(unsigned type)
{
    static const unsigned char size[13] = { 0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8 };
    return type < 13 ? size[type] : 0;
}

int meta_exif_each(const struct io_meta *m, int which, void (*visit)(void *arg, const struct exif_entry *e),
                   void *arg)
{
    int be = 0, seen = 0;
    const uint8_t *t = m->exif;
    const size_t n = m->exif_len;
    size_t ifd = t ? exif_ifd0(t, n, &be) : 0;
    if (ifd && which) {
        const size_t ptr = ifd_entry(t, n, ifd, 0x8769, be);
        ifd = ptr && u32(t + ptr + 4, be) == 1 ? u32(t + ptr + 8, be) : 0;
    }
    if (ifd < 8 || ifd > n - 2)
        return 0;
    const unsigned count = u16(t + ifd, be);
    for (unsigned i = 0; i < count && ifd + 2 + (size_t)(i + 1) * 12 <= n; i++) {
        const uint8_t *e = t + ifd + 2 + (size_t)i * 12;
        struct exif_entry x = { u16(e, be), u16(e + 2, be), u32(e + 4, be), NULL, be };
        const uint64_t bytes = (uint64_t)x.count * type_size(x.type);
        const uint64_t at = bytes <= 4 ? (uint64_t)(e + 8 - t) : u32(e + 8, be);
        if (!bytes || at + bytes > n)
            continue;
        x.val = t + at;
        seen++;
        if (visit)
            visit(arg, &x);
    }
    return seen;
}

double exif_value(const struct exif_entry *e, uint32_t i)
{
    const uint8_t *p = e->val + (size_t)i * type_size(e->type);
    switch (e->type) {
    case 3: return u16(p, e->be);
    case 4: return u32(p, e->be);
    case 5: return u32(p + 4, e->be) ? (double)u32(p, e->be) / u32(p + 4, e->be) : 0;
    case 6: return (int8_t)p[0];
    case 8: return (int16_t)u16(p, e->be);
    case 9: return (int32_t)u32(p, e->be);
    case 10: return (int32_t)u32(p + 4, e->be) ? (double)(int32_t)u32(p, e->be) / (int32_t)u32(p + 4, e->be) : 0;
    case 11: {
        const uint32_t b = u32(p, e->be);
        float f;
        memcpy(&f, &b, 4);
        return f;
    }
    case 12: {
        const uint64_t b = (uint64_t)u32(p + (e->be ? 0 : 4), e->be) << 32 | u32(p + (e->be ? 4 : 0), e->be);
        double d;
        memcpy(&d, &b, 8);
        return d;
    }
    default: return p[0];   /* BYTE, ASCII, UNDEFINED */
    }
}

int exif_ifd0_text(unsigned tag)
{
    static const unsigned text[] = { 0x010E, 0x010F, 0x0110, 0x0131, 0x0132, 0x013B, 0x8298 };
    for (size_t i = 0; i < sizeof text / sizeof *text; i++)
        if (tag == text[i])
            return 1;
    return 0;
}

struct ifd_build {
    struct exif_entry e[2][256];   /* IFD0's kept entries, the Exif IFD's */
    int n[2], which;
    int orient;                    /* IFD0's orientation, 1 if none */
};

static void keep_entry(void *arg, const struct exif_entry *e)
{
    struct ifd_build *b = arg;
    const int keep = b->which || e->tag == 0x0112 || exif_ifd0_text(e->tag);   /* IFD0: text, orientation */
    /* left out: the maker note (its offsets point into the file it came from) and the
     * interoperability IFD, which is not copied */
    if (!keep || e->tag == 0x927C || e->tag == 0xA005 || b->n[b->which] == 256)
        return;
    if (!b->which && e->tag == 0x0112)
        b->orient = e->type == 3 && e->count == 1 ? (int)exif_value(e, 0) : 1;
    b->e[b->which][b->n[b->which]++] = *e;
}

/* An IFD of n entries at offset at of out (NULL: only count the bytes), its values over 4 bytes
 * after it; exif_ifd: the Exif IFD's offset, for a last entry pointing to it (0: none; when
 * counting, any other value). Returns the bytes it takes. */
static size_t put_ifd(uint8_t *out, size_t at, const struct exif_entry *e, int n, size_t exif_ifd, int be)
{
    const int total = n + (exif_ifd ? 1 : 0);
    size_t data = at + 2 + (size_t)total * 12 + 4;
    if (out) {
        put16(out + at, (unsigned)total, be);
        put32(out + at + 2 + (size_t)total * 12, 0, be);
    }
    for (int i = 0; i < total; i++) {
        uint8_t *d = out ? out + at + 2 + (size_t)i * 12 : NULL;
        if (i == n) {   /* the Exif IFD's pointer, the last tag of IFD0 */
            if (d) {
                put16(d, 0x8769, be);
                put16(d + 2, 4, be);
                put32(d + 4, 1, be);
                put32(d + 8, (uint32_t)exif_ifd, be);
            }
            continue;
        }
        const size_t bytes = (size_t)e[i].count * type_size(e[i].type);
        if (d) {
            put16(d, e[i].tag, be);
            put16(d + 2, e[i].type, be);
            put32(d + 4, e[i].count, be);
            memset(d + 8, 0, 4);
            if (bytes <= 4)
                memcpy(d + 8, e[i].val, bytes);
            else {
                put32(d + 8, (uint32_t)data, be);
                memcpy(out + data, e[i].val, bytes);
            }
        }
        if (bytes > 4)
            data += bytes + (bytes & 1);
    }
    return data - at;
}

int meta_tiff_exif(const uint8_t *t, size_t n, struct io_meta *m)
{
    int be = 0;
    if (!exif_ifd0(t, n, &be))
        return GPUIMG_OK;
    struct ifd_build *b = calloc(1, sizeof *b);
    if (!b)
        return GPUIMG_ENOMEM;
    const struct io_meta file = { .exif = (uint8_t *)t, .exif_len = n };
    b->orient = 1;
    meta_exif_each(&file, 0, keep_entry, b);
    b->which = 1;
    meta_exif_each(&file, 1, keep_entry, b);
    int text = 0;
    for (int i = 0; i < b->n[0]; i++)
        text += b->e[0][i].tag != 0x0112;
    /* worth a block: text, the Exif IFD or a turn; its entries in the file's byte order */
    int st = GPUIMG_OK;
    if (b->n[1] || text || b->orient != 1) {
        const size_t ifd0 = put_ifd(NULL, 8, b->e[0], b->n[0], b->n[1] ? 1 : 0, be);
        const size_t len = 8 + ifd0 + (b->n[1] ? put_ifd(NULL, 8 + ifd0, b->e[1], b->n[1], 0, be) : 0);
        uint8_t *x = len <= META_EXIF_MAX ? calloc(1, len) : NULL;
        if (!x && len <= META_EXIF_MAX) {
            st = GPUIMG_ENOMEM;
        } else if (x) {
            memcpy(x, be ? "MM\0*" : "II*\0", 4);
            put32(x + 4, 8, be);
            put_ifd(x, 8, b->e[0], b->n[0], b->n[1] ? 8 + ifd0 : 0, be);
            if (b->n[1])
                put_ifd(x, 8 + ifd0, b->e[1], b->n[1], 0, be);
            free(m->exif);
            m->exif = x;
            m->exif_len = len;
            meta_found_exif(m);
        }
    }
    free(b);
    return st;
}

void meta_pixel_size(struct io_meta *m, int w, int h)
{
    int be = 0;
    uint8_t *t = m->exif;
    const size_t n = m->exif_len, ifd0 = t ? exif_ifd0(t, n, &be) : 0, ptr = ifd_entry(t, n, ifd0, 0x8769, be);
    if (!ptr || (u16(t + ptr + 2, be) != 4 && u16(t + ptr + 2, be) != 13) || u32(t + ptr + 4, be) != 1)
        return;
    const size_t sub = u32(t + ptr + 8, be);
    const unsigned tags[2] = { 0xA002, 0xA003 };
    const uint32_t v[2] = { (uint32_t)w, (uint32_t)h };
    for (int i = 0; i < 2; i++) {
        const size_t e = ifd_entry(t, n, sub, tags[i], be);
        const unsigned type = e ? u16(t + e + 2, be) : 0;
        if ((type != 3 && type != 4) || u32(t + e + 4, be) != 1)
            continue;
        memset(t + e + 8, 0, 4);
        if (type == 3 && v[i] <= 65535) {
            put16(t + e + 8, v[i], be);
        } else {   /* a SHORT too small for the size becomes a LONG: the value field holds either */
            put16(t + e + 2, 4, be);
            put32(t + e + 8, v[i], be);
        }
    }
}

/* Each segment before the scan: marker, payload (after the length), its length; stops at SOS,
 * EOI or a length that leaves the file. Any number of 0xFF fill bytes may come before a marker
 * (and before SOI, as sniff_kind finds it). visit returns non-zero to stop. */
static void jpeg_segments(const uint8_t *buf, size_t len, int (*visit)(void *arg, int m, const uint8_t *p, size_t n),
                          void *arg)
{
    size_t pos = 0;
    while (pos < len && buf[pos] == 0xFF)
        pos++;
    if (pos >= len || buf[pos] != 0xD8)
        return;
    for (pos++; pos < len && buf[pos] == 0xFF;) {
        while (pos < len && buf[pos] == 0xFF)
            pos++;
        if (len - pos < 3)
            return;
        const uint8_t m = buf[pos];
        if ((m >= 0xD0 && m <= 0xD7) || m == 0x01) {   /* markers without a segment */
            pos++;
            continue;
        }
        const size_t seg = (size_t)buf[pos + 1] << 8 | buf[pos + 2];
        if (m == 0xDA || m == 0xD9 || seg < 2 || seg > len - pos - 1 || visit(arg, m, buf + pos + 3, seg - 2))
            return;
        pos += 1 + seg;
    }
}

static int exif_segment(const uint8_t *p, size_t n) { return n >= 6 && !memcmp(p, "Exif\0\0", 6); }

static int find_orientation(void *arg, int m, const uint8_t *p, size_t n)
{
    if (m != 0xE1 || !exif_segment(p, n))
        return 0;
    *(int *)arg = exif_orientation(p + 6, n - 6, NULL);
    return 1;
}

int jpeg_orientation(const uint8_t *buf, size_t len)
{
    int o = 1;
    jpeg_segments(buf, len, find_orientation, &o);
    return o;
}

/* ---- reading --------------------------------------------------------------------------------- */

#define ICC_SIG "ICC_PROFILE\0"
#define ICC_HDR 14   /* the signature, the piece's number (from 1) and the count */

struct jpeg_walk {
    struct io_meta *m;
    const uint8_t *icc[256];   /* the profile's pieces by number */
    size_t icc_n[256];
    int icc_count, icc_bad;
};

static uint8_t *dup_bytes(const uint8_t *p, size_t n)
{
    uint8_t *d = malloc(n ? n : 1);
    if (d)
        memcpy(d, p, n);
    return d;
}

#define XMP_SIG "http://ns.adobe.com/xap/1.0/"   /* and its 0: sizeof counts it */
#define PS_SIG "Photoshop 3.0"

/* IPTC from Photoshop's image resources (APP13 after its signature): "8BIM", a 16-bit id, a
 * name (a length byte and its bytes, padded to even), a 32-bit size and the data (padded to
 * even); IPTC-IIM is resource 0x0404. */
static int read_iptc(const uint8_t *p, size_t n, struct io_meta *m)
{
    for (size_t pos = 0; pos + 12 <= n && !memcmp(p + pos, "8BIM", 4);) {
        const unsigned id = u16(p + pos + 4, 1);
        const size_t name = ((size_t)p[pos + 6] + 2) & ~(size_t)1;
        if (pos + 6 + name + 4 > n)
            break;
        const size_t size = u32(p + pos + 6 + name, 1), at = pos + 6 + name + 4;
        if (size > n - at)
            break;
        if (id == 0x0404 && size) {
            if (!(m->iptc = dup_bytes(p + at, size)))
                return -1;
            m->iptc_len = size;
            return 0;
        }
        pos = at + size + (size & 1);
    }
    return 0;
}

static int jpeg_visit(void *arg, int m, const uint8_t *p, size_t n)
{
    struct jpeg_walk *w = arg;
    if (m == 0xE0 && n >= 12 && !memcmp(p, "JFIF\0", 5) && !w->m->density) {
        const unsigned unit = p[7], x = (unsigned)p[8] << 8 | p[9], y = (unsigned)p[10] << 8 | p[11];
        if ((unit == 1 || unit == 2) && x && y) {   /* unit 0 gives the aspect ratio alone */
            w->m->density = 1;
            w->m->xres = unit == 1 ? x : x * 2.54;
            w->m->yres = unit == 1 ? y : y * 2.54;
        }
    } else if (m == 0xE1 && exif_segment(p, n) && !w->m->exif && n > 6) {
        if (!(w->m->exif = dup_bytes(p + 6, n - 6)))
            return -1;
        w->m->exif_len = n - 6;
    } else if (m == 0xE1 && n > sizeof XMP_SIG && !memcmp(p, XMP_SIG, sizeof XMP_SIG) && !w->m->xmp) {
        if (!(w->m->xmp = dup_bytes(p + sizeof XMP_SIG, n - sizeof XMP_SIG)))
            return -1;
        w->m->xmp_len = n - sizeof XMP_SIG;
    } else if (m == 0xED && n > sizeof PS_SIG && !memcmp(p, PS_SIG, sizeof PS_SIG) && !w->m->iptc) {
        if (read_iptc(p + sizeof PS_SIG, n - sizeof PS_SIG, w->m))
            return -1;
    } else if (m == 0xFE && n && !w->m->comment) {
        if (!(w->m->comment = dup_bytes(p, n)))
            return -1;
        w->m->comment_len = n;
    } else if (m == 0xE2 && n > ICC_HDR && !memcmp(p, ICC_SIG, 12)) {
        const int seq = p[12], count = p[13];
        if (!seq || seq > count || (w->icc_count && count != w->icc_count) || w->icc[seq])
            w->icc_bad = 1;
        else {
            w->icc_count = count;
            w->icc[seq] = p + ICC_HDR;
            w->icc_n[seq] = n - ICC_HDR;
        }
    }
    return 0;
}

static int read_jpeg(const uint8_t *buf, size_t len, struct io_meta *m)
{
    struct jpeg_walk *w = calloc(1, sizeof *w);
    if (!w)
        return GPUIMG_ENOMEM;
    w->m = m;
    jpeg_segments(buf, len, jpeg_visit, w);
    size_t total = 0;
    int whole = w->icc_count && !w->icc_bad;
    for (int k = 1; whole && k <= w->icc_count; k++) {
        whole = w->icc[k] != NULL;
        total += w->icc_n[k];
    }
    int st = GPUIMG_OK;
    if (whole && total <= META_ICC_MAX) {
        if ((m->icc = malloc(total))) {
            for (int k = 1; k <= w->icc_count; k++) {
                memcpy(m->icc + m->icc_len, w->icc[k], w->icc_n[k]);
                m->icc_len += w->icc_n[k];
            }
        } else
            st = GPUIMG_ENOMEM;
    }
    free(w);
    return st;
}

/* A whole zlib stream of n bytes at z inflated, up to max bytes: *out (malloc'ed; NULL where the
 * stream is broken, empty or longer). Returns GPUIMG_ENOMEM or GPUIMG_OK. */
static int inflate_all(const uint8_t *z, size_t n, size_t max, uint8_t **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    z_stream s = { 0 };
    if (inflateInit(&s) != Z_OK)
        return GPUIMG_ENOMEM;
    size_t cap = 1 << 16;
    uint8_t *o = malloc(cap);
    int r = o ? Z_OK : Z_MEM_ERROR;
    s.next_in = (Bytef *)z;
    s.avail_in = (uInt)n;
    while (r == Z_OK) {
        if (s.total_out == cap) {
            uint8_t *grown = cap < max ? realloc(o, cap * 2) : NULL;
            if (!grown) {
                r = cap < max ? Z_MEM_ERROR : Z_DATA_ERROR;
                break;
            }
            o = grown;
            cap *= 2;
        }
        s.next_out = o + s.total_out;
        s.avail_out = (uInt)(cap - s.total_out);
        r = inflate(&s, Z_NO_FLUSH);
        if (r == Z_BUF_ERROR && s.avail_out)   /* the stream ends early */
            r = Z_DATA_ERROR;
    }
    inflateEnd(&s);
    if (r == Z_STREAM_END && s.total_out && s.total_out <= max) {
        *out = o;
        *len = s.total_out;
        return GPUIMG_OK;
    }
    free(o);
    return r == Z_MEM_ERROR ? GPUIMG_ENOMEM : GPUIMG_OK;
}

/* An iCCP chunk's profile: a name of 1 to 79 bytes, a 0, method 0 (zlib), the zlib stream. */
static int read_iccp(const uint8_t *p, size_t n, struct io_meta *m)
{
    const uint8_t *z = memchr(p, 0, n < 80 ? n : 80);
    if (!z || z == p || (size_t)(z - p) + 2 > n || z[1] != 0)
        return GPUIMG_OK;
    z += 2;
    return inflate_all(z, (size_t)(p + n - z), META_ICC_MAX, &m->icc, &m->icc_len);
}

/* A text chunk (tEXt, zTXt, iTXt: type t) whose keyword is key, its text into *out (the first
 * such chunk's; a compressed one inflated while *budget, the inflations a file is allowed, lasts). */
static int read_text(const uint8_t *type, const uint8_t *p, size_t n, const char *key, uint8_t **out, size_t *len,
                     int *budget)
{
    const size_t k = strlen(key);
    if (*out || n <= k || memcmp(p, key, k + 1))
        return GPUIMG_OK;
    const uint8_t *t = p + k + 1, *end = p + n;
    int zipped = 0;
    if (!memcmp(type, "zTXt", 4)) {   /* method, zlib stream */
        if (t >= end || *t++ != 0)
            return GPUIMG_OK;
        zipped = 1;
    } else if (!memcmp(type, "iTXt", 4)) {   /* flag, method, language 0, translated keyword 0 */
        if (end - t < 2 || t[0] > 1 || t[1] != 0)   /* flag 0 or 1, method 0 */
            return GPUIMG_OK;
        zipped = t[0] == 1;
        t += 2;
        for (int i = 0; i < 2; i++) {
            const uint8_t *z = memchr(t, 0, (size_t)(end - t));
            if (!z)
                return GPUIMG_OK;
            t = z + 1;
        }
    } else if (memcmp(type, "tEXt", 4)) {
        return GPUIMG_OK;
    }
    if (zipped)
        return (*budget)-- > 0 ? inflate_all(t, (size_t)(end - t), META_XMP_MAX, out, len) : GPUIMG_OK;
    if (t == end || !(*out = dup_bytes(t, (size_t)(end - t))))
        return t == end ? GPUIMG_OK : GPUIMG_ENOMEM;
    *len = (size_t)(end - t);
    return GPUIMG_OK;
}

/* The compressed chunks (iCCP, zTXt, iTXt) a PNG's metadata may inflate, a failed one included */
#define PNG_INFLATIONS 4

static int read_png(const uint8_t *buf, size_t len, struct io_meta *m)
{
    int budget = PNG_INFLATIONS;
    for (size_t pos = 8; pos + 12 <= len;) {
        const uint32_t n = u32(buf + pos, 1);
        const uint8_t *type = buf + pos + 4, *p = buf + pos + 8;
        if (n > len - pos - 12 || !memcmp(type, "IDAT", 4) || !memcmp(type, "IEND", 4))
            break;   /* the chunks that matter come before the image data */
        int st = GPUIMG_OK;
        if (!memcmp(type, "iCCP", 4) && !m->icc && budget-- > 0)
            st = read_iccp(p, n, m);
        else if (!memcmp(type, "eXIf", 4) && !m->exif && n) {
            const size_t skip = n > 6 && !memcmp(p, "Exif\0\0", 6) ? 6 : 0;   /* some writers keep JPEG's prefix */
            if (!(m->exif = dup_bytes(p + skip, n - skip)))
                st = GPUIMG_ENOMEM;
            m->exif_len = n - skip;
        } else if (!memcmp(type + 1, "TXt", 3) || !memcmp(type, "tEXt", 4)) {
            st = read_text(type, p, n, "XML:com.adobe.xmp", &m->xmp, &m->xmp_len, &budget);
            if (!st)
                st = read_text(type, p, n, "Comment", &m->comment, &m->comment_len, &budget);
        } else if (!memcmp(type, "pHYs", 4) && n == 9 && p[8] == 1 && u32(p, 1) && u32(p + 4, 1)) {
            m->density = 1;   /* unit 1: per metre (0 gives the aspect ratio alone) */
            m->xres = u32(p, 1) * 0.0254;
            m->yres = u32(p + 4, 1) * 0.0254;
        }
        if (st)
            return st;
        pos += 12 + (size_t)n;
    }
    return GPUIMG_OK;
}

int meta_read(const uint8_t *buf, size_t len, int kind, struct io_meta *m)
{
    memset(m, 0, sizeof *m);
    const int st = kind == KIND_JPEG ? read_jpeg(buf, len, m) : kind == KIND_PNG ? read_png(buf, len, m) : GPUIMG_OK;
    if (st)
        meta_free(m);
    else
        meta_found_exif(m);
    return st ? gpuimg_fail(GPUIMG_ENOMEM, "out of memory for the image's metadata") : GPUIMG_OK;
}

int meta_exif_item(struct io_meta *m, const uint8_t *b, size_t n)
{
    if (n <= 4)
        return GPUIMG_OK;
    size_t off = (size_t)b[0] << 24 | (size_t)b[1] << 16 | (size_t)b[2] << 8 | b[3];
    if (off < n - 4 && n - 4 - off > 6 && !memcmp(b + 4 + off, "Exif\0\0", 6))
        off += 6;   /* the offset left 0 before JPEG's prefix, as some writers do */
    if (off >= n - 4)
        return GPUIMG_OK;
    if (!(m->exif = dup_bytes(b + 4 + off, n - 4 - off)))
        return GPUIMG_ENOMEM;
    m->exif_len = n - 4 - off;
    return GPUIMG_OK;
}

void meta_found_exif(struct io_meta *m)
{
    if (m->exif)
        exif_orientation(m->exif, m->exif_len, &m->orient_at);
}

static int dup_piece(uint8_t **dst, const uint8_t *src, size_t n)
{
    *dst = NULL;
    if (!src)
        return GPUIMG_OK;
    if (!(*dst = malloc(n ? n : 1)))
        return gpuimg_fail(GPUIMG_ENOMEM, "out of memory for a copy of the metadata (%zu bytes)", n);
    memcpy(*dst, src, n);
    return GPUIMG_OK;
}

int meta_copy(struct io_meta *dst, const struct io_meta *src)
{
    *dst = *src;   /* the sizes and numbers; each piece's bytes copied below (NULL until then) */
    dst->icc = dst->exif = dst->xmp = dst->iptc = dst->comment = NULL;
    int st = dup_piece(&dst->icc, src->icc, src->icc_len);
    if (!st)
        st = dup_piece(&dst->exif, src->exif, src->exif_len);
    if (!st)
        st = dup_piece(&dst->xmp, src->xmp, src->xmp_len);
    if (!st)
        st = dup_piece(&dst->iptc, src->iptc, src->iptc_len);
    if (!st)
        st = dup_piece(&dst->comment, src->comment, src->comment_len);
    if (st)
        meta_free(dst);
    return st;
}

void meta_free(struct io_meta *m)
{
    free(m->icc);
    free(m->exif);
    free(m->xmp);
    free(m->iptc);
    free(m->comment);
    memset(m, 0, sizeof *m);
}

/* The GPS directory at gps zeroed, with every value it points to (a type EXIF does not size taken
 * as bytes; a value cut by the block's end zeroed to it) and the directories chained after it (up
 * to depth), unless it overlaps IFD0 at [ifd0, ifd0_end), whose pointer was all that led to it */
static void zero_gps(uint8_t *t, size_t n, size_t gps, size_t ifd0, size_t ifd0_end, int be, int depth)
{
    if (gps < 8 || gps > n - 2 || !depth)
        return;
    const unsigned count = u16(t + gps, be);
    const size_t end = gps + 2 + (size_t)count * 12 + 4 < n ? gps + 2 + (size_t)count * 12 + 4 : n;
    if (gps < ifd0_end && end > ifd0)
        return;
    const size_t next = end == gps + 2 + (size_t)count * 12 + 4 ? u32(t + end - 4, be) : 0;   /* a chained one */
    for (unsigned i = 0; i < count && gps + 2 + (size_t)(i + 1) * 12 <= n; i++) {
        const uint8_t *e = t + gps + 2 + (size_t)i * 12;
        const unsigned size = type_size(u16(e + 2, be));
        const uint64_t bytes = (uint64_t)u32(e + 4, be) * (size ? size : 1), at = u32(e + 8, be);
        if (bytes > 4 && at < n && (at + bytes <= ifd0 || at >= ifd0_end))
            memset(t + at, 0, (size_t)(at + bytes <= n ? bytes : n - at));
    }
    memset(t + gps, 0, end - gps);
    zero_gps(t, n, next, ifd0, ifd0_end, be, depth - 1);
}

/* EXIF without its GPS directory: IFD0's pointer entries taken out (the entries after each moved
 * up; the count read before anything is zeroed), then the directories and the values they point
 * to zeroed, so that no position is left in the bytes */
static void strip_gps(struct io_meta *m)
{
    int be = 0;
    uint8_t *t = m->exif;
    const size_t n = m->exif_len, ifd0 = t ? exif_ifd0(t, n, &be) : 0;
    if (!ifd0)
        return;
    size_t gps[8], ptr, end = 0;
    int ng = 0;
    while ((ptr = ifd_entry(t, n, ifd0, 0x8825, be))) {
        const unsigned count = u16(t + ifd0, be);
        const size_t tail = ifd0 + 2 + (size_t)count * 12 + 4;   /* the entries and the next IFD's offset */
        if (!count || tail > n || ptr + 12 > tail - 4)
            break;
        if (ng < 8)
            gps[ng++] = u32(t + ptr + 8, be);
        memmove(t + ptr, t + ptr + 12, tail - ptr - 12);
        memset(t + tail - 12, 0, 12);
        put16(t + ifd0, count - 1, be);
        end = tail;
    }
    for (int i = 0; i < ng; i++)
        zero_gps(t, n, gps[i], ifd0, end, be, 4);
    meta_found_exif(m);
}

void meta_strip(struct io_meta *m, unsigned mask)
{
    if ((mask & META_ALL) == META_ALL) {
        meta_free(m);
        return;
    }
    struct { unsigned bit; uint8_t **p; size_t *n; } piece[] = {
        { META_EXIF, &m->exif, &m->exif_len }, { META_XMP, &m->xmp, &m->xmp_len }, { META_IPTC, &m->iptc, &m->iptc_len },
        { META_ICC, &m->icc, &m->icc_len }, { META_COMMENT, &m->comment, &m->comment_len },
    };
    if (mask & META_GPS)
        strip_gps(m);
    for (size_t i = 0; i < sizeof piece / sizeof *piece; i++)
        if (mask & piece[i].bit) {
            free(*piece[i].p);
            *piece[i].p = NULL;
            *piece[i].n = 0;
        }
    if (mask & META_EXIF)
        m->orient_at = 0;
    if (mask & META_DENSITY)
        m->density = 0;
}

void meta_upright(struct io_meta *m, int o)
{
    if (m->orient_at)
        put16(m->exif + m->orient_at, 1, m->exif[0] == 'M');
    if (o >= 5) {   /* 5 to 8 turn by 90 degrees */
        const double x = m->xres;
        m->xres = m->yres;
        m->yres = x;
    }
}

int meta_icc_fits(const struct io_meta *m, int c)
{
    if (!m->icc || m->icc_len < 128)
        return 0;
    return !memcmp(m->icc + 16, c >= 3 ? "RGB " : "GRAY", 4);
}

/* ---- writing JPEG's segments ------------------------------------------------------------------- */

#define SEG_MAX 65533   /* a segment's payload: 65535 less its length field */

int meta_jpeg_segments(const struct io_meta *m, int c, meta_emit emit, void *arg)
{
    int r = 0;
    if (m->exif && m->exif_len <= SEG_MAX - 6)   /* larger EXIF cannot be one APP1, as JPEG readers expect */
        r = emit(arg, 0xE1, (const uint8_t *)"Exif\0\0", 6, m->exif, m->exif_len, 0);
    if (!r && m->xmp && m->xmp_len <= SEG_MAX - sizeof XMP_SIG)   /* larger: extended XMP, not written */
        r = emit(arg, 0xE1, (const uint8_t *)XMP_SIG, sizeof XMP_SIG, m->xmp, m->xmp_len, 0);
    if (!r && meta_icc_fits(m, c)) {
        const size_t piece = SEG_MAX - ICC_HDR, count = (m->icc_len + piece - 1) / piece;
        for (size_t k = 0; !r && k < count && count <= 255; k++) {
            uint8_t hdr[ICC_HDR];
            memcpy(hdr, ICC_SIG, 12);
            hdr[12] = (uint8_t)(k + 1);
            hdr[13] = (uint8_t)count;
            const size_t off = k * piece, dn = m->icc_len - off < piece ? m->icc_len - off : piece;
            r = emit(arg, 0xE2, hdr, ICC_HDR, m->icc + off, dn, 0);
        }
    }
    /* the signature, then one resource: "8BIM", 0x0404, no name, the size, the data padded to even */
    uint8_t app13[sizeof PS_SIG + 12];
    if (!r && m->iptc && sizeof app13 + m->iptc_len + (m->iptc_len & 1) <= SEG_MAX) {
        memcpy(app13, PS_SIG, sizeof PS_SIG);
        memcpy(app13 + sizeof PS_SIG, "8BIM\x04\x04\0\0", 8);
        put32(app13 + sizeof PS_SIG + 8, (uint32_t)m->iptc_len, 1);
        r = emit(arg, 0xED, app13, sizeof app13, m->iptc, m->iptc_len, m->iptc_len & 1);
    }
    if (!r && m->comment && m->comment_len <= SEG_MAX)
        r = emit(arg, 0xFE, NULL, 0, m->comment, m->comment_len, 0);
    return r;
}

static int put_segment(void *arg, int marker, const uint8_t *hdr, size_t hn, const uint8_t *data, size_t dn,
                       size_t pad)
{
    FILE *fp = arg;
    const size_t n = hn + dn + pad + 2;
    const uint8_t head[4] = { 0xFF, (uint8_t)marker, (uint8_t)(n >> 8), (uint8_t)n }, zero[1] = { 0 };
    return fwrite(head, 1, 4, fp) != 4 || fwrite(hdr, 1, hn, fp) != hn || fwrite(data, 1, dn, fp) != dn
        || fwrite(zero, 1, pad, fp) != pad ? -1 : 0;
}

static unsigned density_value(double v) { return v < 1 ? 1 : v > 65535 ? 65535 : (unsigned)lround(v); }

int meta_jpeg_splice(FILE *fp, const uint8_t *jpg, size_t n, const struct io_meta *m, int c)
{
    if (n < 4 || jpg[0] != 0xFF || jpg[1] != 0xD8)
        return -1;
    size_t rest = 2;   /* where the encoder's own bytes go on: after its JFIF segment, if any */
    const uint8_t *jfif = NULL;
    if (n >= 20 && jpg[2] == 0xFF && jpg[3] == 0xE0 && !memcmp(jpg + 6, "JFIF\0", 5)) {
        const size_t seg = (size_t)jpg[4] << 8 | jpg[5];
        if (seg >= 16 && seg <= n - 4) {
            jfif = jpg + 6;
            rest = 4 + seg;
        }
    }
    uint8_t app0[14] = { 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0 };
    if (jfif)
        memcpy(app0, jfif, sizeof app0);
    if (m->density) {
        const unsigned x = density_value(m->xres), y = density_value(m->yres);
        app0[7] = 1;
        app0[8] = (uint8_t)(x >> 8);
        app0[9] = (uint8_t)x;
        app0[10] = (uint8_t)(y >> 8);
        app0[11] = (uint8_t)y;
    }
    if (fwrite(jpg, 1, 2, fp) != 2 || ((jfif || m->density) && put_segment(fp, 0xE0, app0, sizeof app0, NULL, 0, 0))
        || meta_jpeg_segments(m, c, put_segment, fp) || fwrite(jpg + rest, 1, n - rest, fp) != n - rest)
        return -1;
    return 0;
}
