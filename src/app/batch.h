/* gpuimg: the batch form, gpuimg -o TEMPLATE PIPELINE INPUT... / --from-list (see batch.c). */
#ifndef GPUIMG_BATCH_H
#define GPUIMG_BATCH_H
#include <stddef.h>
#include "app/cli.h"
#include "engine/run.h"

/* Run the batch o describes with ctx on threads cores, here or through the server
 * (client_route, from the number of files); t_start: when the command began. Returns a
 * status for an error that stops the batch before any work (usage, a bad list, two inputs
 * writing one output); otherwise GPUIMG_OK with *exit_code 0, or 1 when a file failed. */
int batch_main(const struct cli_opts *o, struct run_ctx *ctx, int threads, double t_start, int *exit_code);
/* TEMPLATE's name for input number index (1-based) of the list. */
int batch_expand(const char *tpl, const char *in, long index, char *out, size_t n);

#endif
