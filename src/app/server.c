/* gpuimg: the per-user server (see server.h). One thread polls the socket and the clients,
 * reads each request whole (one message), checks it and queues it; workers run the queued
 * requests with the engine, as a batch's workers run files, and answer. */
#define _GNU_SOURCE
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/sockios.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "app/proto.h"
#include "app/server.h"
#include "core/error.h"
#include "core/plan.h"
#include "core/timing.h"
#include "engine/backend.h"
#include "engine/run.h"

/* ---- where ---------------------------------------------------------------------------------- */

static int own_dir(const char *dir)
{
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return gpuimg_fail(GPUIMG_EOPEN, "server: cannot create %s: %s", dir, strerror(errno));
    struct stat st;
    if (lstat(dir, &st) != 0)
        return gpuimg_fail(GPUIMG_EOPEN, "server: %s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return gpuimg_fail(GPUIMG_EOPEN, "server: %s is not a directory", dir);
    if (st.st_uid != getuid())
        return gpuimg_fail(GPUIMG_EOPEN, "server: %s belongs to another user (uid %u): refused", dir, (unsigned)st.st_uid);
    if (st.st_mode & 077)
        return gpuimg_fail(GPUIMG_EOPEN, "server: %s may be entered by others (mode %03o): refused", dir,
                           (unsigned)(st.st_mode & 0777));
    return GPUIMG_OK;
}

static const struct cli_opts *cfg;

void server_configure(const struct cli_opts *o)
{
    cfg = o;
}

/* FNV-1a over the binary's identity and the devices it may see */
static uint64_t build_id(void)
{
    uint64_t h = 1469598103934665603ull;
    struct stat st;
    uint64_t v[5] = { 0 };
    if (stat("/proc/self/exe", &st) == 0) {
        v[0] = (uint64_t)st.st_dev;
        v[1] = (uint64_t)st.st_ino;
        v[2] = (uint64_t)st.st_size;
        v[3] = (uint64_t)st.st_mtim.tv_sec;
        v[4] = (uint64_t)st.st_mtim.tv_nsec;
    }
    const unsigned char *b = (const unsigned char *)v;
    for (size_t i = 0; i < sizeof v; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    const char *vis = cfg->visible_devices;
    for (const char *s = vis ? vis : "(all)"; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

int server_paths(struct server_paths *p)
{
    const char *env = cfg->server_dir, *xdg = cfg->runtime_dir;
    int n;
    if (env && *env)
        n = snprintf(p->dir, sizeof p->dir, "%s", env);
    else if (xdg && *xdg == '/')
        n = snprintf(p->dir, sizeof p->dir, "%s/gpuimg", xdg);
    else
        n = snprintf(p->dir, sizeof p->dir, "/tmp/gpuimg-%u", (unsigned)getuid());
    if (n < 0 || (size_t)n >= sizeof p->dir)
        return gpuimg_fail(GPUIMG_EOPEN, "server: directory name too long");
    int st = own_dir(p->dir);
    if (st)
        return st;
    const unsigned long long id = (unsigned long long)build_id();
    n = snprintf(p->sock, sizeof p->sock, "%s/%016llx.sock", p->dir, id);
    if (n < 0 || (size_t)n >= sizeof p->sock)
        return gpuimg_fail(GPUIMG_EOPEN, "server: %s: too long for a socket's name", p->dir);
    snprintf(p->lock, sizeof p->lock, "%.*s.lock", (int)strlen(p->sock) - 5, p->sock);
    return GPUIMG_OK;
}

/* ---- state ----------------------------------------------------------------------------------- */

struct conn {
    int fd;            /* -1: a free slot */
    int busy;          /* a request of it is queued or running: not read meanwhile */
    atomic_int gone;   /* it hung up: its queued request is dropped, its running one given up
                          at the next step, its answer not sent */
};

struct job {
    struct conn *c;
    struct proto_request q;
    int in_fd, out_fd;
};

static struct {
    pthread_mutex_t mu;
    struct conn conns[SERVER_MAX_CLIENTS];
    struct job *queue[SERVER_MAX_QUEUE];
    int qhead, qn, running, nworkers, stopping;
    long jobs, dropped;
    double started, last, context_ms;
    int wake[2];
    char device[256];
    int devs[GPU_MAX_DEVICES], ndevs;   /* the GPUs it runs on: worker i on devs[i % ndevs] */
    /* the idle workers of each GPU, the last to go idle on top, and each GPU's requests running */
    int idle[GPU_MAX_DEVICES][JOBS_MAX], nidle[GPU_MAX_DEVICES], busy[GPU_MAX_DEVICES];
} S = { .mu = PTHREAD_MUTEX_INITIALIZER, .wake = { -1, -1 } };

/* A worker waits on its own condition, so that a request wakes the worker that went idle last
 * (its OpenMP team, nvJPEG state and kept buffers warm: a loop of one-file commands through 64
 * workers woken in turn paid each worker's first use on most calls) on the GPU running the
 * fewest requests. */
static struct {
    pthread_cond_t cv;
    int woken;
} idler[JOBS_MAX];

static int slot_gpu(int worker) { return S.ndevs ? worker % S.ndevs : 0; }

/* under S.mu: wake one idle worker, or every one when stopping */
static void wake_workers(int all)
{
    do {
        int best = -1;
        for (int k = 0; k < (S.ndevs ? S.ndevs : 1); k++)
            if (S.nidle[k] && (best < 0 || S.busy[k] < S.busy[best]))
                best = k;
        if (best < 0)
            return;
        const int w = S.idle[best][--S.nidle[best]];
        idler[w].woken = 1;
        S.busy[best]++;   /* counted from the wake: a burst of requests spreads over the GPUs */
        pthread_cond_signal(&idler[w].cv);
    } while (all);
}

static volatile sig_atomic_t got_signal;

static void on_stop_signal(int sig)
{
    (void)sig;
    got_signal = 1;
    if (S.wake[1] >= 0) {
        const char c = 's';
        ssize_t w = write(S.wake[1], &c, 1);
        (void)w;
    }
}

static void wake_poller(void)
{
    const char c = 'w';
    ssize_t w = write(S.wake[1], &c, 1);   /* a full pipe already wakes it */
    (void)w;
}

/* ---- answering -------------------------------------------------------------------------------- */

/* a on fd, waiting at most wait_ms for room in the client's queue (the sockets are non-blocking);
 * an answer that finds none by then, or a client that went away, is dropped */
static void send_reply(int fd, const struct proto_reply *a, int wait_ms)
{
    static __thread uint8_t buf[PROTO_MAX_MSG];
    const size_t n = proto_write_reply(a, buf);
    const double end = timing_now_ms() + wait_ms;
    while (n && send(fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 && (errno == EAGAIN || errno == EINTR)) {
        const double left = end - timing_now_ms();
        if (left <= 0)
            break;
        poll(&(struct pollfd){ fd, POLLOUT, 0 }, 1, (int)left + 1);
    }
}

/* PROTO_ALIVE to each client whose request waits or runs, unless it has not read the last one */
static void send_alive(void)
{
    static uint8_t buf[PROTO_MAX_MSG];
    static size_t n;
    if (!n) {
        static struct proto_reply a;
        a.answer = PROTO_ALIVE;
        n = proto_write_reply(&a, buf);
    }
    pthread_mutex_lock(&S.mu);
    for (int i = 0; i < SERVER_MAX_CLIENTS; i++) {
        const struct conn *c = &S.conns[i];
        int unread = 0;
        if (c->fd >= 0 && c->busy && !c->gone && ioctl(c->fd, SIOCOUTQ, &unread) == 0 && !unread)
            send(c->fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    pthread_mutex_unlock(&S.mu);
}

static void refuse(int fd, int answer, const char *why)
{
    struct proto_reply *a = calloc(1, sizeof *a);
    if (!a)
        return;
    a->answer = answer;
    a->status = answer == PROTO_BUSY ? GPUIMG_OK : GPUIMG_EUSAGE;
    snprintf(a->message, sizeof a->message, "%s", why);
    send_reply(fd, a, 0);
    free(a);
}

static void status_reply(int fd)
{
    struct proto_reply *a = calloc(1, sizeof *a);
    if (!a)
        return;
    pthread_mutex_lock(&S.mu);
    int clients = 0;
    for (int i = 0; i < SERVER_MAX_CLIENTS; i++)
        clients += S.conns[i].fd >= 0;
    /* "; JPEG engines: ..." of one GPU; of several "; JPEG engines: GPU 0 N images in C calls, S s; GPU 1 ..." */
    static const char more[] = "; GPUs more";   /* ends a list cut for room */
    char engines[PROTO_MAX_MESSAGE / 2 + 1] = "", one[160], piece[200];
    size_t at = 0;
    for (int i = 0; i < S.ndevs; i++) {
        if (backend_gpu_jpeg_stats(S.devs[i], S.ndevs > 1, one, sizeof one))
            continue;
        if (S.ndevs > 1)
            snprintf(piece, sizeof piece, "%s GPU %d %s", at ? ";" : "; JPEG engines:", S.devs[i], one);
        else
            snprintf(piece, sizeof piece, "; %s", one);
        const size_t k = strlen(piece);
        if (at + k + sizeof more > sizeof engines) {
            memcpy(engines + at, more, sizeof more);
            break;
        }
        memcpy(engines + at, piece, k + 1);
        at += k;
    }
    snprintf(a->message, sizeof a->message,
             "pid %ld, up %.1f s, %ld requests served, %ld given up, %d clients, %d running, %d waiting, %d workers; %s%s%s",
             (long)getpid(), (timing_now_ms() - S.started) / 1000, S.jobs, S.dropped, clients, S.running, S.qn, S.nworkers,
             S.device[0] ? "GPU " : "no GPU", S.device, engines);
    a->context_ms = S.context_ms;
    a->jobs_before = S.jobs;
    pthread_mutex_unlock(&S.mu);
    send_reply(fd, a, 0);
    free(a);
}

/* ---- the workers ------------------------------------------------------------------------------- */

/* the cores this process may run on (its affinity: a Slurm job's or a container's share) */
static long usable_cores(void)
{
#ifdef _OPENMP
    const long n = omp_get_num_procs();
#else
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
#endif
    return n > 0 ? n : 1;
}

/* worker: its GPU where the request names none */
static void run_job(struct job *j, int worker_device, struct proto_reply *a)
{
    const struct proto_request *q = &j->q;
    struct plan pl;
    struct backend_choice bc = { 0 };
    struct run_report rep;
    timing_report_init(&rep);
    gpuimg_clear_error();
    /* its threads: the client's, at most twice the cores over the requests running and waiting
     * (two at least), so that many requests' OpenMP teams do not outnumber the cores many times
     * over while one request alone has every core (a single file's encode on 2 threads took 12 ms
     * of its 16) */
    int threads = q->opts.run_threads;
    pthread_mutex_lock(&S.mu);
    const long load = S.running + S.qn;
    pthread_mutex_unlock(&S.mu);
    const long cores = usable_cores(), share = 2 * cores / (load > 0 ? load : 1);
    if (threads > share)
        threads = (int)(share > 2 ? share : 2);
    if (threads > cores)
        threads = (int)cores;
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    int st = plan_parse(q->pipeline, &pl);
    if (!st)
        st = plan_check_kernel(&pl, q->opts.kernel);
    const int device = q->opts.device >= 0 ? q->opts.device : worker_device;
    if (!st)
        st = backend_select((enum backend_kind)q->opts.backend, &pl, device, &bc);
    if (!st) {
        struct run_ctx ctx;
        options_run_ctx(&q->opts, &pl, threads, &ctx);
        ctx.kind = bc.kind;
        ctx.gpu.device = device;
        ctx.gpu.stage = ctx.gpu.keep = 1;   /* as a batch's workers */
        ctx.shared_encode = 1;
        ctx.save.force = 1;
        ctx.save.out_fd = j->out_fd;
        ctx.in_fd = j->in_fd;
        ctx.abandoned = &j->c->gone;
        if (bc.note_is_fallback)
            ctx.fallback = "no usable GPU";
        rep.threads = threads;
        st = run_file(&ctx, q->input, q->output, &rep);
        rep.gpu_init_ms = -1;   /* the server's, paid before it listened: context_ms */
    }
    a->answer = PROTO_DONE;
    a->status = st;
    const char *m = gpuimg_errmsg();
    snprintf(a->message, sizeof a->message, "%s", st ? (m ? m : gpuimg_strerror(st)) : "");
    snprintf(a->select_note, sizeof a->select_note, "%s", bc.note);
    proto_reply_from_report(a, &rep);
    if (bc.note_is_fallback)
        snprintf(a->fallback, sizeof a->fallback, "no usable GPU");
}

static void *worker(void *arg)
{
    const int self = (int)(intptr_t)arg, k = slot_gpu(self);
    const int device = S.ndevs ? S.devs[k] : 0;
    struct proto_reply a;
    pthread_cond_init(&idler[self].cv, NULL);
    for (;;) {
        pthread_mutex_lock(&S.mu);
        int counted = 0;   /* woken: S.busy counts this worker already */
        while (!S.qn && !S.stopping) {
            S.busy[k] -= counted;   /* woken, and another worker took the request */
            S.idle[k][S.nidle[k]++] = self;
            idler[self].woken = 0;
            while (!idler[self].woken)
                pthread_cond_wait(&idler[self].cv, &S.mu);
            counted = 1;
        }
        if (!S.qn) {
            S.busy[k] -= counted;
            pthread_mutex_unlock(&S.mu);
            break;
        }
        struct job *j = S.queue[S.qhead];
        S.qhead = (S.qhead + 1) % SERVER_MAX_QUEUE;
        S.qn--;
        const int gone = j->c->gone;
        S.running += !gone;
        S.busy[k] += !counted;
        const long before = S.jobs;
        pthread_mutex_unlock(&S.mu);
        if (!gone) {
            memset(&a, 0, sizeof a);
            run_job(j, device, &a);
            a.context_ms = S.context_ms;
            a.jobs_before = before;
        }
        pthread_mutex_lock(&S.mu);
        const int answer = !gone && !j->c->gone;
        pthread_mutex_unlock(&S.mu);
        /* a client gone never renames the file; one killed (SIGKILL) leaves it: it holds nothing */
        if (!answer) {
            int t = ftruncate(j->out_fd, 0);
            (void)t;
        }
        close(j->in_fd);
        close(j->out_fd);   /* before the answer: the client renames the file it wrote */
        if (answer)   /* busy still set: the poller leaves the connection alone meanwhile */
            send_reply(j->c->fd, &a, SERVER_SEND_MS);
        pthread_mutex_lock(&S.mu);
        S.running -= !gone;
        S.busy[k]--;
        S.jobs += answer;
        S.dropped += !answer;   /* never started, stopped midway, or finished for no one */
        j->c->busy = 0;
        S.last = timing_now_ms();
        pthread_mutex_unlock(&S.mu);
        free(j);
        wake_poller();
    }
    backend_gpu_thread_done();
    return NULL;
}

/* ---- reading requests ---------------------------------------------------------------------------- */

static void close_conn(struct conn *c)
{
    close(c->fd);
    c->fd = -1;
    c->busy = 0;
    c->gone = 0;
}

/* Why a run's descriptors are refused, or NULL: it needs its input and output, both regular
 * files (the client's own, or its memory files), the input open for reading and the output for
 * writing. */
static const char *files_refused(const int *fds, int nfd)
{
    struct stat a, b;
    if (nfd != 2)
        return "a run request carries two descriptors";
    if (fstat(fds[0], &a) || fstat(fds[1], &b) || !S_ISREG(a.st_mode) || !S_ISREG(b.st_mode))
        return "the descriptors must be regular files";
    const int in = fcntl(fds[0], F_GETFL), out = fcntl(fds[1], F_GETFL);
    if (in < 0 || (in & O_PATH) || (in & O_ACCMODE) == O_WRONLY)
        return "the input descriptor is not open for reading";
    return out < 0 || (out & O_PATH) || (out & O_ACCMODE) == O_RDONLY ? "the output descriptor is not open for writing"
                                                                      : NULL;
}

/* One message from c: a status, a stop, or a run queued with its two files. */
static void take_request(struct conn *c)
{
    static uint8_t buf[PROTO_MAX_MSG];
    union {
        struct cmsghdr h;
        char b[CMSG_SPACE(sizeof(int) * 8)];
    } ctl;
    struct iovec iov = { buf, sizeof buf };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b, .msg_controllen = sizeof ctl.b };
    const ssize_t n = recvmsg(c->fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    int fds[8], nfd = 0;
    for (struct cmsghdr *h = n > 0 ? CMSG_FIRSTHDR(&m) : NULL; h; h = CMSG_NXTHDR(&m, h))
        if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS)
            for (size_t k = 0; k < (h->cmsg_len - CMSG_LEN(0)) / sizeof(int) && nfd < 8; k++)
                memcpy(&fds[nfd++], CMSG_DATA(h) + k * sizeof(int), sizeof(int));
    if (n <= 0) {   /* hung up, or an error on the socket */
        for (int k = 0; k < nfd; k++)
            close(fds[k]);
        close_conn(c);
        return;
    }
    struct job *j = calloc(1, sizeof *j);
    const char *why = NULL;
    if (!j)
        why = "server out of memory";
    else if (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
        why = "request too long";
    else if ((j->q.opts = *cfg, !proto_read_request(buf, (size_t)n, &j->q, &why)) && j->q.kind == PROTO_RUN)
        why = files_refused(fds, nfd);
    if (why || j->q.kind != PROTO_RUN) {   /* answered here: a refusal, a status, a stop */
        for (int k = 0; k < nfd; k++)
            close(fds[k]);
        if (why)
            refuse(c->fd, PROTO_REFUSED, why);
        else
            status_reply(c->fd);
        if (!why && j->q.kind == PROTO_STOP) {
            pthread_mutex_lock(&S.mu);
            S.stopping = 1;
            wake_workers(1);
            pthread_mutex_unlock(&S.mu);
        }
        free(j);
        return;
    }
    j->c = c;
    j->in_fd = fds[0];
    j->out_fd = fds[1];
    pthread_mutex_lock(&S.mu);
    const int full = S.qn == SERVER_MAX_QUEUE || S.stopping;
    if (!full) {
        S.queue[(S.qhead + S.qn) % SERVER_MAX_QUEUE] = j;
        S.qn++;
        c->busy = 1;
        wake_workers(0);
    }
    pthread_mutex_unlock(&S.mu);
    if (full) {
        close(j->in_fd);
        close(j->out_fd);
        free(j);
        refuse(c->fd, PROTO_BUSY, S.stopping ? "the server is stopping" : "the server's queue is full");
    }
}

/* One connection from the backlog; 0 when there is none left. */
static int take_client(int lfd)
{
    const int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0)
        return 0;
    struct ucred cr;
    socklen_t len = sizeof cr;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || cr.uid != getuid()) {
        close(fd);   /* another user: not a word */
        return 1;
    }
    pthread_mutex_lock(&S.mu);
    for (int i = 0; i < SERVER_MAX_CLIENTS; i++)
        if (S.conns[i].fd < 0) {
            S.conns[i] = (struct conn){ fd, 0, 0 };
            S.last = timing_now_ms();
            pthread_mutex_unlock(&S.mu);
            return 1;
        }
    pthread_mutex_unlock(&S.mu);
    refuse(fd, PROTO_BUSY, "the server has too many clients");
    close(fd);
    return 1;
}

/* ---- the server ------------------------------------------------------------------------------------- */

static int listen_on(const char *path)
{
    const int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);   /* accept until empty */
    if (fd < 0)
        return gpuimg_fail(GPUIMG_EOPEN, "server: socket: %s", strerror(errno)), -1;
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    unlink(path);   /* stale: whoever held the lock before us is gone */
    const mode_t old = umask(0177);
    const int b = bind(fd, (struct sockaddr *)&sa, sizeof sa);
    umask(old);
    if (b != 0 || listen(fd, 128) != 0) {
        gpuimg_fail(GPUIMG_EOPEN, "server: %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* Every GPU it sees made ready before the socket is there (their contexts at once): a client
 * that finds the socket finds a warm server. */
static void *probe_one(void *arg)
{
    char name[512], why[256];
    const int d = (int)(intptr_t)arg;
    if (backend_gpu_probe(d, name, sizeof name, why, sizeof why) != GPUIMG_OK)
        return NULL;
    backend_gpu_codecs_start(d, 1);   /* the JPEG engines, and PNG deflated on the GPU */
    return (void *)1;
}

static void warm_up(void)
{
    const double t0 = timing_now_ms();
    int n = backend_gpu_devices();
    n = n > GPU_MAX_DEVICES ? GPU_MAX_DEVICES : n;
    pthread_t tid[GPU_MAX_DEVICES];
    int made[GPU_MAX_DEVICES] = { 0 };
    for (int d = 1; d < n; d++)   /* the others on threads of their own, the first on this one */
        made[d] = pthread_create(&tid[d], NULL, probe_one, (void *)(intptr_t)d) == 0 ? 2 : 0;
    made[0] = n > 0 && probe_one(0);
    for (int d = 1; d < n; d++) {
        void *ok = NULL;
        if (made[d] == 2)
            pthread_join(tid[d], &ok);
        else   /* no thread: probed here */
            ok = probe_one((void *)(intptr_t)d);
        made[d] = ok != NULL;
    }
    for (int d = 0; d < n; d++)
        if (made[d])
            S.devs[S.ndevs++] = d;
    S.context_ms = timing_now_ms() - t0;
    snprintf(S.device, sizeof S.device, S.ndevs > 1 ? "%s x%d" : "%s", backend_gpu_name() ? backend_gpu_name() : "",
             S.ndevs);
}

int server_main(const struct cli_opts *o)
{
    const int idle_s = o->server_idle, quiet = o->quiet;
    struct server_paths p;
    int st = server_paths(&p);
    if (st)
        return st;
    const int lock = open(p.lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (lock < 0)
        return gpuimg_fail(GPUIMG_EOPEN, "server: %s: %s", p.lock, strerror(errno));
    if (flock(lock, LOCK_EX | LOCK_NB) != 0) {
        close(lock);
        if (!quiet)
            fprintf(stderr, "gpuimg: server: already running on %s\n", p.sock);
        return GPUIMG_OK;
    }
    if (pipe2(S.wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        close(lock);
        return gpuimg_fail(GPUIMG_EOPEN, "server: pipe: %s", strerror(errno));
    }
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = { .sa_handler = on_stop_signal };
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    for (int i = 0; i < SERVER_MAX_CLIENTS; i++)
        S.conns[i].fd = -1;
    S.started = S.last = timing_now_ms();
    warm_up();
    const int lfd = listen_on(p.sock);
    if (lfd < 0) {
        close(lock);
        return GPUIMG_EOPEN;
    }
    struct stat mine = { 0 };
    stat(p.sock, &mine);
    /* a descriptor a client, two a request, one a running output: as many as the hard limit allows */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    /* one worker a core; SERVER_WORKERS_PER_CORE a core once a GPU's JPEG engines are made (grow
     * below), so that their calls fill while the cores work */
    const long cores = usable_cores();
    long want = o->server_workers ? o->server_workers : cores, grow_to = o->server_workers ? 0 : cores * SERVER_WORKERS_PER_CORE;
    want = want > JOBS_MAX ? JOBS_MAX : want;
    grow_to = grow_to > JOBS_MAX ? JOBS_MAX : S.ndevs ? grow_to : 0;
    static pthread_t tid[JOBS_MAX];
    for (int i = 0; i < want; i++)   /* a worker's index is its slot: unique though a create fails */
        if (pthread_create(&tid[S.nworkers], NULL, worker, (void *)(intptr_t)S.nworkers) == 0)
            __atomic_add_fetch(&S.nworkers, 1, __ATOMIC_RELAXED);
    if (o->ready_fd > 2 && write(o->ready_fd, "r", 1) == 1)   /* the client that started us waits on it */
        close(o->ready_fd);
    if (!quiet)
        fprintf(stderr, "gpuimg: server: listening on %s, %d workers, %s%s%s, exits after %d s idle\n", p.sock,
                S.nworkers, S.device[0] ? "GPU " : "no GPU", S.device, S.device[0] ? "" : " (the CPU runs every request)",
                idle_s);
    struct pollfd pf[SERVER_MAX_CLIENTS + 2];
    int slot[SERVER_MAX_CLIENTS + 2];
    double alive_at = timing_now_ms();
    while (S.nworkers) {
        for (int d = 0; grow_to > S.nworkers && d < S.ndevs; d++)
            if (backend_gpu_jpeg_made(S.devs[d])) {
                for (long i = S.nworkers; i < grow_to; i++)
                    if (pthread_create(&tid[S.nworkers], NULL, worker, (void *)(intptr_t)S.nworkers) == 0)
                        __atomic_add_fetch(&S.nworkers, 1, __ATOMIC_RELAXED);
                grow_to = 0;
            }
        int n = 0;
        pf[n++] = (struct pollfd){ S.wake[0], POLLIN, 0 };
        pthread_mutex_lock(&S.mu);
        const int stopping = S.stopping || got_signal;
        if (stopping && !S.stopping) {
            S.stopping = 1;
            wake_workers(1);
        }
        int clients = 0;
        for (int i = 0; i < SERVER_MAX_CLIENTS; i++) {
            struct conn *c = &S.conns[i];
            if (c->fd >= 0 && (c->gone || stopping) && !c->busy)
                close_conn(c);
            if (c->fd < 0)
                continue;
            clients++;
            slot[n] = i;
            pf[n++] = (struct pollfd){ c->fd, (short)(c->busy ? POLLRDHUP : POLLIN | POLLRDHUP), 0 };
        }
        const int quiet_now = !clients && !S.qn && !S.running;
        const double idle_ms = timing_now_ms() - S.last;
        pthread_mutex_unlock(&S.mu);
        if (quiet_now && (stopping || idle_ms >= idle_s * 1000.0))
            break;
        const int lslot = n;
        if (!stopping)
            pf[n++] = (struct pollfd){ lfd, POLLIN, 0 };
        const double until_alive = alive_at + SERVER_ALIVE_MS - timing_now_ms();
        if (poll(pf, (nfds_t)n, until_alive > 0 ? (int)until_alive + 1 : 0) < 0 && errno != EINTR)
            break;
        if (timing_now_ms() >= alive_at + SERVER_ALIVE_MS) {
            alive_at = timing_now_ms();
            send_alive();
        }
        if (pf[0].revents) {
            char drain[64];
            while (read(S.wake[0], drain, sizeof drain) > 0)
                ;
        }
        for (int k = 1; k < lslot; k++) {
            if (!pf[k].revents)
                continue;
            struct conn *c = &S.conns[slot[k]];
            pthread_mutex_lock(&S.mu);
            const int busy = c->busy;
            if (busy && (pf[k].revents & (POLLRDHUP | POLLHUP | POLLERR)))
                c->gone = 1;   /* the worker drops or finishes its request; closed once it is done */
            pthread_mutex_unlock(&S.mu);
            if (busy)
                continue;
            if (pf[k].revents & POLLIN)
                take_request(c);
            else
                close_conn(c);
        }
        if (lslot < n && pf[lslot].revents & POLLIN)
            while (take_client(lfd))
                ;
    }
    pthread_mutex_lock(&S.mu);
    S.stopping = 1;
    wake_workers(1);
    pthread_mutex_unlock(&S.mu);
    for (int i = 0; i < S.nworkers; i++)
        pthread_join(tid[i], NULL);
    struct stat now;
    if (stat(p.sock, &now) == 0 && now.st_ino == mine.st_ino)   /* still ours: not a successor's */
        unlink(p.sock);
    close(lfd);
    backend_gpu_codecs_stop();
    close(lock);   /* last: a successor binds only after we are gone */
    if (!quiet)
        fprintf(stderr, "gpuimg: server: stopped after %ld requests\n", S.jobs);
    return GPUIMG_OK;
}
