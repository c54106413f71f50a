/* gpuimg: HEIF and AVIF in and out (heif.h). */
#include <config.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/dynlib.h"
#include "core/error.h"
#include "io/formats.h"
#include "io/heif.h"
#include "io/meta.h"
#ifdef HAVE_HEIF
#include <libheif/heif.h>

/* the library's functions, loaded at its first use (core/dynlib.h) */
#define LH_FNS(X) \
    X(heif_context_add_XMP_metadata) X(heif_context_add_exif_metadata) X(heif_context_alloc) \
    X(heif_context_encode_image) X(heif_context_free) X(heif_context_get_encoder_for_format) \
    X(heif_context_get_primary_image_handle) X(heif_context_read_from_memory_without_copy) \
    X(heif_context_write) X(heif_decode_image) X(heif_encoder_get_name) X(heif_encoder_release) \
    X(heif_encoder_set_lossy_quality) X(heif_encoder_set_parameter_integer) \
    X(heif_encoder_set_parameter_string) X(heif_get_version) X(heif_have_encoder_for_format) \
    X(heif_image_add_plane) X(heif_image_create) X(heif_image_get_bits_per_pixel_range) \
    X(heif_image_get_height) X(heif_image_get_plane) X(heif_image_get_plane_readonly) \
    X(heif_image_get_width) X(heif_image_handle_get_height) \
    X(heif_image_handle_get_list_of_metadata_block_IDs) X(heif_image_handle_get_luma_bits_per_pixel) \
    X(heif_image_handle_get_metadata) X(heif_image_handle_get_metadata_content_type) \
    X(heif_image_handle_get_metadata_size) X(heif_image_handle_get_raw_color_profile) \
    X(heif_image_handle_get_raw_color_profile_size) X(heif_image_handle_get_width) \
    X(heif_image_handle_has_alpha_channel) X(heif_image_handle_release) X(heif_image_release) \
    X(heif_image_set_raw_color_profile)
DYNLIB_TABLE(lh, HEIF_SONAME, "HEIF", LH_FNS);

/* The primary image's handle of buf; on failure nothing is left to free, and the error's message
 * (libheif's own lives in the context) copied to this thread's buffer first */
static struct heif_error open_primary(const uint8_t *buf, size_t len, struct heif_context **ctx,
                                      struct heif_image_handle **h)
{
    static const struct heif_error nomem = { heif_error_Memory_allocation_error, heif_suberror_Unspecified,
                                             "out of memory" };
    *h = NULL;
    if (!(*ctx = lh.heif_context_alloc()))
        return nomem;
    struct heif_error e = lh.heif_context_read_from_memory_without_copy(*ctx, buf, len, NULL);
    if (!e.code)
        e = lh.heif_context_get_primary_image_handle(*ctx, h);
    if (e.code) {
        static _Thread_local char msg[256];
        snprintf(msg, sizeof msg, "%s", e.message ? e.message : "unknown error");
        e.message = msg;
        lh.heif_context_free(*ctx);
        *ctx = NULL;
    }
    return e;
}

static int fail(const char *name, const char *what, struct heif_error e)
{
    return gpuimg_fail(e.code == heif_error_Memory_allocation_error ? GPUIMG_ENOMEM : GPUIMG_EDECODE, "%s: %s: %s",
                       name, what, e.message);
}

static void close_primary(struct heif_context *ctx, struct heif_image_handle *h)
{
    lh.heif_image_handle_release(h);
    lh.heif_context_free(ctx);
}

int heif_need(const char *name) { return dynlib_need(&lh_lib, name); }

