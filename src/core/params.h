/* gpuimg: parsing one operation parameter's text into its value, with the error messages
 * that name the operation, the parameter and what it accepts. */
#ifndef GPUIMG_PARAMS_H
#define GPUIMG_PARAMS_H
#include <stddef.h>
#include "core/op.h"

int param_parse(const struct op_desc *op, const struct op_param *p, const char *text, struct param_value *v);
/* "sigma in (0, 100]", "one of 601|709", "P% or WxH, Wx, xH" */
void param_describe(const struct op_param *p, char *buf, size_t n);
/* The index of text among choices' '|'-separated words ("auto|cpu|gpu"), or -1. */
int param_choice_index(const char *choices, const char *text);
/* How many words choices has, and the i-th of them into buf ("" past the last). */
int param_choice_count(const char *choices);
void param_choice_nth(const char *choices, int i, char *buf, size_t n);

#endif
