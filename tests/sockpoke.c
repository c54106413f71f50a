/* gpuimg test helper: hostile and broken requests for the server. Connects to SOCKET, sends the
 * message CASE names and prints the server's answer on one line ("answer N status S: message",
 * or "closed" when the server hung up). Cases: garbage, short, version, nofds, dirfd, opath (an
 * input not open for reading), rdonly, many (six descriptors), huge (past the largest message),
 * range (a field out of range), field:NAME:V (the run request's number for the option NAME, e.g.
 * max-pixels, set to V as 64 bits, sent with an input and an output: V = -1 is 2^64-1),
 * hold (connect, send nothing, hold the connection SECONDS or until SIGUSR1; with COUNT, that
 * many connections: "connected N" once they are, "held N" at the end, how many the server kept
 * open). The server must answer or close this connection alone and go on serving others
 * (tests/server.sh).
 *   sockpoke --request FILE [OPTION]... PIPELINE INPUT OUTPUT
 * writes the request that command sends into FILE (the fuzz corpus's seeds: make_corpus.py). */
#include <config.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "app/cli.h"
#include "app/client.h"
#include "app/proto.h"
#include "core/error.h"

static int dump(int argc, char **argv)
{
    static struct proto_request q;
    static uint8_t buf[PROTO_MAX_MSG];
    if (cli_parse(argc, argv, &q.opts)) {   /* argv[0], the file, stands for the program's name */
        fprintf(stderr, "sockpoke: not a command: %s\n", gpuimg_errmsg());
        return 2;
    }
    q.kind = PROTO_RUN;
    snprintf(q.pipeline, sizeof q.pipeline, "%s", q.opts.pipeline);
    snprintf(q.input, sizeof q.input, "%s", q.opts.input);
    snprintf(q.output, sizeof q.output, "%s", q.opts.output);
    q.opts.run_threads = 4;
    const size_t n = proto_write_request(&q, buf);
    FILE *f = n ? fopen(argv[0], "wb") : NULL;
    if (!f || fwrite(buf, 1, n, f) != n || fclose(f)) {
        perror(argv[0]);
        return 1;
    }
    return 0;
}