int heif_info(const char *name, const uint8_t *buf, size_t len, struct geom *g)
{
    if (heif_need(name))
        return GPUIMG_EUNSUPPORTED;
    struct heif_context *ctx;
    struct heif_image_handle *h;
    const struct heif_error e = open_primary(buf, len, &ctx, &h);
    if (e.code)
        return fail(name, "invalid HEIF", e);
    const int w = lh.heif_image_handle_get_width(h), ht = lh.heif_image_handle_get_height(h);
    const int bits = lh.heif_image_handle_get_luma_bits_per_pixel(h);
    *g = (struct geom){ w, ht, lh.heif_image_handle_has_alpha_channel(h) ? 4 : 3, bits > 8 ? 16 : 8 };
    close_primary(ctx, h);
    if (w <= 0 || ht <= 0)
        return gpuimg_fail(GPUIMG_EDECODE, "%s: invalid HEIF: a %dx%d image", name, w, ht);
    if (bits < 1 || bits > 16)
        return gpuimg_fail(GPUIMG_EUNSUPPORTED, "%s: a HEIF of %d-bit samples", name, bits);
    return GPUIMG_OK;
}

int heif_decode(const char *name, const uint8_t *buf, size_t len, const struct geom *g, struct image *out)
{
    if (heif_need(name))
        return GPUIMG_EUNSUPPORTED;
    struct heif_context *ctx;
    struct heif_image_handle *h;
    struct heif_error e = open_primary(buf, len, &ctx, &h);
    if (e.code)
        return fail(name, "invalid HEIF", e);
    int st = GPUIMG_OK;
    const int hdr = g->depth == 16;
    const enum heif_chroma chroma = g->c == 4 ? hdr ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RGBA
                                              : hdr ? heif_chroma_interleaved_RRGGBB_LE : heif_chroma_interleaved_RGB;
    struct heif_image *im = NULL;
    e = lh.heif_decode_image(h, &im, heif_colorspace_RGB, chroma, NULL);
    if (e.code) {
        st = fail(name, "cannot decode HEIF", e);   /* before the context that holds the message goes */
        close_primary(ctx, h);
        return st;
    }
    int stride = 0;
    const uint8_t *p = lh.heif_image_get_plane_readonly(im, heif_channel_interleaved, &stride);
    const int bits = lh.heif_image_get_bits_per_pixel_range(im, heif_channel_interleaved);
    if (!p || lh.heif_image_get_width(im, heif_channel_interleaved) != g->w
        || lh.heif_image_get_height(im, heif_channel_interleaved) != g->h || bits < 1 || bits > 16)
        st = gpuimg_fail(GPUIMG_EDECODE, "%s: corrupt HEIF: the image decoded is not the one its header describes", name);
    if (!st)
        st = image_alloc(out, g);
    if (!st) {
        const size_t row = (size_t)g->w * g->c;
        const uint32_t top = (1u << bits) - 1;
        for (int y = 0; y < g->h; y++) {
            const uint8_t *s = p + (size_t)y * stride;
            uint8_t *d = out->data + (size_t)y * out->stride;
            if (!hdr) {
                memcpy(d, s, row);
                continue;
            }
            for (size_t i = 0; i < row; i++) {   /* little-endian samples of `bits` bits to 16 */
                const uint32_t v = (uint32_t)s[2 * i] | (uint32_t)s[2 * i + 1] << 8;
                ((uint16_t *)d)[i] = (uint16_t)(((v > top ? top : v) * 65535u + top / 2) / top);
            }
        }
    }
    lh.heif_image_release(im);
    close_primary(ctx, h);
    return st;
}

