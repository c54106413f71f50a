/* gpuimg: the GPU backend (backend_gpu.c): the device's pipeline, its codecs (nvJPEG, nvCOMP)
 * and the probe. In a build without CUDA the same calls answer that there is no GPU. */
#ifndef GPUIMG_BACKEND_GPU_H
#define GPUIMG_BACKEND_GPU_H
#include "core/image.h"
#include "core/plan.h"
#include "core/timing.h"
#include "cuda/gpu.h"
#include "io/io.h"

/* The output encoded on the GPU: the result's pixels stay on the device and only the encoded
 * bytes come down. PNG (nvCOMP builds): filtered and deflated there, its chunks joined by
 * pngenc_write_chunks; JPEG (nvJPEG builds): baseline, 8-bit grey or RGB, the whole file. */
struct gpu_encode_request {
    enum out_format fmt;          /* FMT_PNG or FMT_JPEG */
    int level;                    /* PNG: --png-level, 1..9 */
    int quality, sampling;        /* JPEG: 1..100; 420, 422 or 444 */
    struct gpu_png_chunks out;    /* PNG: out.n > 0 when the run encoded it */
    unsigned char *bytes;         /* JPEG: the file, len bytes, when the run encoded it */
    size_t len;
    const char *method;           /* what encoded it ("algorithm 0, ...") */
    double ms;                    /* the wall time of the encoder and its copies */
    int shared;                   /* JPEG: the GPU only while its encoder has room (gpu_jpeg_encode's
                                     share), else the pixels come down for the cores */
};
void backend_gpu_encode_free(struct gpu_encode_request *q);
/* --png-encoder, --jpeg-encoder: where a PNG or JPEG output is encoded. */
enum encoder_choice { ENCODER_AUTO, ENCODER_CPU, ENCODER_GPU };
/* 1 where this build can encode fmt on the GPU (PNG: nvCOMP; JPEG: nvJPEG) and want asks for it
 * (ENCODER_GPU) or, for a PNG left to ENCODER_AUTO, a large batch began the codecs. */
int backend_gpu_encode_available(enum out_format fmt, enum encoder_choice want);
/* A batch large enough to repay the GPU codecs' start (GPU_CODECS_MIN_FILES): PNG outputs are
 * encoded on the GPU from now on and, where jpeg, the JPEG engines' decoder of device is made on a
 * thread of its own, the CPU decoding until it is ready. backend_gpu_codecs_stop waits for that
 * thread (before exit). */
#define GPU_CODECS_MIN_FILES 100
void backend_gpu_codecs_start(int device, int jpeg);
void backend_gpu_codecs_stop(void);

struct gpu_run_opts {
    int device;
    int variant;   /* KV_* for every step, or -1: each operation's automatic choice */
    int pin;       /* page-lock the host image around the copies (pageable by default: locking a fresh
                      image costs more than it saves) */
    int nofuse;    /* run every step as its own kernel (fusion needs variant -1) */
    int stage;     /* copy through this thread's pinned staging buffers (a batch's workers) */
    int keep;      /* keep this thread's device memory between files (a batch's workers) */
    struct gpu_encode_request *enc;   /* non-NULL: encode the result on the GPU, not download it */
    int jpeg;      /* JPEG decoded on the GPU (backend_gpu_run_jpeg): 1 on its JPEG engines only, 2 also by
                      nvJPEG's default backend */
    const void *dev_src;   /* non-NULL: the input is this memory of the device, rows dev_pitch bytes
                              apart (the library's device image), not img's pixels; no tiles */
    size_t dev_pitch;
    void **dev_out;        /* non-NULL: the result stays on the device, packed, in *dev_out (gpu_malloc's,
                              the caller frees it with gpu_free); img gets its geometry, no pixels */
};
/* Whether backend_gpu_run_jpeg may take a JPEG with these options now (o->jpeg = 1: once the
 * engines' decoder of the device is ready). */
int backend_gpu_jpeg_now(const struct gpu_run_opts *o);
/* The scheduler's view of the engines (o->jpeg = 1): the ms until they would have decoded an image
 * of px pixels, their queue included, at their measured rate; -1 when there is no measurement. */
double backend_gpu_jpeg_wait_ms(const struct gpu_run_opts *o, long long px);
/* Images waiting for a call of the engines (-1 where they are not used) */
int backend_gpu_jpeg_waiting(const struct gpu_run_opts *o);
int backend_gpu_jpeg_made(int device);   /* 1 once device's JPEG engines are made and usable */
/* "JPEG engines: N images in C calls (B a call), S s, made in M ms" into buf (brief: "N images in
 * C calls, S s"); -1 where they are not made */
int backend_gpu_jpeg_stats(int device, int brief, char *buf, size_t len);
/* A worker thread that ran GPU work is done: free its staging buffers. */
void backend_gpu_thread_done(void);
/* The calling thread's current device given back as it was before this process's GPU work on it
 * last changed it (the library's calls end with it: a caller's current device is its own). */
