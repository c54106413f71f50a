/* gpuimg: the monotonic clock, the record of one run's stage times, and the formats it is
 * reported in (the one-line stderr summary and JSON). Operations never print; main() hands
 * the filled record to these functions. */
#ifndef GPUIMG_TIMING_H
#define GPUIMG_TIMING_H
#include <stdio.h>
#include "image.h"

#define REPORT_MAX_STEPS 32

struct run_report {
    const char *input, *output, *pipeline;
    struct geom in, out;
    const char *backend;          /* "cpu" or "gpu" */
    int threads;
    const char *device;           /* GPU name, or NULL */
    double decode_ms, upload_ms, process_ms, download_ms, encode_ms, total_ms;
    double gpu_init_ms;           /* context creation + first launch, reported apart; <0: none */
    int nsteps;
    struct { char label[96]; double ms; } steps[REPORT_MAX_STEPS];
    long peak_rss_kb;
};

double timing_now_ms(void);
long timing_peak_rss_kb(void);
void timing_report_init(struct run_report *r);

/* "gpuimg: decode 12.1 ms, process 3.2 ms, encode 40.0 ms, total 55.3 ms [cpu, 2 threads]";
 * verbose adds the per-step times and the sizes. */
void timing_print_line(FILE *f, const struct run_report *r, int verbose);
void timing_write_json(FILE *f, const struct run_report *r);

#endif
