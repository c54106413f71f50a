/* gpuimg: the server's wire format (server.h). One request and one reply are each one
 * SOCK_SEQPACKET message: an 8-byte magic that carries the version, then fixed fields in order,
 * integers little-endian in 64 bits, strings as a 64-bit length and their bytes (no NUL inside).
 * A run request carries two descriptors beside it (SCM_RIGHTS): the input and the output, open by
 * the client. Parsing checks every length and range and rejects trailing bytes; it never trusts a
 * byte. These functions do no I/O: the fuzz target calls them directly. */
#ifndef GPUIMG_PROTO_H
#define GPUIMG_PROTO_H
#include <stddef.h>
#include <stdint.h>
#include "lib/options.h"
#include "core/timing.h"

#define PROTO_MAX_MSG 65536   /* the largest message either side sends or takes */
#define PROTO_MAX_TEXT 4096   /* a pipeline, a file name */
#define PROTO_MAX_MESSAGE 1024

enum proto_kind { PROTO_RUN = 1, PROTO_STATUS, PROTO_STOP };

/* What main() would do for PIPELINE INPUT OUTPUT, with the client's options: the fields of the
 * option table's rows marked OPT_WIRE, in the table's order, each held to its row's range. A
 * reader leaves the others as it finds them (the server's own: its knobs). */
struct proto_request {
    int kind;
    char pipeline[PROTO_MAX_TEXT + 1], input[PROTO_MAX_TEXT + 1], output[PROTO_MAX_TEXT + 1];
    struct cli_opts opts;
};

/* ALIVE: not an answer: the server says it is alive while the request waits or runs (server.h) */
enum proto_answer { PROTO_DONE, PROTO_BUSY, PROTO_REFUSED, PROTO_ALIVE };

/* The outcome, and the run's report with its strings held here. */
struct proto_reply {
    int answer;                   /* BUSY: the queue is full; REFUSED: a bad request (message says) */
    int status;                   /* the run's gpuimg_status */
    char message[PROTO_MAX_MESSAGE + 1];   /* its error line, the backend's note, or the status text */
    char select_note[256];        /* why auto chose the CPU (said with -v) */
    char backend[16], device[256], fallback[256], decoder[128], encoder[128], note[320], declined[128];
    struct geom in, out;
    int shrink, orient, frames, tiles, tile_w, tile_h, streamed, threads, nsteps;
    double decode_ms, upload_ms, process_ms, download_ms, encode_ms, total_ms, gpu_init_ms;
    struct { char label[96]; double ms; } steps[REPORT_MAX_STEPS];
    /* the server: its context's cost, paid by its first job; jobs run before this one */
    double context_ms;
    long jobs_before;
};

/* Into buf (PROTO_MAX_MSG bytes): the length, or 0 when a field is out of range. */
size_t proto_write_request(const struct proto_request *q, uint8_t *buf);
size_t proto_write_reply(const struct proto_reply *a, uint8_t *buf);
/* 0, or -1 with why (a static string) */
int proto_read_request(const uint8_t *buf, size_t len, struct proto_request *q, const char **why);
int proto_read_reply(const uint8_t *buf, size_t len, struct proto_reply *a, const char **why);

/* The report's fields to and from a reply (strings copied in; r's pointers into a). */
void proto_reply_from_report(struct proto_reply *a, const struct run_report *r);
void proto_reply_to_report(const struct proto_reply *a, struct run_report *r);

#endif
