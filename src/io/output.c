/* gpuimg: writing outputs safely (see output.h). */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/error.h"
#include "io/output.h"

/* ---- temporary files and signals ----------------------------------------------------------- */

/* Every temporary output being written (one per worker of a batch) has a slot; the signal
 * handler removes those armed. A slot's path is written before it is armed and disarmed before
 * it is reused, so the handler never sees a half-written name. */
#define TMP_SLOTS 128
#define TMPNAME_MAX (PATH_MAX + 32)
static char tmp_path[TMP_SLOTS][TMPNAME_MAX];
static volatile sig_atomic_t tmp_armed[TMP_SLOTS];
static int tmp_used[TMP_SLOTS];
static pthread_mutex_t tmp_lock = PTHREAD_MUTEX_INITIALIZER;
/* The directories io_track_dir was told of, newest first (a child after its parent): pushed under
 * tmp_lock, each whole before it is published; a signal's cleanup walks them (counted in
 * dirs_walking, so that io_remove_made_dirs frees none under it). */
struct made_dir {
    struct made_dir *next;
    char path[];
};
static struct made_dir *made_dirs;
static int dirs_walking;
static mode_t io_umask;
static int io_umask_known;

static int tmp_arm(const char *path)
{
    pthread_mutex_lock(&tmp_lock);
    int slot = -1;
    for (int i = 0; i < TMP_SLOTS && slot < 0; i++)
        if (!tmp_used[i])
            slot = i;
    if (slot >= 0) {
        tmp_used[slot] = 1;
        snprintf(tmp_path[slot], sizeof tmp_path[slot], "%s", path);
        __atomic_store_n(&tmp_armed[slot], 1, __ATOMIC_SEQ_CST);
    }
    pthread_mutex_unlock(&tmp_lock);
    return slot;   /* -1 (more writers than slots): the file is still removed on any failure */
}

static void tmp_disarm(int slot)
{
    if (slot < 0)
        return;
    pthread_mutex_lock(&tmp_lock);
    __atomic_store_n(&tmp_armed[slot], 0, __ATOMIC_SEQ_CST);
    tmp_used[slot] = 0;
    pthread_mutex_unlock(&tmp_lock);
}

static void on_signal(int sig)
{
    for (int i = 0; i < TMP_SLOTS; i++)
        if (tmp_armed[i])
            unlink(tmp_path[i]);
    __atomic_add_fetch(&dirs_walking, 1, __ATOMIC_SEQ_CST);
    for (const struct made_dir *d = __atomic_load_n(&made_dirs, __ATOMIC_SEQ_CST); d; d = d->next)
        rmdir(d->path);   /* those left empty: their files unfinished */
    __atomic_sub_fetch(&dirs_walking, 1, __ATOMIC_SEQ_CST);
    signal(sig, SIG_DFL);
    raise(sig);
}

static mode_t file_mode(void)
{
    if (!io_umask_known) {   /* umask can only be read by setting it: once, before any worker */
        io_umask = umask(0);
        umask(io_umask);
        io_umask_known = 1;
    }
    return 0666 & ~io_umask;
}

void io_install_signal_cleanup(void)
{
    /* every signal whose default action ends the process and that can be caught (SIGKILL and
     * SIGSTOP cannot; the faults are bugs, not requests, and keep their core dumps) */
    static const int sigs[] = { SIGINT,  SIGTERM, SIGHUP,    SIGPIPE,   SIGQUIT, SIGUSR1,
                                SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,   SIGXCPU, SIGPOLL };
    file_mode();
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigfillset(&sa.sa_mask);   /* one handler at a time: it ends the process */
        sigaction(sigs[i], &sa, NULL);
    }
    /* past the file size limit (ulimit -f) a write fails with EFBIG, reported as an error, and
     * the temporary file is removed: not a silent death with the file left */
    signal(SIGXFSZ, SIG_IGN);
}

/* ---- directories ----------------------------------------------------------------------------- */

