/* gpuimg: backends run a whole resolved plan on an image. The CPU backend (OpenMP) is the
 * reference; the GPU backend uploads once, runs every step on the device and downloads once.
 * backend_select() makes the auto/cpu/gpu decision and says why. */
#ifndef GPUIMG_BACKEND_H
#define GPUIMG_BACKEND_H
#include "image.h"
#include "plan.h"
#include "timing.h"

enum backend_kind { BACKEND_AUTO, BACKEND_CPU, BACKEND_GPU };

struct backend_choice {
    enum backend_kind kind;   /* CPU or GPU after selection */
    char note[256];           /* why auto chose the CPU when a GPU build could not use the GPU */
    int note_is_fallback;     /* the note says "no usable GPU": print it once, even without -v */
};

int backend_select(enum backend_kind want, const struct plan *pl, int device, struct backend_choice *out);

/* Run pl on *img: on success *img is replaced by the result (the input is freed). Stage and
 * per-step times go into r. */
int backend_cpu_run(const struct plan *pl, struct image *img, struct run_report *r);
int backend_gpu_run(const struct plan *pl, int device, struct image *img, struct run_report *r);

/* 1 if every step of pl has a GPU implementation. */
int backend_gpu_supports(const struct plan *pl, const char **missing);
/* Whether a GPU is usable (0, with a description in name), else a status and the reason in why. */
int backend_gpu_probe(int device, char *name, size_t namelen, char *why, size_t whylen);

#endif
