/* gpuimg: the tune cache: per GPU model, the kernel variant and launch shape `gpuimg tune` measured
 * fastest (and exact) for each operation and pixel layout, which --kernel=auto reads. The cache
 * lives in a directory app names (tune_cache_place), one file per GPU model, or in one file it
 * names, or nowhere ("off": the built-in defaults). */
#include <config.h>
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/op.h"
#include "engine/tune_cache.h"

static const char *cache_file, *cache_dir;

void tune_cache_place(const char *file, const char *dir)
{
    cache_file = file && *file ? file : NULL;
    cache_dir = dir && *dir ? dir : NULL;
}

int tune_cache_path(const char *device, int cc, char *buf, size_t n)
{
    if (cache_file) {
        if (!strcmp(cache_file, "off"))
            return 0;
        snprintf(buf, n, "%s", cache_file);
        return 1;
    }
    if (!cache_dir)
        return 0;
    char slug[128];
    size_t k = 0;
    for (const char *p = device; *p && k + 1 < sizeof slug; p++)
        slug[k++] = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '-';
    slug[k] = 0;
    snprintf(buf, n, "%s/tune-%s-sm%d.txt", cache_dir, slug, cc);
    return 1;
}

int tune_parse_line(const char *line, char *op, size_t opn, int *c, int *depth, int *variant,
                    struct gpu_shape *shape)
{
    char name[32], var[32];
    double ms;
    if (line[0] == '#'
        || sscanf(line, "%31s %d %d %31s %dx%d %d %lf", name, c, depth, var, &shape->bx, &shape->by, &shape->ppt, &ms)
               != 8)
        return 0;
    *variant = -1;
    for (int v = 0; v < KV_COUNT; v++)
        if (!strcmp(var, kernel_names[v]))
            *variant = v;
    const struct op_desc *d = op_find(name);
    if (!d || *variant < 0 || !(d->gpu_variants & KV_BIT(*variant)) || *variant == KV_TEXTURE || *c < 1 || *c > 4
        || (*depth != 8 && *depth != 16) || shape->bx < 0 || shape->by < 0 || shape->bx * shape->by > 1024
        || (shape->ppt != 0 && shape->ppt != 1 && shape->ppt != 2 && shape->ppt != 4 && shape->ppt != 8))
        return 0;
    snprintf(op, opn, "%s", name);
    return 1;
}

struct tune_entry { char op[32]; int c, depth, variant; struct gpu_shape shape; };
static struct {
    int loaded, n;
    struct tune_entry e[TUNE_MAX];
} cache;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;   /* the workers of a batch look up at once */

int tune_lookup(const char *device, int cc, const char *op, int c, int depth, int *variant, struct gpu_shape *shape)
{
    pthread_mutex_lock(&cache_lock);
    if (!cache.loaded) {
        cache.loaded = 1;
        char path[1024], line[256];
        FILE *f = device && tune_cache_path(device, cc, path, sizeof path) ? fopen(path, "r") : NULL;
        while (f && cache.n < TUNE_MAX && fgets(line, sizeof line, f)) {
            struct tune_entry *x = &cache.e[cache.n];
            cache.n += tune_parse_line(line, x->op, sizeof x->op, &x->c, &x->depth, &x->variant, &x->shape);
        }
        if (f)
            fclose(f);
    }
    pthread_mutex_unlock(&cache_lock);
    for (int i = 0; i < cache.n; i++)
        if (!strcmp(cache.e[i].op, op) && cache.e[i].c == c && cache.e[i].depth == depth) {
            *variant = cache.e[i].variant;
            *shape = cache.e[i].shape;
            return 1;
        }
    return 0;
}
