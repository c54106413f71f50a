/* gpuimg: JPEG XL in and out (jxl.h). */
#include <config.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/dynlib.h"
#include "core/error.h"
#include "io/formats.h"
#include "io/jxl.h"
#include "io/meta.h"
#ifdef HAVE_JXL
#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>

/* libjxl's and libjxl_threads' functions, loaded at their first use (core/dynlib.h) */
#define LJ_FNS(X) \
    X(JxlColorEncodingSetToSRGB) X(JxlDecoderCreate) X(JxlDecoderDestroy) X(JxlDecoderGetBasicInfo) \
    X(JxlDecoderGetBoxType) X(JxlDecoderGetColorAsEncodedProfile) X(JxlDecoderGetColorAsICCProfile) \
    X(JxlDecoderGetExtraChannelInfo) X(JxlDecoderGetICCProfileSize) X(JxlDecoderImageOutBufferSize) \
    X(JxlDecoderProcessInput) X(JxlDecoderReleaseBoxBuffer) X(JxlDecoderSetBoxBuffer) \
    X(JxlDecoderSetDecompressBoxes) X(JxlDecoderSetImageOutBuffer) X(JxlDecoderSetInput) \
    X(JxlDecoderSetKeepOrientation) X(JxlDecoderSetParallelRunner) X(JxlDecoderSetPreferredColorProfile) \
    X(JxlDecoderSetUnpremultiplyAlpha) X(JxlDecoderSubscribeEvents) X(JxlDecoderVersion) \
    X(JxlEncoderAddBox) X(JxlEncoderAddImageFrame) X(JxlEncoderCloseInput) X(JxlEncoderCreate) \
    X(JxlEncoderDestroy) X(JxlEncoderFrameSettingsCreate) X(JxlEncoderFrameSettingsSetOption) \
    X(JxlEncoderGetError) X(JxlEncoderInitBasicInfo) X(JxlEncoderProcessOutput) X(JxlEncoderReset) \
    X(JxlEncoderSetBasicInfo) X(JxlEncoderSetColorEncoding) X(JxlEncoderSetFrameDistance) \
    X(JxlEncoderSetFrameLossless) X(JxlEncoderSetICCProfile) X(JxlEncoderSetParallelRunner) \
    X(JxlEncoderUseBoxes)
DYNLIB_TABLE(lj, JXL_SONAME, "JPEG XL", LJ_FNS);
#define LJT_FNS(X) \
    X(JxlThreadParallelRunner) X(JxlThreadParallelRunnerCreate) X(JxlThreadParallelRunnerDestroy)
DYNLIB_TABLE(ljt, JXL_THREADS_SONAME, "JPEG XL", LJT_FNS);

int jxl_need(const char *name)
{
    const int st = dynlib_need(&lj_lib, name);
    return st ? st : dynlib_need(&ljt_lib, name);
}
static int jxl_loaded(void) { return dynlib_load(&lj_lib) && dynlib_load(&ljt_lib); }

/* ---- reading --------------------------------------------------------------------------------- */

/* A decoder over buf, on threads threads. Its input is never closed: libjxl 0.7 prints a line
 * on stderr for a closed input that ends early, and says JXL_DEC_NEED_MORE_INPUT otherwise, where
 * the file, or the head given, ends. */
struct dec {
    JxlDecoder *d;
    void *runner;
};

static int dec_open(struct dec *x, const char *name, const uint8_t *buf, size_t len, int events, int threads)
{
    x->runner = NULL;
    if (!(x->d = lj.JxlDecoderCreate(NULL)))
        return gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory for libjxl's decoder", name);
    if (threads > 1 && (x->runner = ljt.JxlThreadParallelRunnerCreate(NULL, (size_t)threads))
        && lj.JxlDecoderSetParallelRunner(x->d, ljt.JxlThreadParallelRunner, x->runner) != JXL_DEC_SUCCESS)
        return gpuimg_fail(GPUIMG_EINTERNAL, "%s: libjxl refused its thread runner", name);
    /* the orientation applied (libjxl's default, said here), associated alpha made straight */
    if (lj.JxlDecoderSubscribeEvents(x->d, events) != JXL_DEC_SUCCESS
        || lj.JxlDecoderSetKeepOrientation(x->d, JXL_FALSE) != JXL_DEC_SUCCESS
        || lj.JxlDecoderSetUnpremultiplyAlpha(x->d, JXL_TRUE) != JXL_DEC_SUCCESS
        || lj.JxlDecoderSetInput(x->d, buf, len) != JXL_DEC_SUCCESS)
        return gpuimg_fail(GPUIMG_EINTERNAL, "%s: libjxl refused the decoder's settings", name);
    return GPUIMG_OK;
}

