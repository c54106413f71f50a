/* gpuimg: files named inside a pipeline (see opfile.h). */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/opfile.h"

static pthread_mutex_t files_mu = PTHREAD_MUTEX_INITIALIZER;
static struct op_file *files;
static op_file_loader loader;
static int nfiles;
#define OP_FILES_MAX 256   /* the files a process keeps */

void op_file_set_loader(op_file_loader fn)
{
    pthread_mutex_lock(&files_mu);
    loader = fn;
    pthread_mutex_unlock(&files_mu);
}

int op_file_open(const char *path, struct op_file **out)
{
    int st = GPUIMG_OK;
    pthread_mutex_lock(&files_mu);
    struct op_file *f = files;
    while (f && strcmp(f->path, path))
        f = f->next;
    if (f && !f->img.data && loader && (st = loader(path, &f->img)))   /* named before the loader was set */
        memset(&f->img, 0, sizeof f->img);
    else if (!f && nfiles >= OP_FILES_MAX)   /* (a parser fed many pipelines: the fuzz target) */
        st = gpuimg_fail(GPUIMG_EPARAM, "more than %d files named in pipelines", OP_FILES_MAX);
    else if (!f) {
        if (!(f = calloc(1, sizeof *f)) || !(f->path = strdup(path))) {
            free(f);
            pthread_mutex_unlock(&files_mu);
            return gpuimg_fail(GPUIMG_ENOMEM, "out of memory");
        }
        pthread_mutex_init(&f->mu, NULL);
        if (loader && (st = loader(path, &f->img))) {
            memset(&f->img, 0, sizeof f->img);
            free(f->path);
            pthread_mutex_destroy(&f->mu);
            free(f);
            f = NULL;
        } else {
            f->next = files;
            files = f;
            nfiles++;
        }
    }
    pthread_mutex_unlock(&files_mu);
    *out = f;
    return st;
}

void op_files_free(void)
{
    pthread_mutex_lock(&files_mu);
    while (files) {
        struct op_file *f = files;
        files = f->next;
        if (f->cache && f->cache_free)
            f->cache_free(f->cache);
        image_free(&f->img);
        pthread_mutex_destroy(&f->mu);
        free(f->path);
        free(f);
    }
    nfiles = 0;
    pthread_mutex_unlock(&files_mu);
}
