/* gpuimg: many files in one process: gpuimg -o TEMPLATE PIPELINE INPUT... (or --from-list).
 * Before any work the whole list is expanded through the template and checked (two inputs
 * writing one output, an output that is an input, an unknown output format: errors); then the
 * shard's slice is taken, existing outputs are skipped, and JOBS worker threads each carry one
 * file at a time through decode -> upload -> kernels -> download -> encode (run_file), so the
 * stages of different files overlap and at most JOBS images are in memory. On the GPU each worker
 * has its own stream (nvcc --default-stream per-thread); with --devices the workers take the GPUs
 * in turn. A failing file is reported and the rest
 * go on. Only this thread prints: failures as they come, progress, then the summary. */
#include <config.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "app/batch.h"
#include "app/client.h"
#include "app/report.h"
#include "app/server.h"
#include "core/error.h"

/* ---- the list and the template ----------------------------------------------------------- */

struct list { char **v; long n, cap; };

static int list_add(struct list *l, char *s)
{
    if (l->n == l->cap) {
        long cap = l->cap ? 2 * l->cap : 256;
        char **nv = realloc(l->v, sizeof *nv * (size_t)cap);
        if (!nv)
            return gpuimg_fail(GPUIMG_ENOMEM, "out of memory for the list of inputs");
        l->v = nv;
        l->cap = cap;
    }
    l->v[l->n++] = s;
    return GPUIMG_OK;
}

/* One path a line (nul: ended by a NUL byte instead, so that a name may hold a newline); empty
 * entries are ignored, nothing else is interpreted (spaces are kept). An entry is a path: one
 * longer than PATH_MAX, or holding a NUL byte in a list of lines, is an error (a list of /dev/zero
 * is refused at its first 4 KiB, not read until memory runs out). */
static int read_list(const char *path, int nul, struct list *l)
{
    const int end = nul ? 0 : '\n';
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    const char *name = strcmp(path, "-") ? path : "<stdin>";
    if (!f)
        return gpuimg_fail(GPUIMG_EOPEN, "--from-list: %s: cannot open: %s", name, strerror(errno));
    char line[PATH_MAX + 2];
    long lineno = 0;
    int st = GPUIMG_OK, c = 0;
    while (!st && c != EOF) {
        size_t len = 0;
        lineno++;
        while ((c = getc(f)) != EOF && c != end) {
            if (c == 0 || len > PATH_MAX) {
                st = gpuimg_fail(GPUIMG_EUSAGE, "--from-list: %s: line %ld %s", name, lineno,
                                 c == 0 ? "holds a NUL byte: not a list of paths" : "is longer than a path can be");
                break;
            }
            line[len++] = (char)c;
        }
        while (!nul && len > 0 && line[len - 1] == '\r')
            len--;
        line[len] = 0;
        if (st || len == 0)
            continue;
        char *copy = strdup(line);
        st = copy ? list_add(l, copy) : (int)gpuimg_fail(GPUIMG_ENOMEM, "out of memory for the list of inputs");
        if (st)
            free(copy);
    }
    if (!st && ferror(f))
        st = gpuimg_fail(GPUIMG_EOPEN, "--from-list: %s: read error: %s", name, strerror(errno));
    if (f != stdin)
        fclose(f);
    return st;
}

/* Expand %s (base name without extension), %e (extension, no dot), %d (directory, "." when
 * none), %i / %Ni (1-based index in the list, zero-padded to N digits) and %%. */
size_t batch_common_dir(char *const *in, long n)
{
    if (n <= 0)
        return 0;
    const char *s0 = strrchr(in[0], '/');
    size_t len = s0 ? (size_t)(s0 - in[0]) + 1 : 0;
    for (long i = 1; i < n && len; i++) {
        const char *si = strrchr(in[i], '/');
        const size_t li = si ? (size_t)(si - in[i]) + 1 : 0;
        size_t k = 0;
        while (k < len && k < li && in[0][k] == in[i][k])
            k++;
        while (k > 0 && in[0][k - 1] != '/')   /* whole directories only */
            k--;
        len = k;
    }
    return len;
}

/* Whether name, from byte root on (a directory's start), climbs above root through "..". */
static int climbs(const char *name, size_t root)
{
    long depth = 0;
    for (const char *c = name + root; *c;) {
        const char *end = strchr(c, '/');
        const size_t len = end ? (size_t)(end - c) : strlen(c);
        if (len == 2 && c[0] == '.' && c[1] == '.') {
            if (--depth < 0)
                return 1;
        } else if (len && !(len == 1 && c[0] == '.'))
            depth++;
        c += len + (end != NULL);
    }
    return 0;
}

