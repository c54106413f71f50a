/* gpuimg: `gpuimg tune`. It sweeps every operation's kernel variants over launch shapes (block
 * shapes, pixels per thread) on the present GPU, checks every result against the OpenMP
 * reference, prints the measured times beside a simple time model, and stores the fastest exact
 * choice per operation and pixel layout in the tune cache (engine/tune_cache.h). */
#ifndef GPUIMG_TUNE_H
#define GPUIMG_TUNE_H

struct tune_opts {
    int device;
    int w, h;          /* the image size swept (default 7680x4320: larger than any L2) */
    int repeat;        /* timings per configuration, median kept (default 30) */
    int quick;         /* RGB 8-bit only */
    int save;          /* write the cache (default 1) */
};

/* `gpuimg tune [OPTIONS]`: argv[0] is "tune". Returns a gpuimg status. */
int tune_main(int argc, char **argv);

#endif
