/* gpuimg: the image struct (interleaved, 1 to 4 channels, 8 or 16 bits per sample,
 * 16-bit samples in host byte order) and allocation with overflow checks. */
#ifndef GPUIMG_IMAGE_H
#define GPUIMG_IMAGE_H
#include <stddef.h>
#include <stdint.h>

struct geom {
    int w, h;   /* pixels */
    int c;      /* channels: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
    int depth;  /* bits per sample: 8 or 16 */
};

/* A rectangle of pixels: columns [x, x + w), rows [y, y + h). */
struct rect { int x, y, w, h; };

struct image {
    int w, h, c, depth;
    size_t stride;    /* bytes per row; rows are packed (stride = w * c * depth / 8) */
    uint8_t *data;
    int borrowed;     /* data is another's (a library caller's image): read, never freed here */
};

static inline size_t geom_bpp(const struct geom *g) { return (size_t)g->c * (size_t)(g->depth / 8); }
static inline size_t image_bpp(const struct image *im) { return (size_t)im->c * (size_t)(im->depth / 8); }
static inline struct geom image_geom(const struct image *im)
{
    struct geom g = { im->w, im->h, im->c, im->depth };
    return g;
}
static inline int has_alpha(int channels) { return channels == 2 || channels == 4; }
/* flags[y] = 1 where row y's every alpha sample is at its maximum (255 or 65535; every row of an
 * image without alpha), else 0; returns how many rows are opaque. Rows in parallel, each one
 * stopping at its first non-opaque run, so an image with transparency costs little. */
int image_opaque_rows(const struct image *im, uint8_t *flags);

/* Bytes needed for g, or 0 (with the error recorded) if a dimension is out of range or the size
 * does not fit in size_t. */
int geom_bytes(const struct geom *g, size_t *bytes);
/* The same as a double (0 when it overflows), for byte counts in reports. */
double geom_size(const struct geom *g);
/* Allocate im for g (contents undefined). Returns a gpuimg_status. */
int image_alloc(struct image *im, const struct geom *g);
/* Wrap a malloc'ed buffer (ownership passes to im). */
void image_wrap(struct image *im, const struct geom *g, void *data);
/* Free im's data (not where it is borrowed) and clear it. */
void image_free(struct image *im);
/* Progress of an image being made top down: done(arg, img, n) once the first n rows of img are
 * complete (img allocated by then), at least every IMAGE_ROWS_STEP rows and at the last. */
#define IMAGE_ROWS_STEP 16
struct image_rows {
    void (*done)(void *arg, const struct image *img, int n);
    void *arg;
};
/* Short description such as "RGBA 16-bit". */
const char *layout_name(int channels);

#endif
