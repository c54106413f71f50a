/* gpuimg: the option table and what is made from it (see options.h). */
#include <config.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "lib/options.h"
#include "core/color.h"
#include "core/error.h"
#include "core/op.h"
#include "core/params.h"

/* ---- the rows' own parsers ---------------------------------------------------------------------- */

static int set_int(const struct cli_opts *o, const struct opt_desc *d, long long v)
{
    void *f = option_field(o, d);
    if (d->size == sizeof(uint64_t))
        *(uint64_t *)f = (uint64_t)v;
    else
        *(int *)f = (int)v;
    return GPUIMG_OK;
}

static int parse_int(const char *what, const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi)
        return gpuimg_fail(GPUIMG_EUSAGE, "%s: expected a whole number from %lld to %lld, not '%s'", what, lo, hi, s);
    *out = v;
    return GPUIMG_OK;
}

/* A byte count: digits and an optional K, M or G (KiB, MiB, GiB; "KiB", "MB"... also taken). */
static int parse_bytes(const char *what, const char *s, uint64_t *out)
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
        return gpuimg_fail(GPUIMG_EUSAGE, "%s: expected a size such as 512M, 2G or 1048576 (bytes), not '%s'", what, s);
    *out = (uint64_t)v << shift;
    return GPUIMG_OK;
}

/* "a, b or c" from "a|b|c" */
static void choice_words(const char *choices, char *buf, size_t n)
{
    buf[0] = 0;
    const int count = param_choice_count(choices);
    for (int i = 0; i < count; i++) {
        char w[32];
        param_choice_nth(choices, i, w, sizeof w);
        snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", i == 0 ? "" : i == count - 1 ? " or " : ", ", w);
    }
}

static int bad_choice(const char *what, const char *choices, const char *s)
{
    char words[160];
    choice_words(choices, words, sizeof words);
    return gpuimg_fail(GPUIMG_EUSAGE, "%s must be %s, not '%s'", what, words, s);
}

/* A value for d from the command line (what: "--name") or the environment (what: the variable,
 * where a choice may also be given by its place). */
static int set_value(struct cli_opts *o, const struct opt_desc *d, const char *what, const char *s, int env)
{
    void *f = option_field(o, d);
    long long v;
    int st, w;
    switch (d->type) {
    case OT_FIELD:
        break;
    case OT_FLAG:   /* in the environment 1 or 0, as every GPUIMG_ variable's numbers */
        if (env && strcmp(s, "0") && strcmp(s, "1"))
            return gpuimg_fail(GPUIMG_EUSAGE, "%s: expected 0 or 1, not '%s'", what, s);
        return set_int(o, d, env ? s[0] == '1' : 1);
    case OT_SET:
        return set_int(o, d, d->lo);
    case OT_INT:
        return (st = parse_int(what, s, d->lo, d->hi, &v)) ? st : set_int(o, d, v);
    case OT_BYTES:
        return parse_bytes(what, s, (uint64_t *)f);
    case OT_CHOICE:
        if ((w = param_choice_index(d->choices, s)) < 0 && env && s[0] >= '0' && s[0] <= '9' && !s[1]
            && s[0] - '0' < param_choice_count(d->choices))
            w = s[0] - '0';
        return w < 0 ? bad_choice(what, d->choices, s) : set_int(o, d, d->lo + w);
    case OT_TEXT:
        *(const char **)f = s;
        return GPUIMG_OK;
    case OT_CUSTOM:
        return d->set(o, d, s);
    }
    return GPUIMG_OK;
}

static int opt_set_list(struct cli_opts *o, const struct opt_desc *d, const char *s)
{
    o->action = ACT_LIST;
    if (!s)
        return GPUIMG_OK;
    if (param_choice_index(d->choices, s) < 0) {
        char words[64];
        choice_words(d->choices, words, sizeof words);
        return gpuimg_fail(GPUIMG_EUSAGE, "--list: format must be %s, not '%s'", words, s);
    }
    o->list_format = s;
    return GPUIMG_OK;
}

/* A comma-separated list of d's words as a mask of meta_piece bits: its words in order are
 * all (META_ALL) or the pieces exif, gps, xmp, iptc, icc, comment (--keep's lack all and gps). */