static void dec_close(struct dec *x)
{
    if (x->d)
        lj.JxlDecoderDestroy(x->d);
    if (x->runner)
        ljt.JxlThreadParallelRunnerDestroy(x->runner);
}

/* Pixels of an XYB-coded image whose colour space is an ICC profile come as sRGB: libjxl's own
 * choice there is linear sRGB, too coarse in 8 bits, and it converts to no ICC profile. Others
 * come in their own space (the profile, or the colour encoding it names). */
static void prefer_srgb(JxlDecoder *d, const JxlBasicInfo *info)
{
    JxlColorEncoding ce;
    if (info->uses_original_profile
        || lj.JxlDecoderGetColorAsEncodedProfile(d, NULL, JXL_COLOR_PROFILE_TARGET_ORIGINAL, &ce) == JXL_DEC_SUCCESS)
        return;
    lj.JxlColorEncodingSetToSRGB(&ce, info->num_color_channels == 1);
    lj.JxlDecoderSetPreferredColorProfile(d, &ce);
}

static int is_srgb(const JxlColorEncoding *ce)
{
    return (ce->color_space == JXL_COLOR_SPACE_GRAY
            || (ce->color_space == JXL_COLOR_SPACE_RGB && ce->primaries == JXL_PRIMARIES_SRGB))
        && ce->white_point == JXL_WHITE_POINT_D65 && ce->transfer_function == JXL_TRANSFER_FUNCTION_SRGB;
}

/* The profile of the pixels decoded, where they are not plain sRGB: the file's own, or the one
 * libjxl makes for the colour encoding it names (Display P3, linear, PQ...) */
static int take_icc(JxlDecoder *d, struct io_meta *m)
{
    JxlColorEncoding ce;
    size_t n = 0;
    if ((lj.JxlDecoderGetColorAsEncodedProfile(d, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &ce) == JXL_DEC_SUCCESS
         && is_srgb(&ce))
        || lj.JxlDecoderGetICCProfileSize(d, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &n) != JXL_DEC_SUCCESS || !n
        || n > META_ICC_MAX)
        return GPUIMG_OK;
    if (!(m->icc = malloc(n)))
        return GPUIMG_ENOMEM;
    if (lj.JxlDecoderGetColorAsICCProfile(d, NULL, JXL_COLOR_PROFILE_TARGET_DATA, m->icc, n) != JXL_DEC_SUCCESS) {
        free(m->icc);
        m->icc = NULL;
    } else {
        m->icc_len = n;
    }
    return GPUIMG_OK;
}

/* A metadata box being read: its bytes so far (n), the room handed to libjxl after them */
struct box {
    uint8_t *b;
    size_t n, given, cap, max;
    int kind;   /* 0: none being read, 1: EXIF, 2: XMP */
};

/* More room for the box: twice as much, up to its kind's bound, past which it is left out (no
 * room given: libjxl passes over the rest) */
static int box_room(JxlDecoder *d, struct box *x)
{
    if (x->given)
        x->n += x->given - lj.JxlDecoderReleaseBoxBuffer(d);
    x->given = 0;
    if (x->n == x->cap) {
        const size_t cap = x->cap >= x->max / 2 ? x->max : x->cap ? 2 * x->cap : 4096;
        uint8_t *b = x->n < x->max ? realloc(x->b, cap) : NULL;
        if (!b) {
            const int full = x->n >= x->max;
            free(x->b);
            *x = (struct box){ 0 };
            return full ? GPUIMG_OK : GPUIMG_ENOMEM;
        }
        x->b = b;
        x->cap = cap;
    }
    x->given = x->cap - x->n;
    lj.JxlDecoderSetBoxBuffer(d, x->b + x->n, x->given);
    return GPUIMG_OK;
}

