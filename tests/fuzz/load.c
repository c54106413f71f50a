/* gpuimg fuzz target: image loading. The bytes go through the container checks and header
 * limits (io_parse) and, when accepted, the default decoder (libdeflate or libpng for PNG,
 * libjpeg-turbo for JPEG, stb_image for the rest). Checked: no crash, no leak, an accepted
 * image has the geometry its header promised, a PNG that libpng also decodes gives libpng's
 * pixels, and the file's metadata never fails a TIFF (one pixel of its layout, in libtiff
 * builds). */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "fuzz.h"
#include "io/formats.h"
#include "io/io.h"
#include "io/meta.h"
#include "io/tiff.h"

static int count_segment(void *arg, int marker, const uint8_t *hdr, size_t hn, const uint8_t *data, size_t dn,
                         size_t pad)
{
    if (hn + dn + pad > 65533 || (marker != 0xE1 && marker != 0xE2 && marker != 0xED && marker != 0xFE)
        || (hn && !hdr) || (dn && !data) || pad > 1)
        fuzz_fail("a JPEG segment made of the metadata does not fit one");
    *(size_t *)arg += hn + dn + pad;
    return 0;
}

/* A one-pixel TIFF of layout g carrying m: metadata never fails a file */
static void tiff_of(const struct geom *g, const struct io_meta *m)
{
    const struct geom one = { 1, 1, g->c, g->depth };
    struct image im;
    char *out = NULL;
    size_t len = 0;
    if (!tiff_codec_name() || image_alloc(&im, &one))
        return;
    memset(im.data, 0, im.stride);
    FILE *f = open_memstream(&out, &len);
    if (f) {
        const int st = tiff_encode(f, "fuzz", &im, m);
        if (fclose(f) == 0 && st != GPUIMG_OK)
            fuzz_fail("the file's metadata failed a TIFF");
        free(out);
    }
    image_free(&im);
}

/* every value of an EXIF entry read (the sanitizers see any read outside the block) */
static void read_entry(void *arg, const struct exif_entry *e)
{
    const struct io_meta *m = arg;
    if (e->val < m->exif || e->val >= m->exif + m->exif_len)
        fuzz_fail("an EXIF entry's values outside its block");
    for (uint32_t i = 0; i < e->count; i++)
        (void)exif_value(e, i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    struct load_opts lo = { FUZZ_MAX_PIXELS, DEC_AUTO, DEC_AUTO, 0, IO_EXPANSION_DEFAULT, 0 };   /* no open file, one thread */
    struct io_input in;
    struct image im = { 0 };
    if (io_parse("fuzz", buf, size, &lo, &in) == GPUIMG_OK) {
        const struct geom g = in.g;
        if (g.w <= 0 || g.h <= 0 || g.c < 1 || g.c > 4 || (g.depth != 8 && g.depth != 16))
            fuzz_fail("io_parse accepted an impossible geometry");
        if ((uint64_t)g.w * (uint64_t)g.h > FUZZ_MAX_PIXELS)
            fuzz_fail("io_parse let an image over the pixel limit through");
        struct io_meta m;   /* the metadata a run keeps, and the JPEG segments it makes of it */
        if (io_read_meta(&in, &m) == GPUIMG_OK) {
            size_t bytes = 0;
            meta_upright(&m, in.orient);
            meta_pixel_size(&m, g.w, g.h);
            meta_exif_each(&m, 0, read_entry, &m);
            meta_exif_each(&m, 1, read_entry, &m);
            meta_jpeg_segments(&m, g.c, count_segment, &bytes);
            tiff_of(&g, &m);
            if ((m.icc && !m.icc_len) || (m.exif && !m.exif_len) || (m.orient_at && m.orient_at + 2 > m.exif_len))
                fuzz_fail("meta_read kept an empty piece or an orientation outside its EXIF");
            meta_free(&m);
        }
        if (io_decode(&in, &im) == GPUIMG_OK) {
            if (im.w != g.w || im.h != g.h || im.c != g.c || im.depth != g.depth)
                fuzz_fail("decoded geometry differs from the header's");
            /* read every byte: an uninitialised or short buffer shows up under the sanitizers */
            size_t bytes = im.stride * (size_t)im.h;
            unsigned sum = 0;
            for (size_t i = 0; i < bytes; i++)
                sum += im.data[i];
            if (sum == 0xFFFFFFFFu)
                fuzz_fail("unreachable");
            struct load_opts lp = lo;
            struct io_input in2;
            struct image im2 = { 0 };
            uint8_t *copy = in.kind == KIND_PNG ? malloc(size) : NULL;
            if (copy) {
                memcpy(copy, data, size);
                lp.png = DEC_LIBPNG;
                if (io_parse("fuzz", copy, size, &lp, &in2) == GPUIMG_OK && io_decode(&in2, &im2) == GPUIMG_OK) {
                    if (im2.w != im.w || im2.h != im.h || im2.c != im.c || im2.depth != im.depth
                        || memcmp(im2.data, im.data, bytes))
                        fuzz_fail("libpng decodes this PNG differently from the default decoder");
                    image_free(&im2);
                }
            }
            image_free(&im);
        }
    }
    gpuimg_clear_error();
    return 0;
}