static int piece_mask(const struct opt_desc *d, const char *s, unsigned *mask)
{
    static const struct { const char *word; unsigned bit; } piece[] = {
        { "all", META_ALL }, { "exif", META_EXIF }, { "gps", META_GPS }, { "xmp", META_XMP },
        { "iptc", META_IPTC }, { "icc", META_ICC }, { "comment", META_COMMENT },
    };
    *mask = 0;
    for (const char *w = s;; w++) {
        const size_t n = strcspn(w, ",");
        char word[16];
        snprintf(word, sizeof word, "%.*s", (int)(n < sizeof word - 1 ? n : sizeof word - 1), w);
        size_t i = 0;
        while (i < sizeof piece / sizeof *piece && (strcmp(piece[i].word, word) || param_choice_index(d->choices, word) < 0))
            i++;
        if (!n || n >= sizeof word - 1 || i == sizeof piece / sizeof *piece) {
            char words[96];
            choice_words(d->choices, words, sizeof words);
            return gpuimg_fail(GPUIMG_EUSAGE, "--%s: each piece must be %s, not '%.*s'", d->name, words, (int)n, w);
        }
        *mask |= piece[i].bit;
        if (!w[n])
            return GPUIMG_OK;
        w += n;
    }
}

/* An opaque colour (core/color.h) as 0xRRGGBB */
static int opt_set_background(struct cli_opts *o, const struct opt_desc *d, const char *s)
{
    struct color c;
    if (color_parse(s, &c))
        return gpuimg_fail(GPUIMG_EUSAGE, "--%s: a colour is %s, not '%s'", d->name, COLOR_FORMS, s);
    if (c.a != 255)
        return gpuimg_fail(GPUIMG_EUSAGE, "--%s: the colour must be opaque (what it fills holds no alpha), not '%s'",
                           d->name, s);
    o->background = c.r << 16 | c.g << 8 | c.b;
    return GPUIMG_OK;
}

/* A decimal number from lo to hi thousandths (--jxl-distance's 0 to 25), in thousandths, rounded;
 * one above 0 stays above it (--jxl-distance=0.0001 is not lossless) */
static int opt_set_thousandths(struct cli_opts *o, const struct opt_desc *d, const char *s)
{
    char *end;
    errno = 0;
    const double v = strtod(s, &end);
    if (!*s || *end || errno || strspn(s, "0123456789.") != strlen(s) || !(v * 1000 >= (double)d->lo && v * 1000 <= (double)d->hi))
        return gpuimg_fail(GPUIMG_EUSAGE, "--%s: expected a number from %g to %g, not '%s'", d->name, (double)d->lo / 1000,
                           (double)d->hi / 1000, s);
    const long long t = (long long)(v * 1000 + 0.5);
    return set_int(o, d, t || v == 0 ? t : 1);
}

static int opt_set_strip(struct cli_opts *o, const struct opt_desc *d, const char *s)
{
    unsigned mask = META_ALL;
    if (s && piece_mask(d, s, &mask))
        return GPUIMG_EUSAGE;
    o->strip |= (int)mask;   /* every --strip and --keep adds to what is dropped */
    return GPUIMG_OK;
}

static int opt_set_keep(struct cli_opts *o, const struct opt_desc *d, const char *s)
{
    unsigned mask = 0;
    if (piece_mask(d, s, &mask))
        return GPUIMG_EUSAGE;
    o->strip |= (int)(META_ALL & ~mask & ~(mask & META_EXIF ? (unsigned)META_GPS : 0u));   /* GPS goes with EXIF */
    return GPUIMG_OK;
}

static int opt_set_kernel(struct cli_opts *o, const struct opt_desc *d, const char *s)
{
    if (!strcmp(s, "auto")) {
        o->kernel = -1;
        return GPUIMG_OK;
    }
    for (int k = 0; k < KV_COUNT; k++)
        if (!strcmp(s, kernel_names[k])) {
            o->kernel = k;
            return GPUIMG_OK;
        }
    char kl[128];
    kernel_list((1u << KV_COUNT) - 1, kl, sizeof kl);
    return gpuimg_fail(GPUIMG_EUSAGE, "--kernel must be auto or one of %s, not '%s'", kl, s);
}

