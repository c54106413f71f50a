/* gpuimg: option parsing and the help, version and operation texts (see cli.h). */
#include <config.h>
#include <errno.h>
#include <getopt.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "app/cli.h"
#include "app/server.h"
#include "core/error.h"
#include "core/op.h"
#include "core/params.h"
#include "core/plan.h"

#define DEFAULT_MAX_PIXELS ((uint64_t)1 << 28)

enum {
    OPT_LIST = 256, OPT_BACKEND, OPT_DEVICE, OPT_PNG_LEVEL, OPT_JPEG_QUALITY, OPT_FORMAT, OPT_JSON, OPT_MAX_PIXELS,
    OPT_KERNEL, OPT_COMPARE, OPT_REPEAT, OPT_NO_FUSE, OPT_FROM_LIST, OPT_SHARD, OPT_PROGRESS, OPT_NO_PROGRESS,
    OPT_JOBS, OPT_DEVICES, OPT_JPEG_DECODER, OPT_GPU_MEM_LIMIT, OPT_JPEG_SAMPLING, OPT_JPEG_PROGRESSIVE,
    OPT_DECODER, OPT_PNG_DECODER, OPT_SHRINK_ON_LOAD, OPT_NO_SERVER, OPT_SERVER, OPT_SERVER_STATUS, OPT_SERVER_STOP,
    OPT_SERVER_IDLE, OPT_DRY_RUN, OPT_FROM_LIST0, OPT_THREADS, OPT_NO_AUTO_ORIENT, OPT_STRIP, OPT_WEBP_QUALITY, OPT_WEBP_LOSSLESS,
};

static const struct option longopts[] = {
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { "list", optional_argument, NULL, OPT_LIST },
    { "backend", required_argument, NULL, OPT_BACKEND },
    { "device", required_argument, NULL, OPT_DEVICE },
    { "threads", required_argument, NULL, OPT_THREADS },
    { "png-level", required_argument, NULL, OPT_PNG_LEVEL },
    { "jpeg-quality", required_argument, NULL, OPT_JPEG_QUALITY },
    { "jpeg-sampling", required_argument, NULL, OPT_JPEG_SAMPLING },
    { "jpeg-progressive", no_argument, NULL, OPT_JPEG_PROGRESSIVE },
    { "format", required_argument, NULL, OPT_FORMAT },
    { "json", required_argument, NULL, OPT_JSON },
    { "force", no_argument, NULL, 'f' },
    { "max-pixels", required_argument, NULL, OPT_MAX_PIXELS },
    { "kernel", required_argument, NULL, OPT_KERNEL },
    { "compare", no_argument, NULL, OPT_COMPARE },
    { "no-fuse", no_argument, NULL, OPT_NO_FUSE },
    { "repeat", required_argument, NULL, OPT_REPEAT },
    { "output", required_argument, NULL, 'o' },
    { "from-list", required_argument, NULL, OPT_FROM_LIST },
    { "from-list0", required_argument, NULL, OPT_FROM_LIST0 },
    { "null", no_argument, NULL, '0' },
    { "dry-run", no_argument, NULL, OPT_DRY_RUN },
    { "shard", required_argument, NULL, OPT_SHARD },
    { "progress", no_argument, NULL, OPT_PROGRESS },
    { "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
    { "jobs", required_argument, NULL, OPT_JOBS },
    { "devices", required_argument, NULL, OPT_DEVICES },
    { "jpeg-decoder", required_argument, NULL, OPT_JPEG_DECODER },
    { "png-decoder", required_argument, NULL, OPT_PNG_DECODER },
    { "decoder", required_argument, NULL, OPT_DECODER },
    { "shrink-on-load", no_argument, NULL, OPT_SHRINK_ON_LOAD },
    { "no-auto-orient", no_argument, NULL, OPT_NO_AUTO_ORIENT },
    { "strip", no_argument, NULL, OPT_STRIP },
    { "webp-quality", required_argument, NULL, OPT_WEBP_QUALITY },
    { "webp-lossless", no_argument, NULL, OPT_WEBP_LOSSLESS },
    { "gpu-mem-limit", required_argument, NULL, OPT_GPU_MEM_LIMIT },
    { "no-server", no_argument, NULL, OPT_NO_SERVER },
    { "server", no_argument, NULL, OPT_SERVER },
    { "server-status", no_argument, NULL, OPT_SERVER_STATUS },
    { "server-stop", no_argument, NULL, OPT_SERVER_STOP },
    { "server-idle", required_argument, NULL, OPT_SERVER_IDLE },
    { "quiet", no_argument, NULL, 'q' },
    { "verbose", no_argument, NULL, 'v' },
    { NULL, 0, NULL, 0 },
};

static int parse_int(const char *opt, const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi)
        return gpuimg_fail(GPUIMG_EUSAGE, "%s: expected a whole number from %lld to %lld, not '%s'", opt, lo, hi, s);
    *out = v;
    return GPUIMG_OK;
}

