/* gpuimg: the info subcommand (info.h). */
#include <config.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "app/cli.h"
#include "app/info.h"
#include "app/report.h"
#include "core/error.h"
#include "io/formats.h"
#include "io/io.h"
#include "io/jxl.h"
#include "io/meta.h"

static void piece_text(FILE *f, int *first, const char *what, size_t n)
{
    if (!n)
        return;
    fprintf(f, "%s%s %zu bytes", *first ? "; " : ", ", what, n);
    *first = 0;
}

static void piece_json(FILE *f, const char *what, size_t n)
{
    if (n)
        fprintf(f, ", \"%s\": %zu", what, n);
    else
        fprintf(f, ", \"%s\": null", what);
}

/* What a line says of a file */
struct facts {
    const char *format;
    struct geom g;
    int orient, frames, progressive;   /* progressive: -1 for a file that is no JPEG */
    size_t bytes;
    int cmyk;                           /* a CMYK (or YCCK) JPEG: read as RGB */
};

static void print(const char *path, const struct facts *f, const struct io_meta *m, int json)
{
    const struct geom *g = &f->g;
    if (json) {
        fputs("{\"file\": ", stdout);
        report_json_str(stdout, io_display_name(path, 0));
        printf(", \"format\": \"%s\", \"width\": %d, \"height\": %d, \"channels\": %d, \"depth\": %d, "
               "\"orientation\": %d", f->format, g->w, g->h, g->c, g->depth, f->orient);
        if (f->progressive >= 0)
            printf(", \"progressive\": %s, \"cmyk\": %s", f->progressive ? "true" : "false", f->cmyk ? "true" : "false");
        printf(", \"frames\": %d", f->frames);
        piece_json(stdout, "icc", m->icc_len);
        piece_json(stdout, "exif", m->exif_len);
        piece_json(stdout, "xmp", m->xmp_len);
        piece_json(stdout, "iptc", m->iptc_len);
        piece_json(stdout, "comment", m->comment_len);
        if (m->density)
            printf(", \"density\": [%.4g, %.4g]", m->xres, m->yres);
        printf(", \"bytes\": %zu}\n", f->bytes);
        return;
    }
    printf("%s: %s %dx%d %s %d-bit", io_display_name(path, 0), f->format, g->w, g->h,
           f->cmyk ? "CMYK (read as RGB)" : layout_name(g->c), g->depth);
    if (f->orient > 1)
        printf(", orientation %d", f->orient);
    if (f->progressive > 0)
        printf(", progressive");
    if (f->frames > 1)
        printf(", %d frames", f->frames);
    int first = 1;
    piece_text(stdout, &first, "icc", m->icc_len);
    piece_text(stdout, &first, "exif", m->exif_len);
    piece_text(stdout, &first, "xmp", m->xmp_len);
    piece_text(stdout, &first, "iptc", m->iptc_len);
    piece_text(stdout, &first, "comment", m->comment_len);
    if (m->density)
        printf("%s%.4gx%.4g dpi", first ? "; " : ", ", m->xres, m->yres);
    printf(" (%zu bytes)\n", f->bytes);
}

/* A JPEG file from its head alone: the markers up to the first scan within INFO_HEAD bytes (a
 * camera's EXIF and profile come before it), not the whole file's entropy-coded data. */
static int jpeg_head(const uint8_t *head, size_t n, size_t size, struct facts *f, struct io_meta *m)
{
    uint32_t w = 0, h = 0;
    struct jpeg_facts jf;
    if (jpeg_check_head("", head, n, &w, &h, &jf) || !w || !h || (jf.comps != 1 && jf.comps != 3 && jf.comps != 4)
        || meta_read(head, n, KIND_JPEG, m))
        return 1;
    *f = (struct facts){ "JPEG", { (int)w, (int)h, jf.comps == 1 ? 1 : 3, 8 }, jpeg_orientation(head, n), 1,
                         jf.progressive, size, jf.four };
    return 0;
}