static int opt_set_decoder(struct cli_opts *o, const struct opt_desc *d, const char *s)
{
    const int w = param_choice_index(d->choices, s);   /* auto (0) and stb (1) in both numberings */
    if (w < 0)
        return bad_choice("--decoder", d->choices, s);
    o->jpeg_decoder = w;
    o->png_decoder = w;
    return GPUIMG_OK;
}

static int opt_set_sampling(struct cli_opts *o, const struct opt_desc *d, const char *s)
{
    if (param_choice_index(d->choices, s) < 0)
        return bad_choice("--jpeg-sampling", d->choices, s);
    o->jpeg_sampling = atoi(s);
    return GPUIMG_OK;
}

static int opt_set_format(struct cli_opts *o, const struct opt_desc *d, const char *s)
{
    enum out_format f;
    if (io_format_from_name(s, &f))
        return bad_choice("--format", d->choices, s);
    o->format = (int)f;
    o->have_format = 1;
    return GPUIMG_OK;
}

static int opt_set_template(struct cli_opts *o, const struct opt_desc *d, const char *s)
{
    if (!*s || !strcmp(s, "-"))
        return gpuimg_fail(GPUIMG_EUSAGE, "-o: TEMPLATE must name files (batch outputs cannot go to stdout)");
    o->template = s;
    return GPUIMG_OK;
}

static int opt_set_from_list0(struct cli_opts *o, const struct opt_desc *d, const char *s)
{
    o->from_list = s;
    o->list_nul = 1;
    return GPUIMG_OK;
}

static int opt_set_shard(struct cli_opts *o, const struct opt_desc *d, const char *s)
{
    long long k, n;
    const char *slash = strchr(s, '/');
    char kbuf[32];
    if (!slash || (size_t)(slash - s) >= sizeof kbuf)
        return gpuimg_fail(GPUIMG_EUSAGE, "--shard: expected K/N such as 0/4, not '%s'", s);
    memcpy(kbuf, s, (size_t)(slash - s));
    kbuf[slash - s] = 0;
    int st;
    if ((st = parse_int("--shard N", slash + 1, 1, 1000000, &n)) || (st = parse_int("--shard K", kbuf, 0, n - 1, &k)))
        return st;
    o->shard_n = (int)n;
    o->shard_k = (int)k;   /* N/N is refused: N+1 shards would do slice 0 twice */
    return GPUIMG_OK;
}

static int opt_set_chunk(struct cli_opts *o, const struct opt_desc *d, const char *s)
{
    long long v;
    const int st = parse_int(d->env, s, d->lo, d->hi, &v);
    if (!st && v % 8)
        return gpuimg_fail(GPUIMG_EUSAGE, "%s: expected a multiple of 8, not '%s'", d->env, s);
    o->png_gpu_chunk = (int)v;
    return st;
}

static int opt_set_tune_size(struct cli_opts *o, const struct opt_desc *d, const char *s)
{
    char end;
    if (sscanf(s, "%dx%d%c", &o->tune_w, &o->tune_h, &end) != 2 || o->tune_w < 1 || o->tune_h < 1 || o->tune_w > 32768
        || o->tune_h > 32768)
        return gpuimg_fail(GPUIMG_EUSAGE, "--size must be WxH (1 to 32768), not '%s'", s);
    return GPUIMG_OK;
}

static int opt_set_devices(struct cli_opts *o, const struct opt_desc *d, const char *s)
{
    if (!strcmp(s, "all")) {
        o->ndevices = -1;
        return GPUIMG_OK;
    }
    o->ndevices = 0;
    for (const char *p = s; *p;) {
        char num[16];
        long long v;
        const size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof num || o->ndevices == GPU_MAX_DEVICES)
            return gpuimg_fail(GPUIMG_EUSAGE, "--devices: expected all or a list such as 0,1, not '%s'", s);
        memcpy(num, p, len);
        num[len] = 0;
        int st = parse_int("--devices", num, 0, GPU_MAX_DEVICES - 1, &v);
        if (st)
            return st;
        for (int k = 0; k < o->ndevices; k++)
            if (o->devices[k] == v)
                return gpuimg_fail(GPUIMG_EUSAGE, "--devices: %lld is listed twice", v);
        o->devices[o->ndevices++] = (int)v;
        p += len + (p[len] == ',');
        if (p[-1] == ',' && !*p)
            return gpuimg_fail(GPUIMG_EUSAGE, "--devices: expected all or a list such as 0,1, not '%s'", s);
    }
    return GPUIMG_OK;
}

