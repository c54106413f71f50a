/* gpuimg: gamma (vips's gamma), on the pointwise template's table form (ops/common/pointwise.h):
 * each colour sample v to top * (v / top)^(1 / exponent). */
#include <config.h>
#include "ops/common/pointwise.h"

static uint32_t gamma_sample(uint32_t v, uint32_t top, const struct pw_args *p)
{
    return pw_round((double)top * pow((double)v / (double)top, 1.0 / p->num[0]), top);
}
POINTWISE_LUT(gamma, gamma_sample)

static const struct op_param params[] = {
    { "exponent", PARAM_NUMBER, 0, 1000, 1, NULL, "2.4", "out is in to the power 1/exponent: above 1 brightens" },
};

const struct op_desc op_gamma = {
    .name = "gamma",
    .summary = "gamma: top * (in / top)^(1/exponent), 2.4 by default (alpha kept)",
    .definition = "out = clamp(floor(top * pow(in / top, 1 / exponent) + 0.5), 0, top) for every colour sample, in "
                  "float64 with the C library's pow, top = 255 or 65535: vips's gamma (its default exponent 2.4), "
                  "rounded to nearest with halves up; alpha unchanged.",
    .params = params,
    .nparams = 1,
    POINTWISE_LUT_FIELDS(gamma, KV_VECTOR),
    .examples = EXAMPLES("gamma=2.2"),
};
