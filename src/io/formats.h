/* gpuimg: container checks run before stb_image decodes a file. stb ignores PNG CRCs and pads
 * a truncated JPEG with grey, so a damaged file would otherwise decode "successfully" into a
 * wrong image. These walks catch truncation, bad CRCs and zero-sized headers and say where. */
#ifndef GPUIMG_FORMATS_H
#define GPUIMG_FORMATS_H
#include <stddef.h>
#include <stdint.h>

enum file_kind { KIND_UNKNOWN, KIND_PNG, KIND_JPEG, KIND_PNM, KIND_BMP, KIND_GIF, KIND_PSD, KIND_HDR, KIND_TGA, KIND_WEBP, KIND_TIFF, KIND_HEIF,
                 KIND_JXL };

/* The format of the first bytes (len of them), by the signatures stb_image tests. */
enum file_kind sniff_kind(const uint8_t *buf, size_t len);
/* The most pixels a byte of a file of kind k can stand for; 0 for PNG (its walk below checks
 * it). A header claiming more pixels than len * this is refused before the
 * decoder allocates them. */
double kind_max_px_per_byte(enum file_kind k);
const char *kind_name(enum file_kind k);   /* "PNG", ...; "file" for KIND_UNKNOWN */
/* "AVIF" for an ISO media file of an AVIF brand, else kind_name(k) */
const char *format_name(enum file_kind k, const uint8_t *buf, size_t len);
/* The frames (image descriptors) of a GIF, counted by walking its blocks up to its trailer or
 * its end; at least 1. */
int gif_frames(const uint8_t *buf, size_t len);
/* GPUIMG_EUNSUPPORTED: name is a file of kind k, whose library (lib, Debian's package pkg) this
 * build lacks. */
int kind_unbuilt(const char *name, enum file_kind k, const char *lib, const char *pkg);
/* A PNG (checked by png_check) without its empty IDAT chunks, in place: legal, but stb_image
 * copies from a NULL buffer for an empty first one. Returns the new length. */
size_t png_drop_empty_idat(uint8_t *buf, size_t len);
/* What png_check's walk learns of a PNG besides its size. channels: what it decodes to, its
 * colour type's (palette as RGB) and one more for a tRNS chunk before the image data (stb_image's
 * header scan misses it on grey and RGB, so its count cannot be used). */
struct png_facts {
    int channels;
    int trns;             /* a tRNS chunk before the image data */
    size_t idat_bytes;    /* the image data's bytes, summed over its IDAT chunks */
    int idat_chunks;      /* the IDAT chunks that hold any */
};
/* What jpeg_check saw of a JPEG's frame: progressive (SOF2), four components (CMYK or YCCK), the
 * components' count. */
struct jpeg_facts { int progressive, four, comps; };
/* Each returns a gpuimg_status; `name` is used in the message. The image size in the header
 * is stored in *w, *h (left 0 when no frame header was seen), so that the pixel limit can be
 * applied before the decoder is asked anything: stb refuses to describe very large images. */
int png_check(const char *name, const uint8_t *buf, size_t len, uint32_t *w, uint32_t *h, struct png_facts *f);
int jpeg_check(const char *name, const uint8_t *buf, size_t len, uint32_t *w, uint32_t *h, struct jpeg_facts *f);
/* jpeg_check's walk up to the first scan's header only, for a file's first len bytes (gpuimg
 * info): GPUIMG_OK once it is reached, an error where the bytes end before it. */
int jpeg_check_head(const char *name, const uint8_t *buf, size_t len, uint32_t *w, uint32_t *h, struct jpeg_facts *f);
/* The most scans a JPEG may have: ten times libjpeg's own progressions (6 scans for grey, 10 for
 * colour); a baseline JPEG has one, or one a component. */
#define JPEG_SCANS_MAX 100
/* A progressive JPEG's scans times its pixels, past 2^30, may be at most JPEG_SCAN_PX_PER_BYTE
 * times its bytes: a scan of end-of-band runs is a pass over every block for two bytes. Real
 * progressive files (about 10 scans, half a bit a pixel or more) are far below. */
#define JPEG_SCAN_PX_FLOOR (1ULL << 30)
#define JPEG_SCAN_PX_PER_BYTE 1024
int pnm_check(const char *name, const uint8_t *buf, size_t len, uint32_t *w, uint32_t *h);
/* A HEIF's (or AVIF's) item table before libheif reads it, whose time grows with the square of
 * its items: at most HEIF_ITEMS_MAX in its iinf and iloc boxes (newer libheif's own limit). */
#define HEIF_ITEMS_MAX 1000
int heif_check(const char *name, const uint8_t *buf, size_t len);

#endif
