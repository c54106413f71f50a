/* gpuimg: the SIMD switches of the pixel loops: HOT (core/hot.h) for compiler-made AVX2 clones,
 * and the hand-written AVX2 paths' test. */
#ifndef GPUIMG_SIMD_H
#define GPUIMG_SIMD_H
#include "core/hot.h"

/* Whether the hand-written SIMD paths may run (1 by default); set once, before any work. */
void simd_allow(int on);

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_X86_SIMD 1
#define AVX2 __attribute__((target("avx2,fma")))
/* Hand-written AVX2 paths run when the CPU has AVX2 and FMA and simd_allow(0) was not called
 * (GPUIMG_NO_SIMD: the tests run both ways, so the portable loops stay checked on machines that
 * have AVX2). */
extern int simd_allowed;
static inline int simd_ok(void)
{
    static int cached = -1;
    if (cached < 0)
        cached = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && simd_allowed;
    return cached;
}

#include <immintrin.h>
/* Channel ch (0 R, 1 G, 2 B) of 16 RGB 8-bit pixels held in a, b, c (48 bytes), as 16 bytes.
 * simd_init() must have run (it builds the masks; call it before a parallel region). */
extern signed char rgb8_split_masks[3][3][16];
void simd_init(void);
AVX2 static inline __m128i rgb8_channel(__m128i a, __m128i b, __m128i c, int ch)
{
    return _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(a, _mm_loadu_si128((const __m128i *)rgb8_split_masks[ch][0])),
                                     _mm_shuffle_epi8(b, _mm_loadu_si128((const __m128i *)rgb8_split_masks[ch][1]))),
                        _mm_shuffle_epi8(c, _mm_loadu_si128((const __m128i *)rgb8_split_masks[ch][2])));
}
#endif
#endif