int batch_expand(const char *tpl, const char *in, size_t common, long index, char *out, size_t n)
{
    const char *slash = strrchr(in, '/');
    const char *base = slash ? slash + 1 : in;
    const char *dot = strrchr(base, '.');
    if (dot == base)
        dot = NULL;   /* ".profile": a name, not an extension */
    const int baselen = dot ? (int)(dot - base) : (int)strlen(base);
    size_t o = 0, root = 0;      /* the output stays below out[0, root) */
    int fixed = 1, beside = 0;   /* still in the template's fixed part; it starts with %D */
    for (const char *p = tpl; *p; p++) {
        char piece[64];
        const char *s = piece;
        int len = -1;
        if (*p != '%' || p[1] == '%') {
            if (fixed && *p == '/')
                root = o + 1;
        } else if (fixed) {
            fixed = 0;
            beside = p == tpl && p[1] == 'D';
        }
        if (*p != '%') {
            piece[0] = *p;
            len = 1;
        } else {
            int width = 0;
            while (p[1] >= '0' && p[1] <= '9' && width < 100)
                width = width * 10 + (*++p - '0');
            switch (*++p) {
            case 's': s = base; len = baselen; break;
            case 'e': s = dot ? dot + 1 : ""; len = (int)strlen(s); break;
            case 'd':   /* below the inputs' common directory; nothing, and no slash after it, when in it */
                s = in + common;
                len = slash && slash >= s ? (int)(slash - s) : 0;
                if (!len && p[1] == '/')
                    p++;
                break;
            case 'D':
                if (!slash) s = ".", len = 1;
                else if (slash == in) s = "/", len = 1;
                else s = in, len = (int)(slash - in);
                break;
            case 'i':
                if (width > 20)
                    return gpuimg_fail(GPUIMG_EUSAGE, "-o %s: %%Ni takes a width up to 20", tpl);
                len = snprintf(piece, sizeof piece, "%0*ld", width, index);
                break;
            case '%': piece[0] = '%'; len = 1; break;
            default:
                return gpuimg_fail(GPUIMG_EUSAGE, "-o %s: unknown %%%c (use %%s, %%e, %%d, %%D, %%i, %%Ni or %%%%)", tpl,
                                   *p ? *p : ' ');
            }
            if (width && *p != 'i')
                return gpuimg_fail(GPUIMG_EUSAGE, "-o %s: only %%i takes a width", tpl);
        }
        if (o + (size_t)len + 1 > n)
            return gpuimg_fail(GPUIMG_EUSAGE, "%s: the output name made by -o %s is too long", in, tpl);
        memcpy(out + o, s, (size_t)len);
        o += (size_t)len;
    }
    out[o] = 0;
    /* what the input's name brings (%d, %D, %s, %e) never takes the output out of the template's
     * fixed part: neither through ".." nor, where that part is empty, to an absolute path. A
     * template that starts with %D writes beside each input, wherever the list puts it. */
    if (!beside && (climbs(out, root) || (!root && out[0] == '/')))
        return gpuimg_fail(GPUIMG_EUSAGE, "%s: -o %s would write it to %s, outside %.*s%s", in, tpl, out, (int)root, out,
                           root ? "" : "the working directory");
    return GPUIMG_OK;
}

/* Each path's identity (io_file_id): outputs are compared with inputs by what they are, "b/../a/x"
 * and "a/x", a directory's symbolic link and a second hard link all naming one file. */
struct key { char *path; uint64_t dev, ino; int exists; long i; };