/* A file from its first INFO_HEAD bytes, where they say it all: a JPEG (jpeg_head) or a JPEG XL
 * (jxl_head: its header and metadata boxes, not its frames). Returns 0 when it said the file,
 * else non-zero (then the whole file is read). */
#define INFO_HEAD (128u << 10)
static int describe_head(const char *path, int json)
{
    const int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    struct stat st;
    static _Thread_local uint8_t head[INFO_HEAD];
    ssize_t n = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? pread(fd, head, sizeof head, 0) : -1;
    if (fd >= 0)
        close(fd);
    struct facts f;
    struct io_meta m;
    const enum file_kind kind = n < 64 ? KIND_UNKNOWN : sniff_kind(head, (size_t)n);
    if (kind == KIND_JXL && !jxl_head(head, (size_t)n, (size_t)st.st_size, &f.g, &f.frames, &m))
        f = (struct facts){ format_name(kind, head, (size_t)n), f.g, 1, f.frames, -1, (size_t)st.st_size, 0 };
    else if (kind != KIND_JPEG || jpeg_head(head, (size_t)n, (size_t)st.st_size, &f, &m)) {
        gpuimg_clear_error();
        return 1;
    }
    print(path, &f, &m, json);
    meta_free(&m);
    return 0;
}

/* One file: a line on stdout, or the error's line on stderr (returns non-zero) */
static int describe(const char *path, int json)
{
    if (!describe_head(path, json))
        return 0;
    /* headers only: no pixel or expansion limit, nothing is decoded */
    const struct load_opts lo = { 0, DEC_AUTO, DEC_AUTO, 0, 0, 0 };
    struct io_input in;
    struct io_meta m = { 0 };
    int st = io_read(path, &lo, &in);
    if (!st && (st = io_read_meta(&in, &m)))
        io_input_free(&in);
    if (st) {
        gpuimg_print_line(stderr, gpuimg_errmsg() ? gpuimg_errmsg() : gpuimg_strerror(st));
        gpuimg_clear_error();
        return 1;
    }
    const struct facts f = { format_name(in.kind, in.buf, in.len), in.g,
                             in.kind == KIND_JPEG ? in.orient : m.exif ? exif_orientation(m.exif, m.exif_len, NULL) : 1,
                             in.frames, in.kind == KIND_JPEG ? in.jpeg_facts.progressive : -1, in.len,
                             in.kind == KIND_JPEG && in.jpeg_facts.four };
    print(path, &f, &m, json);
    meta_free(&m);
    io_input_free(&in);
    return 0;
}

int info_main(int argc, char **argv)
{
    int json = 0, files = 0, failed = 0, opts = 1;
    for (int i = 1; i < argc; i++) {
        if (opts && !strcmp(argv[i], "--")) {
            opts = 0;
        } else if (opts && !strcmp(argv[i], "--json")) {
            json = 1;
        } else if (opts && (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))) {
            printf("Usage: gpuimg info [--json] FILE...\n"
                   "Describe each FILE from its header and metadata, decoding no pixels: format, size, channels,\n"
                   "depth, EXIF orientation, progressive JPEG, the ICC, EXIF, XMP, IPTC and comment it carries\n"
                   "(their bytes) and the density; --json: a JSON object a line. '-' reads stdin.\n");
            return 0;
        } else if (opts && argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "gpuimg: info: unknown option '%s' (gpuimg info [--json] FILE...)\n", argv[i]);
            cli_usage(stderr);
            return 2;
        }
    }
    for (int i = 1, opt = 1; i < argc; i++) {
        if (opt && (!strcmp(argv[i], "--") || (argv[i][0] == '-' && argv[i][1]))) {
            opt = strcmp(argv[i], "--") != 0;
            continue;
        }
        files++;
        failed += describe(argv[i], json);
        fflush(stdout);
    }
    if (!files) {
        fprintf(stderr, "gpuimg: info: no FILE (gpuimg info [--json] FILE...)\n");
        cli_usage(stderr);
        return 2;
    }
    return failed ? 1 : 0;
}