/* A byte count: digits and an optional K, M or G (KiB, MiB, GiB; "KiB", "MB"... also taken). */
static int parse_bytes(const char *opt, const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = 0;
    if (*end == 'k' || *end == 'K') shift = 10;
    else if (*end == 'm' || *end == 'M') shift = 20;
    else if (*end == 'g' || *end == 'G') shift = 30;
    if (shift) {
        end++;
        if (!strcmp(end, "iB") || !strcmp(end, "B"))
            end += strlen(end);
    }
    if (!*s || *s == '-' || *end || errno || v == 0 || v > (1ull << 50) >> shift)
        return gpuimg_fail(GPUIMG_EUSAGE, "%s: expected a size such as 512M, 2G or 1048576 (bytes), not '%s'", opt, s);
    *out = (uint64_t)v << shift;
    return GPUIMG_OK;
}

int cli_parse(int argc, char **argv, struct cli_opts *o)
{
    memset(o, 0, sizeof *o);
    o->backend = BACKEND_AUTO;
    o->png_level = 6;
    o->jpeg_quality = 90;
    o->webp_quality = 80;
    o->max_pixels = DEFAULT_MAX_PIXELS;
    o->list_format = "text";
    o->kernel = -1;
    o->repeat = 10;
    o->progress = -1;
    o->server_idle = SERVER_IDLE_DEFAULT;
    const char *idle = getenv("GPUIMG_SERVER_IDLE");
    if (idle && *idle) {
        long long s;
        if (parse_int("GPUIMG_SERVER_IDLE", idle, 1, 86400, &s))
            return GPUIMG_EUSAGE;
        o->server_idle = (int)s;
    }
    opterr = 0;
    optind = 1;
    int c;
    long long v;
    int r, w;
    while ((c = getopt_long(argc, argv, ":hVj:fqvo:0", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': o->action = ACT_HELP; return GPUIMG_OK;
        case 'V': o->action = ACT_VERSION; return GPUIMG_OK;
        case OPT_LIST:
            o->action = ACT_LIST;
            if (optarg) {
                if (strcmp(optarg, "text") && strcmp(optarg, "man"))
                    return gpuimg_fail(GPUIMG_EUSAGE, "--list: format must be text or man, not '%s'", optarg);
                o->list_format = optarg;
            }
            return GPUIMG_OK;
        case OPT_BACKEND:   /* the words in enum backend_kind's order */
            if ((w = param_choice_index("auto|cpu|gpu", optarg)) < 0)
                return gpuimg_fail(GPUIMG_EUSAGE, "--backend must be auto, cpu or gpu, not '%s'", optarg);
            o->backend = (enum backend_kind)w;
            break;
        case OPT_DEVICE:
            if ((r = parse_int("--device", optarg, 0, 1023, &v))) return r;
            o->device = (int)v;
            break;
        case OPT_THREADS:
            if ((r = parse_int("--threads", optarg, 1, 4096, &v))) return r;
            o->threads = (int)v;
            break;
        case 'j':   /* files in flight, as make -j; a single file's threads before (see below) */
            if ((r = parse_int("-j", optarg, 1, 4096, &v))) return r;
            o->j = (int)v;
            break;
        case OPT_PNG_LEVEL:
            if ((r = parse_int("--png-level", optarg, 0, 9, &v))) return r;
            o->png_level = (int)v;
            break;
        case OPT_JPEG_QUALITY:
            if ((r = parse_int("--jpeg-quality", optarg, 1, 100, &v))) return r;
            o->jpeg_quality = (int)v;
            break;
        case OPT_JPEG_SAMPLING:
            if (strcmp(optarg, "420") && strcmp(optarg, "422") && strcmp(optarg, "444"))
                return gpuimg_fail(GPUIMG_EUSAGE, "--jpeg-sampling must be 420, 422 or 444, not '%s'", optarg);
            o->jpeg_sampling = atoi(optarg);
            break;
        case OPT_JPEG_PROGRESSIVE: o->jpeg_progressive = 1; break;
        case OPT_WEBP_QUALITY:
            if ((r = parse_int("--webp-quality", optarg, 0, 100, &v))) return r;
            o->webp_quality = (int)v;
            break;
        case OPT_WEBP_LOSSLESS: o->webp_lossless = 1; break;
        case OPT_FORMAT:
            if (io_format_from_name(optarg, &o->format))
                return gpuimg_fail(GPUIMG_EUSAGE, "--format must be png, jpg, webp, tiff, bmp, tga or ppm, not '%s'", optarg);
            o->have_format = 1;
            break;
        case OPT_JSON: o->json = optarg; break;
        case 'f': o->force = 1; break;
        case OPT_GPU_MEM_LIMIT:
            if ((r = parse_bytes("--gpu-mem-limit", optarg, &o->gpu_mem_limit))) return r;
            break;
        case OPT_MAX_PIXELS:
            if ((r = parse_int("--max-pixels", optarg, 1, (long long)PLAN_MAX_PIXELS_HI, &v))) return r;
            o->max_pixels = (uint64_t)v;
            break;
        case OPT_KERNEL:
            o->kernel = -2;
            if (!strcmp(optarg, "auto"))
                o->kernel = -1;
            for (int k = 0; k < KV_COUNT; k++)
                if (!strcmp(optarg, kernel_names[k]))
                    o->kernel = k;
            if (o->kernel == -2) {
                char kl[128];
                kernel_list((1u << KV_COUNT) - 1, kl, sizeof kl);
                return gpuimg_fail(GPUIMG_EUSAGE, "--kernel must be auto or one of %s, not '%s'", kl, optarg);
            }
            break;
        case OPT_NO_FUSE: o->nofuse = 1; break;
        case OPT_COMPARE: o->compare = 1; break;
        case OPT_REPEAT:
            if ((r = parse_int("--repeat", optarg, 1, 10000, &v))) return r;
            o->repeat = (int)v;
            break;
        case 'o':
            if (!*optarg || !strcmp(optarg, "-"))
                return gpuimg_fail(GPUIMG_EUSAGE, "-o: TEMPLATE must name files (batch outputs cannot go to stdout)");
            o->template = optarg;
            break;
        case OPT_FROM_LIST: o->from_list = optarg; break;
        case OPT_FROM_LIST0: o->from_list = optarg; o->list_nul = 1; break;
        case '0': o->list_nul = 1; break;
        case OPT_DRY_RUN: o->dry_run = 1; break;
        case OPT_NO_AUTO_ORIENT: o->no_auto_orient = 1; break;
        case OPT_STRIP: o->strip = 1; break;
        case OPT_SHARD: {
            long long k, n;
            const char *slash = strchr(optarg, '/');
            char kbuf[32];
            if (!slash || (size_t)(slash - optarg) >= sizeof kbuf)
                return gpuimg_fail(GPUIMG_EUSAGE, "--shard: expected K/N such as 0/4, not '%s'", optarg);
            memcpy(kbuf, optarg, (size_t)(slash - optarg));
            kbuf[slash - optarg] = 0;
            if ((r = parse_int("--shard N", slash + 1, 1, 1000000, &n)) || (r = parse_int("--shard K", kbuf, 0, n - 1, &k)))
                return r;
            o->shard_n = (int)n;
            o->shard_k = (int)k;   /* N/N is refused: N+1 shards would do slice 0 twice */
            break;
        }
        case OPT_PROGRESS: o->progress = 1; break;
        case OPT_NO_PROGRESS: o->progress = 0; break;
        case OPT_JOBS:
            if ((r = parse_int("--jobs", optarg, 1, 64, &v))) return r;
            o->jobs = (int)v;
            break;
        case OPT_JPEG_DECODER:   /* the words in cli.h's numbering of jpeg_decoder */
            if ((o->jpeg_decoder = param_choice_index("auto|stb|nvjpeg|libjpeg", optarg)) < 0)
                return gpuimg_fail(GPUIMG_EUSAGE, "--jpeg-decoder must be auto, libjpeg, stb or nvjpeg, not '%s'", optarg);
#ifndef HAVE_LIBJPEG
            if (o->jpeg_decoder == 3)
                return gpuimg_fail(GPUIMG_EUNSUPPORTED, "--jpeg-decoder=libjpeg: this gpuimg was built without libjpeg-turbo");
#endif
#ifndef HAVE_NVJPEG
            if (o->jpeg_decoder == 2)
                return gpuimg_fail(GPUIMG_EUNSUPPORTED, "--jpeg-decoder=nvjpeg: this gpuimg was built without nvJPEG");
#endif
            break;
        case OPT_PNG_DECODER:   /* the words in enum io_decoder's order */
            if ((w = param_choice_index("auto|stb|libpng", optarg)) < 0)
                return gpuimg_fail(GPUIMG_EUSAGE, "--png-decoder must be auto, libpng or stb, not '%s'", optarg);
            o->png_decoder = (enum io_decoder)w;
            break;
        case OPT_SHRINK_ON_LOAD: o->shrink_on_load = 1; break;
        case OPT_DECODER:   /* auto (0) and stb (1) in both numberings */
            if ((w = param_choice_index("auto|stb", optarg)) < 0)
                return gpuimg_fail(GPUIMG_EUSAGE, "--decoder must be auto or stb, not '%s'", optarg);
            o->jpeg_decoder = w;
            o->png_decoder = (enum io_decoder)w;
            break;
        case OPT_DEVICES:
            if (!strcmp(optarg, "all")) {
                o->ndevices = -1;
                break;
            }
            o->ndevices = 0;
            for (const char *p = optarg; *p;) {
                char num[16];
                size_t len = strcspn(p, ",");
                if (len == 0 || len >= sizeof num || o->ndevices == GPU_MAX_DEVICES)
                    return gpuimg_fail(GPUIMG_EUSAGE, "--devices: expected all or a list such as 0,1, not '%s'", optarg);
                memcpy(num, p, len);
                num[len] = 0;
                if ((r = parse_int("--devices", num, 0, GPU_MAX_DEVICES - 1, &v)))
                    return r;
                for (int k = 0; k < o->ndevices; k++)
                    if (o->devices[k] == v)
                        return gpuimg_fail(GPUIMG_EUSAGE, "--devices: %lld is listed twice", v);
                o->devices[o->ndevices++] = (int)v;
                p += len + (p[len] == ',');
                if (p[-1] == ',' && !*p)
                    return gpuimg_fail(GPUIMG_EUSAGE, "--devices: expected all or a list such as 0,1, not '%s'", optarg);
            }
            break;
        case OPT_NO_SERVER: o->no_server = 1; break;
        case OPT_SERVER: o->action = ACT_SERVER; break;
        case OPT_SERVER_STATUS: o->action = ACT_SERVER_STATUS; return GPUIMG_OK;
        case OPT_SERVER_STOP: o->action = ACT_SERVER_STOP; return GPUIMG_OK;
        case OPT_SERVER_IDLE:
            if ((r = parse_int("--server-idle", optarg, 1, 86400, &v))) return r;
            o->server_idle = (int)v;
            break;
        case 'q': o->quiet = 1; break;
        case 'v': o->verbose = 1; break;
        case ':': return gpuimg_fail(GPUIMG_EUSAGE, "option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt)
                return gpuimg_fail(GPUIMG_EUSAGE, "unknown option '-%c'", optopt);
            return gpuimg_fail(GPUIMG_EUSAGE, "unknown option '%s'", argv[optind - 1]);
        }
    }
    int nargs = argc - optind;
    if (o->j && o->template) {   /* -j N: the batch's files in flight */
        if (o->j > 64)
            return gpuimg_fail(GPUIMG_EUSAGE, "-j: expected a whole number from 1 to 64 (files in flight), not %d", o->j);
        if (o->jobs && o->jobs != o->j)
            return gpuimg_fail(GPUIMG_EUSAGE, "-j %d and --jobs=%d contradict each other", o->j, o->jobs);
        o->jobs = o->j;
    } else if (o->j && !o->threads) {   /* one file is one job: the old meaning, said */
        o->threads = o->j;
        o->j_was_threads = 1;
    }
    if (o->action == ACT_SERVER) {
        if (nargs)
            return gpuimg_fail(GPUIMG_EUSAGE, "--server takes no PIPELINE or files");
        return GPUIMG_OK;
    }
    if (o->template) {
        if (nargs < 1)
            return gpuimg_fail(GPUIMG_EUSAGE, "missing PIPELINE (and INPUT files or --from-list)");
        if (nargs < 2 && !o->from_list)
            return gpuimg_fail(GPUIMG_EUSAGE, "-o %s: no INPUT files (name them or give --from-list)", o->template);
        if (o->compare)
            return gpuimg_fail(GPUIMG_EUSAGE, "--compare takes one INPUT and OUTPUT, not -o");
        o->pipeline = argv[optind];
        o->inputs = argv + optind + 1;
        o->ninputs = nargs - 1;
        for (int i = 0; i < o->ninputs; i++)
            if (!strcmp(o->inputs[i], "-"))
                return gpuimg_fail(GPUIMG_EUSAGE, "-o: '-' (stdin) cannot be one of a batch's inputs");
        o->output = o->template;
        return o->quiet && o->verbose ? gpuimg_fail(GPUIMG_EUSAGE, "-q and -v contradict each other") : GPUIMG_OK;
    }
    if (o->from_list || o->shard_n || o->jobs || o->progress >= 0 || o->ndevices || o->dry_run || o->list_nul)
        return gpuimg_fail(GPUIMG_EUSAGE, "%s works on a batch: give -o TEMPLATE",
                           o->from_list ? "--from-list" : o->shard_n ? "--shard" : o->jobs ? "--jobs"
                           : o->ndevices ? "--devices" : o->dry_run ? "--dry-run" : o->list_nul ? "-0" : "--progress");
    if (nargs > 3)
        return gpuimg_fail(GPUIMG_EUSAGE, "too many arguments (%d; expected PIPELINE INPUT OUTPUT, or -o TEMPLATE for many "
                           "inputs)", nargs);
    /* INPUT OUTPUT alone, the first word no pipeline: a conversion by OUTPUT's extension (copy) */
    static struct plan probe;
    const int convert = nargs == 2 && plan_parse(argv[optind], &probe) != GPUIMG_OK;
    if (nargs == 2)
        gpuimg_clear_error();
    if (nargs < 3 && !convert)
        return gpuimg_fail(GPUIMG_EUSAGE, "missing %s",
                           nargs == 0 ? "PIPELINE, INPUT and OUTPUT" : nargs == 1 ? "INPUT and OUTPUT" : "OUTPUT");
    o->pipeline = convert ? "copy" : argv[optind];
    o->input = argv[optind + !convert];
    o->output = argv[optind + 2 - convert];
    if (!o->have_format) {
        struct stat st;
        /* stdout, devices and FIFOs (/dev/null) default to PNG; a directory fails later, clearly */
        if (!strcmp(o->output, "-") || (stat(o->output, &st) == 0 && !S_ISREG(st.st_mode)))
            o->format = FMT_PNG;
        else if (io_format_from_path(o->output, &o->format))
            return gpuimg_fail(GPUIMG_EUSAGE, "%s: unknown output format (use " IO_OUTPUT_EXTENSIONS ", or --format)",
                               o->output);
    }
    if (o->json && !strcmp(o->json, "-") && !strcmp(o->output, "-"))
        return gpuimg_fail(GPUIMG_EUSAGE, "--json=- and output '-' would both write to stdout");
    if (o->quiet && o->verbose)
        return gpuimg_fail(GPUIMG_EUSAGE, "-q and -v contradict each other");
    return GPUIMG_OK;
}

void cli_usage(FILE *f)
{
    fprintf(f, "Usage: gpuimg [OPTION]... PIPELINE INPUT OUTPUT\n"
               "   or: gpuimg [OPTION]... -o TEMPLATE PIPELINE INPUT... [--from-list=FILE]\n"
               "Try 'gpuimg --help' for more information.\n");
}

/* name[=value][:key=...]: a choice's words where they are few, else the key in capitals (its
 * words are in the parameter's line of --list) */
static void op_signature(char *buf, size_t n, const struct op_desc *op)
{
    snprintf(buf, n, "%s", op->name);
    for (int i = 0; i < op->nparams; i++) {
        const struct op_param *p = &op->params[i];
        char upper[32];
        size_t k = 0;
        for (; p->name[k] && k + 1 < sizeof upper; k++)
            upper[k] = (char)(p->name[k] >= 'a' && p->name[k] <= 'z' ? p->name[k] - 'a' + 'A' : p->name[k]);
        upper[k] = 0;
        const char *value = p->type != PARAM_CHOICE ? (i == 0 ? p->name : "N")
                            : strlen(p->choices) > 24 ? upper : p->choices;
        size_t l = strlen(buf);
        const char *open = p->dflt ? "[" : "", *close = p->dflt ? "]" : "";
        if (i == 0)
            snprintf(buf + l, n - l, "%s=%s%s", open, value, close);
        else
            snprintf(buf + l, n - l, "[:%s=%s]", p->name, value);
    }
}

void cli_help(FILE *f)
{
    fprintf(f,
            "Usage: gpuimg [OPTION]... PIPELINE INPUT OUTPUT\n"
            "   or: gpuimg [OPTION]... INPUT OUTPUT   (a format conversion: copy)\n"
            "   or: gpuimg [OPTION]... -o TEMPLATE PIPELINE INPUT... [--from-list=FILE] [--shard=K/N]\n"
            "   or: gpuimg tune [--size=WxH] [--repeat=N] [--device=N] [--quick] [--no-save]\n"
            "Process an image through a pipeline of operations, on the GPU when one is usable and on\n"
            "the CPU (OpenMP) otherwise, and print how long each stage took.\n"
            "\n"
            "PIPELINE is one or more operations joined by commas, each name[=value][:key=value...],\n"
            "e.g. gray,resize=50%%,blur=2,transpose. INPUT and OUTPUT may be '-' for stdin/stdout.\n"
            "The output format follows OUTPUT's extension (.png .jpg .webp .tif .bmp .tga .ppm) or --format.\n"
            "\n"
            "Operations:\n");
    for (int i = 0; i < gpuimg_nops; i++) {
        char sig[160];
        op_signature(sig, sizeof sig, gpuimg_ops[i]);
        fprintf(f, "  %-44s %s\n", sig, gpuimg_ops[i]->summary);
    }
    fprintf(f,
            "\n"
            "Options:\n"
            "  -h, --help              show this help and exit\n"
            "  -V, --version           show the version and what this build supports, and exit\n"
            "      --list[=text|man]   list the operations with parameters, defaults and definitions\n"
            "      --backend=WHICH     auto (default: GPU when usable), cpu or gpu\n"
            "      --device=N          the GPU to use (default 0)\n"
            "      --kernel=VARIANT    GPU kernels: auto (default: the fastest measured per operation, or\n"
            "                          the choice gpuimg tune stored for this GPU), perpixel, coalesced,\n"
            "                          tiled, separable, vector, texture or tensor (where the operation\n"
            "                          has it)\n"
            "      --no-fuse           run every step as its own kernel (auto fuses a gray step into the\n"
            "                          resize after it and a transpose into the blur before it)\n"
            "      --compare           run on the OpenMP path and on the GPU with every kernel variant, check\n"
            "                          that they agree, and print a table of times, GB/s and speedups\n"
            "      --repeat=N          runs per measurement of --compare, median reported (default 10)\n"
            "      --decoder=D         auto (default: each format's library) or stb: stb_image for every\n"
            "                          format (it checks no PNG checksum)\n"
            "      --jpeg-decoder=D    auto (default: libjpeg-turbo where built in, else stb_image), libjpeg,\n"
            "                          stb, or nvjpeg: decode JPEGs on the GPU when the pipeline runs\n"
            "                          there (builds with nvJPEG)\n"
            "      --no-auto-orient    leave a JPEG as stored (default: turned upright as its EXIF\n"
            "                          orientation says, before the pipeline)\n"
            "      --png-decoder=D     auto (default: libdeflate for 8- and 16-bit grey, RGB and RGBA\n"
            "                          without tRNS, not interlaced; libpng for the rest), libpng, stb\n"
            "      --shrink-on-load    a JPEG whose pipeline starts with resize (gray may come first) is\n"
            "                          decoded shrunk by 2, 4 or 8 by libjpeg-turbo's DCT scaling, the\n"
            "                          resize doing the rest: faster, not the same pixels (man page)\n"
            "      --gpu-mem-limit=SIZE  device memory one image's pipeline may use (e.g. 512M, 2G; default:\n"
            "                          what the GPU has). Over it, the pipeline runs in tiles, or on the CPU\n"
            "                          where a step cannot be tiled (resize), said on stderr\n"
            "      --threads=N         OpenMP threads a file (default: all cores, or OMP_NUM_THREADS; in a\n"
            "                          batch, the cores shared out among the jobs)\n"
            "      --png-level=N       PNG zlib compression level 0..9 (default 6)\n"
            "      --jpeg-quality=N    JPEG quality 1..100 (default 90)\n"
            "      --jpeg-sampling=S   JPEG chroma subsampling 420, 422 or 444 (default: 420 up to quality\n"
            "                          90, 444 above)\n"
            "      --jpeg-progressive  write progressive JPEG\n"
            "      --strip             drop the metadata (default: PNG and JPEG outputs keep the input's\n"
            "                          ICC profile, EXIF with the orientation made 1, and density)\n"
            "      --webp-quality=N    WebP quality 0..100 (default 80); --webp-lossless: lossless WebP\n"
            "      --format=FMT        output format png, jpg, webp, tiff, bmp, tga or ppm (PGM or PPM by the channels;\n"
            "                          default: from OUTPUT; png for -)\n"
            "  -f, --force             replace OUTPUT if it exists\n"
            "      --max-pixels=N      refuse images (input or any step's result) over N pixels (default 2^28)\n"
            "      --json=FILE         write the timings as JSON to FILE ('-' for stdout); a batch writes a\n"
            "                          line a file (input, output, status, error, ms) and the summary last\n"
            "  -o, --output=TEMPLATE   batch: write each INPUT to TEMPLATE, where %%s is its name without\n"
            "                          extension, %%e the extension, %%d its directory below the inputs'\n"
            "                          common one, %%D its directory as written, %%i its place in\n"
            "                          the list from 1 (%%4i: zero-padded), %%%% a percent sign; missing\n"
            "                          directories are made, existing outputs skipped unless --force\n"
            "      --from-list=FILE    batch: also read input paths from FILE, one a line ('-': stdin)\n"
            "  -0, --null              batch: the list's paths end in a NUL byte, not a newline (find\n"
            "                          -print0); --from-list0=FILE is --from-list=FILE -0\n"
            "      --dry-run           batch: print each INPUT -> OUTPUT that would be written (existing\n"
            "                          outputs skipped), write nothing\n"
            "      --shard=K/N         batch: only inputs K, K+N, K+2N... of the list (K from 0 to N-1)\n"
            "  -j, --jobs=N            batch: files in flight at once (default: one a core, or the cores\n"
            "                          over --threads); -j on a single file sets its threads, as it did\n"
            "      --devices=all|0,1,..  batch: spread the files over these GPUs (jobs take turns)\n"
            "      --progress, --no-progress  batch: progress on stderr (default: when a terminal)\n"
            "      --no-server         run in this process, not through the server (GPUIMG_SERVER=0 too;\n"
            "                          GPUIMG_SERVER=1: always through it, whatever the backend)\n"
            "      --server            run this user's server in the foreground (gpuimg starts one by\n"
            "                          itself on a GPU machine); --server-idle=S: exit after S seconds\n"
            "                          without a client (default %d)\n"
            "      --server-status, --server-stop  say whether it runs and what it did; stop it\n"
            "  -q, --quiet             print nothing but errors\n"
            "  -v, --verbose           also print sizes, per-step times and peak memory\n"
            "\n"
            "After each run one line on stderr gives decode, (gpu init, upload,) process or kernels,\n"
            "(download,) encode and total times in ms, and the backend; a batch ends with counts, images/s\n"
            "and each stage's busy time. A failing file of a batch is reported and the rest go on.\n"
            "Exit status: 0 success, 1 a file could not be read, processed or written, 2 usage.\n"
            "Examples:\n"
            "  gpuimg gray photo.jpg gray.png\n"
            "  gpuimg gray,resize=50%%,blur=2,transpose in.png out.png\n"
            "  gpuimg resize=800x:filter=area - thumb.jpg < in.png\n"
            "  gpuimg --compare --repeat=30 gray big.png gray.png\n"            "  gpuimg -o out/%%s.png gray,resize=50%% photos/*.jpg\n"
            "  find photos -name '*.jpg' | gpuimg -o small/%%d/%%s.jpg --from-list=- resize=25%%\n"
            "gpuimg tune measures every kernel variant and launch shape on this GPU, checks each\n"
            "against the CPU, and stores the fastest per operation and layout for --kernel=auto\n"
            "($XDG_CACHE_HOME/gpuimg/; GPUIMG_TUNE_CACHE=FILE|off overrides).\n"
            "On a GPU machine a command goes through this user's server, which keeps the GPU warm\n"
            "between commands: started by the first command (which runs on the CPU when it is small),\n"
            "it exits after --server-idle seconds without a client. The timing line says so.\n"
            "See man gpuimg for the exact definition of every operation.\n", SERVER_IDLE_DEFAULT);
}

void cli_version(FILE *f)
{
    fprintf(f, "gpuimg %s\n", PACKAGE_VERSION);
#ifdef _OPENMP
    fprintf(f, "OpenMP: yes (%d threads by default)\n", omp_get_max_threads());
#else
    fprintf(f, "OpenMP: no\n");
#endif
#ifdef HAVE_CUDA
    fprintf(f, "CUDA: yes (%s)\n", GPUIMG_CUDA_ARCHS);
    char name[512], why[256];
    if (backend_gpu_probe(0, name, sizeof name, why, sizeof why) == GPUIMG_OK)
        fprintf(f, "GPU: %s\n", name);
    else
        fprintf(f, "GPU: none usable (%s)\n", why);
#else
    fprintf(f, "CUDA: no (CPU-only build)\n");
#endif
    fprintf(f, "libpng: %s\n", png_get_libpng_ver(NULL));
    io_codecs(f);
#ifdef HAVE_NVJPEG
    fprintf(f, "GPU decoder: nvJPEG (JPEG on the GPU's JPEG engines in batches of %d files or more, or with "
               "--jpeg-decoder=nvjpeg; JPEG outputs encoded by nvJPEG with GPUIMG_JPEG_GPU=1)\n",
            GPU_CODECS_MIN_FILES);
#endif
#ifdef HAVE_NVCOMP
    fprintf(f, "GPU encoder: nvCOMP %s deflate (PNG at levels 1 to 9 on the GPU in batches of %d files or "
               "more, or with GPUIMG_PNG_GPU=1)\n",
            gpu_nvcomp_version(), GPU_CODECS_MIN_FILES);
#elif defined HAVE_CUDA
    fprintf(f, "GPU encoder: none (no nvCOMP: PNG deflated on the CPU)\n");
#endif
}

static void roff_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", f);
        else if (*s == '-')
            fputs("\\-", f);
        else if (*s == '|')
            fputs("|\\:", f);   /* a line may break after it: a long list of words is one word to troff */
        else
            fputc(*s, f);
    }
}

