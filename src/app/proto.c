/* gpuimg: the server's wire format (see proto.h). One walk over the fields serves both
 * directions, so the writer and the reader cannot disagree on order or ranges. */
#include <config.h>
#include <string.h>
#include "app/proto.h"
#include "core/error.h"
#include "core/op.h"

static const uint8_t magic_request[8] = { 'g', 'p', 'u', 'i', 'm', 'g', 'Q', 5 };
static const uint8_t magic_reply[8] = { 'g', 'p', 'u', 'i', 'm', 'g', 'A', 5 };

struct wire {
    uint8_t *out;          /* writing into out, else reading in */
    const uint8_t *in;
    size_t pos, len;       /* len: the message's (reading) or the buffer's (writing) */
    const char *why;       /* the first failure */
};

static int room(struct wire *x, size_t n)
{
    if (x->why)
        return 0;
    if (n > x->len - x->pos) {
        x->why = x->out ? "message too long" : "message cut short";
        return 0;
    }
    return 1;
}

static void bytes(struct wire *x, void *p, size_t n)
{
    if (!room(x, n))
        return;
    if (x->out)
        memcpy(x->out + x->pos, p, n);
    else
        memcpy(p, x->in + x->pos, n);
    x->pos += n;
}

static void u64f(struct wire *x, uint64_t *v)
{
    uint8_t b[8];
    for (int i = 0; x->out && i < 8; i++)
        b[i] = (uint8_t)(*v >> (8 * i));
    bytes(x, b, 8);
    if (!x->out && !x->why) {
        *v = 0;
        for (int i = 0; i < 8; i++)
            *v |= (uint64_t)b[i] << (8 * i);
    }
}

/* an integer in [lo, hi], as 64 bits */
static void intf(struct wire *x, long long lo, long long hi, void *p, size_t size)
{
    long long v = 0;
    if (x->out)
        v = size == sizeof(int) ? *(int *)p : *(long *)p;
    uint64_t u = (uint64_t)v;
    u64f(x, &u);
    v = (long long)u;
    if (!x->why && (v < lo || v > hi))
        x->why = "a number out of range";
    if (!x->out && !x->why) {
        if (size == sizeof(int))
            *(int *)p = (int)v;
        else
            *(long *)p = (long)v;
    }
}
#define INT(x, lo, hi, field) intf(x, lo, hi, &(field), sizeof(field))

static void dblf(struct wire *x, double *v)
{
    uint64_t u;
    memcpy(&u, v, 8);
    u64f(x, &u);
    if (!x->out && !x->why)
        memcpy(v, &u, 8);
}

/* a string of at most cap - 1 bytes, none of them NUL */
static void strf(struct wire *x, char *s, size_t cap)
{
    uint64_t n = x->out ? strlen(s) : 0;
    u64f(x, &n);
    if (!x->why && n >= cap)
        x->why = "a text too long";
    if (!room(x, (size_t)n))
        return;
    if (x->out)
        memcpy(x->out + x->pos, s, (size_t)n);
    else {
        memcpy(s, x->in + x->pos, (size_t)n);
        s[n] = 0;
        if (strlen(s) != n)
            x->why = "a NUL inside a text";
    }
    x->pos += (size_t)n;
}
#define STR(x, field) strf(x, field, sizeof(field))

static void head(struct wire *x, const uint8_t *magic)
{
    uint8_t m[8];
    if (x->out)
        memcpy(m, magic, 8);
    bytes(x, m, 8);
    if (!x->why && memcmp(m, magic, 8))
        x->why = memcmp(m, magic, 7) ? "not a gpuimg message" : "another version of gpuimg";
}

static void geomf(struct wire *x, struct geom *g)
{
    INT(x, 0, 1 << 30, g->w);
    INT(x, 0, 1 << 30, g->h);
    INT(x, 0, 4, g->c);
    INT(x, 0, 16, g->depth);
}

static void walk_request(struct wire *x, struct proto_request *q)
{
    head(x, magic_request);
    INT(x, PROTO_RUN, PROTO_STOP, q->kind);
    if (q->kind != PROTO_RUN || x->why)
        return;
    STR(x, q->pipeline);
    STR(x, q->input);
    STR(x, q->output);
    for (int i = 0; i < option_count && !x->why; i++) {
        const struct opt_desc *d = &option_table[i];
        long long lo, hi;
        if (!(d->flags & OPT_WIRE))
            continue;
        option_range(d, &lo, &hi);
        if (d->size == sizeof(uint64_t)) {
            uint64_t *v = option_field(&q->opts, d);
            u64f(x, v);
            if (!x->why && (*v < (uint64_t)lo || *v > (uint64_t)hi))
                x->why = "a number out of range";
        } else
            intf(x, lo, hi, option_field(&q->opts, d), d->size);
    }
    if (!x->why && q->opts.jpeg_sampling && q->opts.jpeg_sampling != 420 && q->opts.jpeg_sampling != 422
        && q->opts.jpeg_sampling != 444)
        x->why = "a JPEG sampling out of range";
}

