/* gpuimg: image file input and output (see io.h). */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>
#include "core/error.h"
#include "io/formats.h"
#include "io/io.h"
#include "io/pngenc.h"

static const char *display_name(const char *path, int out)
{
    return strcmp(path, "-") == 0 ? (out ? "<stdout>" : "<stdin>") : path;
}

/* ---- reading ------------------------------------------------------------------------------ */

static int read_stream(int fd, const char *name, uint8_t **buf, size_t *len, size_t hint)
{
    size_t cap = hint ? hint + 1 : 1 << 16, n = 0;
    uint8_t *b = malloc(cap);
    if (!b)
        return gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory reading the file", name);
    for (;;) {
        if (n == cap) {
            if (cap > SIZE_MAX / 2) {
                free(b);
                return gpuimg_fail(GPUIMG_ETOOBIG, "%s: file too large", name);
            }
            uint8_t *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                return gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory reading the file", name);
            }
            b = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, b + n, cap - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            free(b);
            return gpuimg_fail(GPUIMG_EOPEN, "%s: read error: %s", name, strerror(e));
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    *buf = b;
    *len = n;
    return GPUIMG_OK;
}

static int read_file(const char *path, uint8_t **buf, size_t *len)
{
    const char *name = display_name(path, 0);
    if (strcmp(path, "-") == 0)
        return read_stream(STDIN_FILENO, name, buf, len, 0);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return gpuimg_fail(GPUIMG_EOPEN, "%s: cannot open: %s", name, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return gpuimg_fail(GPUIMG_EOPEN, "%s: cannot stat: %s", name, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return gpuimg_fail(GPUIMG_EOPEN, "%s: is a directory", name);
    }
    int st2 = read_stream(fd, name, buf, len, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0);
    close(fd);
    return st2;
}

static const char *stb_reason(void)
{
    const char *r = stbi_failure_reason();
    if (!r)
        return "unknown decoder error";
    if (strcmp(r, "Image not of any known type, or corrupt") == 0 || strcmp(r, "unknown image type") == 0)
        return "not an image in a format gpuimg reads (PNG, JPEG, BMP, TGA, PSD, GIF, PNM, HDR)";
    return r;
}

int io_read(const char *path, const struct load_opts *o, struct io_input *in)
{
    memset(in, 0, sizeof *in);
    uint8_t *buf;
    size_t len;
    int st = read_file(path, &buf, &len);
    return st ? st : io_parse(display_name(path, 0), buf, len, o, in);
}

int io_parse(const char *name, uint8_t *buf, size_t len, const struct load_opts *o, struct io_input *in)
{
    memset(in, 0, sizeof *in);
    int st = GPUIMG_OK;
    if (len == 0) {
        free(buf);
        return gpuimg_fail(GPUIMG_EDECODE, "%s: empty file", name);
    }
    if (len > INT_MAX) {
        free(buf);
        return gpuimg_fail(GPUIMG_ETOOBIG, "%s: file of %zu bytes is larger than the decoder takes (2 GiB)", name, len);
    }
    uint32_t hw = 0, hh = 0;
    const enum file_kind kind = sniff_kind(buf, len);
    switch (kind) {
    case KIND_PNG: st = png_check(name, buf, len, &hw, &hh); break;
    case KIND_JPEG: st = jpeg_check(name, buf, len, &hw, &hh); break;
    case KIND_PNM: st = pnm_check(name, buf, len, &hw, &hh); break;
    default: break;
    }
    if (!st && o->max_pixels && (uint64_t)hw * hh > o->max_pixels)
        st = gpuimg_fail(GPUIMG_ETOOBIG, "%s: image is %ux%u (%llu pixels), over the limit of %llu pixels (--max-pixels)",
                         name, hw, hh, (unsigned long long)hw * hh, (unsigned long long)o->max_pixels);
    int w, h, comp;
    if (!st && !stbi_info_from_memory(buf, (int)len, &w, &h, &comp))
        st = hw ? gpuimg_fail(GPUIMG_ETOOBIG, "%s: the decoder cannot take this %ux%u image (stb_image: %s)", name, hw, hh,
                              stbi_failure_reason() ? stbi_failure_reason() : "refused")
                : gpuimg_fail(GPUIMG_EDECODE, "%s: %s", name, stb_reason());
    if (!st && (w <= 0 || h <= 0))
        st = gpuimg_fail(GPUIMG_EDECODE, "%s: image has a zero or negative size (%dx%d)", name, w, h);
    /* The pixel limit is checked on the header, before the decoder allocates anything. */
    if (!st && o->max_pixels && (uint64_t)w * (uint64_t)h > o->max_pixels)
        st = gpuimg_fail(GPUIMG_ETOOBIG, "%s: image is %dx%d (%llu pixels), over the limit of %llu pixels (--max-pixels)",
                         name, w, h, (unsigned long long)w * (unsigned long long)h, (unsigned long long)o->max_pixels);
    if (st) {
        free(buf);
        return st;
    }
    in->buf = buf;
    in->len = len;
    in->name = name;
    in->jpeg = kind == KIND_JPEG;
    in->g = (struct geom){ w, h, comp, stbi_is_16_bit_from_memory(buf, (int)len) ? 16 : 8 };
    return GPUIMG_OK;
}

void io_input_free(struct io_input *in)
{
    free(in->buf);
    in->buf = NULL;
}

int io_decode(struct io_input *in, struct image *out)
{
    int w, h, comp;
    const int is16 = in->g.depth == 16;
    void *px = is16 ? (void *)stbi_load_16_from_memory(in->buf, (int)in->len, &w, &h, &comp, 0)
                    : (void *)stbi_load_from_memory(in->buf, (int)in->len, &w, &h, &comp, 0);
    io_input_free(in);
    if (!px)
        return gpuimg_fail(GPUIMG_EDECODE, "%s: cannot decode: %s", in->name, stb_reason());
    struct geom g = { w, h, comp, is16 ? 16 : 8 };
    /* The plan was resolved on the header's geometry: a decoder that disagrees with its own
     * header must not hand the operations a buffer of another size. */
    if (g.w != in->g.w || g.h != in->g.h || g.c != in->g.c) {
        free(px);
        return gpuimg_fail(GPUIMG_EDECODE, "%s: corrupt image: the header says %dx%d with %d channels, the data %dx%d with %d",
                           in->name, in->g.w, in->g.h, in->g.c, w, h, comp);
    }
    image_wrap(out, &g, px);
    return GPUIMG_OK;
}

int io_load(const char *path, const struct load_opts *o, struct image *out)
{
    struct io_input in;
    int st = io_read(path, o, &in);
    return st ? st : io_decode(&in, out);
}

/* ---- formats -------------------------------------------------------------------------------- */

static const struct { const char *name; enum out_format f; } fmt_names[] = {
    { "png", FMT_PNG }, { "jpg", FMT_JPEG }, { "jpeg", FMT_JPEG }, { "bmp", FMT_BMP }, { "tga", FMT_TGA },
};

int io_format_from_name(const char *name, enum out_format *f)
{
    for (size_t i = 0; i < sizeof fmt_names / sizeof fmt_names[0]; i++)
        if (strcasecmp(name, fmt_names[i].name) == 0) {
            *f = fmt_names[i].f;
            return GPUIMG_OK;
        }
    return GPUIMG_EUSAGE;
}

int io_format_from_path(const char *path, enum out_format *f)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    if (!dot || !dot[1])
        return GPUIMG_EUSAGE;
    return io_format_from_name(dot + 1, f);
}

int io_check_size(const char *path, enum out_format f, const struct geom *g)
{
    static const int max_side[] = { [FMT_PNG] = 1000000, [FMT_JPEG] = 65535, [FMT_BMP] = 1 << 24, [FMT_TGA] = 65535 };
    static const char *const what[] = { [FMT_PNG] = "PNG (libpng)", [FMT_JPEG] = "JPEG", [FMT_BMP] = "BMP",
                                        [FMT_TGA] = "TGA" };
    if (g->w <= max_side[f] && g->h <= max_side[f])
        return GPUIMG_OK;
    return gpuimg_fail(GPUIMG_ETOOBIG, "%s: %s holds at most %d pixels a side; the result would be %dx%d",
                       strcmp(path, "-") ? path : "<stdout>", what[f], max_side[f], g->w, g->h);
}

const char *io_format_name(enum out_format f)
{
    static const char *const n[] = { "png", "jpeg", "bmp", "tga" };
    return n[f];
}

/* ---- temporary files and signals ----------------------------------------------------------- */

/* Every temporary output being written (one per worker of a batch) has a slot; the signal
 * handler removes those armed. A slot's path is written before it is armed and disarmed before
 * it is reused, so the handler never sees a half-written name. */
#define TMP_SLOTS 128
static char tmp_path[TMP_SLOTS][PATH_MAX + 32];
static volatile sig_atomic_t tmp_armed[TMP_SLOTS];
static int tmp_used[TMP_SLOTS];
static pthread_mutex_t tmp_lock = PTHREAD_MUTEX_INITIALIZER;
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
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
    file_mode();
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
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

int io_make_dirs(const char *path)
{
    char dir[PATH_MAX];
    int r = dir_of(path, dir, sizeof dir);
    for (char *p = dir + 1; !r; p++) {   /* mkdir -p: each prefix ending at a slash, then the whole */
        const int end = *p == 0;
        if (*p == '/' || end) {
            *p = 0;
            struct stat st;
            if (mkdir(dir, 0777) != 0 && errno != EEXIST)
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

int io_check_output(const char *path, const struct save_opts *o)
{
    if (strcmp(path, "-") == 0)
        return GPUIMG_OK;
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return gpuimg_fail(GPUIMG_EWRITE, "%s: is a directory", path);
        if (S_ISREG(st.st_mode) && !o->force)
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

/* ---- encoders -------------------------------------------------------------------------------- */

struct sink { FILE *fp; int failed; int err; };

static void sink_write(void *ctx, void *data, int size)
{
    struct sink *s = ctx;
    if (!s->failed && fwrite(data, 1, (size_t)size, s->fp) != (size_t)size) {
        s->failed = 1;
        s->err = errno;
    }
}

static int write_stb(FILE *fp, const char *name, const struct image *im, const struct save_opts *o)
{
    const uint8_t *px = im->data;
    uint8_t *tmp = NULL;
    if (im->depth == 16) { /* these formats are 8-bit: round each sample, v8 = round(v16 / 257) */
        size_t n = (size_t)im->w * im->h * im->c;
        tmp = malloc(n);
        if (!tmp)
            return gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory converting to 8 bits", name);
        const uint16_t *s = (const uint16_t *)im->data;
        for (size_t i = 0; i < n; i++)
            tmp[i] = (uint8_t)((s[i] + 128u) / 257u);
        px = tmp;
    }
    struct sink s = { fp, 0, 0 };
    int ok;
    switch (o->fmt) {
    case FMT_JPEG: ok = stbi_write_jpg_to_func(sink_write, &s, im->w, im->h, im->c, px, o->jpeg_quality); break;
    case FMT_BMP: ok = stbi_write_bmp_to_func(sink_write, &s, im->w, im->h, im->c, px); break;
    case FMT_TGA: ok = stbi_write_tga_to_func(sink_write, &s, im->w, im->h, im->c, px); break;
    default: ok = 0;
    }
    free(tmp);
    if (s.failed)
        return gpuimg_fail(GPUIMG_EWRITE, "%s: write failed: %s", name, strerror(s.err));
    if (!ok)
        return gpuimg_fail(GPUIMG_EENCODE, "%s: the %s encoder failed", name, io_format_name(o->fmt));
    return GPUIMG_OK;
}

static int encode_to(FILE *fp, const char *name, const struct image *im, const struct save_opts *o)
{
    int st = o->fmt == FMT_PNG ? pngenc_write(fp, name, im, o->png_level, o->threads) : write_stb(fp, name, im, o);
    if (!st && fflush(fp) != 0)
        st = gpuimg_fail(GPUIMG_EWRITE, "%s: write failed: %s", name, strerror(errno));
    return st;
}

/* Put the finished temporary file in place. Without --force, link() refuses to replace a file
 * that appeared since io_check_output(); with it, rename() replaces atomically. */
static int publish(const char *tmp, const char *path, int force)
{
    if (!force) {
        if (link(tmp, path) == 0) {
            unlink(tmp);
            return GPUIMG_OK;
        }
        if (errno == EEXIST)
            return gpuimg_fail(GPUIMG_EEXISTS, "%s: output exists (use --force to replace it)", path);
        /* file systems without hard links: fall back to rename */
    }
    if (rename(tmp, path) != 0)
        return gpuimg_fail(GPUIMG_EWRITE, "%s: cannot rename the finished file into place: %s", path, strerror(errno));
    return GPUIMG_OK;
}

int io_save(const char *path, const struct image *im, const struct save_opts *o)
{
    const char *name = display_name(path, 1);
    const struct geom g = image_geom(im);
    int sr = io_check_size(path, o->fmt, &g);
    if (sr)
        return sr;
    if (strcmp(path, "-") == 0)
        return encode_to(stdout, name, im, o);

    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        /* a device or a pipe (/dev/null, a FIFO): nothing to rename, write straight to it */
        FILE *fp = fopen(path, "wb");
        if (!fp)
            return gpuimg_fail(GPUIMG_EWRITE, "%s: cannot open: %s", name, strerror(errno));
        int r = encode_to(fp, name, im, o);
        if (fclose(fp) != 0 && !r)
            r = gpuimg_fail(GPUIMG_EWRITE, "%s: write failed: %s", name, strerror(errno));
        return r;
    }
    int r = io_check_output(path, o);
    if (r)
        return r;

    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
    if (strlen(path) + 16 >= sizeof tmp_path[0])
        return gpuimg_fail(GPUIMG_EWRITE, "%s: path too long", name);
    char tmp[sizeof tmp_path[0]];
    snprintf(tmp, sizeof tmp, "%.*s.%s.XXXXXX", (int)dirlen, path, path + dirlen);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return gpuimg_fail(GPUIMG_EWRITE, "%s: cannot create a temporary file beside it: %s", name, strerror(errno));
    const int slot = tmp_arm(tmp);
    fchmod(fd, file_mode());
    FILE *fp = fdopen(fd, "wb");
    if (!fp) {
        r = gpuimg_fail(GPUIMG_ENOMEM, "%s: cannot open a stream: %s", name, strerror(errno));
        close(fd);
    } else {
        r = encode_to(fp, name, im, o);
        if (fclose(fp) != 0 && !r)
            r = gpuimg_fail(GPUIMG_EWRITE, "%s: write failed: %s", name, strerror(errno));
    }
    if (!r)
        r = publish(tmp, path, o->force);
    if (r)
        unlink(tmp);
    tmp_disarm(slot);
    return r;
}
