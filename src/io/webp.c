/* gpuimg: WebP in and out (webp.h). */
#include <config.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "io/formats.h"
#include "io/meta.h"
#include "io/webp.h"
#ifdef HAVE_WEBP
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/demux.h>
#include <webp/mux.h>

static const char *status_text(VP8StatusCode s)
{
    switch (s) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "corrupt data";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "a feature libwebp does not decode";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "the file ends before its image does";
    default: return "cannot decode";
    }
}

int webp_info(const char *name, const uint8_t *buf, size_t len, struct geom *g, int *frames)
{
    WebPBitstreamFeatures f;
    const VP8StatusCode s = WebPGetFeatures(buf, len, &f);
    if (s != VP8_STATUS_OK)
        return gpuimg_fail(GPUIMG_EDECODE, "%s: invalid WebP: %s", name, status_text(s));
    *frames = 1;
    if (f.has_animation) {   /* the canvas and the frame count, from the demuxer */
        const WebPData d = { buf, len };
        WebPDemuxer *dm = WebPDemux(&d);
        if (!dm)
            return gpuimg_fail(GPUIMG_EDECODE, "%s: invalid WebP: an animation libwebpdemux cannot read", name);
        f.width = (int)WebPDemuxGetI(dm, WEBP_FF_CANVAS_WIDTH);
        f.height = (int)WebPDemuxGetI(dm, WEBP_FF_CANVAS_HEIGHT);
        f.has_alpha = 1;
        *frames = (int)WebPDemuxGetI(dm, WEBP_FF_FRAME_COUNT);
        WebPDemuxDelete(dm);
        if (*frames < 1)
            return gpuimg_fail(GPUIMG_EDECODE, "%s: invalid WebP: an animation of no frames", name);
    }
    if (f.width <= 0 || f.height <= 0)
        return gpuimg_fail(GPUIMG_EDECODE, "%s: invalid WebP: a %dx%d image", name, f.width, f.height);
    *g = (struct geom){ f.width, f.height, f.has_alpha ? 4 : 3, 8 };
    return GPUIMG_OK;
}

/* An animation's first frame, composed on its canvas, into out (g: RGBA, the canvas) */
static int first_frame(const char *name, const uint8_t *buf, size_t len, const struct geom *g, struct image *out)
{
    WebPAnimDecoderOptions o;
    if (!WebPAnimDecoderOptionsInit(&o))
        return gpuimg_fail(GPUIMG_EINTERNAL, "%s: libwebpdemux's version differs from its header's", name);
    o.color_mode = MODE_RGBA;
    o.use_threads = 0;
    const WebPData d = { buf, len };
    WebPAnimDecoder *a = WebPAnimDecoderNew(&d, &o);
    WebPAnimInfo info;
    uint8_t *px = NULL;
    int ts = 0, st = GPUIMG_OK;
    if (!a || !WebPAnimDecoderGetInfo(a, &info) || (int)info.canvas_width != g->w || (int)info.canvas_height != g->h
        || !WebPAnimDecoderGetNext(a, &px, &ts) || !px)
        st = gpuimg_fail(GPUIMG_EDECODE, "%s: cannot decode WebP: the animation's first frame does not decode", name);
    else if (!(st = image_alloc(out, g)))
        for (int y = 0; y < g->h; y++)
            memcpy(out->data + (size_t)y * out->stride, px + (size_t)y * g->w * 4, (size_t)g->w * 4);
    WebPAnimDecoderDelete(a);
    return st;
}