void cli_list(FILE *f, const char *format)
{
    const int man = !strcmp(format, "man");
    if (man)   /* ragged right: a list of choices breaks at its bars, and a justified line of it cannot stretch */
        fputs(".na\n", f);
    for (int i = 0; i < gpuimg_nops; i++) {
        const struct op_desc *op = gpuimg_ops[i];
        char sig[160];
        op_signature(sig, sizeof sig, op);
        if (man) {
            fputs(".TP\n.B ", f);
            roff_text(f, sig);
            fputs("\n", f);
            roff_text(f, op->summary);
            fputs(".\n", f);
        } else
            fprintf(f, "%s\n  %s\n", sig, op->summary);
        for (int k = 0; k < op->nparams; k++) {
            const struct op_param *p = &op->params[k];
            char what[160];
            param_describe(p, what, sizeof what);
            if (man) {
                fputs(".RS\n.TP\n.I ", f);
                roff_text(f, p->name);
                fputs("\n", f);
                roff_text(f, p->help);
                fputs("; ", f);
                roff_text(f, what);
                fputs(p->dflt ? "; default " : "; required", f);
                if (p->dflt)
                    roff_text(f, p->dflt);
                fputs(".\n.RE\n", f);
            } else
                fprintf(f, "  %s: %s; %s; %s%s\n", p->name, p->help, what, p->dflt ? "default " : "required",
                        p->dflt ? p->dflt : "");
        }
        char kl[96];
        kernel_list(op->gpu_variants, kl, sizeof kl);
        if (man) {
            fputs(".IP\n", f);
            roff_text(f, op->definition);
            fputs("\n.IP\nGPU kernels: ", f);
            roff_text(f, kl);
            fputs("; auto: ", f);
            roff_text(f, op->gpu_auto_text ? op->gpu_auto_text : kernel_names[op->gpu_auto]);
            fputs(".\n", f);
        } else {
            fprintf(f, "  %s\n", op->definition);
            fprintf(f, "  GPU kernels: %s; auto: %s\n\n", kl,
                    op->gpu_auto_text ? op->gpu_auto_text : kernel_names[op->gpu_auto]);
        }
    }
    if (man)
        fputs(".ad\n", f);
}
