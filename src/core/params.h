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
/* The i-th choice word of p into buf. */
void param_choice_word(const struct op_param *p, int i, char *buf, size_t n);

#endif