/* ---- the table ---------------------------------------------------------------------------------- */

#define FIELD(field) .off = offsetof(struct cli_opts, field), .size = sizeof(((struct cli_opts *)0)->field)
#define OPT(field, ctype, ...) { FIELD(field), __VA_ARGS__ },
#define ALSO(field, ...) { FIELD(field), __VA_ARGS__ },
#define DOC(...) { .size = 0, __VA_ARGS__ },
const struct opt_desc option_table[] = {
#include "lib/options.def"
};
#undef OPT
#undef ALSO
#undef DOC
const int option_count = (int)(sizeof option_table / sizeof option_table[0]);

void option_range(const struct opt_desc *d, long long *lo, long long *hi)
{
    *lo = d->lo;
    *hi = d->hi;
    if (d->type == OT_INT && d->init < *lo)   /* a default no one may give (--device's "any") */
        *lo = d->init;
    if (d->type == OT_FLAG) {
        *lo = 0;
        *hi = 1;
    } else if (d->type == OT_SET) {   /* its init and what each row setting the field sets */
        *lo = *hi = d->init;
        for (int i = 0; i < option_count; i++)
            if (option_table[i].size && option_table[i].off == d->off && option_table[i].type == OT_SET) {
                *lo = option_table[i].lo < *lo ? option_table[i].lo : *lo;
                *hi = option_table[i].lo > *hi ? option_table[i].lo : *hi;
            }
    } else if (d->type == OT_CHOICE)
        *hi = d->lo + param_choice_count(d->choices) - 1;
}

/* ---- reading ------------------------------------------------------------------------------------ */

static void defaults(struct cli_opts *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < option_count; i++) {
        const struct opt_desc *d = &option_table[i];
        if (d->size && d->init && d->type != OT_TEXT)
            set_int(o, d, d->init);
    }
    o->list_format = "text";
}

void options_defaults(struct cli_opts *o)
{
    defaults(o);
}

int options_set(struct cli_opts *o, const char *name, const char *value, const char **row)
{
    *row = NULL;
    for (int i = 0; name && i < option_count; i++) {
        const struct opt_desc *d = &option_table[i];
        if (!d->size || !d->name || strcmp(d->name, name) || !(d->flags & (OPT_WIRE | OPT_API)) || d->flags & OPT_TUNE)
            continue;
        char what[64];
        snprintf(what, sizeof what, "%s", d->name);
        *row = d->name;
        if (d->type == OT_FLAG || d->type == OT_SET) {
            if (!value || strcmp(value, "0")) {
                if (value && strcmp(value, "1"))
                    return gpuimg_fail(GPUIMG_EUSAGE, "%s: expected 1 (set) or 0 (its default), not '%s'", what, value);
                return set_value(o, d, what, value, 0);
            }
            struct cli_opts dflt;
            defaults(&dflt);
            memcpy(option_field(o, d), option_field(&dflt, d), d->size);
            return GPUIMG_OK;
        }
        if (!value && !(d->flags & OPT_OPTARG))
            return gpuimg_fail(GPUIMG_EUSAGE, "%s needs a value", what);
        struct cli_opts keep = *o;   /* a custom parser may set a field before it refuses */
        const int st = set_value(o, d, what, value, 0);
        if (st)
            *o = keep;
        return st;
    }
    return gpuimg_fail(GPUIMG_EUSAGE, "'%s' is not an option the library takes (man gpuimg, OPTIONS: those that change "
                       "what a run does)", name ? name : "(null)");
}

/* The environment's first bad value: said by options_env_error, for the commands that do work. */
static int env_status;
static char env_message[512];

