/* gpuimg: the operation table (see ops.h). Order here is the order of --help and --list. */
#include <config.h>
#include <string.h>
#include "ops.h"

const struct op_desc *const gpuimg_ops[] = {
    &op_gray, &op_resize, &op_blur, &op_transpose, &op_rotate, &op_flip,
};
const int gpuimg_nops = (int)(sizeof gpuimg_ops / sizeof gpuimg_ops[0]);

const struct op_desc *op_find(const char *name)
{
    for (int i = 0; i < gpuimg_nops; i++)
        if (strcmp(gpuimg_ops[i]->name, name) == 0)
            return gpuimg_ops[i];
    return NULL;
}
