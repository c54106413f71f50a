/* gpuimg: HOT marks a loop for an AVX2+FMA clone beside the baseline x86-64 one, chosen when the
 * program loads (GCC function multiversioning); elsewhere it is empty. The clones compute the
 * same integers: only the instruction set differs. */
#ifndef GPUIMG_HOT_H
#define GPUIMG_HOT_H
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define HOT __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define HOT
#endif
#endif