void backend_gpu_restore_device(void);

/* Run pl on *img on the GPU: on success *img is replaced by the result (the input is freed).
 * Stage and per-step times go into r. Steps that measure their input (op.h) leave pl resolved to
 * the sizes this image gave, as backend_cpu_run does. */
int backend_gpu_run(struct plan *pl, const struct gpu_run_opts *o, struct image *img, struct run_report *r);
/* The same from a JPEG's bytes, decoded on the GPU by nvJPEG as o->jpeg says (adds its time to
 * r->decode_ms, names it in r->decoder); *out receives the result. Declined (GPUIMG_OK, *declined
 * the reason, *out empty) where this build has no nvJPEG, or it did not take or failed this
 * file: decode it on the CPU instead, whose decoder calls a bad file bad. */
int backend_gpu_run_jpeg(struct plan *pl, const struct gpu_run_opts *o, const struct io_input *jpeg,
                         struct image *out, const char **declined, struct run_report *r);

/* The library's device images: memory of device (freed with backend_gpu_free), and rows of row
 * bytes copied between pitched images on device (and the host: dir GPU_H2D, GPU_D2H, GPU_D2D). */
int backend_gpu_alloc(int device, void **p, size_t bytes);
void backend_gpu_free(int device, void *p);
int backend_gpu_copy2d(int device, void *dst, size_t dpitch, const void *src, size_t spitch, size_t row, int rows,
                       int dir);
/* 1 if every step of pl has a GPU implementation. */
int backend_gpu_supports(const struct plan *pl, const char **missing);
/* Whether a GPU is usable (0, with a description in name), else a status and the reason in why.
 * The first call makes the context; its cost is kept for the report (backend_gpu_init_ms). */
int backend_gpu_probe(int device, char *name, size_t namelen, char *why, size_t whylen);
const char *backend_gpu_name(void);
int backend_gpu_count(void);   /* devices the runtime shows, once one has been probed; else 0 */
int backend_gpu_devices(void);   /* devices the runtime shows, no probe needed (0 without any) */
int backend_gpu_cc(void);   /* compute capability of the probed GPU as 10 * major + minor, or 0 */
double backend_gpu_init_ms(void);
/* --gpu-mem-limit: the device memory one image's pipeline may use (0: all there is). Past it
 * (or past what the device has) the pipeline runs in tiles (tile.h) or, where a step cannot be
 * tiled, fails with GPUIMG_ENODEVMEM, and run_file() runs it on the CPU with a note. */
void backend_gpu_set_mem_limit(uint64_t bytes);

/* A plan resident on the device: two buffers of the plan's largest size, every step's state
 * (op_desc.gpu_prepare).
 * run() executes all steps from buf[0] (already uploaded), timing each step (step_ms, may be
 * NULL) and the whole chain; *out_buf is the buffer holding the result. */
struct gpu_pipeline {
    void *buf[2];
    size_t bytes;            /* each buffer's */
    int variant, nofuse;     /* as opened */
    void *state[PLAN_MAX_STEPS];
    /* each step's variant and launch shape (auto with a tune cache, else defaults), and the
     * kernel family its last launch ran where that is not the variant's own (else NULL) */
    struct gpu_call call[PLAN_MAX_STEPS];
    const char *ran[PLAN_MAX_STEPS];
    /* fusion: skip[i] when step i runs inside a neighbour; fuse[i]: the FUSE_* forms step i takes */
    int skip[PLAN_MAX_STEPS];
    unsigned fuse[PLAN_MAX_STEPS];
    struct gpu_timer *timer, *step_timer;
};
/* variant -1: each operation's automatic kernel, and neighbouring steps fused where an operation
 * offers it (a gray step read through by the next step, a transpose written by the step before),
 * unless nofuse. */
int gpu_pipeline_open(struct gpu_pipeline *gp, const struct plan *pl, int variant, int nofuse);
/* The label of step i as run ("gray+resize=50%" when fused) and the bytes its kernel reads and
 * writes; 0 for a step that runs inside a neighbour. */
int gpu_pipeline_step(const struct gpu_pipeline *gp, const struct plan *pl, int i, char *label, size_t n,
                      double *bytes);
int gpu_pipeline_run(struct gpu_pipeline *gp, struct plan *pl, float *step_ms, float *total_ms, int *out_buf);
void gpu_pipeline_close(struct gpu_pipeline *gp, const struct plan *pl);
/* One step's launch on device images in/out (state: the step's, from its gpu_prepare); *ran as
 * op_desc.gpu_launch sets it. */
int gpu_step_launch(const struct step *st, const void *state, const struct gpu_call *k, void *in, void *out,
                    const char **ran);
/* A step's kernel for a report: "vector", "vector: rows" (ran), "perpixel 32x2" (a tuned shape). */
void gpu_kernel_label(char *buf, size_t n, const struct gpu_call *k, const char *ran);

#endif
