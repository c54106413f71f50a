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
/* The length of the directory part (through its last '/') that every input's path begins with,
 * as written, in whole directories; 0 when none. */
size_t batch_common_dir(char *const *in, long n);
/* TEMPLATE's name for input number index (1-based) of the list: %s the name without its
 * extension, %e the extension, %d the directory below common (the common directory's length), %D
 * the directory as written, %i / %Ni the index, %% a percent sign. GPUIMG_EUSAGE, naming the
 * input, where the input's name takes the output out of the template's fixed part (through ".."
 * or, that part being empty, to an absolute path), unless the template starts with %D. */
int batch_expand(const char *tpl, const char *in, size_t common, long index, char *out, size_t n);

#endif
