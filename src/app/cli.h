/* gpuimg: the command line. cli_parse() fills cli_opts (options.h) from the environment and
 * argv and records a usage error (status GPUIMG_EUSAGE) when the words are off; the help, version
 * and --list texts are written here from the option table and the op table, so that they cannot
 * fall out of step with the code. */
#ifndef GPUIMG_CLI_H
#define GPUIMG_CLI_H
#include <stdint.h>
#include <stdio.h>
#include "lib/options.h"

int cli_parse(int argc, char **argv, struct cli_opts *o);
void cli_usage(FILE *f);
void cli_help(FILE *f);
void cli_version(FILE *f);
void cli_list(FILE *f, const char *format);

#endif