static void wake(int sig) { (void)sig; }

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "--request"))
        return dump(argc - 2, argv + 2);
    if (argc < 3) {
        fprintf(stderr, "usage: sockpoke SOCKET CASE [SECONDS [COUNT]]\n");
        return 2;
    }
    const int s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", argv[1]);
    if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof sa)) {
        perror("connect");
        return 1;
    }
    const char *c = argv[2];
    if (!strcmp(c, "hold")) {
        static int held[2048];
        int n = argc > 4 ? atoi(argv[4]) : 1;
        n = n < 1 ? 1 : n > 2048 ? 2048 : n;
        struct rlimit rl;   /* a descriptor each: as many as the hard limit allows */
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
            rl.rlim_cur = rl.rlim_max;
            setrlimit(RLIMIT_NOFILE, &rl);
        }
        held[0] = s;
        for (int i = 1; i < n; i++)
            if ((held[i] = socket(AF_UNIX, SOCK_SEQPACKET, 0)) < 0 || connect(held[i], (struct sockaddr *)&sa, sizeof sa)) {
                perror("connect");
                return 1;
            }
        printf("connected %d\n", n);
        fflush(stdout);
        struct sigaction sw = { .sa_handler = wake };   /* SIGUSR1 ends the wait early */
        sigaction(SIGUSR1, &sw, NULL);
        sleep(argc > 3 ? (unsigned)atoi(argv[3]) : 2);
        int open = 0;   /* the connections the server has not hung up on */
        for (int i = 0; i < n; i++) {
            struct pollfd pf = { held[i], POLLIN, 0 };
            open += poll(&pf, 1, 0) == 0;
        }
        printf("held %d\n", open);
        return 0;
    }
    static uint8_t buf[80000];
    static struct proto_request q;
    q.kind = PROTO_RUN;
    strcpy(q.pipeline, "gray");
    strcpy(q.input, "a");
    strcpy(q.output, "b");
    if (options_init(&q.opts)) {   /* the defaults, as a command without options sends them */
        fprintf(stderr, "sockpoke: bad options in the environment\n");
        return 1;
    }
    size_t n = proto_write_request(&q, buf);
    int fds[8], nfd = 0;
    const int tmp = open(".", O_RDWR | O_TMPFILE, 0600);
    if (!strcmp(c, "garbage")) {
        srand(7);
        for (n = 0; n < 200; n++)
            buf[n] = (uint8_t)rand();
    } else if (!strcmp(c, "short"))
        n -= 20;
    else if (!strcmp(c, "version"))
        buf[7] = 99;
    else if (!strcmp(c, "nofds"))
        ;
    else if (!strcmp(c, "dirfd")) {
        fds[nfd++] = open(".", O_RDONLY | O_DIRECTORY);
        fds[nfd++] = tmp;
    } else if (!strcmp(c, "opath")) {
        fds[nfd++] = open(argv[0], O_PATH);
        fds[nfd++] = tmp;
    } else if (!strcmp(c, "rdonly")) {
        fds[nfd++] = open(argv[0], O_RDONLY);
        fds[nfd++] = open(argv[0], O_RDONLY);
    } else if (!strcmp(c, "many")) {
        for (int i = 0; i < 6; i++)
            fds[nfd++] = open(argv[0], O_RDONLY);
    } else if (!strcmp(c, "huge")) {
        memset(buf + n, 'x', sizeof buf - n);
        n = sizeof buf;
    } else if (!strncmp(c, "field:", 6)) {
        /* magic, kind, three strings (8 + length each), then the options' numbers in the table's
         * order: the one NAME names */
        const char *v = strchr(c + 6, ':');
        const unsigned long long u = v ? strtoull(v + 1, NULL, 0) : 0;
        size_t at = 8 + 8 + (8 + 4) + (8 + 1) + (8 + 1);
        int found = 0;
        for (int i = 0; v && !found && i < option_count; i++)
            if (option_table[i].flags & OPT_WIRE) {
                const char *name = option_table[i].name;
                found = name && strlen(name) == (size_t)(v - c - 6) && !strncmp(name, c + 6, (size_t)(v - c - 6));
                at += found ? 0 : 8;
            }
        if (!found) {
            fprintf(stderr, "sockpoke: field:NAME:V with NAME an option the request carries\n");
            return 2;
        }
        for (int k = 0; k < 8; k++)
            buf[at + (size_t)k] = (uint8_t)(u >> (8 * k));
        fds[nfd++] = open(argv[0], O_RDONLY);
        fds[nfd++] = tmp;
    } else if (!strcmp(c, "range")) {
        /* magic, kind, three strings (8 + length each), then the options' 8-byte integers in the
         * table's order: the PNG level's */
        size_t at = 8 + 8 + (8 + 4) + (8 + 1) + (8 + 1);
        for (int i = 0; i < option_count; i++)
            if (option_table[i].flags & OPT_WIRE) {
                if (option_table[i].name && !strcmp(option_table[i].name, "png-level"))
                    break;
                at += 8;
            }
        buf[at] = 99;
    } else {
        fprintf(stderr, "sockpoke: unknown case %s\n", c);
        return 2;
    }
    if (client_send(s, buf, n, fds, nfd)) {
        perror("sendmsg");
        return 1;
    }
    static uint8_t in[PROTO_MAX_MSG];
    static struct proto_reply a;
    ssize_t got;
    const char *why;
    do   /* the server's "alive" messages while the request waits or runs are no answer */
        got = recv(s, in, sizeof in, 0);
    while (got > 0 && !proto_read_reply(in, (size_t)got, &a, &why) && a.answer == PROTO_ALIVE);
    if (got <= 0)
        puts("closed");
    else if (proto_read_reply(in, (size_t)got, &a, &why))
        printf("unreadable answer: %s\n", why);
    else
        printf("answer %d status %d: %s\n", a.answer, a.status, a.message);
    return 0;
}
