/* gpuimg: JPEG through libjpeg-turbo's libjpeg API (see jpeg.h). Decoding is libjpeg's accurate
 * integer IDCT with fancy upsampling, as OpenCV and vips use it; a warning that means wrong
 * pixels (data ending early, a corrupt entropy-coded segment) is an error, not a padded image.
 * Encoding optimises the Huffman tables and writes grey as one component. */
#include <config.h>
#ifdef HAVE_LIBJPEG
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>
#include "core/error.h"
#include "io/formats.h"
#include "io/icc.h"
#include "io/jpeg.h"
#include "io/meta.h"

struct err {
    struct jpeg_error_mgr pub;
    jmp_buf jb;
    char msg[JMSG_LENGTH_MAX];
};

static void on_error(j_common_ptr c)
{
    struct err *e = (struct err *)c->err;
    c->err->format_message(c, e->msg);
    longjmp(e->jb, 1);
}

/* Warnings libjpeg decodes on through, whose pixels would be wrong: errors here. The others (a
 * few extraneous bytes before a marker, an unknown JFIF version, a bad ICC profile) leave the
 * image as its encoder meant it. */
static void on_message(j_common_ptr c, int level)
{
    if (level >= 0)
        return;
    switch (c->err->msg_code) {
    case JWRN_JPEG_EOF:
    case JWRN_HIT_MARKER:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_MUST_RESYNC:
    case JWRN_NOT_SEQUENTIAL:
    case JWRN_BOGUS_PROGRESSION:
        on_error(c);
        break;
    default:
        c->err->num_warnings++;
    }
}

static void set_errors(struct err *e)
{
    jpeg_std_error(&e->pub);
    e->pub.error_exit = on_error;
    e->pub.emit_message = on_message;
    e->msg[0] = 0;
}

/* Adobe CMYK (as libjpeg gives it, inverted: 255 is no ink) to RGB: each colour scaled by the
 * black, rounded. */
static void cmyk_to_rgb(const uint8_t *in, uint8_t *out, int w)
{
    for (int x = 0; x < w; x++, in += 4, out += 3)
        for (int k = 0; k < 3; k++)
            out[k] = (uint8_t)((in[k] * in[3] + 127) / 255);
}

int jpeg_decode(const char *name, const uint8_t *buf, size_t len, int denom, const struct geom *want,
                struct image *out, const struct image_rows *rows)
{
    struct jpeg_decompress_struct d;
    struct err e;
    uint8_t *volatile row = NULL;   /* volatile: set after setjmp, freed after a longjmp */
    struct icc_xform *volatile cmyk_icc = NULL;
    const int given = out->data != NULL;   /* the caller's buffer: others may be reading its rows */
    if (!given)
        memset(out, 0, sizeof *out);
    d.err = &e.pub;
    set_errors(&e);
    if (setjmp(e.jb)) {
        jpeg_destroy_decompress(&d);
        free(row);
        icc_free(cmyk_icc);
        if (!given)
            image_free(out);
        return gpuimg_fail(GPUIMG_EDECODE, "%s: bad JPEG: %s", name, e.msg);
    }
    jpeg_create_decompress(&d);
    jpeg_mem_src(&d, buf, (unsigned long)len);
    jpeg_read_header(&d, TRUE);
    const int cmyk = d.jpeg_color_space == JCS_CMYK || d.jpeg_color_space == JCS_YCCK;
    if (cmyk) {   /* through its embedded profile (meta.c's reading) to sRGB where it has one */
        struct io_meta m;
        if (!meta_read(buf, len, KIND_JPEG, &m))
            cmyk_icc = icc_cmyk_prepare(m.icc, m.icc_len);
        meta_free(&m);
    }
    d.out_color_space = d.num_components == 1 ? JCS_GRAYSCALE : cmyk ? JCS_CMYK : JCS_RGB;
    d.dct_method = JDCT_ISLOW;
    d.do_fancy_upsampling = TRUE;
    d.scale_num = 1;
    d.scale_denom = (unsigned)denom;
    jpeg_start_decompress(&d);
    const int c = cmyk ? 3 : d.output_components;
    if ((int)d.output_width != want->w || (int)d.output_height != want->h || c != want->c) {
        snprintf(e.msg, sizeof e.msg, "the frame is %ux%u with %d channels, the header said %dx%d with %d",
                 d.output_width, d.output_height, c, want->w, want->h, want->c);
        longjmp(e.jb, 1);
    }
    const struct geom g = { want->w, want->h, c, 8 };
    if (given && (out->w != g.w || out->h != g.h || out->c != g.c || out->depth != 8)) {
        snprintf(e.msg, sizeof e.msg, "the frame is not the %dx%d the buffer was made for", out->w, out->h);
        longjmp(e.jb, 1);
    }
    if (!given && image_alloc(out, &g)) {
        snprintf(e.msg, sizeof e.msg, "out of memory for %dx%d pixels", g.w, g.h);
        longjmp(e.jb, 1);
    }
    /* CMYK comes in bands of rows, converted on every thread (a profile's transform costs far more
     * than the decode); a band is IMAGE_ROWS_STEP rows, so the rows' reports stay on its steps */
    const int band = cmyk_icc ? IMAGE_ROWS_STEP : 1;
    if (cmyk && !(row = malloc((size_t)g.w * 4 * band))) {
        snprintf(e.msg, sizeof e.msg, "out of memory");
        longjmp(e.jb, 1);
    }
    while (d.output_scanline < d.output_height) {
        const JDIMENSION y = d.output_scanline;
        int got = 0;
        while (got < band && d.output_scanline < d.output_height) {
            JSAMPROW r = cmyk ? row + (size_t)got * g.w * 4 : out->data + (size_t)(y + got) * out->stride;
            if (jpeg_read_scanlines(&d, &r, 1) != 1) {
                snprintf(e.msg, sizeof e.msg, "no row %u", y + got);
                longjmp(e.jb, 1);
            }
            got++;
        }
        if (cmyk_icc) {
            struct icc_xform *x = cmyk_icc;
            uint8_t *const b = row;
#pragma omp parallel for schedule(static) if (got > 1)
            for (int k = 0; k < got; k++)
                icc_cmyk_row(x, b + (size_t)k * g.w * 4, out->data + (size_t)(y + k) * out->stride, g.w);
        } else if (cmyk) {
            cmyk_to_rgb(row, out->data + (size_t)y * out->stride, g.w);
        }
        if (rows && (d.output_scanline % IMAGE_ROWS_STEP == 0 || d.output_scanline == d.output_height))
            rows->done(rows->arg, out, (int)d.output_scanline);
    }
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    free(row);
    icc_free(cmyk_icc);
    return GPUIMG_OK;
}

