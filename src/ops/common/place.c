/* gpuimg: placing by gravity (place.h). */
#include <config.h>
#include "core/error.h"
#include "ops/common/place.h"

enum { G_CENTRE, G_NORTH, G_SOUTH, G_EAST, G_WEST, G_NE, G_NW, G_SE, G_SW, G_CENTER };

int gravity_offset(int g, int axis, int total, int n)
{
    /* per gravity: -1 the start, 1 the end, 0 the middle; [g][axis] */
    static const signed char side[10][2] = { { 0, 0 },  { 0, -1 }, { 0, 1 },  { 1, 0 },  { -1, 0 },
                                             { 1, -1 }, { -1, -1 }, { 1, 1 }, { -1, 1 }, { 0, 0 } };
    const int s = g >= 0 && g < 10 ? side[g][axis] : 0;
    return s < 0 ? 0 : s > 0 ? total - n : (total - n) / 2;
}

const char *gravity_name(int g)
{
    static const char *const names[10] = { "centre",    "north",     "south",     "east",      "west",
                                           "northeast", "northwest", "southeast", "southwest", "centre" };
    return g >= 0 && g < 10 ? names[g] : "centre";
}

void place_result(struct size_spec *s, const struct geom *in, struct geom *out, int w, int h, int x, int y)
{
    *s = (struct size_spec){ .kind = SIZE_PIXELS, .w = w, .h = h, .offset = 1, .x = x, .y = y };
    *out = *in;
    out->w = w;
    out->h = h;
}

int place_no_flag(const char *op, const struct size_spec *s)
{
    if (s->kind != SIZE_PIXELS || !s->flag)
        return GPUIMG_OK;
    return gpuimg_fail(GPUIMG_EPARAM, "%s: the size takes no %c (WxH, WxH+X+Y, Wx, xH or P%%)", op, s->flag);
}
