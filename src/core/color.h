/* gpuimg: colours as the command line writes them (pad's and resize's margins, flatten's and
 * --background's backdrop): one parser, and the rules that turn a colour into samples of a layout
 * and compose over it. */
#ifndef GPUIMG_CORE_COLOR_H
#define GPUIMG_CORE_COLOR_H
#include <stddef.h>
#include <stdint.h>

/* 8-bit sRGB samples and alpha (255: opaque); a 16-bit sample is v * 257. */
struct color { uint8_t r, g, b, a; };

/* What color_parse takes, for messages and help. */
#define COLOR_FORMS "a name (white, black, gray, red, ...; transparent), #rgb, #rrggbb, #rrggbbaa, R,G,B or R,G,B,A (0 to 255 each)"

/* A CSS name (case ignored: black, white, gray or grey, silver, red, maroon, lime, green, olive,
 * yellow, orange, blue, navy, teal, cyan or aqua, magenta or fuchsia, purple; transparent is
 * 0,0,0,0), #rgb (each digit doubled), #rrggbb, #rrggbbaa, R,G,B or R,G,B,A in decimal 0 to 255.
 * Without an alpha the colour is opaque. Returns 0, or -1 for anything else. */
int color_parse(const char *s, struct color *c);
/* "#rrggbb", or "#rrggbbaa" where not opaque (color_parse reads it back). */
void color_text(struct color c, char *buf, size_t n);
/* The colour as one pixel of c channels (1 to 4) at depth 8 or 16, samples in host order into
 * px (c * depth / 8 bytes): a grey layout takes the colour's BT.601 luma at 8 bits as gray gives
 * it, (9798 R + 19235 G + 3735 B + 16384) >> 15; 16 bits take each 8-bit value v as v * 257; a
 * layout with alpha takes the colour's alpha last, one without drops it. */
void color_pixel(struct color col, int c, int depth, void *px);
/* One colour sample v of alpha a over the background sample b (0 to top: 255 or 65535), rounded
 * to nearest: (v a + b (top - a) + top / 2) / top. No ties (top is odd), and the sum is at most
 * top^2 + top / 2 < 2^32. */
static inline uint32_t color_over(uint32_t v, uint32_t a, uint32_t b, uint32_t top)
{
    return (v * a + b * (top - a) + top / 2) / top;
}

#endif
