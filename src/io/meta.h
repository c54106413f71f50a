/* gpuimg: what an image file says besides its pixels, kept from input to output (as vips and
 * ImageMagick keep it, --strip to drop it, all or piece by piece): the ICC profile (PNG iCCP,
 * JPEG APP2 ICC_PROFILE), EXIF (JPEG APP1 Exif, PNG eXIf), XMP (JPEG APP1, PNG iTXt
 * XML:com.adobe.xmp), IPTC (JPEG APP13's Photoshop resource 0x0404), a comment (JPEG COM, PNG
 * text "Comment") and the density (JPEG JFIF, PNG pHYs). Read from a file's
 * bytes with every length and offset checked against them; a broken piece is left out, never an
 * error: the pixels decide whether a file is readable. */
#ifndef GPUIMG_IO_META_H
#define GPUIMG_IO_META_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct io_meta {
    uint8_t *icc;        /* the profile, icc_len bytes (malloc'ed), or NULL */
    size_t icc_len;
    uint8_t *exif;       /* EXIF's TIFF structure ("II*\0" or "MM\0*" first), exif_len bytes, or NULL */
    size_t exif_len;
    size_t orient_at;    /* the offset in exif of IFD0's orientation value (a SHORT); 0: no such tag */
    int density;         /* xres and yres are pixels per inch */
    double xres, yres;
    uint8_t *xmp;        /* the XMP packet, xmp_len bytes, or NULL */
    size_t xmp_len;
    uint8_t *iptc;       /* IPTC-IIM records (0x1C, record, dataset, size, data ...), or NULL */
    size_t iptc_len;
    uint8_t *comment;    /* the comment's bytes (UTF-8 or Latin-1, as found), or NULL */
    size_t comment_len;
};

/* The pieces --strip and --keep name (META_GPS: EXIF's GPS directory, its values zeroed) */
enum meta_piece { META_EXIF = 1, META_XMP = 2, META_IPTC = 4, META_ICC = 8, META_GPS = 16, META_COMMENT = 32,
                  META_DENSITY = 64, META_ALL = 127 };
/* Drop the pieces of m that mask names. */
void meta_strip(struct io_meta *m, unsigned mask);

/* ICC profiles larger than this are left out: the limit on what an iCCP chunk inflates to. */
#define META_ICC_MAX (16u << 20)
/* XMP packets larger than this are left out (a JPEG's APP1 holds at most 65502 bytes of one; the
 * extended XMP split over several segments is not read). */
#define META_XMP_MAX (16u << 20)
/* An EXIF block made from a TIFF's entries larger than this is left out (entries may share their
 * values, so that a small file could ask for a large block). */
#define META_EXIF_MAX (1u << 20)

/* The orientation, 1 (as stored) to 8, of EXIF's TIFF structure t (n bytes): IFD0's tag 0x0112;
 * 1 where there is none or it is out of range. *at (may be NULL) gets its value's offset, 0 if none. */
int exif_orientation(const uint8_t *t, size_t n, size_t *at);
/* A JPEG's EXIF orientation: exif_orientation of its first APP1 "Exif" segment before the scan. */
int jpeg_orientation(const uint8_t *buf, size_t len);

/* Fill m (zeroed first) from a checked file of kind (formats.h's file_kind: JPEG and PNG; the
 * others hold none here: WebP's and TIFF's are their libraries', io_read_meta). Returns
 * GPUIMG_ENOMEM or GPUIMG_OK. */
int meta_read(const uint8_t *buf, size_t len, int kind, struct io_meta *m);
/* EXIF from an ISO media file's Exif item or box (HEIF's, JPEG XL's): b (n bytes) is a 4-byte
 * big-endian offset to the TIFF header, then the block (JPEG's "Exif\0\0" prefix skipped where
 * the offset leaves it before it); a copy from the header on into m->exif. An offset past the end
 * leaves m->exif NULL. Returns GPUIMG_ENOMEM or GPUIMG_OK. */
int meta_exif_item(struct io_meta *m, const uint8_t *b, size_t n);
/* Once m->exif is set: find its orientation tag (orient_at). */
void meta_found_exif(struct io_meta *m);
/* dst (its old contents not freed) a copy of src, every piece its own; on failure dst is empty. */
int meta_copy(struct io_meta *dst, const struct io_meta *src);
void meta_free(struct io_meta *m);
/* The image was turned upright: its EXIF orientation becomes 1, and a turn by 90 degrees swaps
 * the density's axes. */
void meta_upright(struct io_meta *m, int orientation);
/* The image written is w x h: EXIF's PixelXDimension and PixelYDimension (the Exif IFD's
 * 0xA002, 0xA003), where it has them, say so, as vips's files do. The values are written in
 * place (a SHORT too small becomes a LONG in the same field), so that the rest of the block,
 * maker notes and their offsets included, stays byte for byte: rewriting the block through a
 * library moves them. */
void meta_pixel_size(struct io_meta *m, int w, int h);
/* One entry of an EXIF IFD: its tag, TIFF type (1 to 12), count and values (count values of the
 * type's size in the block's byte order, be), checked to lie inside the block. */
struct exif_entry {
    unsigned tag, type;
    uint32_t count;
    const uint8_t *val;
    int be;
};
/* Visit the entries of m's EXIF IFD0 (which 0) or Exif IFD (which 1) whose values lie inside
 * the block, in order; visit may be NULL. Returns the number of such entries. */
int meta_exif_each(const struct io_meta *m, int which, void (*visit)(void *arg, const struct exif_entry *e),
                   void *arg);
/* Whether tag is one of IFD0's text tags that a TIFF's own IFD0 holds too: description, make,
 * model, software, date, artist, copyright. */
int exif_ifd0_text(unsigned tag);
/* EXIF for a TIFF file t (n bytes, a TIFF structure itself): a block of its IFD0's text and
 * orientation and its EXIF directory's entries (but the maker note), where it has any of them
 * (orientation 1 alone makes none), put in m->exif. Returns GPUIMG_ENOMEM or GPUIMG_OK. */
int meta_tiff_exif(const uint8_t *t, size_t n, struct io_meta *m);
/* Value i (< count) of a numeric entry as a double: a rational divided (0 over 0), others as
 * they are. */
double exif_value(const struct exif_entry *e, uint32_t i);
/* Whether m's profile describes images of c channels: an RGB profile for 3 or 4, a grey one for
 * 1 or 2 (another makes a wrong file: libpng refuses it, viewers misread it). */
int meta_icc_fits(const struct io_meta *m, int c);
/* JPEG's segments for m, each as marker (0xE1, 0xE2, 0xED, 0xFE), a header (hn bytes), data
 * (dn) and pad zero bytes (0 or 1): EXIF and XMP each as one APP1 where it fits a segment, the
 * profile in APP2 pieces, IPTC in an APP13 Photoshop resource, the comment as COM. Nothing is
 * allocated (emit may longjmp). emit returns non-zero to stop; meta_jpeg_segments returns that. */
typedef int (*meta_emit)(void *arg, int marker, const uint8_t *hdr, size_t hn, const uint8_t *data, size_t dn,
                         size_t pad);
int meta_jpeg_segments(const struct io_meta *m, int c, meta_emit emit, void *arg);
/* Write the JPEG jpg (n bytes, from another encoder) to fp with m put in: a JFIF segment with
 * m's density in place of its own (or the encoder's as it is), then m's segments, then the rest.
 * Returns 0, or -1 on a write error (errno set) or a JPEG that does not start with SOI. */
int meta_jpeg_splice(FILE *fp, const uint8_t *jpg, size_t n, const struct io_meta *m, int c);

#endif
