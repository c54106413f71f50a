/* gpuimg: levels (ImageMagick's -level), on the pointwise template's table form
 * (ops/common/pointwise.h): black to 0, white to top, a gamma between. */
#include <config.h>
#include <stdio.h>
#include "ops/common/pointwise.h"

enum { P_BLACK, P_WHITE, P_GAMMA };

static uint32_t levels_sample(uint32_t v, uint32_t top, const struct pw_args *p)
{
    const double scale = top == 65535 ? 257.0 : 1.0;
    const double b = p->num[P_BLACK] * scale, w = p->num[P_WHITE] * scale;
    const double x = (double)v < b ? b : (double)v > w ? w : (double)v;
    return pw_round((double)top * pow((x - b) / (w - b), 1.0 / p->num[P_GAMMA]), top);
}
POINTWISE_LUT(levels, levels_sample)

/* At parse time: black below white. */
static int levels_then(const struct op_args *a, char *text, size_t n)
{
    text[0] = 0;
    if (a->v[P_BLACK].num >= a->v[P_WHITE].num)
        return gpuimg_fail(GPUIMG_EPARAM, "levels: black (%g) must be below white (%g)", a->v[P_BLACK].num,
                           a->v[P_WHITE].num);
    return GPUIMG_OK;
}

static const struct op_param params[] = {
    { "black", PARAM_NUMBER, 0, 255, 0, NULL, NULL, "the level that becomes 0, in levels of 8 bits" },
    { "white", PARAM_NUMBER, 0, 255, 0, NULL, "255", "the level that becomes the top, above black" },
    { "gamma", PARAM_NUMBER, 0, 1000, 1, NULL, "1", "the gamma between: above 1 brightens" },
};

const struct op_desc op_levels = {
    .name = "levels",
    .summary = "levels: black to 0, white to the top, a gamma between (alpha kept)",
    .definition = "out = clamp(floor(top * pow((clamp(in, B, W) - B) / (W - B), 1 / gamma) + 0.5), 0, top) for every "
                  "colour sample, in float64 with the C library's pow, B = black * s, W = white * s, s = 1 at 8 bits "
                  "and 257 at 16 (black and white are levels of 8 bits), top = 255 or 65535: ImageMagick's -level "
                  "black,white,gamma, rounded to nearest with halves up; alpha unchanged. levels=B,W,G sets all three.",
    .params = params,
    .nparams = 3,
    .then = levels_then,
    POINTWISE_LUT_FIELDS(levels, KV_VECTOR),
    .examples = EXAMPLES("levels=20:white=230:gamma=1.4"),
};
