/* gpuimg: colours (see color.h). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "core/color.h"

static const struct { const char *name; uint32_t rgba; } named[] = {
    { "black", 0x000000FF },   { "white", 0xFFFFFFFF },   { "gray", 0x808080FF },  { "grey", 0x808080FF },
    { "silver", 0xC0C0C0FF },  { "red", 0xFF0000FF },     { "maroon", 0x800000FF }, { "lime", 0x00FF00FF },
    { "green", 0x008000FF },   { "olive", 0x808000FF },   { "yellow", 0xFFFF00FF }, { "orange", 0xFFA500FF },
    { "blue", 0x0000FFFF },    { "navy", 0x000080FF },    { "teal", 0x008080FF },   { "cyan", 0x00FFFFFF },
    { "aqua", 0x00FFFFFF },    { "magenta", 0xFF00FFFF }, { "fuchsia", 0xFF00FFFF }, { "purple", 0x800080FF },
    { "transparent", 0x00000000 },
};

static int hexval(char ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

/* #rgb, #rrggbb or #rrggbbaa */
static int parse_hex(const char *s, struct color *c)
{
    const size_t n = strlen(s);
    if (n != 3 && n != 6 && n != 8)
        return -1;
    int v[8];
    for (size_t i = 0; i < n; i++)
        if ((v[i] = hexval(s[i])) < 0)
            return -1;
    uint8_t ch[4] = { 0, 0, 0, 255 };
    for (size_t k = 0; k < (n == 3 ? 3 : n / 2); k++)
        ch[k] = (uint8_t)(n == 3 ? v[k] * 17 : v[2 * k] * 16 + v[2 * k + 1]);
    *c = (struct color){ ch[0], ch[1], ch[2], ch[3] };
    return 0;
}

/* R,G,B or R,G,B,A: decimal 0 to 255, at most three digits each, nothing else */
static int parse_decimal(const char *s, struct color *c)
{
    uint8_t ch[4] = { 0, 0, 0, 255 };
    int k = 0;
    for (const char *p = s;; p++) {
        int v = 0, digits = 0;
        for (; *p >= '0' && *p <= '9'; p++)
            if (++digits > 3 || (v = v * 10 + (*p - '0')) > 255)
                return -1;
        if (!digits || k == 4)
            return -1;
        ch[k++] = (uint8_t)v;
        if (*p != ',')
            break;
    }
    if (k < 3 || s[strspn(s, "0123456789,")])
        return -1;
    *c = (struct color){ ch[0], ch[1], ch[2], ch[3] };
    return 0;
}

int color_parse(const char *s, struct color *c)
{
    for (size_t i = 0; i < sizeof named / sizeof *named; i++)
        if (!strcasecmp(s, named[i].name)) {
            const uint32_t v = named[i].rgba;
            *c = (struct color){ (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
            return 0;
        }
    return s[0] == '#' ? parse_hex(s + 1, c) : parse_decimal(s, c);
}

void color_text(struct color c, char *buf, size_t n)
{
    if (c.a == 255)
        snprintf(buf, n, "#%02x%02x%02x", c.r, c.g, c.b);
    else
        snprintf(buf, n, "#%02x%02x%02x%02x", c.r, c.g, c.b, c.a);
}

void color_pixel(struct color col, int c, int depth, void *px)
{
    uint32_t s[4] = { col.r, col.g, col.b, col.a };
    if (c <= 2) {
        s[0] = (9798u * col.r + 19235u * col.g + 3735u * col.b + 16384u) >> 15;
        s[1] = col.a;
    }
    for (int k = 0; k < c; k++) {
        if (depth == 16) {
            const uint16_t v = (uint16_t)(s[k] * 257u);
            memcpy((uint8_t *)px + 2 * k, &v, 2);
        } else
            ((uint8_t *)px)[k] = (uint8_t)s[k];
    }
}
