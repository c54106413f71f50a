/* gpuimg: running a pipeline in tiles, for images whose pipeline does not fit in device memory.
 * The result is cut into rectangles; for each one, every step says which rectangle of its input
 * it needs (its own halo included, clipped at the image's edges) and which rectangle of its
 * output the step, run on that input as a whole image, then gives (op_desc.region). Walking the
 * steps backwards gives the source rectangle to upload; walking them forwards, each step runs
 * on its tile as an ordinary image and its output is cropped to what the next step needs. Every
 * pixel kept was computed from the same inputs, with the same border rule at the image's real
 * edges, as without tiles: the results are equal byte for byte (tests/tile_test.c). */
#ifndef GPUIMG_TILE_H
#define GPUIMG_TILE_H
#include "core/plan.h"

/* One output tile as a chain of steps on sub-images. */
struct tile_chain {
    int nsteps;
    struct rect src;                      /* the rectangle of the plan's input to start from */
    struct step steps[PLAN_MAX_STEPS];    /* the plan's steps with the tiles' geometries */
    struct rect keep[PLAN_MAX_STEPS];     /* the part of step k's output the next step needs, in that output */
    uint64_t max_bytes;                   /* the largest sub-image in the chain */
};

/* 1 if every step can run in tiles; else 0 and *which names the first that cannot. */
int tile_supported(const struct plan *pl, const char **which);
/* The chain for the output rectangle t of a resolved plan. */
int tile_chain(const struct plan *pl, const struct rect *t, struct tile_chain *tc);
/* The tile of tw x th whose top-left corner is (x, y), clipped to the plan's output. */
struct rect tile_at(const struct plan *pl, int x, int y, int tw, int th);
/* The largest max_bytes over the tiles of tw x th covering the output, and their number. */
int tile_grid_bytes(const struct plan *pl, int tw, int th, uint64_t *max_bytes, int *count);
/* The tile size after t x h that needs less memory: the longer side halved. 0 when already 1x1. */
int tile_shrink(int *tw, int *th);
/* The same for pl's tiles: the side whose halving needs the fewer bytes (a resize that takes whole
 * rows gains nothing from narrower tiles), the longer one on a tie. */
int tile_shrink_plan(const struct plan *pl, int *tw, int *th);
/* Copy the rectangle r of src into dst (allocated here) / dst's rectangle at (x, y) from src. */
int image_crop(const struct image *src, const struct rect *r, struct image *dst);
void image_paste(struct image *dst, int x, int y, const struct image *src);

/* tc's steps on the CPU, from its source rectangle of img: *res is the tile, lying in *own
 * (allocated here, for the caller to free; rows that span a whole image are taken in place, not
 * copied). step_ms (may be NULL) has each step's time added to it. */
int tile_chain_cpu(const struct tile_chain *tc, const struct image *img, struct image *res, void **own,
                   double *step_ms);
/* The OpenMP backend in tiles of tw x th: the reference for the tiling itself (tests). */
int tile_run_cpu(const struct plan *pl, int tw, int th, struct image *img);

#endif
