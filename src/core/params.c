/* gpuimg: parameter value parsing (see params.h). */
#include <config.h>
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/params.h"

int param_choice_index(const char *choices, const char *text)
{
    const size_t tl = strlen(text);
    int i = 0;
    for (const char *s = choices; s; i++) {
        const size_t len = strcspn(s, "|");
        if (len == tl && strncmp(s, text, len) == 0)
            return i;
        s = s[len] ? s + len + 1 : NULL;
    }
    return -1;
}

int param_choice_count(const char *choices)
{
    int n = 1;
    for (const char *s = choices; *s; s++)
        n += *s == '|';
    return n;
}

void param_choice_nth(const char *choices, int i, char *buf, size_t n)
{
    const char *s = choices;
    for (; i > 0 && s; i--)
        if ((s = strchr(s, '|')))
            s++;
    const size_t len = s ? strcspn(s, "|") : 0;
    snprintf(buf, n, "%.*s", (int)len, s ? s : "");
}

static void fmt_num(char *buf, size_t n, double v) { snprintf(buf, n, "%g", v); }

void param_describe(const struct op_param *p, char *buf, size_t n)
{
    char lo[32], hi[32];
    switch (p->type) {
    case PARAM_NUMBER:
        fmt_num(lo, sizeof lo, p->min);
        fmt_num(hi, sizeof hi, p->max);
        snprintf(buf, n, "a number in %s%s, %s]", p->min_open ? "(" : "[", lo, hi);
        break;
    case PARAM_CHOICE: snprintf(buf, n, "one of %s", p->choices); break;
    case PARAM_COLOR: snprintf(buf, n, "a colour: %s", COLOR_FORMS); break;
    case PARAM_FILE: snprintf(buf, n, "a file's path (without ',' or ':')"); break;
    case PARAM_SIZE:
        snprintf(buf, n, "P%% (percent), WxH, Wx or xH (pixels; a missing side keeps the aspect ratio), WxH ending in "
                         "! ^ > < or +X+Y");
        break;
    }
}

static int parse_dim(const char *s, size_t len, int *out)
{
    if (len == 0) {
        *out = 0;
        return 0;
    }
    long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
        if (v > 1 << 24)
            return -1;
    }
    if (v == 0)
        return -1;
    *out = (int)v;
    return 0;
}

/* "+X+Y": two numbers of up to 2^24, each after a '+', and nothing else */
static int parse_offset(const char *s, int *x, int *y)
{
    const char *second = strchr(s + 1, '+');
    if (s[0] != '+' || !second)
        return -1;
    int v[2];
    const char *part[2] = { s + 1, second + 1 };
    const size_t len[2] = { (size_t)(second - s - 1), strlen(second + 1) };
    for (int k = 0; k < 2; k++) {
        if (!len[k] || len[k] > 8)
            return -1;
        long n = 0;
        for (size_t i = 0; i < len[k]; i++) {
            if (part[k][i] < '0' || part[k][i] > '9')
                return -1;
            n = n * 10 + (part[k][i] - '0');
        }
        if (n > 1 << 24)
            return -1;
        v[k] = (int)n;
    }
    *x = v[0];
    *y = v[1];
    return 0;
}

int param_parse(const struct op_desc *op, const struct op_param *p, const char *text, struct param_value *v)
{
    char what[160];
    param_describe(p, what, sizeof what);
    if (!*text)
        return gpuimg_fail(GPUIMG_EPARAM, "%s: %s is empty: expected %s", op->name, p->name, what);
    switch (p->type) {
    case PARAM_NUMBER: {
        char *end;
        errno = 0;
        double d = strtod(text, &end);
        /* No white space either side (strtod would skip it before the number only); a value too
         * small for a normal double (1e-308) is that value, not an error. */
        const int underflow = errno == ERANGE && fabs(d) <= DBL_MIN;
        if (isspace((unsigned char)text[0]) || *end || (errno && !underflow) || !isfinite(d) || d > p->max
            || (p->min_open ? d <= p->min : d < p->min))
            return gpuimg_fail(GPUIMG_EPARAM, "%s: %s must be %s, not '%s'", op->name, p->name, what, text);
        v->num = d;
        break;
    }
    case PARAM_CHOICE:
        if ((v->choice = param_choice_index(p->choices, text)) < 0)
            return gpuimg_fail(GPUIMG_EPARAM, "%s: %s must be %s, not '%s'", op->name, p->name, what, text);
        break;
    case PARAM_COLOR:
        if (color_parse(text, &v->color))
            return gpuimg_fail(GPUIMG_EPARAM, "%s: %s must be %s, not '%s'", op->name, p->name, what, text);
        break;
    case PARAM_FILE: {
        /* a pipeline's separators cannot be in it; the file is read now, before any input */
        if (strpbrk(text, ",:") || strlen(text) >= 4096)
            return gpuimg_fail(GPUIMG_EPARAM, "%s: %s must be %s, not '%s'", op->name, p->name, what, text);
        const int st = op_file_open(text, &v->file);
        if (st) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", gpuimg_errmsg() ? gpuimg_errmsg() : gpuimg_strerror(st));
            gpuimg_clear_error();
            return gpuimg_fail(st, "%s: the %s: %s", op->name, p->name, msg);
        }
        break;
    }
    case PARAM_SIZE: {
        size_t len = strlen(text);
        const char *x = strchr(text, 'x');
        if (len > 1 && text[len - 1] == '%' && !x) {
            char *end;
            errno = 0;
            double d = strtod(text, &end);
            if (end != text + len - 1 || errno || !isfinite(d) || d <= 0 || d > 100000)
                return gpuimg_fail(GPUIMG_EPARAM, "%s: %s must be a percentage in (0, 100000], not '%s'", op->name,
                                   p->name, text);
            v->size.kind = SIZE_PERCENT;
            v->size.pct = d;
        } else if (x && strchr(x + 1, 'x') == NULL && !(x == text && !x[1])) {
            const char *h = x + 1, *plus = strchr(h, '+');
            size_t hl = plus ? (size_t)(plus - h) : strlen(h);
            v->size.flag = 0;
            v->size.offset = 0;
            if (hl && strchr("!^<>", h[hl - 1])) {
                v->size.flag = h[hl - 1];
                hl--;
            }
            const int both = x > text && hl > 0;
            if (parse_dim(text, (size_t)(x - text), &v->size.w) || parse_dim(h, hl, &v->size.h)
                || (v->size.flag && (!both || plus)) || (plus && parse_offset(plus, &v->size.x, &v->size.y)))
                return gpuimg_fail(GPUIMG_EPARAM, "%s: %s must be %s, not '%s'", op->name, p->name, what, text);
            v->size.offset = plus != NULL;
            v->size.kind = SIZE_PIXELS;
        } else
            return gpuimg_fail(GPUIMG_EPARAM, "%s: %s must be %s, not '%s'", op->name, p->name, what, text);
        break;
    }
    }
    v->set = 1;
    return GPUIMG_OK;
}
