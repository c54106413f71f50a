/* gpuimg: the server's client, and where a command runs (see client.h). */
#define _GNU_SOURCE
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "app/client.h"
#include "app/proto.h"
#include "app/server.h"
#include "core/error.h"
#include "core/timing.h"
#include "io/io.h"

struct client {
    int fd;
    char served[128];             /* "served by the server ...": the last run's, said in its line */
    int stdin_fd;                 /* standard input read whole into a memory file, or 0 */
    int rerun_fd;                 /* that file opened again for a run here, or 0 */
    int silent;                   /* the server said nothing for SERVER_SILENT_MS: hung up on */
    struct proto_reply reply;     /* the last answer: the report's strings point here */
    uint8_t buf[PROTO_MAX_MSG];
};

/* ---- connecting and starting ------------------------------------------------------------------ */

static int connect_to(const char *path)
{
    const int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    /* connecting (to a server whose backlog is full) and sending wait no longer than silence */
    const struct timeval tv = { SERVER_SILENT_MS / 1000, SERVER_SILENT_MS % 1000 * 1000 };
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The server, detached from this process (its own session, standard files on /dev/null, no other
 * descriptor of ours), told to close ready_w once it listens (or exits), exiting after idle_s
 * seconds without a client (the command's --server-idle). */
static int spawn(int ready_w, int idle_s)
{
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = 0;
    const pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        setsid();
        if (fork() != 0)
            _exit(0);
        if (chdir("/") != 0)
            _exit(127);
        const int nul = open("/dev/null", O_RDWR);
        for (int f = 0; f < 3; f++)
            dup2(nul, f);
        const int w = fcntl(ready_w, F_DUPFD, 3);   /* not close-on-exec: the server gets it */
        for (int f = 3; f < 1024; f++)
            if (f != w)
                close(f);
        char v[16];
        snprintf(v, sizeof v, "%d", w);
        setenv("GPUIMG_SERVER_READY_FD", v, 1);
        char idle[48];
        snprintf(idle, sizeof idle, "--server-idle=%d", idle_s);
        execl(exe, "gpuimg", "--server", "-q", idle, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return 0;
}

static int lock_free(const char *lock)
{
    const int fd = open(lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 1;
    const int mine = flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);   /* releases it */
    return mine;
}

/* Until the server started with ready pipe r listens (one started by another client meanwhile
 * counts), at most 30 s each for its word and its socket, or until *stop (read every 10 ms): its
 * connection in *fd, or -1. */
static int await_server(const struct server_paths *p, int r, int *fd, const int *stop)
{
    struct pollfd pf = { r, POLLIN, 0 };
    /* a byte: it listens; end of file: it exited (another one may be starting) */
    for (int i = 0; i < 3000 && poll(&pf, 1, 10) == 0 && !(stop && __atomic_load_n(stop, __ATOMIC_RELAXED)); i++)
        ;
    close(r);
    for (int i = 0; i < 3000 && !(stop && __atomic_load_n(stop, __ATOMIC_RELAXED)); i++) {
        if ((*fd = connect_to(p->sock)) >= 0)
            return 0;
        if (lock_free(p->lock))
            return -1;   /* nobody is starting one */
        nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
    }
    return -1;
}

/* Start a server: wait 1, until it listens (await_server); 0, not at all; -1, its ready pipe's
 * read end in *fd for a later client_await. */
static int start_server(const struct server_paths *p, int wait, int idle_s, int *fd)
{
    int pfd[2];
    *fd = -1;
    if (pipe2(pfd, O_CLOEXEC) != 0)
        return -1;
    const int r = spawn(pfd[1], idle_s);
    close(pfd[1]);
    if (r || !wait) {
        close(pfd[0]);
        return r;
    }
    if (wait < 0) {
        *fd = pfd[0];
        return 0;
    }
    return await_server(p, pfd[0], fd, NULL);
}

int client_await(struct route *rt, const int *stop)
{
    struct server_paths p;
    int fd = -1;
    const int r = rt->ready_fd;
    rt->ready_fd = -1;
    if (server_paths(&p)) {
        close(r);
        gpuimg_clear_error();
        return -1;
    }
    if (await_server(&p, r, &fd, stop))
        return -1;
    close(fd);
    return 0;
}

static int gpu_present(void)
{
#ifdef HAVE_CUDA
    return access("/dev/nvidiactl", F_OK) == 0;
#else
    return 0;
#endif
}

/* -1 auto, 0 off, 1 on: --no-server, GPUIMG_SERVER */
static int server_mode(const struct cli_opts *o)
{
    return o->server_mode;
}

int client_route_here(const struct cli_opts *o, const struct plan *pl, long nfiles, struct run_ctx *ctx,
                      struct route *rt)
{
    if (o->backend == BACKEND_AUTO && nfiles < SERVER_COLD_MIN_FILES && gpu_present()) {
        ctx->kind = BACKEND_CPU;
        ctx->fallback = "no warm GPU server: the CPU outruns a GPU start";
        snprintf(rt->note, sizeof rt->note,
                 "running on the CPU: without a warm server, starting the GPU costs more than %s",
                 nfiles == 1 ? "this file's whole run" : "these files' whole run");
        return GPUIMG_OK;
    }
    struct backend_choice bc;
    int st = backend_select(o->backend, pl, options_device(o), &bc);
    if (st)
        return st;
    snprintf(rt->note, sizeof rt->note, "%s", bc.note);
    if (bc.note_is_fallback)   /* said once, in the timing line */
        ctx->fallback = "no usable GPU";
    ctx->kind = bc.kind;
    return GPUIMG_OK;
}

int client_route(const struct cli_opts *o, const struct plan *pl, long nfiles, struct run_ctx *ctx, struct route *rt)
{
    memset(rt, 0, sizeof *rt);
    rt->ready_fd = -1;
    const int mode = server_mode(o);
    /* the server keeps the environment it started with: a command that sets a knob runs here */
    const char *knob = mode ? o->knob_env : NULL;
    if (knob) {
        int st = client_route_here(o, pl, nfiles, ctx, rt);
        if (!st && !rt->note[0])
            snprintf(rt->note, sizeof rt->note, "%s is set: running in this process, not the server", knob);
        return st;
    }
    /* a file the pipeline names is read by this process, once for every input, and is a path
     * that means this working directory's file: the server never reads it */
    const char *file = plan_file(pl);
    if (file && mode) {
        int st = client_route_here(o, pl, nfiles, ctx, rt);
        char here[sizeof rt->note];
        memcpy(here, rt->note, sizeof here);
        snprintf(rt->note, sizeof rt->note, "the pipeline reads %.60s: running in this process, not the server%s%.90s",
                 file, here[0] ? "; " : "", here);
        return st;
    }
    /* --compare measures this process; --devices and --gpu-mem-limit set up this process's GPUs */
    if (options_given(o, OPT_LOCAL) || mode == 0
        || (mode < 0 && (o->backend == BACKEND_CPU || !gpu_present())))
        return client_route_here(o, pl, nfiles, ctx, rt);
    struct server_paths p;
    if (server_paths(&p)) {
        char why[120];
        snprintf(why, sizeof why, "%s", gpuimg_errmsg());
        gpuimg_clear_error();
        int st = client_route_here(o, pl, nfiles, ctx, rt);
        char here[sizeof rt->note];
        memcpy(here, rt->note, sizeof here);
        snprintf(rt->note, sizeof rt->note, "no server: %s%s%.90s", why, here[0] ? "; " : "", here);
        return st;
    }
    int fd = connect_to(p.sock);
    if (fd < 0 && mode < 0 && o->backend == BACKEND_AUTO && nfiles > 1) {
        /* a batch does not wait: its files run here (on the CPU, as one file would) until the
         * server answers, then go to it (batch.c) */
        rt->started = 1;
        if (start_server(&p, -1, o->server_idle, &rt->ready_fd) == 0) {
            rt->server = 1;
            snprintf(rt->note, sizeof rt->note, "starting the server: files run here until it answers");
            return GPUIMG_OK;
        }
        return client_route_here(o, pl, nfiles, ctx, rt);
    }
    if (fd < 0) {
        const int wait = mode == 1 || o->backend == BACKEND_GPU;
        rt->started = 1;
        if (start_server(&p, wait, o->server_idle, &fd) || !wait) {
            int st = client_route_here(o, pl, nfiles, ctx, rt);
            if (wait && !st)
                snprintf(rt->note, sizeof rt->note, "the server did not start: running here");
            return st;
        }
    }
    close(fd);   /* it answers: each sender opens its own connection */
    rt->server = 1;
    return GPUIMG_OK;
}

int client_open(struct client **out)
{
    struct server_paths p;
    *out = NULL;
    if (server_paths(&p))
        return -1;
    struct client *cl = calloc(1, sizeof *cl);
    if (!cl)
        return -1;
    if ((cl->fd = connect_to(p.sock)) < 0) {
        free(cl);
        return -1;
    }
    *out = cl;
    return 0;
}

void client_close(struct client *cl)
{
    if (!cl)
        return;
    close(cl->fd);
    if (cl->stdin_fd > 0)
        close(cl->stdin_fd);
    if (cl->rerun_fd > 0)
        close(cl->rerun_fd);
    free(cl);
}

const char *client_served(const struct client *cl)
{
    return cl ? cl->served : "";
}

const char *client_note(const struct client *cl)
{
    return cl ? cl->reply.select_note : "";
}

int client_silent(const struct client *cl)
{
    return cl && cl->silent;
}

int client_input_fd(struct client *cl)
{
    if (!cl || !cl->stdin_fd)
        return 0;
    if (!cl->rerun_fd) {   /* an offset of its own: a server given up on may still read its copy */
        char self[64];
        snprintf(self, sizeof self, "/proc/self/fd/%d", cl->stdin_fd);
        const int fd = open(self, O_RDONLY | O_CLOEXEC);
        cl->rerun_fd = fd > 0 ? fd : 0;
    }
    const int fd = cl->rerun_fd ? cl->rerun_fd : cl->stdin_fd;
    lseek(fd, 0, SEEK_SET);
    return fd;
}

/* ---- a request ---------------------------------------------------------------------------------- */

int client_send(int fd, const void *buf, size_t n, const int *fds, int nfd)
{
    union {
        struct cmsghdr h;
        char b[CMSG_SPACE(sizeof(int) * CLIENT_MAX_FDS)];
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = { (void *)buf, n };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
    if (nfd > CLIENT_MAX_FDS)
        return -1;
    if (nfd) {
        m.msg_control = ctl.b;
        m.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfd);
        struct cmsghdr *h = CMSG_FIRSTHDR(&m);
        h->cmsg_level = SOL_SOCKET;
        h->cmsg_type = SCM_RIGHTS;
        h->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfd);
        memcpy(CMSG_DATA(h), fds, sizeof(int) * (size_t)nfd);
    }
    return sendmsg(fd, &m, MSG_NOSIGNAL) == (ssize_t)n ? 0 : -1;
}

/* q sent and its answer in cl->reply: 0; -1: the server went away (or refused the connection
 * without a word); EXCHANGE_SILENT: it said nothing, not even PROTO_ALIVE, for SERVER_SILENT_MS.
 * A request that cannot be sent, or that the server never read, still gets the answer it left
 * before hanging up (too many clients). */
#define EXCHANGE_SILENT (-2)
static int exchange(struct client *cl, const struct proto_request *q, const int *fds, int nfd)
{
    const size_t n = proto_write_request(q, cl->buf);
    if (!n)
        return -1;
    const int sent = client_send(cl->fd, cl->buf, n, fds, nfd) == 0;
    double until = timing_now_ms() + (sent ? SERVER_SILENT_MS : 0);
    for (;;) {
        struct pollfd pf = { cl->fd, POLLIN, 0 };
        const double left = until - timing_now_ms();
        const int r = poll(&pf, 1, left > 0 ? (int)left + 1 : 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r == 0 && sent ? EXCHANGE_SILENT : -1;
        const ssize_t got = recv(cl->fd, cl->buf, sizeof cl->buf, MSG_DONTWAIT);
        /* ECONNRESET, said once: the server closed with our request unread, its answer may
         * still be queued (too many clients) */
        if (got < 0 && (errno == EINTR || errno == EAGAIN || errno == ECONNRESET))
            continue;
        const char *why;
        if (got <= 0 || proto_read_reply(cl->buf, (size_t)got, &cl->reply, &why))
            return -1;
        if (cl->reply.answer != PROTO_ALIVE)
            return 0;
        until = timing_now_ms() + SERVER_SILENT_MS;
    }
}

static int memory_file(const char *name)
{
    const int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    const int hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);   /* > 0, whatever this process had closed */
    close(fd);
    return hi;
}

static int write_all(int fd, const uint8_t *b, size_t n)
{
    while (n) {
        const ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Standard input, whole, into a memory file (*out), with the checks a run here makes as it reads
 * (io_stream_check): a stream that starts as no image is refused at its first bytes, one past
 * 2 GiB there; a status and its message. */
static int slurp_stdin(int *out)
{
    const char *name = io_display_name("-", 0);
    const int fd = memory_file("gpuimg-stdin");
    if (fd < 0)
        return gpuimg_fail(GPUIMG_EOPEN, "%s: cannot keep it: %s", name, strerror(errno));
    uint8_t b[65536];
    size_t have = 0;              /* bytes in b not yet in the file */
    unsigned long long total = 0;
    int sniffed = 0, st = GPUIMG_OK;
    for (;;) {
        const ssize_t n = read(STDIN_FILENO, b + have, sizeof b - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            st = gpuimg_fail(GPUIMG_EOPEN, "%s: read error: %s", name, strerror(errno));
            break;
        }
        have += (size_t)n;
        total += (unsigned long long)n;
        if (!sniffed && n && have < IO_SNIFF_BYTES)
            continue;   /* the first bytes are judged together, as a run here judges them */
        st = io_stream_check(name, b, sniffed ? 0 : have, total);
        sniffed = 1;
        if (st)
            break;
        if ((have == sizeof b || !n) && write_all(fd, b, have)) {
            st = gpuimg_fail(GPUIMG_EOPEN, "%s: cannot keep it: %s", name, strerror(errno));
            break;
        }
        if (have == sizeof b)
            have = 0;
        if (!n)
            break;
    }
    if (st) {
        close(fd);
        return st;
    }
    lseek(fd, 0, SEEK_SET);
    *out = fd;
    return GPUIMG_OK;
}

static int copy_out(int from, FILE *to, const char *name)
{
    lseek(from, 0, SEEK_SET);
    char b[65536];
    ssize_t n;
    while ((n = read(from, b, sizeof b)) > 0)
        if (fwrite(b, 1, (size_t)n, to) != (size_t)n)
            return gpuimg_write_error(name, errno);
    return n < 0 ? gpuimg_write_error(name, errno) : GPUIMG_OK;
}

static int again(struct run_report *r, const char *why)
{
    snprintf(r->note, sizeof r->note, "%.300s: ran here", why);
    return CLIENT_AGAIN;
}

int client_run(struct client *cl, const struct cli_opts *o, const struct run_ctx *ctx, const struct route *rt,
               const char *in, const char *out, struct run_report *r)
{
    cl->served[0] = 0;   /* said only for a run the server answered */
    int in_fd = ctx->in_fd, own_in = 0;
    if (in_fd <= 0 && !strcmp(in, "-")) {
        int st = cl->stdin_fd ? GPUIMG_OK : slurp_stdin(&cl->stdin_fd);
        if (st)
            return st;
        in_fd = cl->stdin_fd;
        lseek(in_fd, 0, SEEK_SET);
    } else if (in_fd <= 0) {
        struct stat st;
        in_fd = open(in, O_RDONLY | O_CLOEXEC);
        if (in_fd < 0 || fstat(in_fd, &st) || !S_ISREG(st.st_mode)) {   /* its message, a pipe's reading: here */
            if (in_fd >= 0)
                close(in_fd);
            r->note[0] = 0;
            return CLIENT_AGAIN;
        }
        own_in = 1;
    }
    struct io_pending local, *p = ctx->hold ? ctx->hold : &local;
    int st = io_pending_open(out, ctx->save.force, p);
    if (st) {
        if (own_in)
            close(in_fd);
        return st;
    }
    const int mem = p->tmp ? -1 : memory_file("gpuimg-out");   /* standard output, a device: copied after */
    const int fds[2] = { in_fd, p->tmp ? fileno(p->fp) : mem };
    struct proto_request *q = calloc(1, sizeof *q);
    int ok = q && fds[1] >= 0;
    if (ok) {
        q->kind = PROTO_RUN;
        snprintf(q->pipeline, sizeof q->pipeline, "%s", o->pipeline);
        ok = strlen(o->pipeline) < sizeof q->pipeline && strlen(in) < sizeof q->input && strlen(out) < sizeof q->output;
        snprintf(q->input, sizeof q->input, "%s", in);
        snprintf(q->output, sizeof q->output, "%s", out);
        q->opts = *o;   /* the command's options, and what this file's run decided beside them */
        q->opts.per_file_format = ctx->per_file_format;
        q->opts.run_threads = ctx->save.threads < 1 ? 1 : ctx->save.threads > 1024 ? 1024 : ctx->save.threads;
    }
    const int got = ok ? exchange(cl, q, fds, 2) : -1, sent = got == 0;
    free(q);
    if (own_in)
        close(in_fd);
    const struct proto_reply *a = &cl->reply;
    if (!sent || a->answer != PROTO_DONE) {
        /* the temporary file goes; a server given up on that writes on writes into no name */
        if (mem >= 0)
            close(mem);
        io_pending_discard(p);
        char silent[64];
        snprintf(silent, sizeof silent, "the server did not answer for %d s", SERVER_SILENT_MS / 1000);
        if (got == EXCHANGE_SILENT) {
            shutdown(cl->fd, SHUT_RDWR);   /* it gives the run up when it sees this, if it wakes */
            cl->silent = 1;
        }
        return again(r, !ok ? "the request does not fit a message" : got == EXCHANGE_SILENT ? silent
                        : !sent ? "the server went away before answering" : a->message);
    }
    proto_reply_to_report(a, r);
    r->input = in;
    r->output = out;
    if (rt->started)
        snprintf(cl->served, sizeof cl->served, "served by the server this command started (context %.1f ms)",
                 a->context_ms);
    else
        snprintf(cl->served, sizeof cl->served, "served by the server");
    st = a->status;
    if (st)
        gpuimg_fail(st, "%s", a->message);
    else if (mem >= 0)
        st = copy_out(mem, p->fp, io_display_name(out, 1));
    if (mem >= 0)
        close(mem);
    if (st)
        io_pending_discard(p);
    else if (p == &local)
        st = io_pending_publish(p);
    return st;
}

/* ---- status and stop -------------------------------------------------------------------------------- */

static int ask(FILE *f, int kind)
{
    struct server_paths p;
    if (server_paths(&p)) {   /* the directory is refused: said, as a command with -v says it */
        gpuimg_print_line(stderr, gpuimg_errmsg() ? gpuimg_errmsg() : "server: no directory for its socket");
        return gpuimg_exit_code(GPUIMG_EOPEN);
    }
    struct client cl = { .fd = connect_to(p.sock) };
    struct proto_request q = { .kind = kind };
    const int got = cl.fd < 0 ? -1 : exchange(&cl, &q, NULL, 0);
    if (cl.fd >= 0)
        close(cl.fd);
    if (got || cl.reply.answer != PROTO_DONE) {
        if (got == EXCHANGE_SILENT)
            fprintf(f, "gpuimg: server: not answering for %d s (stopped?) (%s)\n", SERVER_SILENT_MS / 1000, p.sock);
        else if (!got)
            fprintf(f, "gpuimg: server: %s (%s)\n", cl.reply.message, p.sock);
        else
            fprintf(f, "gpuimg: server: not running (%s)\n", p.sock);
        return 1;
    }
    fprintf(f, "gpuimg: server: %s%s; context %.1f ms; %s\n", kind == PROTO_STOP ? "stopping, " : "", cl.reply.message,
            cl.reply.context_ms, p.sock);
    return 0;
}

int client_status(FILE *f) { return ask(f, PROTO_STATUS); }
int client_stop(FILE *f) { return ask(f, PROTO_STOP); }
