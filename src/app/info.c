/* gpuimg: the info subcommand (info.h). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include "app/cli.h"
#include "app/info.h"
#include "app/report.h"
#include "core/error.h"
#include "io/formats.h"
#include "io/io.h"
#include "io/meta.h"

static const char *format_name(const struct io_input *in)
{
    if (in->kind != KIND_HEIF)
        return kind_name(in->kind);
    return in->len >= 12 && (!memcmp(in->buf + 8, "avif", 4) || !memcmp(in->buf + 8, "avis", 4)) ? "AVIF" : "HEIF";
}

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

/* One file: a line on stdout, or the error's line on stderr (returns non-zero) */
static int describe(const char *path, int json)
{
    /* headers only: no pixel or expansion limit, nothing is decoded */
    const struct load_opts lo = { 0, DEC_AUTO, DEC_AUTO, 0, 0 };
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
    const struct geom *g = &in.g;
    const int orient = in.kind == KIND_JPEG ? in.orient : m.exif ? exif_orientation(m.exif, m.exif_len, NULL) : 1;
    if (json) {
        fputs("{\"file\": ", stdout);
        report_json_str(stdout, io_display_name(path, 0));
        printf(", \"format\": \"%s\", \"width\": %d, \"height\": %d, \"channels\": %d, \"depth\": %d, "
               "\"orientation\": %d", format_name(&in), g->w, g->h, g->c, g->depth, orient);
        if (in.kind == KIND_JPEG)
            printf(", \"progressive\": %s", in.jpeg_facts.progressive ? "true" : "false");
        printf(", \"frames\": %d", in.frames);
        piece_json(stdout, "icc", m.icc_len);
        piece_json(stdout, "exif", m.exif_len);
        piece_json(stdout, "xmp", m.xmp_len);
        piece_json(stdout, "iptc", m.iptc_len);
        piece_json(stdout, "comment", m.comment_len);
        if (m.density)
            printf(", \"density\": [%.4g, %.4g]", m.xres, m.yres);
        printf(", \"bytes\": %zu}\n", in.len);
    } else {
        printf("%s: %s %dx%d %s %d-bit", io_display_name(path, 0), format_name(&in), g->w, g->h, layout_name(g->c),
               g->depth);
        if (orient > 1)
            printf(", orientation %d", orient);
        if (in.kind == KIND_JPEG && in.jpeg_facts.progressive)
            printf(", progressive");
        if (in.frames > 1)
            printf(", %d frames", in.frames);
        int first = 1;
        piece_text(stdout, &first, "icc", m.icc_len);
        piece_text(stdout, &first, "exif", m.exif_len);
        piece_text(stdout, &first, "xmp", m.xmp_len);
        piece_text(stdout, &first, "iptc", m.iptc_len);
        piece_text(stdout, &first, "comment", m.comment_len);
        if (m.density)
            printf("%s%.4gx%.4g dpi", first ? "; " : ", ", m.xres, m.yres);
        printf(" (%zu bytes)\n", in.len);
    }
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
