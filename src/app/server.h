/* gpuimg: the per-user server. It holds what every process would otherwise make again (the
 * CUDA context, loaded kernels, the JPEG engines' decoder, nvCOMP, pinned and device buffers)
 * and runs clients' commands on files the clients opened: it never opens a path of theirs.
 *
 * Where: a Unix socket (SOCK_SEQPACKET) in a directory only the user can enter:
 * $GPUIMG_SERVER_DIR, else $XDG_RUNTIME_DIR/gpuimg, else /tmp/gpuimg-UID; the directory is
 * refused when another user owns it or others may enter it. One server per user and per
 * gpuimg binary (its device and inode, size and time, and CUDA_VISIBLE_DEVICES name the
 * socket), so a rebuilt or another installed gpuimg never talks to this one. A lock file beside
 * the socket, held for the server's life, makes two servers starting at once end as one; the
 * holder replaces a stale socket.
 *
 * Trust: a connecting process must have the server's uid (SO_PEERCRED); every request is
 * checked field by field (proto.h); a bad request is refused alone, a bad image fails its
 * client alone. At most SERVER_MAX_CLIENTS connections, SERVER_MAX_QUEUE requests waiting: past
 * that a request is answered "busy" at once and the client runs it itself. Requests run on
 * one worker a core, SERVER_WORKERS_PER_CORE once a GPU's JPEG engines are made, each worker on
 * one of the GPUs in turn, so concurrent requests' JPEG decodes and PNG deflates share each
 * GPU's batched calls; a request's OpenMP threads are at most twice the cores over the workers.
 * A client that hangs up has its waiting requests dropped.
 *
 * Liveness: while a client's request waits or runs, the server sends it a PROTO_ALIVE message
 * every SERVER_ALIVE_MS (one at a time: none while the last is unread); a client that hears
 * nothing for SERVER_SILENT_MS (a stopped or wedged server) gives up, hangs up and runs the file
 * itself. A long run is never cut off while the server lives. The server waits at most
 * SERVER_SEND_MS for room to send a run's answer to a client that does not read; its own
 * answers (status, refusals) are sent only when there is room at once. */
#ifndef GPUIMG_SERVER_H
#define GPUIMG_SERVER_H
#include <limits.h>
#include <stddef.h>
#include "lib/options.h"

#define SERVER_MAX_CLIENTS 1024   /* four batches of --jobs's most */
#define SERVER_WORKERS_PER_CORE 4   /* once a GPU's JPEG engines are made; a batch sends as many */
#define SERVER_MAX_QUEUE 256
#define SERVER_ALIVE_MS 1000
#define SERVER_SILENT_MS 5000
#define SERVER_SEND_MS 5000

struct server_paths {
    char dir[PATH_MAX], sock[108], lock[108];   /* the lock's name is as long as the socket's */
};
/* The command's options (the environment's places among them), kept for the calls below; once,
 * before them. */
void server_configure(const struct cli_opts *o);
/* The directory (made 0700 where missing, checked where present) and this build's socket and
 * lock names; a status with the reason recorded when the directory is not the user's alone. */
int server_paths(struct server_paths *p);

/* gpuimg --server: run in the foreground until --server-idle seconds pass with no client,
 * --server-stop or SIGTERM/SIGINT. 0 when it ran (or one was already running: said unless -q).
 * A request's options not on the wire are the server's own (its environment's knobs). */
int server_main(const struct cli_opts *o);

#endif