int options_init(struct cli_opts *o)
{
    defaults(o);
    env_status = 0;
    for (int i = 0; i < option_count; i++) {   /* the environment, once: before the command line */
        const struct opt_desc *d = &option_table[i];
        const char *v = d->env && d->size ? getenv(d->env) : NULL;
        if (!v || (!*v && d->type != OT_TEXT))   /* empty: unset, but a text may be empty */
            continue;
        const int st = set_value(o, d, d->env, v, 1);
        if (st && !env_status) {
            env_status = st;
            snprintf(env_message, sizeof env_message, "%s", gpuimg_errmsg() ? gpuimg_errmsg() : "");
        }
        gpuimg_clear_error();
        if (!st && d->flags & OPT_HERE && !o->knob_env)
            o->knob_env = d->env;
    }
    return GPUIMG_OK;
}

int options_env_error(void)
{
    return env_status ? gpuimg_fail(env_status, "%s", env_message) : GPUIMG_OK;
}

int options_parse(struct cli_opts *o, int argc, char **argv, int *first, unsigned tune)
{
    struct option longopts[OPTIONS_MAX + 1];
    char shorts[3 * OPTIONS_MAX + 2] = ":";
    int nl = 0;
    if (option_count > OPTIONS_MAX)
        return gpuimg_fail(GPUIMG_EINTERNAL, "the option table has %d rows, more than %d", option_count, OPTIONS_MAX);
    for (int i = 0; i < option_count; i++) {
        const struct opt_desc *d = &option_table[i];
        const int arg = d->type == OT_FLAG || d->type == OT_SET ? no_argument
                        : d->flags & OPT_OPTARG                  ? optional_argument
                                                                 : required_argument;
        if (!d->size || (!d->name && !d->short_name) || (d->flags & OPT_TUNE) != tune)
            continue;
        if (d->name)
            longopts[nl++] = (struct option){ d->name, arg, NULL, 1000 + i };
        if (d->short_name) {
            const size_t l = strlen(shorts);
            shorts[l] = d->short_name;
            shorts[l + 1] = arg == no_argument ? 0 : ':';
            shorts[l + 2] = 0;
        }
    }
    longopts[nl] = (struct option){ NULL, 0, NULL, 0 };
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
        const struct opt_desc *d = NULL;
        if (c >= 1000)
            d = &option_table[c - 1000];
        for (int i = 0; !d && c > 0 && c < 256 && i < option_count; i++)
            if (option_table[i].short_name == c && option_table[i].size && (option_table[i].flags & OPT_TUNE) == tune)
                d = &option_table[i];
        if (c == ':')
            return gpuimg_fail(GPUIMG_EUSAGE, "option '%s' needs a value", argv[optind - 1]);
        if (!d) {
            if (optopt >= 1000)   /* a value given to an option that takes none */
                return gpuimg_fail(GPUIMG_EUSAGE, "option '--%s' takes no value", option_table[optopt - 1000].name);
            if (optopt > 0 && optopt < 256)
                return gpuimg_fail(GPUIMG_EUSAGE, "unknown option '-%c'", optopt);
            return gpuimg_fail(GPUIMG_EUSAGE, "unknown option '%s'", argv[optind - 1]);
        }
        char what[64];
        if (c >= 1000)
            snprintf(what, sizeof what, "--%s", d->name);
        else
            snprintf(what, sizeof what, "-%c", d->short_name);
        int st = set_value(o, d, what, optarg, 0);
        if (st)
            return st;
        if (d->flags & OPT_STOP)
            break;
    }
    *first = optind;
    return GPUIMG_OK;
}

const char *options_given(const struct cli_opts *o, unsigned flag)
{
    static struct cli_opts dflt;
    if (!dflt.list_format)
        defaults(&dflt);
    for (int i = 0; i < option_count; i++) {
        const struct opt_desc *d = &option_table[i];
        if (d->flags & flag && memcmp(option_field(o, d), option_field(&dflt, d), d->size))
            return d->name;
    }
    return NULL;
}

/* ---- the docs ----------------------------------------------------------------------------------- */

/* A row that starts an entry of the docs (the rows marked OPT_JOIN after it belong to it). */
static int entry_start(int i)
{
    const struct opt_desc *d = &option_table[i];
    return (d->name || d->short_name) && d->size && !(d->flags & (OPT_JOIN | OPT_HIDDEN | OPT_TUNE));
}

void options_usage(FILE *f, unsigned flag)
{
    for (int i = 0, k = 0; i < option_count; i++) {
        const struct opt_desc *d = &option_table[i];
        if (!(d->flags & flag) || !d->name)
            continue;
        const int value = d->type != OT_FLAG && d->type != OT_SET;
        fprintf(f, "%s[--%s%s%s]", k++ ? " " : "", d->name, value ? "=" : "", value ? d->arg : "");
    }
}