int heif_meta(const uint8_t *buf, size_t len, struct io_meta *m)
{
    memset(m, 0, sizeof *m);
    if (!dynlib_load(&lh_lib))
        return GPUIMG_OK;
    struct heif_context *ctx;
    struct heif_image_handle *h;
    if (open_primary(buf, len, &ctx, &h).code)
        return GPUIMG_OK;
    int st = GPUIMG_OK;
    const size_t icc = lh.heif_image_handle_get_raw_color_profile_size(h);
    if (icc && icc <= META_ICC_MAX && (m->icc = malloc(icc))) {
        if (lh.heif_image_handle_get_raw_color_profile(h, m->icc).code) {
            free(m->icc);
            m->icc = NULL;
        } else {
            m->icc_len = icc;
        }
    } else if (icc && icc <= META_ICC_MAX) {
        st = GPUIMG_ENOMEM;
    }
    heif_item_id id;
    if (!st && lh.heif_image_handle_get_list_of_metadata_block_IDs(h, "Exif", &id, 1) == 1) {
        /* a 4-byte offset to the TIFF header, then the block */
        const size_t n = lh.heif_image_handle_get_metadata_size(h, id);
        uint8_t *b = n > 4 && n <= META_EXIF_MAX ? malloc(n) : NULL;
        if (b && !lh.heif_image_handle_get_metadata(h, id, b).code)
            st = meta_exif_item(m, b, n);
        free(b);
    }
    heif_item_id ids[16];
    const int nx = st ? 0 : lh.heif_image_handle_get_list_of_metadata_block_IDs(h, "mime", ids, 16);
    for (int i = 0; i < nx && !m->xmp; i++) {
        const char *type = lh.heif_image_handle_get_metadata_content_type(h, ids[i]);
        const size_t n = lh.heif_image_handle_get_metadata_size(h, ids[i]);
        if (!type || strcmp(type, "application/rdf+xml") || !n || n > META_XMP_MAX)
            continue;
        if (!(m->xmp = malloc(n)))
            st = GPUIMG_ENOMEM;
        else if (lh.heif_image_handle_get_metadata(h, ids[i], m->xmp).code) {
            free(m->xmp);
            m->xmp = NULL;
        } else
            m->xmp_len = n;
    }
    close_primary(ctx, h);
    if (st) {
        meta_free(m);
        return gpuimg_fail(st, "out of memory for the image's metadata");
    }
    meta_found_exif(m);
    if (m->orient_at)   /* the container's turns were applied: EXIF's must not turn it again */
        meta_upright(m, 1);
    return GPUIMG_OK;
}

/* RGB or RGBA 8-bit rows from a grey or 16-bit layout into the image's interleaved plane */
static void fill(struct heif_image *hi, const struct image *im, int c)
{
    int stride = 0;
    uint8_t *d0 = lh.heif_image_get_plane(hi, heif_channel_interleaved, &stride);
    for (int y = 0; y < im->h; y++) {
        const uint8_t *s = im->data + (size_t)y * im->stride;
        uint8_t *d = d0 + (size_t)y * stride;
        for (int x = 0; x < im->w; x++)
            for (int k = 0; k < c; k++) {
                const int from = im->c <= 2 ? (k < 3 ? 0 : 1) : k;   /* grey to R, G and B; its alpha last */
                const size_t i = (size_t)x * im->c + from;
                d[(size_t)x * c + k] = im->depth == 16 ? (uint8_t)((((const uint16_t *)s)[i] + 128u) / 257u) : s[i];
            }
    }
}

static struct heif_error file_write(struct heif_context *ctx, const void *data, size_t size, void *arg)
{
    (void)ctx;
    struct heif_error e = { heif_error_Ok, heif_suberror_Unspecified, "" };
    if (fwrite(data, 1, size, arg) != size) {
        e.code = heif_error_Encoding_error;
        e.subcode = heif_suberror_Cannot_write_output_data;
        e.message = "write error";
    }
    return e;
}