int webp_decode(const char *name, const uint8_t *buf, size_t len, const struct geom *g, struct image *out)
{
    WebPBitstreamFeatures f;
    if (WebPGetFeatures(buf, len, &f) == VP8_STATUS_OK && f.has_animation)
        return first_frame(name, buf, len, g, out);
    int st = image_alloc(out, g);
    if (st)
        return st;
    const size_t size = out->stride * (size_t)out->h;
    const uint8_t *r = g->c == 4 ? WebPDecodeRGBAInto(buf, len, out->data, size, (int)out->stride)
                                 : WebPDecodeRGBInto(buf, len, out->data, size, (int)out->stride);
    if (r)
        return GPUIMG_OK;
    image_free(out);
    /* the reason, from the incremental decoder's status on the same bytes */
    WebPDecoderConfig c;
    VP8StatusCode s = VP8_STATUS_BITSTREAM_ERROR;
    if (WebPInitDecoderConfig(&c)) {
        s = WebPDecode(buf, len, &c);
        WebPFreeDecBuffer(&c.output);
    }
    return gpuimg_fail(GPUIMG_EDECODE, "%s: cannot decode WebP: %s", name, status_text(s == VP8_STATUS_OK ? VP8_STATUS_BITSTREAM_ERROR : s));
}

static int take_chunk(WebPMux *mux, const char *id, uint8_t **p, size_t *n)
{
    WebPData d;
    if (WebPMuxGetChunk(mux, id, &d) != WEBP_MUX_OK || !d.size)
        return GPUIMG_OK;
    const uint8_t *b = d.bytes;
    size_t len = d.size;
    if (!strcmp(id, "EXIF") && len > 6 && !memcmp(b, "Exif\0\0", 6)) {   /* some writers keep JPEG's prefix */
        b += 6;
        len -= 6;
    }
    if (!(*p = malloc(len)))
        return GPUIMG_ENOMEM;
    memcpy(*p, b, len);
    *n = len;
    return GPUIMG_OK;
}

int webp_meta(const uint8_t *buf, size_t len, struct io_meta *m)
{
    memset(m, 0, sizeof *m);
    const WebPData d = { buf, len };
    WebPMux *mux = WebPMuxCreate(&d, 0);
    if (!mux)
        return GPUIMG_OK;
    int st = take_chunk(mux, "ICCP", &m->icc, &m->icc_len);
    if (!st)
        st = take_chunk(mux, "EXIF", &m->exif, &m->exif_len);
    if (!st)
        st = take_chunk(mux, "XMP ", &m->xmp, &m->xmp_len);
    WebPMuxDelete(mux);
    if (st)
        meta_free(m);
    else
        meta_found_exif(m);
    return st ? gpuimg_fail(st, "out of memory for the image's metadata") : GPUIMG_OK;
}

/* RGB or RGBA 8-bit rows from a grey or 16-bit layout (8-bit RGB and RGBA are imported as they
 * are) */
static uint8_t *rgb8(const struct image *im, int out_c)
{
    uint8_t *b = malloc((size_t)im->w * im->h * out_c);
    if (!b)
        return NULL;
    for (int y = 0; y < im->h; y++) {
        const uint8_t *s = im->data + (size_t)y * im->stride;
        uint8_t *d = b + (size_t)y * im->w * out_c;
        for (int x = 0; x < im->w; x++)
            for (int k = 0; k < out_c; k++) {
                const int from = im->c <= 2 ? (k < 3 ? 0 : 1) : k;   /* grey to R, G and B; its alpha last */
                const size_t i = (size_t)x * im->c + from;
                d[(size_t)x * out_c + k] =
                    im->depth == 16 ? (uint8_t)((((const uint16_t *)s)[i] + 128u) / 257u) : s[i];
            }
    }
    return b;
}

/* The simple API's settings (WebPEncodeRGB and its kin: the default preset at the quality, or
 * lossless at 70 with ARGB input) through the advanced API, which adds libwebp's threads. */
