/* gpuimg: --compare. Runs the plan on the OpenMP path and, where a GPU is usable, with every
 * kernel variant of every step; checks each GPU result against the OpenMP one for the same
 * step (bit for bit: both compute the same integer formulas); times everything with a median of
 * `repeat` runs; and fills a table (kernel only, and with the host-device copies). */
#ifndef GPUIMG_COMPARE_H
#define GPUIMG_COMPARE_H
#include "backend.h"
#include "timing.h"

struct compare_opts {
    int repeat;
    int use_gpu;        /* try the GPU (not with --backend=cpu) */
    int device;
};

/* On success *img holds the result (the GPU's when it ran and agreed, else the OpenMP one) and
 * tab the rows; a disagreement is an error after the table is complete. */
int compare_run(const struct plan *pl, const struct compare_opts *co, struct image *img, struct run_report *r,
                struct compare_table *tab);

/* GPU builds: check and time variant v of one step on device buffers din -> dout (its tables
 * prepared and freed here): one launch into a poisoned output, downloaded and compared with
 * ref (*diff: the largest difference, 0 when exact), 3 warm-up launches, then `repeat` launches
 * timed with CUDA events (*ms: the median); *diff: the largest difference from ref, *tol: the
 * variant's stated tolerance (op_gpu_tolerance). */
struct gpu_timer;
int compare_gpu_variant(const struct step *st, int v, void *din, void *dout, const struct image *ref, int repeat,
                        struct gpu_timer *timer, double *ms, long *diff, long *tol);
/* The device-to-device copy of bytes from src to dst (the bandwidth ceiling): 3 warm-ups, the
 * median of repeat CUDA-event timings in *ms. */
int compare_copy_ms(void *dst, const void *src, size_t bytes, int repeat, struct gpu_timer *timer, double *ms);
/* A device pipeline's kernels on in: upload, one run whose result goes to host_out (ob bytes;
 * NULL: not downloaded), 3 warm-ups, then the median of repeat CUDA-event timings of all its
 * kernels in *ms. (Runs after the first start from the ping-ponged buffers, which changes no
 * kernel's work; only the first result is meaningful.) */
struct gpu_pipeline;
struct plan;
int compare_pipeline_kernels(struct gpu_pipeline *gp, const struct plan *pl, const struct image *in, int repeat,
                             void *host_out, double *ms);
/* "exact", "within N (tolerance T)" or "MISMATCH max N" for a difference and its tolerance. */
int compare_check_text(char *buf, size_t n, long diff, long tol);

#endif
