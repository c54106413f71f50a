/* gpuimg: the monotonic clock and the record of one run's stage times, which the engine fills
 * (app/report.h prints it). Operations never print. */
#ifndef GPUIMG_TIMING_H
#define GPUIMG_TIMING_H
#include <stdio.h>
#include "core/image.h"

#define REPORT_MAX_STEPS 32

struct run_report {
    const char *input, *output, *pipeline;
    struct geom in, out;
    const char *backend;          /* "cpu" or "gpu" */
    int threads;
    const char *device;           /* GPU name, or NULL */
    const char *fallback;         /* why auto ran on the CPU in a CUDA build ("no usable GPU"), or NULL */
    const char *decoder, *encoder;   /* the codecs that ran ("libdeflate", "libjpeg-turbo 2.1.5"), or NULL */
    char encoder_buf[128];        /* where encoder points when it is made up for the run */
    int shrink;                   /* the decoder shrank the image by this on load (0 or 1: not) */
    int orient;                   /* the EXIF orientation turned upright (0 or 1: none) */
    int frames;                   /* the input's frames, the first decoded (0 or 1: a still) */
    int tiles, tile_w, tile_h;    /* the GPU ran the pipeline in tiles (0: whole) */
    int streamed;                 /* decode, process and encode overlapped (stream.h): their times are busy times */
    char note[320];               /* said on stderr after the run: the GPU had no room, the CPU ran it */
    char declined[128];           /* a way the run did not take, and why ("not streamed: one thread"), said with -v */
    double decode_ms, upload_ms, process_ms, download_ms, encode_ms, total_ms;
    double gpu_init_ms;           /* context creation + first launch, reported apart; <0: none */
    int nsteps;
    struct { char label[96]; double ms; } steps[REPORT_MAX_STEPS];
    long peak_rss_kb;
};

double timing_now_ms(void);
long timing_peak_rss_kb(void);
void timing_report_init(struct run_report *r);

double timing_median(double *v, int n);

#endif
