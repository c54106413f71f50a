/* gpuimg: --compare. Runs the plan on the OpenMP path and, where a GPU is usable, with every
 * kernel variant of every step; checks each GPU result against the OpenMP one for the same
 * step (bit for bit: both compute the same integer formulas); times everything with a median of
 * `repeat` runs; and fills a table (kernel only, and with the host-device copies). */
#ifndef GPUIMG_COMPARE_H
#define GPUIMG_COMPARE_H
#include "engine/backend.h"
#include "app/report.h"

struct compare_opts {
    int repeat;
    int use_gpu;        /* try the GPU (not with --backend=cpu) */
    int device;
};

/* On success *img holds the result (the GPU's when it ran and agreed, else the OpenMP one) and
 * tab the rows; a disagreement is an error after the table is complete. */
int compare_run(struct plan *pl, const struct compare_opts *co, struct image *img, struct run_report *r,
                struct compare_table *tab);

#endif
