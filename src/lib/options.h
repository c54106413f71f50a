/* gpuimg: every option declared once. src/lib/options.def holds a row an option (and a row an
 * environment variable gpuimg reads): its field in struct cli_opts, name, type, range, default,
 * help line, man text, and whether it travels to the server. From it come the record itself, the
 * parser (argv and the environment, read once, here in app), --help's options, the man page's
 * OPTIONS and ENVIRONMENT, README's table, the completion's words (--list=options), the server's
 * wire format (proto.c walks the rows marked OPT_WIRE) and the run context both sides build
 * (options_run_ctx). Adding an option is a row there and its use. */
#ifndef GPUIMG_OPTIONS_H
#define GPUIMG_OPTIONS_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "engine/knobs.h"
#include "engine/run.h"

/* files a batch carries at once (--jobs) and requests a server runs at once, at most */
#define JOBS_MAX 256
enum cli_action { ACT_RUN, ACT_HELP, ACT_VERSION, ACT_LIST, ACT_SERVER, ACT_SERVER_STATUS, ACT_SERVER_STOP };
/* --jpeg-decoder's words, in its choices' order */
enum jpeg_decoder { JPEG_DEC_AUTO, JPEG_DEC_STB, JPEG_DEC_NVJPEG, JPEG_DEC_LIBJPEG };

/* The record: a field a row (OPT) of options.def, and the fields no row declares. */
struct cli_opts {
#define OPT(field, ctype, ...) ctype field;
#define ALSO(field, ...)
#define DOC(...)
#include "lib/options.def"
#undef OPT
#undef ALSO
#undef DOC
    int devices[GPU_MAX_DEVICES];   /* --devices=0,1,...: the GPUs a batch spreads over (ndevices) */
};

enum opt_type {
    OT_FIELD,    /* no option: a field set by the command (its range, lo to hi, is the wire's) */
    OT_FLAG,     /* no value: the field becomes 1 */
    OT_SET,      /* no value: the field becomes lo */
    OT_INT,      /* a whole number from lo to hi (an int, or a uint64_t field) */
    OT_BYTES,    /* a size such as 512M or 2G (a uint64_t field; 0 is not a size) */
    OT_CHOICE,   /* one of choices' words (or, in the environment, its place from 0): lo + its place */
    OT_TEXT,     /* a string (const char *, not copied) */
    OT_CUSTOM,   /* set() parses it */
};

enum {
    OPT_WIRE = 1,     /* travels to the server with each request */
    OPT_HERE = 2,     /* a measuring knob: a command whose environment sets it runs in its own process */
    OPT_BATCH = 4,    /* only with -o TEMPLATE */
    OPT_STOP = 8,     /* ends the parsing (--help, --version, --list, --server-status, --server-stop) */
    OPT_OPTARG = 16,  /* its value is optional (--list[=FORMAT]) */
    OPT_JOIN = 32,    /* listed with the row before it in --help and the man page */
    OPT_HIDDEN = 64,  /* set by gpuimg itself: in no help (the man page's ENVIRONMENT says what it is) */
    OPT_README = 128, /* in README's table of the options most used */
    OPT_LOCAL = 256,  /* given, the command runs in its own process (it measures or sets up this
                         process's GPUs), not through the server */
    OPT_TUNE = 512,   /* an option of gpuimg tune, parsed there only (its usage line lists them) */
    OPT_API = 1024,   /* the library takes it too (gpuimg_ctx_set), as it takes every OPT_WIRE row */
};

