/* gpuimg: the command line. cli_parse() fills cli_opts from argv and records a usage error
 * (status GPUIMG_EUSAGE) when the words are off; the help, version and --list texts are written
 * here from the op table so that they cannot fall out of step with the code. */
#ifndef GPUIMG_CLI_H
#define GPUIMG_CLI_H
#include <stdint.h>
#include <stdio.h>
#include "engine/backend.h"
#include "io/io.h"

enum cli_action { ACT_RUN, ACT_HELP, ACT_VERSION, ACT_LIST, ACT_SERVER, ACT_SERVER_STATUS, ACT_SERVER_STOP };

struct cli_opts {
    enum cli_action action;
    const char *list_format;      /* "text" or "man" */
    const char *pipeline, *input, *output;
    enum backend_kind backend;
    int device;
    int threads;                  /* --threads: a file's threads (0: OpenMP's default, or a batch's share) */
    int j, j_was_threads;         /* -j N: --jobs in a batch; a single file's threads, with a note */
    int png_level, jpeg_quality, webp_quality, webp_lossless;
    int have_format;
    enum out_format format;
    int quiet, verbose, force;
    const char *json;             /* NULL, "-" or a path */
    uint64_t max_pixels;
    uint64_t gpu_mem_limit;       /* --gpu-mem-limit in bytes (0: the device's memory) */
    int kernel;                   /* KV_* for every step, or -1: auto */
    int compare, repeat;
    int nofuse;
    int jpeg_decoder;             /* 0 auto (libjpeg-turbo, else stb_image), 1 stb_image, 2 nvJPEG on the
                                     GPU path, 3 libjpeg-turbo */
    enum io_decoder png_decoder;  /* --png-decoder (--decoder=stb sets both) */
    int shrink_on_load;
    int no_auto_orient;           /* --no-auto-orient */
    int strip;                    /* --strip */
    int jpeg_sampling, jpeg_progressive;   /* JPEG output: 420/422/444 (0: by quality), progressive */
    /* batch: -o TEMPLATE with INPUT... and/or --from-list */
    const char *template;         /* NULL: the single-file form PIPELINE INPUT OUTPUT */
    const char *from_list;        /* a file of input paths, one a line ("-": stdin), or NULL */
    char **inputs;                /* the INPUT words */
    int ninputs;
    int shard_k, shard_n;         /* --shard=K/N (N = 0: no sharding); K in 0..N-1 */
    int progress;                 /* -1: when stderr is a terminal; 0 never; 1 always */
    int jobs;                     /* files in flight (0: automatic) */
    int devices[GPU_MAX_DEVICES]; /* --devices=0,1,...: the GPUs a batch spreads over */
    int ndevices;                 /* 0: only --device; -1: --devices=all */
    int no_server;                /* --no-server */
    int dry_run;                  /* batch: print what would be written, write nothing */
    int list_nul;                 /* --from-list's paths end in NUL, not newline (-0, --from-list0) */
    int server_idle;              /* --server-idle: seconds */
};

int cli_parse(int argc, char **argv, struct cli_opts *o);
void cli_usage(FILE *f);
void cli_help(FILE *f);
void cli_version(FILE *f);
void cli_list(FILE *f, const char *format);

#endif
