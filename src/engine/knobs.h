/* gpuimg: the measuring knobs (man gpuimg, ENVIRONMENT): process-wide switches that app reads
 * from the environment once, into its option record, and hands the engine before any work; the
 * engine passes on those of the layers below. Their defaults are the measured choices. */
#ifndef GPUIMG_KNOBS_H
#define GPUIMG_KNOBS_H

struct engine_knobs {
    int no_stream;        /* decode, process and encode one after another (GPUIMG_STREAM=0) */
    int no_simd;          /* the portable loops, not the hand-written AVX2 ones (GPUIMG_NO_SIMD) */
    int png_zlib;         /* PNG deflated by zlib where libdeflate is built in (GPUIMG_PNG_ZLIB) */
    long nvjpeg_flags;    /* the JPEG engines' nvjpegCreateEx flags; -1: the default */
    int jpeg_gpu_encodes; /* JPEG outputs a GPU's encoder takes at once when shared; -1: the default */
    int png_gpu_algo;     /* nvCOMP's deflate algorithm for every level; -1: by level */
    long png_gpu_chunk;   /* bytes a chunk of nvCOMP's deflate; 0: the default */
    const char *tune_file;   /* the tune cache: this file, or "off"; NULL: one a GPU model in tune_dir */
    const char *tune_dir;
};

/* Once, before any work (the strings must outlive the process's work). */
void engine_set_knobs(const struct engine_knobs *k);
/* Whether a file streams (stream.h) unless the knob says not. */
int engine_streams(void);

#endif
