/* gpuimg: where one rectangle sits in another by gravity, as vips and ImageMagick place a crop
 * or an image on a larger canvas (crop, pad, resize's fit=cover and fit=contain). */
#ifndef GPUIMG_OPS_PLACE_H
#define GPUIMG_OPS_PLACE_H

/* PARAM_CHOICE words; "center" is "centre" */
#define GRAVITY_CHOICES "centre|north|south|east|west|northeast|northwest|southeast|southwest|center"
#define GRAVITY_HELP "where the box sits: centre (default), north, south, east, west or a corner (northeast, ...)"

/* The offset on axis (0: x, 1: y) of an extent n placed in one of total by gravity g (an index
 * into GRAVITY_CHOICES): 0 at the start, total - n at the end, (total - n) / 2 rounded down
 * between. */
int gravity_offset(int g, int axis, int total, int n);
/* The canonical word for g ("centre" for "center"), for the steps a resize implies. */
const char *gravity_name(int g);

#endif
