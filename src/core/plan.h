/* gpuimg: a parsed pipeline. plan_parse() turns "gray,resize=50%:filter=area,blur=2" into
 * steps (operation + arguments) and reports syntax and parameter errors before any file is
 * read; plan_resolve() then fixes each step's input and output geometry for a given input. */
#ifndef GPUIMG_PLAN_H
#define GPUIMG_PLAN_H
#include <stdatomic.h>
#include <stdint.h>
#include "core/op.h"

#define PLAN_MAX_STEPS 32

struct step {
    const struct op_desc *op;
    struct op_args args;
    struct op_args given;   /* args before resolve rewrote them (plan_resolve, plan_append): what
                               plan_measured resolves the steps after a measure from */
    struct geom in, out;
    char text[96];        /* the step as written, for reports */
};

struct plan {
    int nsteps;
    struct step steps[PLAN_MAX_STEPS];
    struct geom in, out;
    uint64_t max_bytes;   /* the largest buffer any step needs (input or output); past a step that
                             measures its input, a bound until it has run (plan_measured) */
    uint64_t max_pixels;  /* plan_resolve's bound on every step's output (0: none) */
    const atomic_int *abandoned;   /* non-NULL: whoever asked for the run may give it up (the
                                      server's client hung up); looked at between steps and bands */
};

int plan_parse(const char *text, struct plan *pl);
/* The path of the first file a step of pl names (PARAM_FILE: composite's overlay), or NULL. */
const char *plan_file(const struct plan *pl);
/* GPUIMG_EUSAGE, naming the step and the kernels it has, where --kernel=KV_* (kernel; -1: auto)
 * asks for one that a step of pl lacks. */
int plan_check_kernel(const struct plan *pl, int kernel);
/* max_pixels (0: none) also bounds every intermediate and the output. A command's limit is 1 to
 * PLAN_MAX_PIXELS_HI (--max-pixels; the server holds its requests to the same). */
#define PLAN_MAX_PIXELS_HI ((uint64_t)1 << 40)
int plan_resolve(struct plan *pl, const struct geom *in, uint64_t max_pixels);
/* The steps of text, implying none, appended to pl (resolved) and resolved from its output: the
 * steps a run adds for its output (the flatten a format without alpha asks). label: their text in
 * reports instead of text (NULL: text). */
int plan_append(struct plan *pl, const char *text, const char *label, uint64_t max_pixels);
/* After step i measured its input (op_desc.measure set its args' box): step i and those after it
 * resolved again from step i's input, with the same bound, and max_bytes made anew. Nothing to do
 * where the step measured nothing (args.measured 0). */
int plan_measured(struct plan *pl, int i);
/* Step i's measure (op_desc.measure) run on its input in, then plan_measured; nothing for a step
 * that measures nothing: what a CPU run calls before each step. */
int plan_measure(struct plan *pl, int i, const struct image *in);
/* Whether a step of pl measures its input (op_desc.measure): its sizes past it are bounds until
 * the run. */
int plan_measures(const struct plan *pl);
/* GPUIMG_ECANCELED once the run's asker has given it up, else GPUIMG_OK: the backends call it
 * before each step and band, so an abandoned run stops within one. */
int plan_abandoned(const struct plan *pl);

#endif
