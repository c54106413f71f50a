/* gpuimg: one status enum for the whole program, its strerror, and one message slot.
 * Code that fails records a detail line (naming the file and the cause) with gpuimg_fail()
 * and returns the status up the stack; main() prints that line once and maps the status to
 * an exit code. Nothing else prints errors. */
#ifndef GPUIMG_ERROR_H
#define GPUIMG_ERROR_H
#include <stdio.h>
#include "gpuimg.h"

/* enum gpuimg_status and gpuimg_strerror are the library's (include/gpuimg.h): one enum for the
 * command and the API. */

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
