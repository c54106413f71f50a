/* gpuimg: linear (brightness and contrast, vips's linear), on the pointwise template's table form
 * (ops/common/pointwise.h): each colour sample v to a * v + b, b in levels of 8 bits. */
#include <config.h>
#include "ops/common/pointwise.h"

enum { P_A, P_B };

/* In float64, the product and the sum each rounded (no fused multiply-add). */
static uint32_t linear_sample(uint32_t v, uint32_t top, const struct pw_args *p)
{
    const double scale = top == 65535 ? 257.0 : 1.0;
    return pw_round(p->num[P_A] * (double)v + p->num[P_B] * scale, top);
}
POINTWISE_LUT(linear, linear_sample)

static const struct op_param params[] = {
    { "a", PARAM_NUMBER, -100, 100, 0, NULL, NULL, "the factor (contrast): 1 keeps, 1.2 is 20% more" },
    { "b", PARAM_NUMBER, -1000, 1000, 0, NULL, "0", "the offset (brightness) in levels of 8 bits, 257 times that at 16" },
};

const struct op_desc op_linear = {
    .name = "linear",
    .summary = "brightness and contrast: a * in + b (alpha kept)",
    .definition = "out = clamp(floor(a * in + b * s + 0.5), 0, top) for every colour sample, in float64 (each product "
                  "and sum rounded, none fused), s = 1 at 8 bits and 257 at 16 (b is in levels of 8 bits), top = 255 "
                  "or 65535: vips's linear, rounded to nearest with halves up; alpha unchanged. linear=A,B sets both.",
    .params = params,
    .nparams = 2,
    POINTWISE_LUT_FIELDS(linear, KV_VECTOR),
    .examples = EXAMPLES("linear=1.2:b=-10"),
};
