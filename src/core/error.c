/* gpuimg: the status strings and the error-message slot, one per thread so that the workers
 * of a batch each keep their own (see error.h). */
#include <config.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "core/error.h"

static _Thread_local char errbuf[1024];
static _Thread_local int errset;

static const char *const names[GPUIMG_NSTATUS] = {
    [GPUIMG_OK] = "success",
    [GPUIMG_EUSAGE] = "usage error",
    [GPUIMG_EPARAM] = "invalid pipeline",
    [GPUIMG_ENOMEM] = "out of memory",
    [GPUIMG_EOPEN] = "cannot read input",
    [GPUIMG_EDECODE] = "cannot decode image",
    [GPUIMG_ETOOBIG] = "image too large",
    [GPUIMG_EEXISTS] = "output exists",
    [GPUIMG_EWRITE] = "cannot write output",
    [GPUIMG_EENCODE] = "cannot encode image",
    [GPUIMG_ENOGPU] = "no usable GPU",
    [GPUIMG_ECUDA] = "CUDA error",
    [GPUIMG_EUNSUPPORTED] = "not supported by this build",
    [GPUIMG_ENODEVMEM] = "not enough device memory",
    [GPUIMG_ECANCELED] = "given up: its asker went away",
    [GPUIMG_EGEOMETRY] = "the pipeline does not fit the image",
    [GPUIMG_EINTERNAL] = "internal error",
};

const char *gpuimg_strerror(enum gpuimg_status s)
{
    if ((int)s < 0 || s >= GPUIMG_NSTATUS || !names[s])
        return "unknown error";
    return names[s];
}

enum gpuimg_status gpuimg_fail(enum gpuimg_status s, const char *fmt, ...)
{
    if (!errset) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(errbuf, sizeof errbuf, fmt, ap);
        va_end(ap);
        errset = 1;
    }
    return s;
}

const char *gpuimg_errmsg(void) { return errset ? errbuf : NULL; }

void gpuimg_clear_error(void) { errset = 0; errbuf[0] = 0; }

void gpuimg_print_line(FILE *f, const char *msg)
{
    fputs("gpuimg: ", f);
    for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
        if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p == '\r')
            fputs("\\r", f);
        else if (*p == '\\')
            fputs("\\\\", f);
        else if (*p < 32 || *p == 127)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
    fputc('\n', f);
}

enum gpuimg_status gpuimg_write_error(const char *name, int err)
{
    if (err == EFBIG)
        return gpuimg_fail(GPUIMG_EWRITE, "%s: write failed: the file would pass the file size limit (ulimit -f)",
                           name);
    return gpuimg_fail(GPUIMG_EWRITE, "%s: write failed: %s", name, strerror(err));
}

int gpuimg_exit_code(enum gpuimg_status s)
{
    if (s == GPUIMG_OK)
        return 0;
    return (s == GPUIMG_EUSAGE || s == GPUIMG_EPARAM) ? 2 : 1;
}