int heif_encode(FILE *fp, const char *name, const struct image *im, int avif, int quality, int effort,
                const struct io_meta *meta)
{
    if (heif_need(name))
        return GPUIMG_EUNSUPPORTED;
    const int c = im->c == 2 || im->c == 4 ? 4 : 3;
    struct heif_context *ctx = lh.heif_context_alloc();
    struct heif_encoder *enc = NULL;
    struct heif_image *hi = NULL;
    struct heif_image_handle *h = NULL;
    const char *what = "libheif";
    struct heif_error e = { heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory" };
    if (ctx)
        e = lh.heif_context_get_encoder_for_format(ctx, avif ? heif_compression_AV1 : heif_compression_HEVC, &enc);
    if (!e.code) {
        what = lh.heif_encoder_get_name(enc);
        e = lh.heif_image_create(im->w, im->h, heif_colorspace_RGB,
                              c == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, &hi);
    }
    if (!e.code)
        e = lh.heif_image_add_plane(hi, heif_channel_interleaved, im->w, im->h, 8);
    if (!e.code) {
        fill(hi, im, c);
        if (meta && meta_icc_fits(meta, 3))
            e = lh.heif_image_set_raw_color_profile(hi, "prof", meta->icc, meta->icc_len);
    }
    if (!e.code)
        e = lh.heif_encoder_set_lossy_quality(enc, quality);
    if (!e.code) {   /* effort: aom's speed is 9 less it; x265's preset from ultrafast (0) to placebo
                        (8, 9), medium (4, x265's own) between */
        static const char *const preset[10] = { "ultrafast", "superfast", "veryfast", "faster", "medium",
                                                "slow", "slower", "veryslow", "placebo", "placebo" };
        if (avif)
            lh.heif_encoder_set_parameter_integer(enc, "speed", 9 - effort);
        else
            lh.heif_encoder_set_parameter_string(enc, "preset", preset[effort < 0 ? 0 : effort > 9 ? 9 : effort]);
        lh.heif_encoder_set_parameter_string(enc, "chroma", "420");
        e = lh.heif_context_encode_image(ctx, hi, enc, NULL, &h);
    }
    if (!e.code && meta && meta->exif && meta->exif_len)
        e = lh.heif_context_add_exif_metadata(ctx, h, meta->exif, (int)meta->exif_len);
    if (!e.code && meta && meta->xmp && meta->xmp_len <= INT32_MAX)
        e = lh.heif_context_add_XMP_metadata(ctx, h, meta->xmp, (int)meta->xmp_len);
    int st = GPUIMG_OK;
    if (!e.code) {
        struct heif_writer w = { 1, file_write };
        e = lh.heif_context_write(ctx, &w, fp);
        if (e.code && e.subcode == heif_suberror_Cannot_write_output_data)
            st = gpuimg_write_error(name, errno);
    }
    if (e.code && !st)
        st = gpuimg_fail(GPUIMG_EENCODE, "%s: %s encoder (%s) failed: %s", name, avif ? "AVIF" : "HEIC",
                         what ? what : "libheif", e.message);
    lh.heif_image_handle_release(h);
    lh.heif_image_release(hi);
    if (enc)
        lh.heif_encoder_release(enc);
    if (ctx)
        lh.heif_context_free(ctx);
    return st;
}

static char heif_name[32];
static void heif_name_once(void) { snprintf(heif_name, sizeof heif_name, "libheif %s", lh.heif_get_version()); }

const char *heif_codec_name(void)
{
    if (!dynlib_load(&lh_lib))
        return "libheif (cannot be loaded)";
    static pthread_once_t once = PTHREAD_ONCE_INIT;   /* the server's workers ask at once */
    pthread_once(&once, heif_name_once);
    return heif_name;
}

int heif_can_write(int avif)
{
    return dynlib_load(&lh_lib) && lh.heif_have_encoder_for_format(avif ? heif_compression_AV1 : heif_compression_HEVC);
}
#else
static int refuse(const char *name) { return kind_unbuilt(name, KIND_HEIF, "libheif", "libheif-dev"); }
int heif_need(const char *name) { return refuse(name); }
int heif_info(const char *name, const uint8_t *buf, size_t len, struct geom *g) { return refuse(name); }
int heif_decode(const char *name, const uint8_t *buf, size_t len, const struct geom *g, struct image *out)
{
    return refuse(name);
}
int heif_meta(const uint8_t *buf, size_t len, struct io_meta *m)
{
    memset(m, 0, sizeof *m);
    return GPUIMG_OK;
}
int heif_encode(FILE *fp, const char *name, const struct image *im, int avif, int quality, int effort,
                const struct io_meta *meta)
{
    return refuse(name);
}
const char *heif_codec_name(void) { return NULL; }
int heif_can_write(int avif) { return 0; }
#endif
