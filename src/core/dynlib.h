/* gpuimg: a shared library loaded at its first use. Linked, a format's library runs its
 * constructors and relocations at every process start (libjxl's and libheif's take
 * milliseconds: a timer calibrated, a decoder's tables); loaded here, only a command that reads
 * or writes that format pays them. configure names the file (the SONAME it linked against, or
 * its full path). */
#ifndef GPUIMG_DYNLIB_H
#define GPUIMG_DYNLIB_H
#include <pthread.h>
#include <stddef.h>

struct dynlib {
    const char *file;          /* what dlopen gets */
    const char *what;          /* for the message: "HEIC and AVIF" */
    const char *const *names;  /* the functions, in the order of the table */
    void *table;               /* a struct of as many function pointers */
    size_t n;
    pthread_once_t once;
    int ok;
    char err[256];
};

/* 1 once every function of l's table is resolved (loaded by the first call, from any thread;
 * never unloaded), else 0 */
int dynlib_load(struct dynlib *l);
/* dynlib_load, or GPUIMG_EUNSUPPORTED with the message "NAME: ... needs FILE, which cannot be
 * loaded: why" recorded; 0 when loaded */
int dynlib_need(struct dynlib *l, const char *name);

/* A table: the struct VAR of the functions LIST names (LIST(X) is X(f) for each function f, its
 * type taken from the library's header) and VAR_lib, which loads them into it. Calls read
 * VAR.f(...). */
#define DYNLIB_FIELD(f) __typeof__(f) *f;
#define DYNLIB_NAME(f) #f,
#define DYNLIB_TABLE(var, so, label, LIST)                                                       \
    static struct {                                                                               \
        LIST(DYNLIB_FIELD)                                                                        \
    } var;                                                                                        \
    static const char *const var##_names[] = { LIST(DYNLIB_NAME) };                              \
    _Static_assert(sizeof var == sizeof var##_names, "a table holds function pointers only");    \
    static struct dynlib var##_lib = { .file = so, .what = label, .names = var##_names, .table = &var, \
                                       .n = sizeof var##_names / sizeof var##_names[0],              \
                                       .once = PTHREAD_ONCE_INIT }

#endif