static int entry_end(int i)
{
    int e = i + 1;
    while (e < option_count && option_table[e].flags & OPT_JOIN)
        e++;
    return e;
}

static const char *entry_text(int i, int man)
{
    for (int k = i; k < entry_end(i); k++) {
        const struct opt_desc *d = &option_table[k];
        if (man && d->man)
            return d->man;
        if (d->help)
            return d->help;
    }
    return NULL;
}

/* "-f, --force", "--png-level=N", "--list[=FORMAT]", "-j, --jobs=N"; with markup, each name
 * `bold` and each value's name *italic* */
/* buf += what fmt makes, cut at buf's end */
static void cat(char *buf, size_t n, const char *fmt, ...)
{
    const size_t l = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    if (l + 1 < n)
        vsnprintf(buf + l, n - l, fmt, ap);
    va_end(ap);
}

static void entry_names(int i, char *buf, size_t n, int markup)
{
    const char *b = markup ? "`" : "", *it = markup ? "*" : "";
    buf[0] = 0;
    for (int k = i; k < entry_end(i); k++) {
        const struct opt_desc *d = &option_table[k];
        const int value = d->type != OT_FLAG && d->type != OT_SET;
        if (d->short_name)
            cat(buf, n, "%s%s-%c%s", buf[0] ? ", " : "", b, d->short_name, b);
        if (!d->name)
            continue;
        cat(buf, n, "%s%s--%s", buf[0] ? ", " : "", b, d->name);
        if (!value)
            cat(buf, n, "%s", b);
        else
            cat(buf, n, "%s%s%s%s%s%s", d->flags & OPT_OPTARG ? "[=" : "=", b, it, d->arg, it,
                d->flags & OPT_OPTARG ? "]" : "");
    }
}

/* The default as the docs say it, or NULL where none is said: an entry's words, else its first
 * row's number or word. */
static const char *entry_default(int i, char *buf, size_t n)
{
    for (int k = i; k < entry_end(i); k++)
        if (option_table[k].dflt)
            return option_table[k].dflt;
    const struct opt_desc *d = &option_table[i];
    if (d->type == OT_INT) {
        snprintf(buf, n, "%lld", d->init);
        return buf;
    }
    if (d->type == OT_CHOICE) {
        param_choice_nth(d->choices, (int)(d->init - d->lo), buf, n);
        return buf;
    }
    return NULL;
}

#define HELP_WIDTH 100
#define HELP_COLUMN 28

/* words from column col, wrapped at HELP_WIDTH with HELP_COLUMN's indent */
static void wrap(FILE *f, const char *s, int col)
{
    while (*s) {
        const char *e = s;
        const char *brk = NULL;
        while (*e && col + (e - s) < HELP_WIDTH) {
            if (*e == ' ')
                brk = e;
            e++;
        }
        if (!*e)
            brk = e;
        else if (!brk)
            brk = e;
        fprintf(f, "%.*s\n", (int)(brk - s), s);
        s = *brk == ' ' ? brk + 1 : brk;   /* a word longer than the line goes on on the next */
        if (*s)
            fprintf(f, "%*s", HELP_COLUMN, "");
        col = HELP_COLUMN;
    }
}

void options_help(FILE *f)
{
    for (int i = 0; i < option_count; i++) {
        if (!entry_start(i) || !entry_text(i, 0))
            continue;
        char names[160], text[1024], db[64];
        entry_names(i, names, sizeof names, 0);
        const char *dflt = entry_default(i, db, sizeof db);
        snprintf(text, sizeof text, "%s%s%s%s", entry_text(i, 0), dflt ? " (default: " : "", dflt ? dflt : "",
                 dflt ? ")" : "");
        const int lead = option_table[i].short_name ? 2 : 6;
        const int used = lead + (int)strlen(names);
        fprintf(f, "%*s%s", lead, "", names);
        if (used + 2 > HELP_COLUMN) {
            fprintf(f, "\n%*s", HELP_COLUMN, "");
        } else
            fprintf(f, "%*s", HELP_COLUMN - used, "");
        wrap(f, text, HELP_COLUMN);
    }
}

