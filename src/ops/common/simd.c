/* gpuimg: what the hand-written x86 SIMD paths share: the byte-shuffle masks that split 16
 * interleaved RGB 8-bit pixels (48 bytes in three registers) into R, G and B registers. */
#include <config.h>
#include "ops/common/simd.h"

#ifdef HAVE_X86_SIMD
int simd_allowed = 1;
#endif

void simd_allow(int on)
{
#ifdef HAVE_X86_SIMD
    simd_allowed = on;
#else
    (void)on;
#endif
}

#ifdef HAVE_X86_SIMD
signed char rgb8_split_masks[3][3][16];

void simd_init(void)
{
    static int done;   /* called before the threads start */
    if (done)
        return;
    for (int ch = 0; ch < 3; ch++)
        for (int r = 0; r < 3; r++)
            for (int i = 0; i < 16; i++) {
                int b = 3 * i + ch - 16 * r;
                rgb8_split_masks[ch][r][i] = (signed char)(b >= 0 && b < 16 ? b : -128);
            }
    done = 1;
}
#endif