struct opt_desc {
    size_t off, size;          /* its field in struct cli_opts; size 0: none (a variable documented only) */
    const char *name;          /* --NAME, or NULL */
    char short_name;           /* -C, or 0 */
    enum opt_type type;
    long long lo, hi;          /* the range (OT_INT), the value (OT_SET), the first value (OT_CHOICE) */
    const char *choices;       /* "auto|cpu|gpu" (OT_CHOICE; for OT_CUSTOM, the words completion offers) */
    long long init;            /* the field's value before any option (int and uint64_t fields) */
    const char *dflt;          /* the default as the docs say it, where it is not init's word or number */
    const char *arg;           /* the value's name in the docs: N, FILE, SIZE */
    const char *env;           /* an environment variable that sets it too (before the command line) */
    unsigned flags;
    int (*set)(struct cli_opts *o, const struct opt_desc *d, const char *arg);   /* OT_CUSTOM */
    const char *help;          /* --help's words (plain) */
    const char *man;           /* the man page's (`bold`, *italic*, a blank line a paragraph, "~ term:
                                  text" lines an indented list); NULL: help's */
    const char *env_man;       /* the man page's ENVIRONMENT entry, where env is set */
};

extern const struct opt_desc option_table[];
extern const int option_count;

#define OPTIONS_MAX 160   /* rows the table may have */

/* Every field at its init, then the environment's variables, once (empty: unset, but for a
 * text). A bad value is kept for options_env_error, which the commands that do work call (a run,
 * the server): help, version, lists and the server's status still answer. */
int options_init(struct cli_opts *o);
/* Every field at its init, nothing read (the library's contexts). */
void options_defaults(struct cli_opts *o);
/* The library's gpuimg_ctx_set: the row named name (a long option name) among those marked
 * OPT_WIRE or OPT_API, given value as the command line gives it; a flag's value is 1 (set) or 0
 * (its default). A text value is kept as given (the caller keeps it alive, until the same row is
 * set again: *row, the row's name, says which it was; NULL: none). GPUIMG_EUSAGE for an unknown
 * name or a bad value, o unchanged. */
int options_set(struct cli_opts *o, const char *name, const char *value, const char **row);
int options_env_error(void);
/* The options in argv (getopt_long's, from the table: the rows marked OPT_TUNE for gpuimg tune,
 * tune = OPT_TUNE, the others for the command, tune = 0); the rest (PIPELINE INPUT OUTPUT, or
 * PIPELINE INPUT... with -o) from *first on. */
int options_parse(struct cli_opts *o, int argc, char **argv, int *first, unsigned tune);
/* "[--size=WxH] [--repeat=N] ...": the options of the rows marked flag, for a usage line. */
void options_usage(FILE *f, unsigned flag);
/* The first option given (its field not at its default) of those marked flag: OPT_BATCH, set only
 * for batches ("shard"), OPT_LOCAL; or NULL. */
const char *options_given(const struct cli_opts *o, unsigned flag);

/* A row's field. */
static inline void *option_field(const struct cli_opts *o, const struct opt_desc *d)
{
    return (char *)o + d->off;
}
/* The values a row's field may hold, for the wire: its range (OT_CHOICE: lo .. lo + words - 1;
 * OT_FLAG 0 .. 1; OT_SET: its init and the values of the rows that set the field). */
void option_range(const struct opt_desc *d, long long *lo, long long *hi);

/* --help's options, the man page's OPTIONS and ENVIRONMENT (roff), README's table of the rows
 * marked OPT_README (Markdown), and
 * the words completion offers (--list=completion: "option", its name, its kind (flag, value,
 * choice, file, optional) and its value's words, tab-separated, a line each). */
void options_help(FILE *f);
void options_man(FILE *f);
void options_man_env(FILE *f);
void options_markdown(FILE *f);
void options_complete(FILE *f);
/* Text as roff (at most n bytes of s): escapes, no line starting with a dot; with markup, `bold`
 * and *italic* (the option table's man texts). */
void options_roff(FILE *f, const char *s, size_t n, int markup);

/* The engine's knobs from o (engine_set_knobs takes them before any work). */
void options_knobs(const struct cli_opts *o, struct engine_knobs *k);
/* The run context o asks for, for the plan pl and the threads a file has, on the CPU until a
 * backend is chosen: the command, a batch's workers and the server build it here alike. */
void options_run_ctx(const struct cli_opts *o, const struct plan *pl, int threads, struct run_ctx *c);
/* --device, or the first GPU where it is not given */
int options_device(const struct cli_opts *o);

#endif