int io_track_dir(const char *dir)
{
    const size_t n = strlen(dir) + 1;
    struct made_dir *d = malloc(sizeof *d + n);
    if (!d)
        return gpuimg_fail(GPUIMG_ENOMEM, "out of memory");
    memcpy(d->path, dir, n);
    pthread_mutex_lock(&tmp_lock);
    d->next = made_dirs;
    __atomic_store_n(&made_dirs, d, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&tmp_lock);
    return GPUIMG_OK;
}

void io_remove_made_dirs(void)
{
    pthread_mutex_lock(&tmp_lock);
    struct made_dir *d = __atomic_exchange_n(&made_dirs, NULL, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&tmp_lock);
    while (__atomic_load_n(&dirs_walking, __ATOMIC_SEQ_CST))   /* a signal's cleanup: it ends the process */
        sched_yield();
    while (d) {
        struct made_dir *next = d->next;
        rmdir(d->path);   /* fails where a file stays in it */
        free(d);
        d = next;
    }
}

/* The directory part of path: "." without a slash, "/" for a file in the root. */
static int dir_of(const char *path, char *dir, size_t n)
{
    const char *slash = strrchr(path, '/');
    const size_t len = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
    if (len >= n)
        return gpuimg_fail(GPUIMG_EWRITE, "%s: path too long", path);
    memcpy(dir, slash ? path : ".", len ? len : 1);
    dir[len ? len : 1] = 0;
    return GPUIMG_OK;
}

int io_make_dirs(const char *path, void (*created)(const char *dir, void *arg), void *arg)
{
    char dir[PATH_MAX];
    int r = dir_of(path, dir, sizeof dir);
    for (char *p = dir + 1; !r; p++) {   /* mkdir -p: each prefix ending at a slash, then the whole */
        const int end = *p == 0;
        if (*p == '/' || end) {
            *p = 0;
            struct stat st;
            if (mkdir(dir, 0777) == 0) {
                if (created)
                    created(dir, arg);
            } else if (errno != EEXIST)
                return gpuimg_fail(GPUIMG_EWRITE, "%s: cannot create directory %s: %s", path, dir, strerror(errno));
            if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
                return gpuimg_fail(GPUIMG_EWRITE, "%s: cannot write: %s is not a directory", path, dir);
            if (end)
                break;
            *p = '/';
        }
    }
    return r;
}

const char *io_display_name(const char *path, int out)
{
    return strcmp(path, "-") == 0 ? (out ? "<stdout>" : "<stdin>") : path;
}

int io_check_output(const char *path, int force)
{
    if (strcmp(path, "-") == 0)
        return GPUIMG_OK;
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return gpuimg_fail(GPUIMG_EWRITE, "%s: is a directory", path);
        if (S_ISREG(st.st_mode) && !force)
            return gpuimg_fail(GPUIMG_EEXISTS, "%s: output exists (use --force to replace it)", path);
        return GPUIMG_OK;
    }
    /* The directory must exist and be writable: find it out now rather than after the work. */
    char dir[PATH_MAX];
    int r = dir_of(path, dir, sizeof dir);
    if (r)
        return r;
    if (stat(dir, &st) != 0)
        return gpuimg_fail(GPUIMG_EWRITE, "%s: cannot write: directory %s: %s", path, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return gpuimg_fail(GPUIMG_EWRITE, "%s: cannot write: %s is not a directory", path, dir);
    if (access(dir, W_OK) != 0)
        return gpuimg_fail(GPUIMG_EWRITE, "%s: cannot write: directory %s: %s", path, dir, strerror(errno));
    return GPUIMG_OK;
}

/* ---- pending outputs --------------------------------------------------------------------------- */

