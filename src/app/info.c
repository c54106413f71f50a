/* gpuimg: the info subcommand (info.h), a user of the library's gpuimg_info_read. */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <gpuimg.h>
#include "app/cli.h"
#include "app/info.h"
#include "app/report.h"
#include "core/error.h"
#include "io/io.h"

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

static void print(const char *path, const gpuimg_info *f, int json)
{
    if (json) {
        fputs("{\"file\": ", stdout);
        report_json_str(stdout, io_display_name(path, 0));
        printf(", \"format\": \"%s\", \"width\": %d, \"height\": %d, \"channels\": %d, \"depth\": %d, "
               "\"orientation\": %d", f->format, f->width, f->height, f->channels, f->depth, f->orientation);
        if (f->progressive >= 0)
            printf(", \"progressive\": %s, \"cmyk\": %s", f->progressive ? "true" : "false", f->cmyk ? "true" : "false");
        printf(", \"frames\": %d", f->frames);
        piece_json(stdout, "icc", f->icc);
        piece_json(stdout, "exif", f->exif);
        piece_json(stdout, "xmp", f->xmp);
        piece_json(stdout, "iptc", f->iptc);
        piece_json(stdout, "comment", f->comment);
        if (f->xres > 0 || f->yres > 0)
            printf(", \"density\": [%.4g, %.4g]", f->xres, f->yres);
        printf(", \"bytes\": %zu}\n", f->bytes);
        return;
    }
    printf("%s: %s %dx%d %s %d-bit", io_display_name(path, 0), f->format, f->width, f->height,
           f->cmyk ? "CMYK (read as RGB)" : layout_name(f->channels), f->depth);
    if (f->orientation > 1)
        printf(", orientation %d", f->orientation);
    if (f->progressive > 0)
        printf(", progressive");
    if (f->frames > 1)
        printf(", %d frames", f->frames);
    int first = 1;
    piece_text(stdout, &first, "icc", f->icc);
    piece_text(stdout, &first, "exif", f->exif);
    piece_text(stdout, &first, "xmp", f->xmp);
    piece_text(stdout, &first, "iptc", f->iptc);
    piece_text(stdout, &first, "comment", f->comment);
    if (f->xres > 0 || f->yres > 0)
        printf("%s%.4gx%.4g dpi", first ? "; " : ", ", f->xres, f->yres);
    printf(" (%zu bytes)\n", f->bytes);
}

/* One file: a line on stdout, or the error's line on stderr (returns non-zero) */
static int describe(gpuimg_ctx *ctx, const char *path, int json)
{
    gpuimg_info f;
    if (gpuimg_info_read(ctx, path, &f)) {
        gpuimg_print_line(stderr, gpuimg_ctx_error(ctx));
        return 1;
    }
    print(path, &f, json);
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
    gpuimg_ctx *ctx = gpuimg_ctx_new();
    if (!ctx) {
        fprintf(stderr, "gpuimg: info: out of memory\n");
        return 1;
    }
    for (int i = 1, opt = 1; i < argc; i++) {
        if (opt && (!strcmp(argv[i], "--") || (argv[i][0] == '-' && argv[i][1]))) {
            opt = strcmp(argv[i], "--") != 0;
            continue;
        }
        files++;
        failed += describe(ctx, argv[i], json);
        fflush(stdout);
    }
    gpuimg_ctx_free(ctx);
    if (!files) {
        fprintf(stderr, "gpuimg: info: no FILE (gpuimg info [--json] FILE...)\n");
        cli_usage(stderr);
        return 2;
    }
    return failed ? 1 : 0;
}