/* The box read ends (the next one starts, or the file): its bytes into m */
static int box_end(JxlDecoder *d, struct box *x, struct io_meta *m)
{
    int st = GPUIMG_OK;
    if (x->given)
        x->n += x->given - lj.JxlDecoderReleaseBoxBuffer(d);
    if (x->kind == 1)
        st = meta_exif_item(m, x->b, x->n);
    if (x->kind == 2 && x->n) {
        m->xmp = x->b;
        m->xmp_len = x->n;
        x->b = NULL;
    }
    free(x->b);
    *x = (struct box){ 0 };
    return st;
}

/* A box starts: the first Exif and "xml " (Brotli's "brob" ones decompressed) are read */
static int box_start(JxlDecoder *d, struct box *x, const struct io_meta *m)
{
    JxlBoxType t;
    if (lj.JxlDecoderGetBoxType(d, t, JXL_TRUE) != JXL_DEC_SUCCESS)
        return GPUIMG_OK;
    x->kind = !memcmp(t, "Exif", 4) && !m->exif ? 1 : !memcmp(t, "xml ", 4) && !m->xmp ? 2 : 0;
    x->max = x->kind == 1 ? META_EXIF_MAX : META_XMP_MAX;
    return x->kind ? box_room(d, x) : GPUIMG_OK;
}

enum { WANT_FRAMES = 1, WANT_META = 2 };

/* What a walk over a file's headers found */
struct walk {
    JxlBasicInfo info;
    int have_info, have_colour, frames;
    int cut;   /* the bytes ended (a head, not the whole file) */
};

static int check_info(const char *name, JxlDecoder *d, const JxlBasicInfo *info)
{
    if (!info->xsize || !info->ysize || info->xsize > 1u << 30 || info->ysize > 1u << 30
        || (info->num_color_channels != 1 && info->num_color_channels != 3))
        return gpuimg_fail(GPUIMG_EDECODE, "%s: invalid JPEG XL: a %ux%u image of %u colour channels", name,
                           info->xsize, info->ysize, info->num_color_channels);
    for (uint32_t i = 0; i < info->num_extra_channels; i++) {
        JxlExtraChannelInfo e;
        if (lj.JxlDecoderGetExtraChannelInfo(d, i, &e) == JXL_DEC_SUCCESS && e.type == JXL_CHANNEL_BLACK)
            return gpuimg_fail(GPUIMG_EUNSUPPORTED, "%s: a CMYK JPEG XL (gpuimg reads grey and RGB ones)", name);
    }
    return GPUIMG_OK;
}

/* The headers of buf (whole: the file, else its first bytes): the basic information; with
 * WANT_FRAMES an animation's frames counted; with WANT_META the colour's profile and the metadata
 * boxes into m. Where the bytes end before libjxl is done, w->cut: the file's end where metadata
 * is read (libjxl cannot know that no box follows), else, in the whole file, an error. */
static int walk(const char *name, const uint8_t *buf, size_t len, int whole, unsigned want, struct walk *w,
                struct io_meta *m)
{
    memset(w, 0, sizeof *w);
    const int events = JXL_DEC_BASIC_INFO | (want & WANT_FRAMES ? JXL_DEC_FRAME : 0)
                       | (want & WANT_META ? JXL_DEC_COLOR_ENCODING | JXL_DEC_BOX : 0);
    struct dec x;
    struct box box = { 0 };
    int st = dec_open(&x, name, buf, len, events, 0);
    if (!st && (want & WANT_META))
        lj.JxlDecoderSetDecompressBoxes(x.d, JXL_TRUE);   /* without Brotli, "brob" boxes are passed over */
    for (int more = 1; !st && more;) {
        switch (lj.JxlDecoderProcessInput(x.d)) {
        case JXL_DEC_SUCCESS:
            more = 0;
            break;
        case JXL_DEC_NEED_MORE_INPUT:
            w->cut = 1;
            more = 0;
            if (whole && (!w->have_info || !(want & WANT_META)))
                st = gpuimg_fail(GPUIMG_EDECODE, "%s: truncated JPEG XL: the file ends %s", name,
                                 w->have_info ? "before its last frame" : "in its header");
            break;
        case JXL_DEC_BASIC_INFO:
            lj.JxlDecoderGetBasicInfo(x.d, &w->info);
            w->have_info = 1;
            st = check_info(name, x.d, &w->info);
            /* a still's geometry is all io_parse asks (its frames are decoded, and checked, later) */
            more = (want & WANT_META) || w->info.have_animation;
            break;
        case JXL_DEC_COLOR_ENCODING:
            prefer_srgb(x.d, &w->info);
            w->have_colour = 1;
            st = take_icc(x.d, m);
            break;
        case JXL_DEC_FRAME:
            w->frames++;
            break;
        case JXL_DEC_BOX:
            if (!(st = box_end(x.d, &box, m)))
                st = box_start(x.d, &box, m);
            break;
        case JXL_DEC_BOX_NEED_MORE_OUTPUT:
            st = box_room(x.d, &box);
            break;
        default:   /* JXL_DEC_ERROR */
            st = gpuimg_fail(GPUIMG_EDECODE, w->have_info ? "%s: corrupt JPEG XL: libjxl cannot read it past its header"
                                                          : "%s: invalid JPEG XL: libjxl cannot read its header", name);
        }
    }
    if (!st && (want & WANT_META))
        st = box_end(x.d, &box, m);
    free(box.b);
    dec_close(&x);
    if (st == GPUIMG_ENOMEM)
        return gpuimg_fail(st, "%s: out of memory for the image's metadata", name);
    if (!st && !w->have_info && !w->cut)
        st = gpuimg_fail(GPUIMG_EDECODE, "%s: invalid JPEG XL: no image header", name);
    return st;
}

