/* gpuimg: the OpenMP backend, the reference (backend_cpu.c). */
#ifndef GPUIMG_BACKEND_CPU_H
#define GPUIMG_BACKEND_CPU_H
#include "core/image.h"
#include "core/plan.h"
#include "core/timing.h"

/* Run pl on *img: on success *img is replaced by the result (the input is freed). Stage and
 * per-step times go into r. Steps that measure their input (op.h) leave pl resolved to the sizes
 * this image gave. */
int backend_cpu_run(struct plan *pl, struct image *img, struct run_report *r);

#endif
