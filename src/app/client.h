/* gpuimg: the server's client, and where a command runs. A command goes through this user's
 * server (server.h) when one is running, or starts one, unless --no-server or GPUIMG_SERVER=0;
 * it opens its files itself and sends the descriptors, so the server acts with the caller's
 * permissions, and the output is written into the same temporary file beside it, renamed by the
 * client once the server reports success. Exit status, messages and bytes are those of a run
 * in this process. */
#ifndef GPUIMG_CLIENT_H
#define GPUIMG_CLIENT_H
#include <stdio.h>
#include "app/cli.h"
#include "core/plan.h"
#include "engine/run.h"

/* With no server to be had (none can listen here), auto runs a command of fewer files than this
 * on the CPU (a GPU's start costs more than their whole run there: the crossover bench/server.sh
 * measures) and from this many on the GPU in process. With a server to be had, a single file
 * runs on the CPU while the server starts for the next commands, and a batch runs here until it
 * answers. */
#define SERVER_COLD_MIN_FILES 500

struct route {
    int server;          /* through the server */
    int started;         /* this command started it */
    int ready_fd;        /* >= 0: started and not waited for (a batch): client_await tells when it answers */
    char note[256];      /* said with -v: why the command runs where it does */
};

/* Where a command of nfiles files runs, from o (--backend, --no-server, GPUIMG_SERVER): the
 * server, or this process with ctx->kind and ctx->fallback chosen (backend_select). */
int client_route(const struct cli_opts *o, const struct plan *pl, long nfiles, struct run_ctx *ctx, struct route *rt);
/* For a route with ready_fd: wait until the server this command started answers (0), or gives
 * up (-1: it could not start) or *stop is set (-1), then close ready_fd. A batch's files run
 * here meanwhile. */
int client_await(struct route *rt, const int *stop);
/* The choice for this process alone, as client_route makes it without a server. */
int client_route_here(const struct cli_opts *o, const struct plan *pl, long nfiles, struct run_ctx *ctx,
                      struct route *rt);

struct client;
/* A connection to the running server (one per thread that sends requests). */
int client_open(struct client **cl);
void client_close(struct client *cl);

/* run_file through the server: the same status, message and report (its strings held by cl
 * until the next call; rt says who started the server). CLIENT_AGAIN: the server could not run
 * it (its queue was full, it went away before answering or said nothing for SERVER_SILENT_MS,
 * it refused the request): nothing was written, the reason is in r->note, and the caller runs it
 * in this process, with the input client_input_fd gives. */
#define CLIENT_AGAIN (-1)
int client_run(struct client *cl, const struct cli_opts *o, const struct run_ctx *ctx, const struct route *rt,
               const char *in, const char *out, struct run_report *r);
/* "served by the server ..." after a run client_run had served, for the report's line (report.h);
 * "" for none. */
const char *client_served(const struct client *cl);
/* The server's note on its choice of backend for the last request (said with -v), or "". */
const char *client_note(const struct client *cl);
/* The descriptor a rerun here reads "-" from (standard input, read whole by client_run, opened
 * again at its start: the server's copy shares no offset with it), or 0; cl keeps it. */
int client_input_fd(struct client *cl);
/* Whether the last client_run gave up on a server that said nothing for SERVER_SILENT_MS (not
 * even that it is alive): a stopped or wedged server, not worth asking again. */
int client_silent(const struct client *cl);

/* One message of n bytes on the socket fd, with nfd descriptors (at most CLIENT_MAX_FDS) beside
 * it; 0, or -1 (errno). */
#define CLIENT_MAX_FDS 8
int client_send(int fd, const void *buf, size_t n, const int *fds, int nfd);

/* gpuimg --server-status and --server-stop: one line on f; 0, or 1 when no server runs. */
int client_status(FILE *f);
int client_stop(FILE *f);

#endif
