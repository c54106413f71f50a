/* gpuimg: one file decoded, processed and encoded at once on the CPU. The result is cut into
 * the PNG encoder's strips (full-width bands of rows); as the decoder finishes rows, each band
 * whose input rows are all there runs the pipeline on them as a tile (tile.h: the same pixels as
 * the whole image gives) and is filtered and deflated, while the decoder goes on. One thread
 * decodes, then joins the others. It pays where the decoder gives rows as it goes (libjpeg-turbo)
 * and the first band needs less than the whole input (not transpose or rotate); the file is the
 * same byte for byte as the run without it (tests/stream.sh). */
#ifndef GPUIMG_STREAM_H
#define GPUIMG_STREAM_H
#include "core/plan.h"
#include "core/timing.h"
#include "io/io.h"

/* Run pl on raw (its header read, nothing decoded) into out (a PNG: so's level and threads) and
 * write it, or with hold leave it pending there. GPUIMG_EUNSUPPORTED with no message recorded,
 * raw untouched, where the file does not stream: the threads, the format, the decoder or the
 * pipeline do not allow it, or GPUIMG_STREAM=0 in the environment. */
int stream_run(const struct plan *pl, struct io_input *raw, const char *out, const struct save_opts *so,
               struct io_pending *hold, struct run_report *r);

#endif
