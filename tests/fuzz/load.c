/* gpuimg fuzz target: image loading. The bytes go through the container checks and header
 * limits (io_parse) and, when accepted, stb_image's decoder (every format it reads). Checked:
 * no crash, no leak, and an accepted image has the geometry its header promised. */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "fuzz.h"
#include "io/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    struct load_opts lo = { FUZZ_MAX_PIXELS, 0 };
    struct io_input in;
    struct image im = { 0 };
    if (io_parse("fuzz", buf, size, &lo, &in) == GPUIMG_OK) {
        const struct geom g = in.g;
        if (g.w <= 0 || g.h <= 0 || g.c < 1 || g.c > 4 || (g.depth != 8 && g.depth != 16))
            fuzz_fail("io_parse accepted an impossible geometry");
        if ((uint64_t)g.w * (uint64_t)g.h > FUZZ_MAX_PIXELS)
            fuzz_fail("io_parse let an image over the pixel limit through");
        if (io_decode(&in, &im) == GPUIMG_OK) {
            if (im.w != g.w || im.h != g.h || im.c != g.c || im.depth != g.depth)
                fuzz_fail("decoded geometry differs from the header's");
            /* read every byte: an uninitialised or short buffer shows up under the sanitizers */
            size_t bytes = im.stride * (size_t)im.h;
            unsigned sum = 0;
            for (size_t i = 0; i < bytes; i++)
                sum += im.data[i];
            if (sum == 0xFFFFFFFFu)
                fuzz_fail("unreachable");
            image_free(&im);
        }
    }
    gpuimg_clear_error();
    return 0;
}