int io_pending_open(const char *path, int force, struct io_pending *p)
{
    memset(p, 0, sizeof *p);
    p->slot = -1;
    p->force = force;
    p->path = path;
    const char *name = io_display_name(path, 1);
    if (strcmp(path, "-") == 0) {   /* standard output: written as it comes, nothing to rename */
        p->fp = stdout;
        return GPUIMG_OK;
    }
    struct stat st;
    const int exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        /* a device or a pipe (/dev/null, a FIFO): nothing to rename, write straight to it */
        if (!(p->fp = fopen(path, "wb")))
            return gpuimg_fail(GPUIMG_EWRITE, "%s: cannot open: %s", name, strerror(errno));
        return GPUIMG_OK;
    }
    int r = io_check_output(path, force);
    if (r)
        return r;
    const char *slash = strrchr(path, '/');
    const size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
    if (strlen(path) + 16 >= TMPNAME_MAX)
        return gpuimg_fail(GPUIMG_EWRITE, "%s: path too long", name);
    if (!(p->tmp = malloc(TMPNAME_MAX)))
        return gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory", name);
    /* ".NAME.XXXXXX", NAME cut at a character so that it fits where NAME itself fits (a name
     * of up to the directory's longest) */
    snprintf(p->tmp, TMPNAME_MAX, "%.*s", dirlen ? (int)dirlen : 1, dirlen ? path : ".");
    const long name_max = pathconf(p->tmp, _PC_NAME_MAX);
    const char *base = path + dirlen;
    size_t keep = strlen(base);
    const size_t room = (name_max > 16 ? (size_t)name_max : NAME_MAX) - 8;
    if (keep > room) {
        keep = room;
        while (keep && ((unsigned char)base[keep] & 0xC0) == 0x80)   /* not inside a UTF-8 character */
            keep--;
    }
    snprintf(p->tmp, TMPNAME_MAX, "%.*s.%.*s.XXXXXX", (int)dirlen, path, (int)keep, base);
    const int fd = mkstemp(p->tmp);
    if (fd < 0) {
        r = gpuimg_fail(GPUIMG_EWRITE, "%s: cannot create a temporary file beside it: %s", name, strerror(errno));
        free(p->tmp);
        p->tmp = NULL;
        return r;
    }
    p->slot = tmp_arm(p->tmp);
    /* a replaced file keeps its permissions; a new one gets those the umask allows */
    fchmod(fd, exists && S_ISREG(st.st_mode) ? st.st_mode & 07777 : file_mode());
    if (!(p->fp = fdopen(fd, "wb"))) {
        r = gpuimg_fail(GPUIMG_ENOMEM, "%s: cannot open a stream: %s", name, strerror(errno));
        close(fd);
        io_pending_discard(p);
    }
    return r;
}

int io_pending_fd(int fd, const char *path, struct io_pending *p)
{
    memset(p, 0, sizeof *p);
    p->slot = -1;
    p->path = path;
    const int d = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (d < 0 || !(p->fp = fdopen(d, "wb"))) {
        const int e = errno;
        if (d >= 0)
            close(d);
        return gpuimg_fail(GPUIMG_EWRITE, "%s: cannot write: %s", io_display_name(path, 1), strerror(e));
    }
    return GPUIMG_OK;
}

int io_pending_close(struct io_pending *p)
{
    const char *name = io_display_name(p->path, 1);
    int r = GPUIMG_OK;
    if (!p->fp)
        return r;
    if (fflush(p->fp) != 0)
        r = gpuimg_write_error(name, errno);
    if (p->fp != stdout && fclose(p->fp) != 0 && !r)
        r = gpuimg_write_error(name, errno);
    p->fp = NULL;
    return r;
}

void io_pending_discard(struct io_pending *p)
{
    if (p->fp && p->fp != stdout)
        fclose(p->fp);
    p->fp = NULL;
    if (p->tmp) {
        unlink(p->tmp);
        tmp_disarm(p->slot);
        free(p->tmp);
        p->tmp = NULL;
    }
}

/* Without force, link() refuses to replace a file that appeared since io_check_output(); with
 * it, rename() replaces atomically. */