void options_roff(FILE *f, const char *s, size_t n, int markup)
{
    int bold = 0, italic = 0, bol = 1;
    for (size_t i = 0; i < n && s[i]; i++) {
        const char c = s[i];
        if (bol && (c == '.' || c == '\''))
            fputs("\\&", f);
        bol = 0;
        if (markup && c == '`') {
            fputs(bold ? "\\fR" : "\\fB", f);
            bold = !bold;
        } else if (markup && c == '*') {
            fputs(italic ? "\\fR" : "\\fI", f);
            italic = !italic;
        } else if (c == '\\')
            fputs("\\e", f);
        else if (c == '-')
            fputs("\\-", f);
        else if (c == '|')
            fputs("|\\:", f);   /* a line may break after it: a long list of words is one word to troff */
        else
            fputc(c, f);
    }
}

static void roff(FILE *f, const char *s, size_t n)
{
    options_roff(f, s, n, 1);
}

/* A man text's paragraphs ("\n\n") and lists ("~ term: text" lines). */
static void man_text(FILE *f, const char *s)
{
    int in_list = 0;
    while (*s) {
        const char *nl = strchr(s, '\n');
        const size_t len = nl ? (size_t)(nl - s) : strlen(s);
        if (len >= 2 && s[0] == '~' && s[1] == ' ') {
            const char *colon = memchr(s, ':', len);
            if (!in_list)
                fputs(".RS\n", f);
            in_list = 1;
            fputs(".TP 11\n.B ", f);
            roff(f, s + 2, (size_t)(colon - s - 2));
            fputs("\n", f);
            roff(f, colon + 2, len - (size_t)(colon + 2 - s));
            fputs("\n", f);
        } else if (len == 0) {
            if (in_list)
                fputs(".RE\n", f);
            in_list = 0;
            fputs(".IP\n", f);
        } else {
            roff(f, s, len);
            fputs("\n", f);
        }
        s += len + (nl != NULL);
    }
    if (in_list)
        fputs(".RE\n", f);
}

void options_man(FILE *f)
{
    for (int i = 0; i < option_count; i++) {
        if (!entry_start(i) || !entry_text(i, 1))
            continue;
        char names[200], db[64];
        entry_names(i, names, sizeof names, 1);
        fputs(".TP\n", f);
        roff(f, names, sizeof names);
        fputs("\n", f);
        man_text(f, entry_text(i, 1));
        const char *dflt = entry_default(i, db, sizeof db);
        if (dflt) {
            fputs("Default: ", f);
            roff(f, dflt, strlen(dflt));
            fputs(".\n", f);
        }
    }
}

void options_man_env(FILE *f)
{
    for (int i = 0; i < option_count; i++) {
        const struct opt_desc *d = &option_table[i];
        if (!d->env || !d->env_man)
            continue;
        fprintf(f, ".TP\n.B %s\n", d->env);
        man_text(f, d->env_man);
    }
}

/* Markdown: `|` escaped in a table's cell */
static void md(FILE *f, const char *s)
{
    for (; *s; s++)
        fputs(*s == '|' ? "\\|" : (char[2]){ *s, 0 }, f);
}

void options_markdown(FILE *f)
{
    fputs("| option | meaning |\n| --- | --- |\n", f);
    for (int i = 0; i < option_count; i++) {
        int readme = 0;
        for (int k = i; k < entry_end(i); k++)
            readme |= option_table[k].flags & OPT_README;
        if (!entry_start(i) || !entry_text(i, 0) || !readme)
            continue;
        char names[160], db[64];
        entry_names(i, names, sizeof names, 0);
        fputs("| `", f);
        for (const char *p = names; *p; p++)   /* each name in its own code span */
            fputs(p[0] == ',' && p[1] == ' ' ? (p++, "`, `") : *p == '|' ? "\\|" : (char[2]){ *p, 0 }, f);
        fputs("` | ", f);
        md(f, entry_text(i, 0));
        const char *dflt = entry_default(i, db, sizeof db);
        if (dflt) {
            fputs(" (default: ", f);
            md(f, dflt);
            fputs(")", f);
        }
        fputs(" |\n", f);
    }
}

