/* gpuimg: placing by gravity (place.h). */
#include <config.h>
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