/* A metadata segment through libjpeg's marker writer (after jpeg_start_compress, before the rows). */
static int put_marker(void *arg, int marker, const uint8_t *hdr, size_t hn, const uint8_t *data, size_t dn,
                      size_t pad)
{
    j_compress_ptr c = arg;
    jpeg_write_m_header(c, marker, (unsigned)(hn + dn + pad));
    for (size_t i = 0; i < hn; i++)
        jpeg_write_m_byte(c, hdr[i]);
    for (size_t i = 0; i < dn; i++)
        jpeg_write_m_byte(c, data[i]);
    for (size_t i = 0; i < pad; i++)
        jpeg_write_m_byte(c, 0);
    return 0;
}

int jpeg_encode(FILE *fp, const char *name, const struct image *im, const struct jpeg_opts *o)
{
    if (has_alpha(im->c))   /* (io_check_size refuses it before) */
        return gpuimg_fail(GPUIMG_EUNSUPPORTED, "%s: JPEG holds no alpha: flatten the image first", name);
    struct jpeg_compress_struct c;
    struct err e;
    uint8_t *volatile row = NULL;
    c.err = &e.pub;
    set_errors(&e);
    if (setjmp(e.jb)) {
        const int werr = ferror(fp) ? errno : 0;
        jpeg_destroy_compress(&c);
        free(row);
        return werr ? gpuimg_write_error(name, werr)
                    : gpuimg_fail(GPUIMG_EENCODE, "%s: JPEG encoder (libjpeg-turbo): %s", name, e.msg);
    }
    jpeg_create_compress(&c);
    jpeg_stdio_dest(&c, fp);
    c.image_width = (JDIMENSION)im->w;
    c.image_height = (JDIMENSION)im->h;
    const int grey = im->c == 1;
    c.input_components = grey ? 1 : 3;
    c.in_color_space = grey ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, o->quality, TRUE);
    c.optimize_coding = TRUE;
    c.dct_method = JDCT_ISLOW;
    if (!grey) {   /* luma 2x2 (4:2:0), 2x1 (4:2:2) or 1x1 (4:4:4) against chroma 1x1 */
        c.comp_info[0].h_samp_factor = o->sampling == 444 ? 1 : 2;
        c.comp_info[0].v_samp_factor = o->sampling == 420 ? 2 : 1;
    }
    if (o->progressive)
        jpeg_simple_progression(&c);
    if (o->meta && o->meta->density) {
        c.density_unit = 1;
        c.X_density = (UINT16)(o->meta->xres < 1 ? 1 : o->meta->xres > 65535 ? 65535 : lround(o->meta->xres));
        c.Y_density = (UINT16)(o->meta->yres < 1 ? 1 : o->meta->yres > 65535 ? 65535 : lround(o->meta->yres));
    }
    jpeg_start_compress(&c, TRUE);
    if (o->meta)
        meta_jpeg_segments(o->meta, im->c, put_marker, &c);
    const size_t n = (size_t)im->w * c.input_components;
    if (im->depth == 16 && !(row = malloc(n))) {
        snprintf(e.msg, sizeof e.msg, "out of memory");
        longjmp(e.jb, 1);
    }
    for (int y = 0; y < im->h; y++) {
        const uint8_t *src = im->data + (size_t)y * im->stride;
        JSAMPROW r = (JSAMPROW)src;
        if (row) {   /* 16 bits rounded to 8, (v + 128) / 257 */
            const uint16_t *s16 = (const uint16_t *)src;
            for (size_t i = 0; i < n; i++)
                row[i] = (uint8_t)((s16[i] + 128u) / 257u);
            r = row;
        }
        jpeg_write_scanlines(&c, &r, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    free(row);
    return GPUIMG_OK;
}

const char *jpeg_codec_name(void)
{
#ifdef LIBJPEG_TURBO_VERSION
#define STR2(x) #x
#define STR(x) STR2(x)
    return "libjpeg-turbo " STR(LIBJPEG_TURBO_VERSION);
#else
    return "libjpeg";
#endif
}
#endif
