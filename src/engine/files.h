/* gpuimg: the loaders of files named inside a pipeline (core/opfile.h). The command's reads a
 * file with io's bounded loader; the examples' (gpuimg tune, the benchmarks, the tests) makes the
 * overlay an example names instead of reading it. */
#ifndef GPUIMG_ENGINE_FILES_H
#define GPUIMG_ENGINE_FILES_H
#include <stdint.h>
#include "core/image.h"

/* Files named in pipelines from now on are read by io_load under these limits (--max-pixels,
 * --max-expansion; 0: none). */
void engine_files_read(uint64_t max_pixels, unsigned max_expansion);
/* Files named in pipelines from now on are made, not read: a name holding -cC-dD (an op_desc's
 * example, "overlay-c4-d8.png") gives a 29x17 image of C channels at D bits with a gradient in
 * each sample and, with alpha, every level from transparent to opaque, the same every time. */
void engine_files_examples(void);
int engine_example_file(const char *path, struct image *img);

#endif
