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

void param_choice_word(const struct op_param *p, int i, char *buf, size_t n)
{
    const char *s = p->choices;
    for (; i > 0 && s; i--) {
        s = strchr(s, '|');
        if (s)
            s++;
    }
    if (!s) {
        snprintf(buf, n, "?");
        return;
    }
    size_t len = strcspn(s, "|");
    snprintf(buf, n, "%.*s", (int)len, s);
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
    case PARAM_SIZE: snprintf(buf, n, "P%% (percent), WxH, Wx or xH (pixels; a missing side keeps the aspect ratio)"); break;
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
            if (parse_dim(text, (size_t)(x - text), &v->size.w) || parse_dim(x + 1, strlen(x + 1), &v->size.h))
                return gpuimg_fail(GPUIMG_EPARAM, "%s: %s must be %s, not '%s'", op->name, p->name, what, text);
            v->size.kind = SIZE_PIXELS;
        } else
            return gpuimg_fail(GPUIMG_EPARAM, "%s: %s must be %s, not '%s'", op->name, p->name, what, text);
        break;
    }
    }
    v->set = 1;
    return GPUIMG_OK;
}