static size_t encode(const struct image *im, int quality, int lossless, int effort, uint8_t **enc)
{
    const int c = im->c == 2 || im->c == 4 ? 4 : 3;
    const int as_is = im->depth == 8 && im->c == c;
    uint8_t *rgb = as_is ? im->data : rgb8(im, c);
    const int stride = as_is ? (int)im->stride : im->w * c;
    WebPConfig cfg;
    WebPPicture pic;
    WebPMemoryWriter wr;
    int ok = rgb && WebPConfigPreset(&cfg, WEBP_PRESET_DEFAULT, lossless ? 70.0f : (float)quality) && WebPPictureInit(&pic);
    WebPMemoryWriterInit(&wr);
    if (ok) {
        cfg.lossless = !!lossless;
        cfg.method = effort;
        cfg.thread_level = 1;
        pic.use_argb = !!lossless;
        pic.width = im->w;
        pic.height = im->h;
        pic.writer = WebPMemoryWrite;
        pic.custom_ptr = &wr;
        ok = (c == 4 ? WebPPictureImportRGBA(&pic, rgb, stride) : WebPPictureImportRGB(&pic, rgb, stride))
             && WebPEncode(&cfg, &pic);
        WebPPictureFree(&pic);
    }
    if (!as_is)
        free(rgb);
    if (!ok) {
        WebPMemoryWriterClear(&wr);
        return 0;
    }
    *enc = wr.mem;
    return wr.size;
}

int webp_encode(FILE *fp, const char *name, const struct image *im, int quality, int lossless, int effort,
                const struct io_meta *meta)
{
    uint8_t *enc = NULL;
    const size_t n = encode(im, quality, lossless, effort, &enc);
    if (!n)
        return gpuimg_fail(GPUIMG_EENCODE, "%s: WebP encoder (libwebp) failed", name);
    WebPData out = { enc, n };
    WebPMux *mux = NULL;
    const int icc = meta && meta_icc_fits(meta, 3), exif = meta && meta->exif, xmp = meta && meta->xmp;
    int st = GPUIMG_OK;
    if (icc || exif || xmp) {   /* the chunks go in through libwebpmux, which writes the VP8X header they need */
        const WebPData image = { enc, n }, p = { icc ? meta->icc : NULL, icc ? meta->icc_len : 0 },
                       e = { exif ? meta->exif : NULL, exif ? meta->exif_len : 0 },
                       x = { xmp ? meta->xmp : NULL, xmp ? meta->xmp_len : 0 };
        mux = WebPMuxNew();
        if (!mux || WebPMuxSetImage(mux, &image, 0) != WEBP_MUX_OK || (icc && WebPMuxSetChunk(mux, "ICCP", &p, 0) != WEBP_MUX_OK)
            || (exif && WebPMuxSetChunk(mux, "EXIF", &e, 0) != WEBP_MUX_OK)
            || (xmp && WebPMuxSetChunk(mux, "XMP ", &x, 0) != WEBP_MUX_OK) || WebPMuxAssemble(mux, &out) != WEBP_MUX_OK)
            st = gpuimg_fail(GPUIMG_EENCODE, "%s: WebP metadata (libwebpmux) failed", name);
    }
    if (!st && fwrite(out.bytes, 1, out.size, fp) != out.size)
        st = gpuimg_write_error(name, errno);
    if (mux) {
        WebPDataClear(&out);
        WebPMuxDelete(mux);
    }
    WebPFree(enc);
    return st;
}

const char *webp_codec_name(void)
{
    static _Thread_local char name[32];
    const int v = WebPGetDecoderVersion();
    snprintf(name, sizeof name, "libwebp %d.%d.%d", (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff);
    return name;
}
#else
static int refuse(const char *name) { return kind_unbuilt(name, KIND_WEBP, "libwebp", "libwebp-dev"); }
int webp_info(const char *name, const uint8_t *buf, size_t len, struct geom *g, int *frames) { return refuse(name); }
int webp_decode(const char *name, const uint8_t *buf, size_t len, const struct geom *g, struct image *out)
{
    return refuse(name);
}
int webp_meta(const uint8_t *buf, size_t len, struct io_meta *m)
{
    memset(m, 0, sizeof *m);
    return GPUIMG_OK;
}
int webp_encode(FILE *fp, const char *name, const struct image *im, int quality, int lossless, int effort,
                const struct io_meta *meta)
{
    return refuse(name);
}
const char *webp_codec_name(void) { return NULL; }
#endif
