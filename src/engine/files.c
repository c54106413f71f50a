/* gpuimg: the loaders of files named inside a pipeline (see files.h). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include "core/error.h"
#include "core/opfile.h"
#include "engine/files.h"
#include "io/io.h"

static struct load_opts limits;

static int read_file(const char *path, struct image *img)
{
    return io_load(path, &limits, img);
}

void engine_files_read(uint64_t max_pixels, unsigned max_expansion)
{
    limits = (struct load_opts){ .max_pixels = max_pixels, .max_expansion = max_expansion };
    op_file_set_loader(read_file);
}

int engine_example_file(const char *path, struct image *img)
{
    const char *tag = strstr(path, "-c");
    int c = 0, depth = 0;
    if (!tag || sscanf(tag, "-c%d-d%d", &c, &depth) != 2 || c < 1 || c > 4 || (depth != 8 && depth != 16))
        return gpuimg_fail(GPUIMG_EOPEN, "%s: not an example's file (NAME-cC-dD)", path);
    const struct geom g = { 29, 17, c, depth };
    int st = image_alloc(img, &g);
    if (st)
        return st;
    const unsigned top = depth == 16 ? 65535u : 255u;
    for (int y = 0; y < g.h; y++)
        for (int x = 0; x < g.w; x++)
            for (int k = 0; k < c; k++) {
                const size_t i = ((size_t)y * g.w + x) * (size_t)c + (size_t)k;
                unsigned v = (unsigned)((x * 37 + y * 71 + k * 101) * (depth == 16 ? 4099 : 17)) % (top + 1);
                if (has_alpha(c) && k == c - 1)   /* transparent, opaque and between */
                    v = x < 3 ? 0 : x > 25 ? top : (unsigned)((unsigned long)top * (unsigned)(x * g.h + y) / (unsigned)(g.w * g.h));
                if (depth == 16)
                    ((uint16_t *)img->data)[i] = (uint16_t)v;
                else
                    img->data[i] = (uint8_t)v;
            }
    return GPUIMG_OK;
}

void engine_files_examples(void)
{
    op_file_set_loader(engine_example_file);
}
