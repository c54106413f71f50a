/* gpuimg fuzz targets: each file defines LLVMFuzzerTestOneInput. Built with --enable-fuzzing
 * they link libFuzzer's main; otherwise replay.c's main runs them over files and directories,
 * which is how make check replays the committed corpus and tests/crashers/. A target calls
 * fuzz_fail() (abort) when a property it checks does not hold, so a replay fails loudly. */
#ifndef GPUIMG_FUZZ_H
#define GPUIMG_FUZZ_H
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
void fuzz_fail(const char *what);

/* Limits that keep one input fast: the decoders and operations are bounded by these. */
#define FUZZ_MAX_PIXELS (1u << 18)

#endif
