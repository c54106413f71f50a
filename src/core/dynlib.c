/* gpuimg: a shared library loaded at its first use (dynlib.h). */
#include <config.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "core/dynlib.h"
#include "core/error.h"

/* pthread_once takes no argument: the library being loaded is handed over under this lock */
static pthread_mutex_t loading_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dynlib *loading;

static void load(void)
{
    struct dynlib *l = loading;
    void *h = dlopen(l->file, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(l->err, sizeof l->err, "%s", dlerror());
        return;
    }
    for (size_t i = 0; i < l->n; i++) {
        void *f = dlsym(h, l->names[i]);
        if (!f) {
            snprintf(l->err, sizeof l->err, "%s has no %s", l->file, l->names[i]);
            return;   /* the handle stays: a failed load is never retried */
        }
        memcpy((char *)l->table + i * sizeof f, &f, sizeof f);   /* bytes: no aliasing rule broken */
    }
    __atomic_store_n(&l->ok, 1, __ATOMIC_RELEASE);
}

int dynlib_load(struct dynlib *l)
{
    if (!__atomic_load_n(&l->ok, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&loading_lock);
        loading = l;
        pthread_once(&l->once, load);
        pthread_mutex_unlock(&loading_lock);
    }
    return l->ok;
}

int dynlib_need(struct dynlib *l, const char *name)
{
    if (dynlib_load(l))
        return GPUIMG_OK;
    return gpuimg_fail(GPUIMG_EUNSUPPORTED, "%s: %s needs %s, which cannot be loaded: %s", name, l->what, l->file,
                       l->err);
}
