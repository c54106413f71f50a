/* gpuimg: one status enum for the whole program, its strerror, and one message slot.
 * Code that fails records a detail line (naming the file and the cause) with gpuimg_fail()
 * and returns the status up the stack; main() prints that line once and maps the status to
 * an exit code. Nothing else prints errors. */
#ifndef GPUIMG_ERROR_H
#define GPUIMG_ERROR_H
#include <stdio.h>

enum gpuimg_status {
    GPUIMG_OK = 0,
    GPUIMG_EUSAGE,      /* bad command line */
    GPUIMG_EPARAM,      /* bad pipeline or operation parameter */
    GPUIMG_ENOMEM,      /* out of memory */
    GPUIMG_EOPEN,       /* cannot open or read an input */
    GPUIMG_EDECODE,     /* input is not a readable image */
    GPUIMG_ETOOBIG,     /* image over --max-pixels or size arithmetic would overflow */
    GPUIMG_EEXISTS,     /* output exists and --force was not given */
    GPUIMG_EWRITE,      /* cannot create or write the output */
    GPUIMG_EENCODE,     /* encoder failed */
    GPUIMG_ENOGPU,      /* no usable GPU where one was required */
    GPUIMG_ECUDA,       /* a CUDA call failed */
    GPUIMG_EUNSUPPORTED,/* the request is valid but this build cannot do it */
    GPUIMG_ENODEVMEM,   /* not enough device memory (or over --gpu-mem-limit), even in tiles */
    GPUIMG_ECANCELED,   /* the run was given up: whoever asked for it went away */
    GPUIMG_EGEOMETRY,   /* the pipeline does not fit this image (a crop outside it, a pad smaller) */
    GPUIMG_EINTERNAL,
    GPUIMG_NSTATUS
};

const char *gpuimg_strerror(enum gpuimg_status s);

/* Record the detail message for s (printf-style) and return s. The slot is per thread. The
 * first failure wins: a later call does not overwrite the message until gpuimg_clear_error(). */
enum gpuimg_status gpuimg_fail(enum gpuimg_status s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
const char *gpuimg_errmsg(void);
void gpuimg_clear_error(void);
/* GPUIMG_EWRITE for a failed write of name with errno err, one message for every writer (EFBIG
 * names the file size limit). */
enum gpuimg_status gpuimg_write_error(const char *name, int err);
/* "gpuimg: MSG\n" on f, one line whatever MSG holds: control characters (a newline or an escape
 * sequence in a file name) are written as \n, \t, \r or \xNN, and a backslash as \\. */
void gpuimg_print_line(FILE *f, const char *msg);

/* 2 for usage and parameter errors, 1 for everything else that failed, 0 for OK. */
int gpuimg_exit_code(enum gpuimg_status s);

#endif
