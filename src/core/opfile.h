/* gpuimg: files named inside a pipeline (a PARAM_FILE parameter: composite's overlay). The
 * pipeline is parsed before any input is read, and each such file is read then, once for the
 * process (the same path parsed again is the same file): a missing or unreadable file fails the
 * parse, naming it, before any input. Core reads no file itself: the program sets the loader
 * (the command's: io's bounded loader with --max-pixels and --max-expansion; the tests': theirs).
 * Without a loader (the server) a file is only named, never read, and a step that needs its
 * pixels fails. */
#ifndef GPUIMG_CORE_OPFILE_H
#define GPUIMG_CORE_OPFILE_H
#include <pthread.h>
#include "core/image.h"

struct op_file {
    char *path;
    struct image img;            /* as read; data NULL: not read (no loader) */
    /* What an operation makes from img and keeps for the process (composite: its overlay per
     * geometry), under mu; cache_free frees it. */
    pthread_mutex_t mu;
    void *cache;
    void (*cache_free)(void *cache);
    struct op_file *next;
};

/* Reads path into img (a gpuimg_status, the message naming path). */
typedef int (*op_file_loader)(const char *path, struct image *img);
void op_file_set_loader(op_file_loader fn);
/* The file of path: read by the loader at its first use, the same struct after. */
int op_file_open(const char *path, struct op_file **f);
/* Every file read, and the operations' caches, freed (at the end of the program). */
void op_files_free(void);

#endif
