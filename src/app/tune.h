/* gpuimg: `gpuimg tune`. It sweeps every operation's kernel variants over launch shapes (block
 * shapes, pixels per thread) on the present GPU, checks every result against the OpenMP
 * reference, prints the measured times beside a simple time model, and stores the fastest exact
 * choice per operation and pixel layout in the tune cache (engine/tune_cache.h). */
#ifndef GPUIMG_TUNE_H
#define GPUIMG_TUNE_H
#include "lib/options.h"

/* `gpuimg tune [OPTIONS]` (argv[0] is "tune"): its options (the table's OPT_TUNE rows) and the
 * environment into o; a usage error says "tune: ". */
int tune_parse(int argc, char **argv, struct cli_opts *o);
/* The sweep with o's tune_w, tune_h, tune_repeat, device, tune_quick, tune_no_save. Returns a
 * gpuimg status. */
int tune_main(const struct cli_opts *o);

#endif
