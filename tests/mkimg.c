/* gpuimg tests: write a synthetic image. mkimg W H CHANNELS DEPTH OUT.png [SEED] [PNG-LEVEL] [HOLES]
 * HOLES=1 (with alpha): alpha 0 on columns [w/4, w/2), 0 to 2 on rows [h/3, h/2), the maximum on
 * columns [3w/4, w): windows with no alpha at all, barely any, and none missing. */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "io/io.h"
#include "testutil.h"

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: mkimg W H CHANNELS DEPTH OUT [SEED] [PNG-LEVEL] [HOLES]\n");
        return 2;
    }
    struct geom g = { atoi(argv[1]), atoi(argv[2]), atoi(argv[3]), atoi(argv[4]) };
    struct image im;
    if (test_make_image(&im, &g, argc > 6 ? (uint32_t)atoi(argv[6]) : 1)) {
        fprintf(stderr, "mkimg: %s\n", gpuimg_errmsg());
        return 1;
    }
    if (argc > 8 && atoi(argv[8]) == 1 && (g.c == 2 || g.c == 4)) {
        const size_t bps = (size_t)g.depth / 8, bpp = (size_t)g.c * bps;
        for (int y = 0; y < g.h; y++)
            for (int x = 0; x < g.w; x++) {
                uint8_t *a = im.data + ((size_t)y * g.w + x) * bpp + bpp - bps;
                if (x >= g.w / 4 && x < g.w / 2)
                    memset(a, 0, bps);
                else if (x >= 3 * g.w / 4)
                    memset(a, 0xff, bps);
                else if (y >= g.h / 3 && y < g.h / 2) {
                    const uint16_t v = (uint16_t)((x + y) % 3);
                    if (bps == 2)
                        memcpy(a, &v, 2);
                    else
                        a[0] = (uint8_t)v;
                }
            }
    }
    struct save_opts so = { FMT_PNG, argc > 7 ? atoi(argv[7]) : 6, 90, 1, 0, 0, 0 };
    if (io_format_from_path(argv[5], &so.fmt))
        so.fmt = FMT_PNG;
    if (io_save(argv[5], &im, &so)) {
        fprintf(stderr, "mkimg: %s\n", gpuimg_errmsg());
        return 1;
    }
    image_free(&im);
    return 0;
}
