/* gpuimg: invert, on the pointwise template (ops/common/pointwise.h): each colour sample v to
 * top - v, alpha kept. Its kernels: cuda/invert/invert.cu. */
#include <config.h>
#include "ops/common/pointwise.h"

static inline uint32_t invert_sample(uint32_t v, uint32_t top, const struct pw_args *p) { return top - v; }
POINTWISE_SAMPLES(invert, invert_sample)

const struct op_desc op_invert = {
    .name = "invert",
    .summary = "invert the colours (alpha kept)",
    .definition = "out = top - in for every colour sample, top = 255 at 8 bits and 65535 at 16; alpha unchanged. "
                  "Exact.",
    POINTWISE_FIELDS(invert, KV_VECTOR),
    .examples = EXAMPLES("invert"),
};
