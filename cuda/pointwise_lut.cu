/* gpuimg: the pointwise template's table form (src/ops/common/pointwise.h): the template's
 * perpixel, coalesced and vector kernels with each colour sample looked up in the step's table,
 * which the host built with the operation's CPU function. One launcher for every such operation:
 * the GPU gives the CPU's bits whatever arithmetic the function does. */
#include "cuda/pointwise.cuh"

/* The table is read through the read-only cache: 256 bytes or 128 KiB, the same for every thread. */
template <typename T> struct PwLut {
    struct Args {
        const T *table;
    };
    static __device__ uint32_t sample(uint32_t v, uint32_t top, const Args &p) { return __ldg(p.table + v); }
};

template <typename T, int C>
static int pw_lut_tc(const gpu_call *k, const gpu_image *in, const gpu_image *out, const void *table, char *err,
                     size_t errlen)
{
    const typename PwLut<T>::Args p = { (const T *)table };
    return pw_launch_tc<PwLut<T>, T, C>(k, in, out, p, err, errlen);
}

extern "C" int gpu_pw_lut(const gpu_call *k, const gpu_image *in, const gpu_image *out, const void *table, char *err,
                          size_t errlen)
{
    switch ((in->depth == 16 ? 4 : 0) + in->c) {
    case 1: return pw_lut_tc<uint8_t, 1>(k, in, out, table, err, errlen);
    case 2: return pw_lut_tc<uint8_t, 2>(k, in, out, table, err, errlen);
    case 3: return pw_lut_tc<uint8_t, 3>(k, in, out, table, err, errlen);
    case 4: return pw_lut_tc<uint8_t, 4>(k, in, out, table, err, errlen);
    case 5: return pw_lut_tc<uint16_t, 1>(k, in, out, table, err, errlen);
    case 6: return pw_lut_tc<uint16_t, 2>(k, in, out, table, err, errlen);
    case 7: return pw_lut_tc<uint16_t, 3>(k, in, out, table, err, errlen);
    case 8: return pw_lut_tc<uint16_t, 4>(k, in, out, table, err, errlen);
    }
    snprintf(err, errlen, "no pointwise table kernel for %d channels of %d bits", in->c, in->depth);
    return (int)cudaErrorInvalidValue;
}