/* The geometry gpuimg decodes info's image to */
static struct geom geom_of(const JxlBasicInfo *info)
{
    const int deep = info->bits_per_sample > 8 || info->exponent_bits_per_sample || info->alpha_bits > 8;
    return (struct geom){ (int)info->xsize, (int)info->ysize,
                          (info->num_color_channels == 1 ? 1 : 3) + (info->alpha_bits ? 1 : 0), deep ? 16 : 8 };
}

int jxl_info(const char *name, const uint8_t *buf, size_t len, struct geom *g, int *frames, unsigned *hold)
{
    if (jxl_need(name))
        return GPUIMG_EUNSUPPORTED;
    struct walk w;
    const int st = walk(name, buf, len, 1, WANT_FRAMES, &w, NULL);
    if (st)
        return st;
    *g = geom_of(&w.info);
    *frames = w.info.have_animation && w.frames > 1 ? w.frames : 1;
    *hold = (12 + 16 * w.info.num_extra_channels) * (w.info.have_animation ? 2 : 1);
    return GPUIMG_OK;
}

int jxl_decode(const char *name, const uint8_t *buf, size_t len, const struct geom *g, int threads,
               struct image *out)
{
    if (jxl_need(name))
        return GPUIMG_EUNSUPPORTED;
    struct dec x;
    JxlBasicInfo info = { 0 };
    const JxlPixelFormat pf = { (uint32_t)g->c, g->depth == 16 ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0 };
    int st = dec_open(&x, name, buf, len, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FULL_IMAGE, threads);
    for (int more = 1; !st && more;) {
        size_t need = 0;
        struct geom got;
        switch (lj.JxlDecoderProcessInput(x.d)) {
        case JXL_DEC_BASIC_INFO:
            lj.JxlDecoderGetBasicInfo(x.d, &info);
            got = geom_of(&info);
            if (memcmp(&got, g, sizeof got))
                st = gpuimg_fail(GPUIMG_EDECODE, "%s: corrupt JPEG XL: its header reads otherwise the second time", name);
            break;
        case JXL_DEC_COLOR_ENCODING:
            prefer_srgb(x.d, &info);
            break;
        case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
            if (!(st = image_alloc(out, g))
                && (lj.JxlDecoderImageOutBufferSize(x.d, &pf, &need) != JXL_DEC_SUCCESS || need != out->stride * (size_t)g->h
                    || lj.JxlDecoderSetImageOutBuffer(x.d, &pf, out->data, need) != JXL_DEC_SUCCESS))
                st = gpuimg_fail(GPUIMG_EINTERNAL, "%s: libjxl asks for another buffer than %dx%d pixels of %d channels", name,
                                 g->w, g->h, g->c);
            break;
        case JXL_DEC_FULL_IMAGE:   /* the first frame: an animation's others are not decoded */
            more = 0;
            break;
        case JXL_DEC_NEED_MORE_INPUT:
            st = gpuimg_fail(GPUIMG_EDECODE, "%s: truncated JPEG XL: the file ends before its image does", name);
            break;
        case JXL_DEC_SUCCESS:
            st = gpuimg_fail(GPUIMG_EDECODE, "%s: invalid JPEG XL: no frame to display", name);
            break;
        default:
            st = gpuimg_fail(GPUIMG_EDECODE, "%s: cannot decode JPEG XL: libjxl finds its data corrupt", name);
        }
    }
    dec_close(&x);
    if (st)
        image_free(out);
    return st;
}