static int cmp_key(const void *a, const void *b)
{
    const struct key *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

static int cmp_inode(const void *a, const void *b)
{
    const struct key *x = a, *y = b;
    return x->dev != y->dev ? (x->dev > y->dev) - (x->dev < y->dev) : (x->ino > y->ino) - (x->ino < y->ino);
}

static int make_keys(struct key *k, char *const *paths, long n)
{
    for (long i = 0; i < n; i++) {
        struct io_file_id id;
        int st = io_file_id(paths[i], &id);
        if (st)
            return st;
        k[i] = (struct key){ id.name, id.dev, id.ino, id.exists, i };
    }
    qsort(k, (size_t)n, sizeof *k, cmp_key);
    return GPUIMG_OK;
}

/* The first of the n sorted keys not before want (cmp), or n. */
static long lower_bound(const struct key *k, long n, const struct key *want, int (*cmp)(const void *, const void *))
{
    long lo = 0, hi = n;
    while (lo < hi) {
        const long mid = (lo + hi) / 2;
        if (cmp(&k[mid], want) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int overwrites(char *const *in, char *const *out, const struct key *o, const struct key *k)
{
    return gpuimg_fail(GPUIMG_EUSAGE, "-o: %s would overwrite the input %s%s", out[o->i], in[k->i],
                       k->i == o->i ? " (--force replaces each input with its result)" : "");
}

/* The input (paths in) or output (out) whose key k is the file id names, or -1. */
static long same_as(const struct key *k, long n, const struct io_file_id *id)
{
    for (long i = 0; i < n; i++)
        if (!strcmp(k[i].path, id->name) || (id->exists && k[i].exists && k[i].dev == id->dev && k[i].ino == id->ino))
            return k[i].i;
    return -1;
}

/* Before any work: no two inputs map to one output, no output is one of the inputs (with force,
 * a file may replace its own input, never another's: that one might not have been read yet), and
 * the --json report (json, or NULL) is none of the batch's files. */
static int check_outputs(char *const *in, char *const *out, long n, int force, const char *json)
{
    struct key *ko = calloc((size_t)n, sizeof *ko), *ki = calloc((size_t)n, sizeof *ki);
    struct key *kn = calloc((size_t)n, sizeof *kn);   /* the existing inputs by device and inode */
    int st = ko && ki && kn ? GPUIMG_OK : (int)gpuimg_fail(GPUIMG_ENOMEM, "out of memory checking the outputs");
    if (!st)
        st = make_keys(ko, out, n);
    if (!st)
        st = make_keys(ki, in, n);
    for (long i = 1; !st && i < n; i++)
        if (!strcmp(ko[i - 1].path, ko[i].path))
            st = gpuimg_fail(GPUIMG_EUSAGE, "-o: %s and %s would both be written to %s (add %%d or %%i to the template)",
                             in[ko[i - 1].i], in[ko[i].i], out[ko[i].i]);
    for (long i = 0; !st && i < n; i++) {
        const long lo = lower_bound(ki, n, &(struct key){ ko[i].path, 0, 0, 0, -1 }, cmp_key);
        for (long j = lo; !st && j < n && !strcmp(ki[j].path, ko[i].path); j++)
            if (!(force && ki[j].i == ko[i].i))
                st = overwrites(in, out, &ko[i], &ki[j]);
    }
    long nn = 0;
    for (long i = 0; !st && i < n; i++)
        if (ki[i].exists)
            kn[nn++] = ki[i];
    qsort(kn, (size_t)nn, sizeof *kn, cmp_inode);
    for (long i = 0; !st && i < n; i++) {
        if (!ko[i].exists)
            continue;
        for (long j = lower_bound(kn, nn, &ko[i], cmp_inode); !st && j < nn && !cmp_inode(&kn[j], &ko[i]); j++)
            if (!(force && kn[j].i == ko[i].i))
                st = overwrites(in, out, &ko[i], &kn[j]);
    }
    struct io_file_id j;
    if (!st && json && strcmp(json, "-") && !(st = io_file_id(json, &j))) {
        long a = same_as(ki, n, &j), b = a < 0 ? same_as(ko, n, &j) : -1;
        if (a >= 0 || b >= 0)
            st = gpuimg_fail(GPUIMG_EUSAGE, "--json=%s: is also %s, one of the command's files", json,
                             a >= 0 ? in[a] : out[b]);
        io_file_id_free(&j);
    }
    for (long i = 0; i < n; i++) {
        if (ko)
            free(ko[i].path);
        if (ki)
            free(ki[i].path);
    }
    free(ko);
    free(ki);
    free(kn);
    return st;
}

/* ---- the workers --------------------------------------------------------------------------- */

enum { ITEM_PENDING, ITEM_DONE, ITEM_FAILED };

struct item {
    const char *in, *out;
    int state;
    char *msg;                    /* the failure, or with -v the file's timing line */
    const char *decoder, *encoder;   /* which decoder and encoder took it (static names) */
    float ms[STAGE_COUNT];
};

struct shared {
    const struct run_ctx *ctx;
    struct item *it;
    long n, next;
    int inner, verbose;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    long *finished, nfinished;    /* item indices in the order they finished */
    const char *device;
    int devices[GPU_MAX_DEVICES], ndevices, nworkers;   /* worker w runs on devices[w % ndevices] */
    const struct cli_opts *o;
    struct route *rt;             /* rt->server: each worker sends its files to the server */
    int silent;                   /* the server said nothing for a while: the rest run here */
    int here, here_max;           /* files run here by a batch through the server, at once; at most */
    pthread_cond_t here_cv;
    int starting;                 /* 1: the server this command started does not answer yet; -1: never did */
    int done;                     /* every file finished: stop waiting for it */
    long ran_here;                /* files run here meanwhile */
};

/* A report's string kept for the batch's summary (a served file's strings live only until the
 * worker's next file): at most 16 distinct, then "other". */
static const char *keep_name(const char *s)
{
    static char names[16][128];
    static int n;
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    if (!s)
        return NULL;
    pthread_mutex_lock(&mu);
    int i = 0;
    while (i < n && strcmp(names[i], s))
        i++;
    if (i == n && n < 16)
        snprintf(names[n++], sizeof names[0], "%s", s);
    const char *r = i < n ? names[i] : "other";
    pthread_mutex_unlock(&mu);
    return r;
}

/* The server this command started: once it answers (or never will), the files waiting for a
 * place here go to it (or here). */
static void *await_start(void *arg)
{
    struct shared *sh = arg;
    const int up = client_await(sh->rt, &sh->done) == 0;
    pthread_mutex_lock(&sh->mu);
    if (up || !__atomic_load_n(&sh->done, __ATOMIC_RELAXED))   /* done first: still starting */
        sh->starting = up ? 0 : -1;
    pthread_cond_broadcast(&sh->here_cv);
    pthread_mutex_unlock(&sh->mu);
    return NULL;
}

/* One file through the server, or here where it cannot take it (said in the file's message) or
 * while it starts. */
static int served(struct shared *sh, struct client **cl, struct run_ctx *ctx, struct item *x, struct run_report *r,
                  char **note)
{
    int st = CLIENT_AGAIN;
    pthread_mutex_lock(&sh->mu);
    while (sh->starting == 1 && sh->here >= sh->here_max)   /* a place here, or the server up */
        pthread_cond_wait(&sh->here_cv, &sh->mu);
    const int starting = sh->starting;
    pthread_mutex_unlock(&sh->mu);
    if (!starting && !__atomic_load_n(&sh->silent, __ATOMIC_RELAXED)) {
        if (!*cl && client_open(cl))
            snprintf(r->note, sizeof r->note, "the server went away: ran here");
        st = *cl ? client_run(*cl, sh->o, ctx, sh->rt, x->in, x->out, r) : CLIENT_AGAIN;
        if (st != CLIENT_AGAIN)
            return st;
        if (client_silent(*cl))   /* stopped or wedged: not waited on again for each file */
            __atomic_store_n(&sh->silent, 1, __ATOMIC_RELAXED);
        if (r->note[0])
            *note = strdup(r->note);
        client_close(*cl);   /* a fresh connection for the next file */
        *cl = NULL;
    }
    /* the server's jobs (SERVER_WORKERS_PER_CORE a core) run here no more at once than the cores:
     * a refused or silent server must not multiply this process's memory */
    pthread_mutex_lock(&sh->mu);
    while (sh->here >= sh->here_max)
        pthread_cond_wait(&sh->here_cv, &sh->mu);
    sh->here++;
    pthread_mutex_unlock(&sh->mu);
    struct route here;
    struct run_ctx c = *ctx;
    timing_report_init(r);
    r->threads = sh->inner;
    /* while the server starts, as one file without it: on the CPU */
    if (!(st = client_route_here(sh->o, ctx->plan, starting == 1 ? 1 : sh->n, &c, &here)))
        st = run_file(&c, x->in, x->out, r);
    pthread_mutex_lock(&sh->mu);
    sh->ran_here += starting != 0;
    sh->here--;
    pthread_cond_signal(&sh->here_cv);
    pthread_mutex_unlock(&sh->mu);
    return st;
}

/* An encoder's name as the batch counts it: without what varies from file to file (nvCOMP's
 * ", 37 chunks joined"), so that the kept names do not run out. */
static const char *encoder_family(const char *name, char *buf, size_t len)
{
    const char *c = name ? strstr(name, " chunks joined") : NULL;
    if (!c)
        return name;
    while (c > name && c[-1] != ',')
        c--;
    snprintf(buf, len, "%.*s", (int)(c > name ? c - 1 - name : 0), name);
    return buf;
}

/* io_make_dirs's report of a directory it made, kept so that those left empty by failed files
 * are removed at the end, or by a signal that ends the batch */
static void dir_made(const char *dir, void *arg)
{
    (void)arg;
    if (io_track_dir(dir))
        gpuimg_clear_error();   /* not recorded: left in place, as mkdir -p would */
}

static void *worker(void *arg)
{
    struct shared *sh = arg;
#ifdef _OPENMP
    omp_set_num_threads(sh->inner);   /* this thread's share of the cores for the operations */
#endif
    struct run_ctx ctx = *sh->ctx;
    ctx.save.threads = sh->inner;     /* and for the PNG encoder */
    const int w = __atomic_fetch_add(&sh->nworkers, 1, __ATOMIC_RELAXED);
    if (sh->ndevices)
        ctx.gpu.device = sh->devices[w % sh->ndevices];
    /* On one GPU, copies go through this worker's own pinned buffers: the driver's staging of
     * pageable copies is shared by the device's workers and bounds many jobs. Spread over two,
     * the driver's copies are the faster: our staging's extra memcpy costs more there. */
    ctx.gpu.stage = sh->o->no_stage >= 0 ? !sh->o->no_stage : sh->ndevices <= 1;
    ctx.gpu.keep = !sh->o->no_keep;   /* and keeps its device memory: cudaFree waits for the device */
    struct client *cl = NULL;
    for (;;) {
        const long i = __atomic_fetch_add(&sh->next, 1, __ATOMIC_RELAXED);
        if (i >= sh->n)
            break;
        struct item *x = &sh->it[i];
        struct run_report r;
        timing_report_init(&r);
        r.threads = sh->inner;
        gpuimg_clear_error();
        char *again = NULL;   /* the server could not take it: why, said before its outcome */
        char family[128];
        int st = io_make_dirs(x->out, dir_made, sh);
        if (!st)
            st = sh->rt->server ? served(sh, &cl, &ctx, x, &r, &again) : run_file(&ctx, x->in, x->out, &r);
        if (st) {
            const char *m = gpuimg_errmsg();
            if (again && asprintf(&x->msg, "%s\n%s", again, m ? m : gpuimg_strerror(st)) < 0)
                x->msg = NULL;
            if (!x->msg)
                x->msg = strdup(m ? m : gpuimg_strerror(st));
        } else {
            for (int s = 0; s < STAGE_COUNT; s++)   /* upload and download: none on the CPU (-1) */
                x->ms[s] = (s == STAGE_UPLOAD || s == STAGE_DOWNLOAD) && r.upload_ms < 0 ? -1.0f
                                                                                           : (float)report_stage_ms(&r, s);
            x->decoder = keep_name(r.decoder);
            x->encoder = keep_name(encoder_family(r.encoder, family, sizeof family));
            if (sh->verbose || r.note[0] || again) {   /* the notes (no room on the GPU...) even without -v */
                size_t len;
                FILE *f = open_memstream(&x->msg, &len);
                if (f) {
                    if (again)
                        gpuimg_print_line(f, again);
                    if (r.note[0])
                        gpuimg_print_line(f, r.note);
                    r.pipeline = NULL;
                    if (sh->verbose)
                        report_print_line(f, &r, 1, client_served(cl));
                    fclose(f);
                }
            }
            if (r.device)
                __atomic_store_n(&sh->device, keep_name(r.device), __ATOMIC_RELAXED);
        }
        free(again);
        pthread_mutex_lock(&sh->mu);
        x->state = st ? ITEM_FAILED : ITEM_DONE;
        sh->finished[sh->nfinished++] = i;
        pthread_cond_signal(&sh->cv);
        pthread_mutex_unlock(&sh->mu);
    }
    client_close(cl);
    if (ctx.kind == BACKEND_GPU)
        backend_gpu_thread_done();
    return NULL;
}

/* ---- progress --------------------------------------------------------------------------------- */

struct progress { int on, tty; double t0, last; };

static void progress_show(struct progress *p, long done, long total, double now, int final)
{
    if (!p->on || (!final && now - p->last < (p->tty ? 250 : 2000)))
        return;
    p->last = now;
    const double s = (now - p->t0) / 1e3, rate = s > 0 ? done / s : 0;
    char left[32] = "?";
    if (rate > 0) {
        long sec = (long)((total - done) / rate + 0.5);
        snprintf(left, sizeof left, "%ld:%02ld", sec / 60, sec % 60);
    }
    if (p->tty)
        fprintf(stderr, "\r\033[Kgpuimg: %ld/%ld files, %.1f/s, %s left", done, total, rate, left);
    else
        fprintf(stderr, "gpuimg: progress %ld/%ld files, %.1f/s, %s left\n", done, total, rate, left);
    if (p->tty && final)
        fprintf(stderr, "\r\033[K");
    fflush(stderr);
}

static void progress_clear(const struct progress *p)
{
    if (p->on && p->tty)
        fprintf(stderr, "\r\033[K");
}

/* ---- the batch -------------------------------------------------------------------------------- */

/* The GPUs of --devices (all: every one that answers), each probed once here. */
static int pick_devices(const struct cli_opts *o, const struct run_ctx *ctx, struct shared *sh)
{
    char name[512], why[256];
    if (ctx->kind != BACKEND_GPU)
        return GPUIMG_OK;
    if (o->ndevices == -1) {
        const int n = backend_gpu_count() < GPU_MAX_DEVICES ? backend_gpu_count() : GPU_MAX_DEVICES;
        for (int d = 0; d < n; d++)
            if (backend_gpu_probe(d, name, sizeof name, why, sizeof why) == GPUIMG_OK)
                sh->devices[sh->ndevices++] = d;
        return GPUIMG_OK;
    }
    for (int k = 0; k < o->ndevices; k++) {
        if (backend_gpu_probe(o->devices[k], name, sizeof name, why, sizeof why))
            return gpuimg_fail(GPUIMG_ENOGPU, "--devices: GPU %d is not usable: %s", o->devices[k], why);
        sh->devices[sh->ndevices++] = o->devices[k];
    }
    return GPUIMG_OK;
}

int batch_main(const struct cli_opts *o, struct run_ctx *ctx, int threads, double t_start, int *exit_code)
{
    struct list l = { 0 };
    int st = GPUIMG_OK;
    for (int i = 0; !st && i < o->ninputs; i++)
        st = list_add(&l, o->inputs[i]);
    const long nargv = l.n;
    if (!st && o->from_list)
        st = read_list(o->from_list, o->list_nul, &l);
    if (!st && l.n == 0)
        st = gpuimg_fail(GPUIMG_EUSAGE, "--from-list %s: no input files in it", o->from_list);

    /* every output name, checked for the whole list (all shards), before any work */
    char **out = st ? NULL : calloc((size_t)l.n, sizeof *out);
    if (!st && !out)
        st = gpuimg_fail(GPUIMG_ENOMEM, "out of memory for the list of outputs");
    char buf[4096];
    const size_t common = batch_common_dir(l.v, l.n);   /* the whole list's: every shard names alike */
    for (long i = 0; !st && i < l.n; i++) {
        if (!strcmp(l.v[i], "-"))
            st = gpuimg_fail(GPUIMG_EUSAGE, "--from-list: '-' (stdin) cannot be one of a batch's inputs");
        if (!st)
            st = batch_expand(o->template, l.v[i], common, i + 1, buf, sizeof buf);
        enum out_format f;
        if (!st && !o->have_format && io_format_from_path(buf, &f))
            st = gpuimg_fail(GPUIMG_EUSAGE, "%s: unknown output format for %s (use " IO_OUTPUT_EXTENSIONS " in -o, "
                             "or --format)", buf, l.v[i]);
        if (!st && !(out[i] = strdup(buf)))
            st = gpuimg_fail(GPUIMG_ENOMEM, "out of memory for the list of outputs");
    }
    if (!st)
        st = check_outputs(l.v, out, l.n, ctx->save.force, o->json);
    /* --json: made now, so that it cannot fail after the work */
    struct io_pending json = { 0 };
    if (!st && o->json)
        st = io_pending_open(o->json, ctx->save.force, &json);
    ctx->per_file_format = !o->have_format;

    /* this shard's slice (round robin over the list: every N-th file from K), minus existing outputs */
    struct batch_report rep = { .pipeline = o->pipeline, .template = o->template, .listed = l.n,
                                .shard_k = o->shard_k, .shard_n = o->shard_n };
    struct item *it = st ? NULL : calloc((size_t)l.n, sizeof *it);
    if (!st && !it)
        st = gpuimg_fail(GPUIMG_ENOMEM, "out of memory for the list of inputs");
    long n = 0;
    for (long i = 0; !st && i < l.n; i++) {
        if (o->shard_n && i % o->shard_n != o->shard_k)
            continue;
        rep.selected++;
        struct stat sb;
        if (!ctx->save.force && stat(out[i], &sb) == 0 && S_ISREG(sb.st_mode)) {
            rep.skipped++;
            if (o->verbose)
                fprintf(stderr, "gpuimg: %s: output exists, skipped\n", out[i]);
            if (o->json && !o->dry_run)
                report_write_file_json(json.fp, l.v[i], out[i], "skipped", "output exists", NULL, NULL);
            continue;
        }
        it[n].in = l.v[i];
        it[n].out = out[i];
        n++;
    }

    const int dry = !st && o->dry_run;   /* the names, and nothing else: no server, no GPU, no file */
    if (dry) {
        for (long i = 0; i < n; i++)
            printf("%s -> %s\n", it[i].in, it[i].out);
        fprintf(stderr, "gpuimg: dry run: %ld to write, %ld skipped (outputs exist) of %ld\n", n, rep.skipped,
                rep.selected);
        *exit_code = fflush(stdout) ? 1 : 0;
    }
    const int work = !st && !dry;
    struct route rt = { .ready_fd = -1 };
    struct shared sh = { .ctx = ctx, .it = it, .n = n, .verbose = o->verbose, .o = o, .rt = &rt };
    if (work && !(st = client_route(o, ctx->plan, n, ctx, &rt)) && rt.note[0] && o->verbose)
        gpuimg_print_line(stderr, rt.note);
    if (work && !st && !rt.server)
        st = pick_devices(o, ctx, &sh);
    /* a batch this large repays the GPU codecs' start; the CPU decodes until they are ready */
    const int codecs = work && !st && !rt.server && ctx->kind == BACKEND_GPU && n >= GPU_CODECS_MIN_FILES;
    for (int k = 0; codecs && k < (sh.ndevices ? sh.ndevices : 1); k++)
        backend_gpu_codecs_start(sh.ndevices ? sh.devices[k] : ctx->gpu.device, ctx->gpu.jpeg == 1);
    ctx->shared_encode = codecs;
    /* --jobs, else the cores over --threads, else one a core (at least one a GPU; through a
     * server as many as its workers with a GPU). Not more here with the GPU's codecs: until the
     * engines are made every job decodes on the cores, and more jobs than cores then take most of
     * the batch there, slower */
    int jobs = o->jobs ? o->jobs : o->threads ? (threads / o->threads > 1 ? threads / o->threads : 1)
               : rt.server ? threads * SERVER_WORKERS_PER_CORE
                                     : threads > sh.ndevices ? threads : sh.ndevices;
    if (jobs > JOBS_MAX)
        jobs = JOBS_MAX;
    if (jobs > n)
        jobs = n > 0 ? (int)n : 1;
    sh.inner = o->threads ? o->threads : threads / jobs > 1 ? threads / jobs : 1;
    sh.here_max = threads > 1 ? threads : 1;
    sh.finished = st ? NULL : malloc(sizeof *sh.finished * (size_t)(n ? n : 1));
    if (!st && !sh.finished)
        st = gpuimg_fail(GPUIMG_ENOMEM, "out of memory for the list of inputs");
    pthread_t tid[JOBS_MAX];
    int started = 0;
    const double t0 = timing_now_ms();   /* the first progress report comes after one interval */
    struct progress pg = { o->progress < 0 ? (!o->quiet && isatty(STDERR_FILENO)) : o->progress,
                           isatty(STDERR_FILENO), t0, t0 };
    if (work && !st) {
        pthread_mutex_init(&sh.mu, NULL);
        pthread_cond_init(&sh.cv, NULL);
        pthread_cond_init(&sh.here_cv, NULL);
        pthread_t awaiting;
        sh.starting = rt.ready_fd >= 0;
        const int await = sh.starting && pthread_create(&awaiting, NULL, await_start, &sh) == 0;
        if (sh.starting && !await)   /* no thread to wait with: wait now */
            sh.starting = client_await(&rt, NULL) ? -1 : 0;
        for (int j = 0; j < jobs && n > 0; j++)
            if (pthread_create(&tid[j], NULL, worker, &sh) == 0)
                started++;
        if (!started && n > 0)   /* no thread could start: do the work on this one */
            worker(&sh);
        /* report as files finish: failures at once, progress now and then */
        long seen = 0;
        while (seen < n) {
            pthread_mutex_lock(&sh.mu);
            while (sh.nfinished == seen) {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                ts.tv_nsec += 250000000;
                if (ts.tv_nsec >= 1000000000) {
                    ts.tv_sec++;
                    ts.tv_nsec -= 1000000000;
                }
                if (pthread_cond_timedwait(&sh.cv, &sh.mu, &ts) == ETIMEDOUT)
                    break;
            }
            const long upto = sh.nfinished;
            pthread_mutex_unlock(&sh.mu);
            for (; seen < upto; seen++) {
                struct item *x = &it[sh.finished[seen]];
                if (x->state == ITEM_FAILED) {
                    rep.failed++;
                    progress_clear(&pg);
                    gpuimg_print_line(stderr, x->msg ? x->msg : "out of memory");
                    if (o->json) {   /* the error: the message's last line (a note may come first) */
                        const char *e = x->msg ? strrchr(x->msg, '\n') : NULL;
                        report_write_file_json(json.fp, x->in, x->out, "failed",
                                               e ? e + 1 : x->msg ? x->msg : "out of memory", NULL, NULL);
                    }
                } else {
                    rep.done++;
                    for (int s = 0; s < STAGE_COUNT; s++)
                        rep.busy_ms[s] += x->ms[s] > 0 ? x->ms[s] : 0;
                    if (o->json)
                        report_write_file_json(json.fp, x->in, x->out, "done", NULL, x->decoder, x->ms);
                    report_count_decoder(&rep, x->decoder);
                    report_count_encoder(&rep, x->encoder);
                    if (x->msg) {
                        progress_clear(&pg);
                        fputs(x->msg, stderr);
                    }
                }
                free(x->msg);
                x->msg = NULL;
            }
            progress_show(&pg, seen, n, timing_now_ms(), seen == n);
        }
        for (int j = 0; j < started; j++)
            pthread_join(tid[j], NULL);
        if (await) {
            __atomic_store_n(&sh.done, 1, __ATOMIC_RELAXED);
            pthread_join(awaiting, NULL);
        }
        io_remove_made_dirs();   /* those made for files that failed: removed where empty */
        pthread_mutex_destroy(&sh.mu);
        pthread_cond_destroy(&sh.cv);
        pthread_cond_destroy(&sh.here_cv);
    }
    if (work && !st) {
        rep.wall_ms = timing_now_ms() - t_start;   /* the command's: the GPU's start included */
        rep.jobs = jobs;
        rep.threads_per_job = sh.inner;
        rep.backend = rt.server ? (sh.device ? "gpu" : "cpu") : ctx->kind == BACKEND_GPU ? "gpu" : "cpu";
        char started_note[96];
        snprintf(started_note, sizeof started_note, "served by the server this command started (%ld ran here "
                 "while it started)", sh.ran_here);
        rep.server = !rt.server ? NULL : sh.silent ? "the server stopped answering: the rest ran here"
                   : sh.starting < 0 ? "the server did not start: the files ran here"
                   : sh.ran_here && sh.ran_here >= n ? "every file ran here while the server started"
                   : rt.started ? (sh.ran_here ? started_note : "served by the server this command started")
                                : "served by the server";
        rep.device = sh.device;
        rep.ndevices = sh.ndevices;
        rep.fallback = ctx->fallback;
        rep.peak_rss_kb = timing_peak_rss_kb();
        if (!o->quiet)
            report_print_batch(stderr, &rep);
        char engines[160];   /* -v: what this process's JPEG engines did */
        if (o->verbose && !rt.server && ctx->kind == BACKEND_GPU
            && !backend_gpu_jpeg_stats(sh.ndevices ? sh.devices[0] : ctx->gpu.device, 0, engines, sizeof engines))
            fprintf(stderr, "gpuimg: %s%s\n", engines, sh.ndevices > 1 ? " (the first GPU)" : "");
        if (o->json) {
            report_write_batch_json(json.fp, &rep);
            st = io_pending_publish(&json);
        }
        *exit_code = st ? gpuimg_exit_code(st) : rep.failed ? 1 : 0;
    }
    if (rt.ready_fd >= 0)
        close(rt.ready_fd);
    backend_gpu_codecs_stop();
    io_pending_discard(&json);
    free(sh.finished);
    free(it);
    for (long i = 0; out && i < l.n; i++)
        free(out[i]);
    free(out);
    for (long i = nargv; i < l.n; i++)
        free(l.v[i]);
    free(l.v);
    return st;
}
