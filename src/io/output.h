/* gpuimg: where outputs go, safely. An output is written into a temporary file ".NAME.XXXXXX"
 * beside it, NAME cut to fit the directory's longest name (standard output and devices: straight,
 * nothing pending), and put in place by publish: link()
 * without force, so a file that appeared meanwhile is not replaced, rename() with it; a replaced
 * file keeps its permissions. A signal that ends the process removes the temporary files being
 * written (io_install_signal_cleanup); SIGKILL cannot be caught and leaves its file. Files are
 * compared by what they are, not by how their names are spelled. */
#ifndef GPUIMG_OUTPUT_H
#define GPUIMG_OUTPUT_H
#include <stdint.h>
#include <stdio.h>

/* "<stdin>" / "<stdout>" for "-", else path. */
const char *io_display_name(const char *path, int out);

/* Checks worth doing before decoding: the output's directory exists, the output does not
 * exist unless force, it is not a directory. */
int io_check_output(const char *path, int force);

struct io_pending {
    const char *path;    /* the destination (not copied) */
    char *tmp;           /* the temporary file, NULL when written straight */
    FILE *fp;            /* open for writing until closed */
    int slot, force;
};
int io_pending_open(const char *path, int force, struct io_pending *p);
/* Writing into fd (a duplicate of it, closed by close/publish/discard): nothing to rename. */
int io_pending_fd(int fd, const char *path, struct io_pending *p);
int io_pending_close(struct io_pending *p);      /* flush and close, reporting write errors */
int io_pending_publish(struct io_pending *p);    /* close, then put in place (or remove) */
void io_pending_discard(struct io_pending *p);   /* remove the temporary file */

/* What a path names, to tell whether two paths are one file: the absolute name with the part of
 * its directory that exists resolved (symbolic links, ".", "..") and the rest taken as written,
 * and for an existing file its device and inode (after links). Paths are the same file when
 * either agrees. */
struct io_file_id {
    char *name;
    int exists;
    uint64_t dev, ino;
};
int io_file_id(const char *path, struct io_file_id *id);
void io_file_id_free(struct io_file_id *id);
int io_same_file(const struct io_file_id *a, const struct io_file_id *b);
/* GPUIMG_EUSAGE naming what and path if path is the same file as one of files[0..n) (NULL and
 * "-" entries skipped). */
int io_refuse_same(const char *what, const char *path, const char *const *files, long n);

/* Remove half-written temporary outputs (every writer's) when a signal ends the process (every
 * one that can be caught: SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
 * ...), and turn the file size limit's SIGXFSZ into a write error (EFBIG). Call once before
 * starting threads. */
void io_install_signal_cleanup(void);
/* Create the directories above path (mkdir -p of its dirname); created (may be NULL) is told
 * each directory made, parents first. */
int io_make_dirs(const char *path, void (*created)(const char *dir, void *arg), void *arg);
/* A directory made for outputs (as io_make_dirs tells it), removed where empty, newest first, by
 * io_remove_made_dirs or by a signal that ends the process (after its temporary files). */
int io_track_dir(const char *dir);
void io_remove_made_dirs(void);   /* and forgets them */

#endif