/* m's EXIF orientation made 1: libjxl turned the pixels as the codestream says */
static void meta_done(struct io_meta *m)
{
    meta_found_exif(m);
    if (m->orient_at)
        meta_upright(m, 1);
}

int jxl_meta(const uint8_t *buf, size_t len, struct io_meta *m)
{
    memset(m, 0, sizeof *m);
    if (!jxl_loaded())
        return GPUIMG_OK;
    struct walk w;
    const int st = walk("", buf, len, 1, WANT_META, &w, m);
    if (st) {
        meta_free(m);
        if (st != GPUIMG_ENOMEM) {
            gpuimg_clear_error();
            return GPUIMG_OK;
        }
        return gpuimg_fail(st, "out of memory for the image's metadata");
    }
    meta_done(m);
    return GPUIMG_OK;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Whether a container's first len bytes (of size) hold every metadata box it has: each box
 * before its codestream's last box (jxlc, or the jxlp marked last) whole among them, and that box
 * ending the file */
static int boxes_in_head(const uint8_t *buf, size_t len, size_t size)
{
    for (size_t pos = 0; pos + 8 <= len;) {
        uint64_t n = be32(buf + pos);
        size_t h = 8;
        if (n == 1 && pos + 16 <= len) {
            n = (uint64_t)be32(buf + pos + 8) << 32 | be32(buf + pos + 12);
            h = 16;
        } else if (n == 1) {
            return 0;
        } else if (n == 0) {
            n = size - pos;   /* to the end of the file */
        }
        if (n < h || n > size - pos)
            return 0;
        const uint8_t *t = buf + pos + 4;
        if (!memcmp(t, "jxlc", 4) || (!memcmp(t, "jxlp", 4) && pos + h < len && buf[pos + h] & 0x80))
            return pos + n == size;
        if (n > len - pos)
            return 0;
        pos += (size_t)n;
    }
    return 0;
}

int jxl_head(const uint8_t *buf, size_t len, size_t size, struct geom *g, int *frames, struct io_meta *m)
{
    memset(m, 0, sizeof *m);
    if (!jxl_loaded())
        return 1;
    const int whole = len >= size, bare = len >= 2 && buf[0] == 0xFF && buf[1] == 0x0A;
    struct walk w;
    if (!whole && !bare && !boxes_in_head(buf, len, size))
        return 1;
    if (walk("", buf, len, whole, WANT_FRAMES | WANT_META, &w, m) || !w.have_info || !w.have_colour
        || (w.info.have_animation && !whole)) {
        gpuimg_clear_error();
        meta_free(m);
        return 1;
    }
    *g = geom_of(&w.info);
    *frames = w.info.have_animation && w.frames > 1 ? w.frames : 1;
    meta_done(m);
    return 0;
}

/* ---- writing --------------------------------------------------------------------------------- */

static const char *enc_error(JxlEncoder *e)
{
    switch (lj.JxlEncoderGetError(e)) {
    case JXL_ENC_ERR_OOM: return "out of memory";
    case JXL_ENC_ERR_BAD_INPUT: return "input it refuses";
    case JXL_ENC_ERR_NOT_SUPPORTED: return "something it does not support";
    case JXL_ENC_ERR_API_USAGE: return "a call it does not take";
    default: return "an error it does not name";
    }
}

/* ICC profiles past this are left out: JPEG XL's level 5 holds no larger one */
#define JXL_ICC_MAX (4u << 20)

/* The image, its settings and boxes handed to e in libjxl's order (the boxes first: gpuimg info
 * finds them in a file's head); icc: meta's profile, else sRGB. Returns a gpuimg_status, or 1
 * where libjxl refuses the profile. */
static int feed(JxlEncoder *e, void *runner, const struct image *im, int distance, int effort, const struct io_meta *m,
                int icc)
{
    const int alpha = has_alpha(im->c), grey = im->c <= 2, exif = m && m->exif, xmp = m && m->xmp;
    JxlBasicInfo bi;
    lj.JxlEncoderInitBasicInfo(&bi);
    bi.xsize = (uint32_t)im->w;
    bi.ysize = (uint32_t)im->h;
    bi.bits_per_sample = (uint32_t)im->depth;
    bi.num_color_channels = grey ? 1 : 3;
    bi.num_extra_channels = (uint32_t)alpha;
    bi.alpha_bits = alpha ? (uint32_t)im->depth : 0;
    bi.uses_original_profile = !distance;   /* lossless keeps the samples; lossy codes XYB, as cjxl */
    /* EXIF's orientation where it has one (1 once gpuimg turned the image upright): libjxl asks the
     * codestream's and EXIF's to agree, and readers follow the codestream's */
    bi.orientation = (JxlOrientation)(exif ? exif_orientation(m->exif, m->exif_len, NULL) : 1);
    JxlColorEncoding ce;
    lj.JxlColorEncodingSetToSRGB(&ce, grey);
    if ((runner && lj.JxlEncoderSetParallelRunner(e, ljt.JxlThreadParallelRunner, runner) != JXL_ENC_SUCCESS)
        || ((exif || xmp) && lj.JxlEncoderUseBoxes(e) != JXL_ENC_SUCCESS) || lj.JxlEncoderSetBasicInfo(e, &bi) != JXL_ENC_SUCCESS)
        return GPUIMG_EENCODE;
    if (icc && lj.JxlEncoderSetICCProfile(e, m->icc, m->icc_len) != JXL_ENC_SUCCESS)
        return 1;
    if (!icc && lj.JxlEncoderSetColorEncoding(e, &ce) != JXL_ENC_SUCCESS)
        return GPUIMG_EENCODE;
    JxlEncoderFrameSettings *fs = lj.JxlEncoderFrameSettingsCreate(e, NULL);
    if (!fs || lj.JxlEncoderFrameSettingsSetOption(fs, JXL_ENC_FRAME_SETTING_EFFORT, effort) != JXL_ENC_SUCCESS
        || (distance ? lj.JxlEncoderSetFrameDistance(fs, (float)distance / 1000.0f)
                     : lj.JxlEncoderSetFrameLossless(fs, JXL_TRUE)) != JXL_ENC_SUCCESS)
        return GPUIMG_EENCODE;
    if (exif) {   /* a 4-byte offset to the TIFF header (0: it follows), then the block */
        uint8_t *b = malloc(m->exif_len + 4);
        if (!b)
            return GPUIMG_ENOMEM;
        memset(b, 0, 4);
        memcpy(b + 4, m->exif, m->exif_len);
        const JxlEncoderStatus s = lj.JxlEncoderAddBox(e, "Exif", b, m->exif_len + 4, JXL_FALSE);
        free(b);
        if (s != JXL_ENC_SUCCESS)
            return GPUIMG_EENCODE;
    }
    if (xmp && lj.JxlEncoderAddBox(e, "xml ", m->xmp, m->xmp_len, JXL_FALSE) != JXL_ENC_SUCCESS)
        return GPUIMG_EENCODE;
    const JxlPixelFormat pf = { (uint32_t)im->c, im->depth == 16 ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0 };
    if (lj.JxlEncoderAddImageFrame(fs, &pf, im->data, im->stride * (size_t)im->h) != JXL_ENC_SUCCESS)
        return GPUIMG_EENCODE;
    lj.JxlEncoderCloseInput(e);
    return GPUIMG_OK;
}

/* The encoder's output to fp, as it comes */
static int drain(JxlEncoder *e, FILE *fp, const char *name)
{
    enum { CHUNK = 1 << 20 };
    uint8_t *buf = malloc(CHUNK);
    if (!buf)
        return gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory for the JPEG XL encoder's output", name);
    int st = GPUIMG_OK;
    for (JxlEncoderStatus s = JXL_ENC_NEED_MORE_OUTPUT; !st && s == JXL_ENC_NEED_MORE_OUTPUT;) {
        uint8_t *next = buf;
        size_t avail = CHUNK;
        s = lj.JxlEncoderProcessOutput(e, &next, &avail);
        if (fwrite(buf, 1, CHUNK - avail, fp) != CHUNK - avail)
            st = gpuimg_write_error(name, errno);
        else if (s != JXL_ENC_SUCCESS && s != JXL_ENC_NEED_MORE_OUTPUT)
            st = gpuimg_fail(GPUIMG_EENCODE, "%s: JPEG XL encoder (libjxl) failed: %s", name, enc_error(e));
    }
    free(buf);
    return st;
}

int jxl_encode(FILE *fp, const char *name, const struct image *im, int distance, int effort, int threads,
               const struct io_meta *meta)
{
    if (jxl_need(name))
        return GPUIMG_EUNSUPPORTED;
    JxlEncoder *e = lj.JxlEncoderCreate(NULL);
    void *runner = threads > 1 ? ljt.JxlThreadParallelRunnerCreate(NULL, (size_t)threads) : NULL;
    if (!e || (threads > 1 && !runner)) {
        if (e)
            lj.JxlEncoderDestroy(e);
        return gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory for libjxl's encoder", name);
    }
    const int icc = meta && meta_icc_fits(meta, im->c) && meta->icc_len <= JXL_ICC_MAX;
    int st = feed(e, runner, im, distance, effort, meta, icc);
    if (st == 1) {   /* a profile libjxl cannot read is left out, as a broken piece of metadata is */
        lj.JxlEncoderReset(e);
        st = feed(e, runner, im, distance, effort, meta, 0);
    }
    if (st == GPUIMG_ENOMEM)
        st = gpuimg_fail(st, "%s: out of memory for the JPEG XL encoder's input", name);
    else if (st)
        st = gpuimg_fail(GPUIMG_EENCODE, "%s: JPEG XL encoder (libjxl) failed: %s", name, enc_error(e));
    else
        st = drain(e, fp, name);
    lj.JxlEncoderDestroy(e);
    if (runner)
        ljt.JxlThreadParallelRunnerDestroy(runner);
    return st;
}

/* libjxl 0.7 prints its failures on stderr itself ("./lib/jxl/dec_bit_reader.h:212: JXL_FAILURE:
 * ...", its API's refusals), with no way to stop it: a line that names one of its sources is
 * dropped, on whichever thread prints it. */
static ssize_t quiet_write(void *to, const char *buf, size_t n)
{
    const char *colon = memchr(buf, ':', n);
    if (colon && memmem(buf, (size_t)(colon - buf), "lib/jxl/", 8))
        return (ssize_t)n;
    return fwrite(buf, 1, n, to) == n ? (ssize_t)n : -1;
}

void jxl_quiet_stderr(void)
{
    static const cookie_io_functions_t io = { NULL, quiet_write, NULL, NULL };
    FILE *f = fopencookie(stderr, "w", io);
    if (f && !setvbuf(f, NULL, _IONBF, 0))
        stderr = f;   /* a variable glibc lets a program set */
    else if (f)
        fclose(f);
}

static char jxl_name[32];
static void jxl_name_once(void)
{
    const uint32_t v = lj.JxlDecoderVersion();
    snprintf(jxl_name, sizeof jxl_name, "libjxl %u.%u.%u", v / 1000000, v / 1000 % 1000, v % 1000);
}

const char *jxl_codec_name(void)
{
    if (!jxl_loaded())
        return "libjxl (cannot be loaded)";
    static pthread_once_t once = PTHREAD_ONCE_INIT;   /* the server's workers ask at once */
    pthread_once(&once, jxl_name_once);
    return jxl_name;
}
#else
static int refuse(const char *name) { return kind_unbuilt(name, KIND_JXL, "libjxl", "libjxl-dev"); }
int jxl_need(const char *name) { return refuse(name); }
int jxl_info(const char *name, const uint8_t *buf, size_t len, struct geom *g, int *frames, unsigned *hold)
{
    return refuse(name);
}
int jxl_decode(const char *name, const uint8_t *buf, size_t len, const struct geom *g, int threads,
               struct image *out)
{
    return refuse(name);
}
int jxl_meta(const uint8_t *buf, size_t len, struct io_meta *m)
{
    memset(m, 0, sizeof *m);
    return GPUIMG_OK;
}
int jxl_head(const uint8_t *buf, size_t len, size_t size, struct geom *g, int *frames, struct io_meta *m)
{
    memset(m, 0, sizeof *m);
    return 1;
}
int jxl_encode(FILE *fp, const char *name, const struct image *im, int distance, int effort, int threads,
               const struct io_meta *meta)
{
    return refuse(name);
}
const char *jxl_codec_name(void) { return NULL; }
void jxl_quiet_stderr(void) {}
#endif