int io_pending_publish(struct io_pending *p)
{
    int r = io_pending_close(p);
    if (r || !p->tmp) {
        io_pending_discard(p);
        return r;
    }
    if (!p->force && link(p->tmp, p->path) == 0)
        unlink(p->tmp);
    else if (!p->force && errno == EEXIST)
        r = gpuimg_fail(GPUIMG_EEXISTS, "%s: output exists (use --force to replace it)", p->path);
    else if (rename(p->tmp, p->path) != 0)   /* with force, or a file system without hard links */
        r = gpuimg_fail(GPUIMG_EWRITE, "%s: cannot rename the finished file into place: %s", p->path, strerror(errno));
    if (r)
        unlink(p->tmp);
    tmp_disarm(p->slot);
    free(p->tmp);
    p->tmp = NULL;
    return r;
}

/* ---- file identity ------------------------------------------------------------------------------ */

/* The name with the longest existing part of its directory resolved by realpath() and the rest
 * taken lexically ("." dropped, ".." removing the part before: directories still to be created
 * are plain directories). */
int io_file_id(const char *path, struct io_file_id *id)
{
    memset(id, 0, sizeof *id);
    char dir[PATH_MAX], real[PATH_MAX];
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    int r = dir_of(path, dir, sizeof dir);
    if (r)
        return r;
    /* shorten dir until realpath() takes it; rest: the part that does not exist yet */
    size_t keep = strlen(dir);
    char *rest = dir + keep;
    while (!realpath(dir, real)) {
        char *cut = strrchr(dir, '/');
        if (!cut || cut == dir) {   /* relative with nothing existing: from the working directory */
            if (!realpath(cut == dir ? "/" : ".", real))
                return gpuimg_fail(GPUIMG_EOPEN, "%s: cannot resolve its directory: %s", path, strerror(errno));
            rest = cut == dir ? dir + 1 : dir;
            break;
        }
        *cut = 0;
        rest = cut + 1;
    }
    const size_t total = strlen(real) + strlen(path) + 3;
    if (!(id->name = malloc(total)))
        return gpuimg_fail(GPUIMG_ENOMEM, "out of memory");
    strcpy(id->name, real);
    /* the parts of dir after the resolved prefix (dir was cut at slashes: they are NULs now) */
    for (char *q = rest; q < dir + keep; q += strlen(q) + 1) {
        if (!*q || !strcmp(q, "."))
            continue;
        if (!strcmp(q, "..")) {
            char *up = strrchr(id->name, '/');
            if (up)
                up[up == id->name] = 0;   /* "/a" -> "/", "/a/b" -> "/a" */
            continue;
        }
        if (strcmp(id->name, "/"))
            strcat(id->name, "/");
        strcat(id->name, q);
    }
    if (strcmp(id->name, "/"))
        strcat(id->name, "/");
    strcat(id->name, base);
    struct stat st;
    if (stat(path, &st) == 0) {
        id->exists = 1;
        id->dev = (uint64_t)st.st_dev;
        id->ino = (uint64_t)st.st_ino;
    }
    return GPUIMG_OK;
}

void io_file_id_free(struct io_file_id *id)
{
    free(id->name);
    id->name = NULL;
}

int io_same_file(const struct io_file_id *a, const struct io_file_id *b)
{
    return !strcmp(a->name, b->name) || (a->exists && b->exists && a->dev == b->dev && a->ino == b->ino);
}

int io_refuse_same(const char *what, const char *path, const char *const *files, long n)
{
    struct io_file_id a, b;
    if (!strcmp(path, "-"))
        return GPUIMG_OK;
    int r = io_file_id(path, &a);
    for (long i = 0; !r && i < n; i++) {
        if (!files[i] || !strcmp(files[i], "-"))
            continue;
        if (!(r = io_file_id(files[i], &b))) {
            if (io_same_file(&a, &b))
                r = gpuimg_fail(GPUIMG_EUSAGE, "%s%s: is also %s, one of the command's files", what, path, files[i]);
            io_file_id_free(&b);
        }
    }
    io_file_id_free(&a);
    return r;
}
