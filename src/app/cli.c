/* gpuimg: option parsing and the help, version and operation texts (see cli.h). */
#include <config.h>
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

int cli_parse(int argc, char **argv, struct cli_opts *o)
{
    int st = options_init(o), first = 1;   /* the first word that is no option */
    if (st || (st = options_parse(o, argc, argv, &first, 0)))
        return st;
    if (o->action == ACT_HELP || o->action == ACT_VERSION || o->action == ACT_LIST || o->action == ACT_SERVER_STATUS
        || o->action == ACT_SERVER_STOP)
        return GPUIMG_OK;
    if ((st = options_env_error()))   /* a bad value in the environment: for the commands that do work */
        return st;
#ifndef HAVE_LIBJPEG
    if (o->jpeg_decoder == JPEG_DEC_LIBJPEG)
        return gpuimg_fail(GPUIMG_EUNSUPPORTED, "--jpeg-decoder=libjpeg: this gpuimg was built without libjpeg-turbo");
#endif
#ifndef HAVE_NVJPEG
    if (o->jpeg_decoder == JPEG_DEC_NVJPEG)
        return gpuimg_fail(GPUIMG_EUNSUPPORTED, "--jpeg-decoder=nvjpeg: this gpuimg was built without nvJPEG");
#endif
    const int optind = first;
    int nargs = argc - optind;
    if (o->j && o->template) {   /* -j N: the batch's files in flight */
        if (o->j > JOBS_MAX)
            return gpuimg_fail(GPUIMG_EUSAGE, "-j: expected a whole number from 1 to %d (files in flight), not %d",
                               JOBS_MAX, o->j);
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
    const char *batch = options_given(o, OPT_BATCH);
    if (batch)
        return gpuimg_fail(GPUIMG_EUSAGE, "--%s works on a batch: give -o TEMPLATE", batch);
    if (nargs > 3)
        return gpuimg_fail(GPUIMG_EUSAGE, "too many arguments (%d; expected PIPELINE INPUT OUTPUT, or -o TEMPLATE for many "
                           "inputs)", nargs);
    /* INPUT OUTPUT alone, the first word no pipeline: a conversion by OUTPUT's extension (copy) */
    static struct plan probe;
    const int convert = nargs == 2 && plan_parse(argv[optind], &probe) != GPUIMG_OK;
    if (nargs == 2)
        gpuimg_clear_error();
    struct stat fst;
    const int is_file = nargs >= 1 && nargs <= 2 && stat(argv[optind], &fst) == 0;
    if (nargs == 2 && !convert && is_file)   /* "gray out.png" beside a file named gray */
        return gpuimg_fail(GPUIMG_EUSAGE, "'%s' is both an operation and a file here: write ./%s %s to convert the "
                           "file, or %s INPUT OUTPUT to run the operation", argv[optind], argv[optind],
                           argv[optind + 1], argv[optind]);
    if (nargs == 1 && is_file)
        return gpuimg_fail(GPUIMG_EUSAGE, "missing OUTPUT: gpuimg %s OUTPUT converts %s, gpuimg info %s describes it",
                           argv[optind], argv[optind], argv[optind]);
    if (nargs < 3 && !convert)
        return gpuimg_fail(GPUIMG_EUSAGE, "missing %s",
                           nargs == 0 ? "PIPELINE, INPUT and OUTPUT" : nargs == 1 ? "INPUT and OUTPUT" : "OUTPUT");
    o->pipeline = convert ? "copy" : argv[optind];
    o->input = argv[optind + !convert];
    o->output = argv[optind + 2 - convert];
    if (!o->have_format) {
        struct stat st;
        enum out_format f = FMT_PNG;
        /* stdout, devices and FIFOs (/dev/null) default to PNG; a directory fails later, clearly */
        if (!strcmp(o->output, "-") || (stat(o->output, &st) == 0 && !S_ISREG(st.st_mode)))
            o->format = FMT_PNG;
        else if (io_format_from_path(o->output, &f))
            return gpuimg_fail(GPUIMG_EUSAGE, "%s: unknown output format (use " IO_OUTPUT_EXTENSIONS ", or --format)",
                               o->output);
        else
            o->format = (int)f;
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
        const char *value = p->type == PARAM_COLOR ? "COLOR" : p->type == PARAM_FILE ? "FILE" : p->type != PARAM_CHOICE ? (i == 0 ? p->name : "N")
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
            "   or: gpuimg info [--json] FILE...   (each file's header and metadata, nothing decoded)\n"
            "   or: gpuimg tune ");
    options_usage(f, OPT_TUNE);
    fprintf(f,
            "\nProcess an image through a pipeline of operations, on the GPU when one is usable and on\n"
            "the CPU (OpenMP) otherwise, and print how long each stage took.\n"
            "\n"
            "PIPELINE is one or more operations joined by commas, each name[=value[,value...]][:key=value...],\n"
            "e.g. gray,resize=50%%,blur=2,transpose. INPUT and OUTPUT may be '-' for stdin/stdout.\n"
            "The output format follows OUTPUT's extension (.png .jpg .webp .tif .bmp .tga .ppm) or --format.\n"
            "\n"
            "Operations:\n");
    for (int i = 0; i < gpuimg_nops; i++) {
        char sig[160];
        op_signature(sig, sizeof sig, gpuimg_ops[i]);
        fprintf(f, "  %-44s %s\n", sig, gpuimg_ops[i]->summary);
    }
    fprintf(f, "\nOptions:\n");
    options_help(f);
    fprintf(f,
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
            "GPUIMG_SERVER=0 keeps every command in its own process, GPUIMG_SERVER=1 sends every one to the server.\n"
            "See man gpuimg for the exact definition of every operation.\n");
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
               "--jpeg-decoder=nvjpeg; JPEG outputs encoded by nvJPEG with --jpeg-encoder=gpu)\n",
            GPU_CODECS_MIN_FILES);
#endif
#ifdef HAVE_NVCOMP
    fprintf(f, "GPU encoder: nvCOMP %s deflate (PNG at levels 1 to 9 on the GPU in batches of %d files or "
               "more and through the server, or with --png-encoder=gpu)\n",
            gpu_nvcomp_version(), GPU_CODECS_MIN_FILES);
#elif defined HAVE_CUDA
    fprintf(f, "GPU encoder: none (no nvCOMP: PNG deflated on the CPU)\n");
#endif
}

static void roff_text(FILE *f, const char *s)
{
    options_roff(f, s, strlen(s), 0);
}

/* --list=completion: the options, then each operation and its parameters ("parameter", the
 * operation, the key, its kind and a choice's words), tab-separated. */
static void list_completion(FILE *f)
{
    options_complete(f);
    for (int i = 0; i < gpuimg_nops; i++) {
        const struct op_desc *op = gpuimg_ops[i];
        fprintf(f, "operation\t%s\n", op->name);
        for (int k = 0; k < op->nparams; k++) {
            const struct op_param *p = &op->params[k];
            fprintf(f, "parameter\t%s\t%s\t%s\t", op->name, p->name, p->type == PARAM_CHOICE ? "choice" : "value");
            for (int w = 0, n = p->type == PARAM_CHOICE ? param_choice_count(p->choices) : 0; w < n; w++) {
                char word[32];
                param_choice_nth(p->choices, w, word, sizeof word);
                fprintf(f, "%s%s", w ? " " : "", word);
            }
            fputs("\n", f);
        }
    }
}

void cli_list(FILE *f, const char *format)
{
    if (!strcmp(format, "completion")) {
        list_completion(f);
        return;
    }
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
