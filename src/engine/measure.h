/* gpuimg: measuring on the GPU, for --compare, gpuimg tune and the benchmarks (engine layer: the
 * commands above call it; it calls only the backend). */
#ifndef GPUIMG_MEASURE_H
#define GPUIMG_MEASURE_H
#include "engine/backend.h"

/* GPU builds: check and time the variant and launch shape k of one step on device buffers din ->
 * dout (its state prepared and freed here; *ran: the kernel family that ran where it is not the
 * variant's own, else NULL): one launch into a poisoned output, downloaded and compared with
 * ref (*diff: the largest difference, 0 when exact), 3 warm-up launches, then `repeat` launches
 * timed with CUDA events (*ms: the median); *diff: the largest difference from ref, *tol: the
 * variant's stated tolerance (op_gpu_tolerance). */
struct gpu_timer;
int measure_gpu_variant(const struct step *st, const struct gpu_call *k, void *din, void *dout, const struct image *ref,
                        int repeat, struct gpu_timer *timer, double *ms, long *diff, long *tol, const char **ran);
/* The device-to-device copy of bytes from src to dst (the bandwidth ceiling): 3 warm-ups, the
 * median of repeat CUDA-event timings in *ms. */
int measure_copy_ms(void *dst, const void *src, size_t bytes, int repeat, struct gpu_timer *timer, double *ms);
/* A device pipeline's kernels on in: upload, one run whose result goes to host_out (ob bytes;
 * NULL: not downloaded), 3 warm-ups, then the median of repeat CUDA-event timings of all its
 * kernels in *ms. (Runs after the first start from the ping-ponged buffers, which changes no
 * kernel's work; only the first result is meaningful.) */
struct gpu_pipeline;
struct plan;
int measure_pipeline_kernels(struct gpu_pipeline *gp, struct plan *pl, const struct image *in, int repeat,
                             void *host_out, double *ms);
/* Device buffers of in_bytes and out_bytes and a timer for the calls above (freed by
 * measure_buffers_free, which takes NULLs), an image's bytes uploaded to one, and what the last
 * kernel launch was (1 when known). */
int measure_buffers(void **din, size_t in_bytes, void **dout, size_t out_bytes, struct gpu_timer **timer);
void measure_buffers_free(void *din, void *dout, struct gpu_timer *timer);
int measure_upload(void *dst, const void *src, size_t bytes);
int measure_last_launch(struct gpu_launch_info *li);
/* A device pipeline with its copies, repeat times: upload in (page-locked around the copy when
 * pinned, the locking timed), run, download into result (pl->out, allocated); each run's upload,
 * download (may be NULL) and whole time, on the host clock after each has finished. */
int measure_pipeline_copies(struct gpu_pipeline *gp, struct plan *pl, const struct image *in,
                            struct image *result, int repeat, int pinned, double *up, double *down, double *whole);
/* "exact", "within N (tolerance T)" or "MISMATCH max N" for a difference and its tolerance. */
int measure_check_text(char *buf, size_t n, long diff, long tol);

/* The largest difference between two images' samples (depth 8 or 16) of bytes bytes. */
long measure_max_diff(const uint8_t *a, const uint8_t *b, size_t bytes, int depth);

#endif