void options_complete(FILE *f)
{
    for (int i = 0; i < option_count; i++) {
        const struct opt_desc *d = &option_table[i];
        if (!d->size || (!d->name && !d->short_name) || d->flags & (OPT_HIDDEN | OPT_TUNE))
            continue;
        const int value = d->type != OT_FLAG && d->type != OT_SET;
        const char *kind = !value ? "flag" : d->flags & OPT_OPTARG ? "optional" : d->choices ? "choice"
                           : d->arg && (!strcmp(d->arg, "FILE") || !strcmp(d->arg, "TEMPLATE")) ? "file" : "value";
        char words[256] = "";
        for (int k = 0, n = d->choices ? param_choice_count(d->choices) : 0; k < n; k++) {
            char w[32];
            param_choice_nth(d->choices, k, w, sizeof w);
            snprintf(words + strlen(words), sizeof words - strlen(words), "%s%s", k ? " " : "", w);
        }
        if (d->short_name)
            fprintf(f, "option\t-%c\t%s\t%s\n", d->short_name, kind, words);
        if (d->name)
            fprintf(f, "option\t--%s\t%s\t%s\n", d->name, kind, words);
    }
}

/* ---- what the options ask of the engine ----------------------------------------------------- */

void options_knobs(const struct cli_opts *o, struct engine_knobs *k)
{
    static char dir[4096];
    *k = (struct engine_knobs){ .no_stream = !o->stream, .no_simd = o->no_simd, .png_zlib = o->png_zlib,
                                .nvjpeg_flags = o->nvjpeg_flags, .jpeg_gpu_encodes = o->jpeg_gpu_encodes,
                                .png_gpu_algo = o->png_gpu_algo,
                                .png_gpu_chunk = o->png_gpu_chunk, .tune_file = o->tune_cache };
    if (o->cache_home && *o->cache_home)
        snprintf(dir, sizeof dir, "%s/gpuimg", o->cache_home);
    else if (o->home && *o->home)
        snprintf(dir, sizeof dir, "%s/.cache/gpuimg", o->home);
    k->tune_dir = dir[0] ? dir : NULL;
}

int options_device(const struct cli_opts *o)
{
    return o->device < 0 ? 0 : o->device;
}

void options_run_ctx(const struct cli_opts *o, const struct plan *pl, int threads, struct run_ctx *c)
{
    /* auto: the GPU's JPEG engines where it has them and they take the file, else libjpeg-turbo on
     * the CPU (faster than nvJPEG's other backends one image at a time) */
    *c = (struct run_ctx){
        .plan = pl,
        .kind = BACKEND_CPU,
        .max_pixels = o->max_pixels,
        .max_expansion = (unsigned)o->max_expansion,
        .gpu = { .device = options_device(o), .variant = o->kernel, .pin = o->pin, .nofuse = o->nofuse,
                 .jpeg = o->jpeg_decoder == JPEG_DEC_AUTO ? 1 : o->jpeg_decoder == JPEG_DEC_NVJPEG ? 2 : 0 },
        .save = { .fmt = (enum out_format)o->format, .png_level = o->png_level, .jpeg_quality = o->jpeg_quality,
                  .force = o->force, .threads = threads, .jpeg_sampling = o->jpeg_sampling,
                  .jpeg_progressive = o->jpeg_progressive, .webp_quality = o->webp_quality,
                  .webp_lossless = o->webp_lossless, .webp_effort = o->webp_effort,
                  .heif_quality = o->heif_quality, .heif_effort = o->heif_effort,
                  .jxl_distance = o->jxl_distance, .jxl_effort = o->jxl_effort, .strip = o->strip },
        .background = (uint32_t)o->background,
        .per_file_format = o->per_file_format,
        .load_jpeg = o->jpeg_decoder == JPEG_DEC_STB ? DEC_STB : DEC_AUTO,
        .load_png = (enum io_decoder)o->png_decoder,
        .shrink_on_load = (enum shrink_mode)o->shrink_on_load,
        .jpeg_split = o->jpeg_split,
        .no_auto_orient = o->no_auto_orient,
        .profile_srgb = o->profile == 1,
        .png_encoder = (enum encoder_choice)o->png_encoder,
        .jpeg_encoder = (enum encoder_choice)o->jpeg_encoder,
    };
}
