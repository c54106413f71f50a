/* gpuimg fuzz target: the pipeline parser. The input is a pipeline text; when it parses, the
 * plan is resolved against a few input geometries (every layout, 8 and 16 bits, 1x1 and odd
 * sizes). Checked: no crash, and every resolved step has a sane, limited geometry. */
#include <config.h>
#include <string.h>
#include "core/error.h"
#include "fuzz.h"
#include "core/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char text[1024];
    if (size >= sizeof text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    static struct plan parsed, pl;   /* large: kept off the stack */
    if (plan_parse(text, &parsed) == GPUIMG_OK) {
        static const struct geom geoms[] = {
            { 1, 1, 1, 8 }, { 7, 3, 2, 16 }, { 13, 42, 3, 8 }, { 1001, 626, 4, 16 }, { 1 << 15, 1, 3, 8 },
        };
        for (size_t i = 0; i < sizeof geoms / sizeof geoms[0]; i++) {
            pl = parsed;
            if (plan_resolve(&pl, &geoms[i], FUZZ_MAX_PIXELS * 16) != GPUIMG_OK) {
                gpuimg_clear_error();
                continue;
            }
            for (int k = 0; k < pl.nsteps; k++) {
                const struct geom *o = &pl.steps[k].out;
                if (o->w < 1 || o->h < 1 || o->c < 1 || o->c > 4 || (o->depth != 8 && o->depth != 16)
                    || (uint64_t)o->w * (uint64_t)o->h > FUZZ_MAX_PIXELS * 16)
                    fuzz_fail("a resolved step has an impossible or over-limit geometry");
            }
        }
    }
    gpuimg_clear_error();
    return 0;
}
