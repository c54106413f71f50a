/* gpuimg bench: steady-state time of one operation on the OpenMP path: the same decoded input and
 * the same (already touched) output buffer, N calls, median. This is how a library loop or
 * OpenCV's benchmark sees an operation; the command line's figure also pays for first-touching a
 * fresh output (page faults), which bench/cpu_ops.sh measures.
 *   bench/cpu_steady IMAGE OPERATION [RUNS] */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/error.h"
#include "io/io.h"
#include "core/plan.h"
#include "core/timing.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: cpu_steady IMAGE OPERATION [RUNS]\n");
        return 2;
    }
    struct image in, out;
    struct load_opts lo = { 0 };
    struct plan pl;
    int n = argc > 3 ? atoi(argv[3]) : 15;
    if (n < 1 || n > 1000)
        n = 15;
    if (io_load(argv[1], &lo, &in) || plan_parse(argv[2], &pl)) {
        fprintf(stderr, "cpu_steady: %s\n", gpuimg_errmsg());
        return 1;
    }
    struct geom g = image_geom(&in);
    if (plan_resolve(&pl, &g, 0) || pl.nsteps != 1 || image_alloc(&out, &pl.steps[0].out)) {
        fprintf(stderr, "cpu_steady: one operation, please (%s)\n", gpuimg_errmsg() ? gpuimg_errmsg() : "");
        return 1;
    }
    double *t = malloc(sizeof *t * n);
    for (int i = 0; i < n; i++) {
        double t0 = timing_now_ms();
        pl.steps[0].op->cpu(&pl.steps[0].args, &in, &out);
        t[i] = timing_now_ms() - t0;
    }
    printf("%-32s %9.2f ms (steady, median of %d)\n", argv[2], timing_median(t, n), n);
    free(t);
    return 0;
}
