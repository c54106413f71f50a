/* gpuimg tests: write a synthetic image. mkimg W H CHANNELS DEPTH OUT.png [SEED] [PNG-LEVEL] */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include "error.h"
#include "io.h"
#include "testutil.h"

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: mkimg W H CHANNELS DEPTH OUT [SEED] [PNG-LEVEL]\n");
        return 2;
    }
    struct geom g = { atoi(argv[1]), atoi(argv[2]), atoi(argv[3]), atoi(argv[4]) };
    struct image im;
    if (test_make_image(&im, &g, argc > 6 ? (uint32_t)atoi(argv[6]) : 1)) {
        fprintf(stderr, "mkimg: %s\n", gpuimg_errmsg());
        return 1;
    }
    struct save_opts so = { FMT_PNG, argc > 7 ? atoi(argv[7]) : 6, 90, 1, 0 };
    if (io_format_from_path(argv[5], &so.fmt))
        so.fmt = FMT_PNG;
    if (io_save(argv[5], &im, &so)) {
        fprintf(stderr, "mkimg: %s\n", gpuimg_errmsg());
        return 1;
    }
    image_free(&im);
    return 0;
}