static void walk_reply(struct wire *x, struct proto_reply *a)
{
    head(x, magic_reply);
    INT(x, PROTO_DONE, PROTO_ALIVE, a->answer);
    INT(x, 0, GPUIMG_NSTATUS - 1, a->status);
    STR(x, a->message);
    STR(x, a->select_note);
    STR(x, a->backend);
    STR(x, a->device);
    STR(x, a->fallback);
    STR(x, a->decoder);
    STR(x, a->encoder);
    STR(x, a->note);
    STR(x, a->declined);
    geomf(x, &a->in);
    geomf(x, &a->out);
    INT(x, 0, 64, a->shrink);
    INT(x, 0, 8, a->orient);
    INT(x, 0, 1 << 30, a->frames);
    INT(x, 0, 1 << 30, a->tiles);
    INT(x, 0, 1 << 30, a->tile_w);
    INT(x, 0, 1 << 30, a->tile_h);
    INT(x, 0, 1, a->streamed);
    INT(x, 0, 1 << 20, a->threads);
    INT(x, 0, REPORT_MAX_STEPS, a->nsteps);
    double *d[] = { &a->decode_ms, &a->upload_ms,   &a->process_ms,  &a->download_ms,
                    &a->encode_ms, &a->total_ms,    &a->gpu_init_ms, &a->context_ms };
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        dblf(x, d[i]);
    for (int i = 0; i < a->nsteps && !x->why; i++) {
        STR(x, a->steps[i].label);
        dblf(x, &a->steps[i].ms);
    }
    INT(x, 0, 1L << 62, a->jobs_before);
}

static size_t finish_write(struct wire *x)
{
    return x->why ? 0 : x->pos;
}

static int finish_read(struct wire *x, const char **why)
{
    if (!x->why && x->pos != x->len)
        x->why = "bytes after the message";
    *why = x->why;
    return x->why ? -1 : 0;
}

size_t proto_write_request(const struct proto_request *q, uint8_t *buf)
{
    struct wire x = { .out = buf, .len = PROTO_MAX_MSG };
    walk_request(&x, (struct proto_request *)q);
    return finish_write(&x);
}

size_t proto_write_reply(const struct proto_reply *a, uint8_t *buf)
{
    struct wire x = { .out = buf, .len = PROTO_MAX_MSG };
    walk_reply(&x, (struct proto_reply *)a);
    return finish_write(&x);
}

int proto_read_request(const uint8_t *buf, size_t len, struct proto_request *q, const char **why)
{
    const struct cli_opts keep = q->opts;   /* what the wire does not carry stays */
    memset(q, 0, sizeof *q);
    q->opts = keep;
    struct wire x = { .in = buf, .len = len };
    walk_request(&x, q);
    return finish_read(&x, why);
}

int proto_read_reply(const uint8_t *buf, size_t len, struct proto_reply *a, const char **why)
{
    memset(a, 0, sizeof *a);
    struct wire x = { .in = buf, .len = len };
    walk_reply(&x, a);
    return finish_read(&x, why);
}

static void copy(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

void proto_reply_from_report(struct proto_reply *a, const struct run_report *r)
{
    copy(a->backend, sizeof a->backend, r->backend);
    copy(a->device, sizeof a->device, r->device);
    copy(a->fallback, sizeof a->fallback, r->fallback);
    copy(a->decoder, sizeof a->decoder, r->decoder);
    copy(a->encoder, sizeof a->encoder, r->encoder);
    copy(a->note, sizeof a->note, r->note);
    copy(a->declined, sizeof a->declined, r->declined);
    a->in = r->in;
    a->out = r->out;
    a->shrink = r->shrink;
    a->orient = r->orient;
    a->frames = r->frames;
    a->tiles = r->tiles;
    a->tile_w = r->tile_w;
    a->tile_h = r->tile_h;
    a->streamed = r->streamed;
    a->threads = r->threads;
    a->nsteps = r->nsteps;
    for (int i = 0; i < r->nsteps; i++) {
        copy(a->steps[i].label, sizeof a->steps[i].label, r->steps[i].label);
        a->steps[i].ms = r->steps[i].ms;
    }
    a->decode_ms = r->decode_ms;
    a->upload_ms = r->upload_ms;
    a->process_ms = r->process_ms;
    a->download_ms = r->download_ms;
    a->encode_ms = r->encode_ms;
    a->total_ms = r->total_ms;
    a->gpu_init_ms = r->gpu_init_ms;
}

static const char *or_null(const char *s)
{
    return s[0] ? s : NULL;
}

void proto_reply_to_report(const struct proto_reply *a, struct run_report *r)
{
    r->backend = or_null(a->backend);
    r->device = or_null(a->device);
    r->fallback = or_null(a->fallback);
    r->decoder = or_null(a->decoder);
    r->encoder = or_null(a->encoder);
    snprintf(r->note, sizeof r->note, "%s", a->note);
    snprintf(r->declined, sizeof r->declined, "%s", a->declined);
    r->in = a->in;
    r->out = a->out;
    r->shrink = a->shrink;
    r->orient = a->orient;
    r->frames = a->frames;
    r->tiles = a->tiles;
    r->tile_w = a->tile_w;
    r->tile_h = a->tile_h;
    r->streamed = a->streamed;
    r->threads = a->threads;
    r->nsteps = a->nsteps;
    for (int i = 0; i < a->nsteps; i++) {
        copy(r->steps[i].label, sizeof r->steps[i].label, a->steps[i].label);
        r->steps[i].ms = a->steps[i].ms;
    }
    r->decode_ms = a->decode_ms;
    r->upload_ms = a->upload_ms;
    r->process_ms = a->process_ms;
    r->download_ms = a->download_ms;
    r->encode_ms = a->encode_ms;
    r->total_ms = a->total_ms;
    r->gpu_init_ms = a->gpu_init_ms;
}
