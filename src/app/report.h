/* gpuimg: what a run, a batch and --compare report, in the words the command prints: the
 * one-line stderr summary, JSON, the batch's summary and JSON Lines, the --compare table.
 * server: "served by the server ..." or NULL, said in the line and the JSON. */
#ifndef GPUIMG_REPORT_H
#define GPUIMG_REPORT_H
#include <stdio.h>
#include "core/timing.h"

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
    /* the files each decoder took ("nvJPEG (hardware)": 198, "libjpeg-turbo": 2), and each
     * encoder, in first-seen order */
    struct codec_count { const char *name; long n; } decoders[BATCH_MAX_CODECS], encoders[BATCH_MAX_CODECS];
    int ndecoders, nencoders;
};
/* Count one file decoded (encoded) by name (a string that outlives the report); past
 * BATCH_MAX_CODECS names, the last one counts as "other". */
void report_count_decoder(struct batch_report *b, const char *name);
void report_count_encoder(struct batch_report *b, const char *name);

/* "gpuimg: decode 12.1 ms, process 3.2 ms, encode 40.0 ms, total 55.3 ms [cpu, 2 threads]";
 * verbose adds the per-step times and the sizes. */
void report_print_line(FILE *f, const struct run_report *r, int verbose, const char *server);
/* s as a JSON string, quoted and escaped */
void report_json_str(FILE *f, const char *s);
void report_write_json(FILE *f, const struct run_report *r, const char *server, const struct compare_table *t);
/* "gpuimg: batch: 98 done, 2 failed, 0 skipped of 100 in 12.0 s, 8.2 images/s [cpu, 2 jobs x 1 thread]"
 * and the busy time of every stage with its share. */
void report_print_batch(FILE *f, const struct batch_report *b);
/* A batch's --json: one line a file as it ends (input, output, status "done", "failed" or
 * "skipped", the error's text, the decoder, each stage's ms), then the summary's line (JSON Lines). */
void report_write_batch_json(FILE *f, const struct batch_report *b);
/* ms: STAGE_COUNT times (a negative one left out), or NULL for a file that did not run */
void report_write_file_json(FILE *f, const char *in, const char *out, const char *status, const char *error,
                            const char *decoder, const float *ms);
/* The stage's field of a single run's report (upload and download are -1 on the CPU). */
double report_stage_ms(const struct run_report *r, int stage);
/* The --compare table, one row per line, aligned. */
void report_print_compare(FILE *f, const struct run_report *r, const struct compare_table *t);
#endif
