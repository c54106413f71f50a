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

/* Run pl on raw (its header read, nothing decoded; messages name the output, name) into a PNG of so's level and threads whose
 * strips are all deflated: *out, for io_write (IO_RESULT_PNG_STRIPS) and then pngenc_free.
 * Declined where the file does not stream (the threads, the format, the decoder or the pipeline
 * do not allow it): GPUIMG_OK with *out NULL, *why the reason and raw untouched. */
int stream_run(const struct plan *pl, struct io_input *raw, const char *name, const struct save_opts *so,
               struct pngenc **out, const char **why, struct run_report *r);

#endif
