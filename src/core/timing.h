/* gpuimg: the monotonic clock, the record of one run's stage times, and the formats it is
 * reported in (the one-line stderr summary and JSON). Operations never print; main() hands
 * the filled record to these functions. */
#ifndef GPUIMG_TIMING_H
#define GPUIMG_TIMING_H
#include <stdio.h>
#include "core/image.h"

#define REPORT_MAX_STEPS 32
#define COMPARE_MAX_ROWS 160

/* One row of --compare: an operation (or the pipeline, or a transfer) by one implementation. */
struct compare_row {
    char what[96];      /* the step as written, "pipeline", "upload", ... */
    char impl[48];      /* "openmp", a kernel variant, "gpu kernels", "pageable", ... */
    double ms;          /* median of the runs */
    double bytes;       /* bytes read + written, for GB/s; 0: not applicable */
    double ref_ms;      /* the OpenMP time this is compared with; 0: none */
    char check[48];     /* "reference", "exact", "MISMATCH max 3", "" */
};
struct compare_table {
    int repeat, nrows, failed;
    const char *device;
    struct compare_row rows[COMPARE_MAX_ROWS];
};

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
    int tiles, tile_w, tile_h;    /* the GPU ran the pipeline in tiles (0: whole) */
    int streamed;                 /* decode, process and encode overlapped (stream.h): their times are busy times */
    char note[320];               /* said on stderr after the run: the GPU had no room, the CPU ran it */
    double decode_ms, upload_ms, process_ms, download_ms, encode_ms, total_ms;
    double gpu_init_ms;           /* context creation + first launch, reported apart; <0: none */
    int nsteps;
    struct { char label[96]; double ms; } steps[REPORT_MAX_STEPS];
    long peak_rss_kb;
    const struct compare_table *compare;   /* --compare's table, or NULL */
    char server[128];             /* "served by the server ...", or "": said in the line */
};

/* A batch: counts, wall time and each stage's busy time summed over the files (the stages of
 * different files overlap, so the sums can exceed the wall time). */
enum { STAGE_DECODE, STAGE_UPLOAD, STAGE_PROCESS, STAGE_DOWNLOAD, STAGE_ENCODE, STAGE_COUNT };
#define BATCH_MAX_CODECS 6
struct batch_report {
    const char *pipeline, *template;
    long listed, selected;        /* inputs named, and those in this shard */
    int shard_k, shard_n;         /* n = 0: no sharding */
    long done, failed, skipped;
    double wall_ms;
    int jobs, threads_per_job;
    const char *backend, *device, *fallback;
    const char *server;           /* "served by the server ...", or NULL */
    int ndevices;                 /* GPUs the batch was spread over (0 or 1: one) */
    double busy_ms[STAGE_COUNT];
    long peak_rss_kb;
    /* the files each decoder took ("nvJPEG (hardware)": 198, "libjpeg-turbo": 2), in first-seen order */
    struct { const char *name; long n; } decoders[BATCH_MAX_CODECS];
    int ndecoders;
};
/* Count one file decoded by name (a string that outlives the report); past BATCH_MAX_CODECS
 * names, the last one counts as "other". */
void timing_batch_count_decoder(struct batch_report *b, const char *name);

double timing_now_ms(void);
long timing_peak_rss_kb(void);
void timing_report_init(struct run_report *r);

/* "gpuimg: decode 12.1 ms, process 3.2 ms, encode 40.0 ms, total 55.3 ms [cpu, 2 threads]";
 * verbose adds the per-step times and the sizes. */
void timing_print_line(FILE *f, const struct run_report *r, int verbose);
void timing_write_json(FILE *f, const struct run_report *r);
/* "gpuimg: batch: 98 done, 2 failed, 0 skipped of 100 in 12.0 s, 8.2 images/s [cpu, 2 jobs x 1 thread]"
 * and the busy time of every stage with its share. */
void timing_print_batch(FILE *f, const struct batch_report *b);
/* A batch's --json: one line a file as it ends (input, output, status "done", "failed" or
 * "skipped", the error's text, the decoder, each stage's ms), then the summary's line (JSON Lines). */
void timing_write_batch_json(FILE *f, const struct batch_report *b);
/* ms: STAGE_COUNT times (a negative one left out), or NULL for a file that did not run */
void timing_write_file_json(FILE *f, const char *in, const char *out, const char *status, const char *error,
                            const char *decoder, const float *ms);
/* The stage's field of a single run's report (upload and download are -1 on the CPU). */
double timing_stage_ms(const struct run_report *r, int stage);
/* The --compare table, one row per line, aligned. */
void timing_print_compare(FILE *f, const struct run_report *r);
double timing_median(double *v, int n);

#endif
