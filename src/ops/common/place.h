/* gpuimg: where one rectangle sits in another by gravity, as vips and ImageMagick place a crop
 * or an image on a larger canvas (crop, pad, resize's fit=cover and fit=contain). */
#ifndef GPUIMG_OPS_PLACE_H
#define GPUIMG_OPS_PLACE_H
#include "core/op.h"

/* PARAM_CHOICE words; "center" is "centre" */
#define GRAVITY_CHOICES "centre|north|south|east|west|northeast|northwest|southeast|southwest|center"
#define GRAVITY_HELP "where the box sits: centre (default), north, south, east, west or a corner (northeast, ...)"

/* The offset on axis (0: x, 1: y) of an extent n placed in one of total by gravity g (an index
 * into GRAVITY_CHOICES): 0 at the start, total - n at the end, (total - n) / 2 rounded down
 * between. */
int gravity_offset(int g, int axis, int total, int n);
/* The canonical word for g ("centre" for "center"), for the steps a resize implies. */
const char *gravity_name(int g);
/* A resolved rectangle: w x h at x, y left in s as WxH+X+Y (for the launch and the tiles), and out
 * as in with that size. */
void place_result(struct size_spec *s, const struct geom *in, struct geom *out, int w, int h, int x, int y);
/* GPUIMG_EPARAM naming op where s ends in ! ^ > or <, which a rectangle takes none of. */
int place_no_flag(const char *op, const struct size_spec *s);

#endif
