/* gpuimg tests: the OpenMP path against OpenCV's results. Reads tests/golden/MANIFEST (made by
 * make_goldens.py), runs every case through the CPU backend and compares with the golden image
 * within the case's tolerance (0 for exact operations, 1 level for filters). It also fails when
 * an operation in the op table has no golden case, so a new operation cannot go untested, when a
 * golden's name is not the one make_goldens.py's rule gives its input and pipeline (golden_name),
 * and when an out-*.png of the directory is no case's.
 * With a directory argument it runs that directory's MANIFEST instead, without these checks
 * (tests/formats.sh: one file in each input format and the pixels it must decode to).
 * golden_test --diff A B TOL [MEAN [PSNR]]: whether images A and B (any format, default decoders)
 * have the same geometry and differ by at most TOL levels, by at most MEAN on average and with a
 * PSNR of at least PSNR dB where given (exit 0), printing the largest and the mean difference and
 * the PSNR. */
#include <config.h>
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "io/io.h"
#include "core/op.h"
#include "testutil.h"

static int diff(const char *a, const char *b, long tol, double mean_tol, double psnr_min)
{
    struct load_opts lo = { 0 };
    struct image x, y;
    if (io_load(a, &lo, &x) || io_load(b, &lo, &y)) {
        fprintf(stderr, "%s\n", gpuimg_errmsg());
        return 2;
    }
    long over = 0, worst = test_max_diff(&x, &y, &over, tol);
    double mean = 0, psnr = 0;
    if (worst < 0)
        printf("%s is %dx%d c%d, %s is %dx%d c%d\n", a, x.w, x.h, x.c, b, y.w, y.h, y.c);
    else {
        const size_t n = (size_t)x.w * x.h * x.c;
        double se = 0;
        for (size_t i = 0; i < n; i++) {
            const long d = labs(test_sample(&x, i) - test_sample(&y, i));
            mean += (double)d;
            se += (double)d * (double)d;
        }
        mean /= n ? (double)n : 1;
        se /= n ? (double)n : 1;
        const double peak = x.depth == 16 ? 65535.0 : 255.0;
        psnr = se > 0 ? 10 * log10(peak * peak / se) : INFINITY;
        printf("max diff %ld (%ld samples over %ld), mean %.3f, PSNR %.1f dB\n", worst, over, tol, mean, psnr);
    }
    image_free(&x);
    image_free(&y);
    return worst < 0 || worst > tol || (mean_tol >= 0 && mean > mean_tol) || psnr < psnr_min;
}

/* make_goldens.py's golden_name: out-TAG.PIPE.png for in-TAG.png, PIPE the pipeline with '=', ':'
 * and ',' as '-', '.' and '_', and the marks '%', '!', '^', '<', '>' after a digit as words. */
static void golden_name(const char *in_name, const char *pipe, char *out, size_t n)
{
    static const char marks[] = "%!^<>", seps[] = "=:,", *const words[] = { "pct", "bang", "caret", "lt", "gt" };
    const size_t il = strlen(in_name);
    size_t len = (size_t)snprintf(out, n, "out-%.*s.", il > 7 ? (int)il - 7 : 0, in_name + (il > 7 ? 3 : il));
    for (const char *p = pipe; *p && len + 8 < n; p++) {
        const char *m = strchr(marks, *p), *s = strchr(seps, *p);
        if (m && p > pipe && isdigit((unsigned char)p[-1]))
            len += (size_t)snprintf(out + len, n - len, "%s", words[m - marks]);
        else
            out[len++] = s ? "-._"[s - seps] : *p;
    }
    snprintf(out + len, n - len, ".png");
}

/* the files pipelines name (composite's overlays) are the directory's */
static const char *golden_dir;
static int golden_file(const char *path, struct image *img)
{
    char full[4096];
    snprintf(full, sizeof full, "%s/%s", golden_dir, path);
    return io_load(full, &(struct load_opts){ 0 }, img);
}

int main(int argc, char **argv)
{
    if (argc >= 5 && argc <= 7 && !strcmp(argv[1], "--diff"))
        return diff(argv[2], argv[3], atol(argv[4]), argc >= 6 ? atof(argv[5]) : -1, argc == 7 ? atof(argv[6]) : 0);
    const char *dir = argc > 1 ? argv[1] : getenv("GOLDEN_DIR");
    const int coverage = argc <= 1;
    printf("hand-written SIMD: %s\n", test_simd_state());
    if (!dir)
        dir = "tests/golden";
    golden_dir = dir;
    op_file_set_loader(golden_file);
    char path[4096];
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    FILE *m = fopen(path, "r");
    if (!m) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    int covered[64] = { 0 };
    char line[1024], in_name[256], pipe[256], out_name[256], want_name[1024];
    char (*outs)[256] = NULL;   /* the cases' goldens, for the directory's check */
    int nouts = 0;
    long tol, tol2;
    int cases = 0, failed = 0, pass = 0, fields = 0, pngs = 0;
    struct load_opts lo = { 0 };
    /* A fifth field is the tolerance with libjpeg-turbo (tests/jpeg): such a line runs with
     * stb_image against the fourth, then (libjpeg-turbo builds) with libjpeg-turbo against it. */
    while (pass == 1 || fgets(line, sizeof line, m)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (!pass && (fields = sscanf(line, "%255s %255s %255s %ld %ld", in_name, pipe, out_name, &tol, &tol2)) < 4) {
            fprintf(stderr, "bad manifest line: %s", line);
            return 1;
        }
        lo.jpeg = fields == 5 && pass == 0 ? DEC_STB : DEC_AUTO;
#ifdef HAVE_LIBJPEG
        pass = fields == 5 && pass == 0;   /* the same line again, with libjpeg-turbo */
#endif
        if (lo.jpeg == DEC_AUTO && fields == 5)
            tol = tol2;
        struct image in, want, got;
        snprintf(path, sizeof path, "%s/%s", dir, in_name);
        if (io_load(path, &lo, &in)) {
            fprintf(stderr, "%s\n", gpuimg_errmsg());
            return 1;
        }
        /* a PNG input: libpng and stb_image must decode it to the same pixels */
        const size_t nl = strlen(in_name);
        for (int d = DEC_STB; nl > 4 && !strcmp(in_name + nl - 4, ".png") && d <= DEC_LIBPNG; d++) {
            struct load_opts lo2 = lo;
            struct image other;
            lo2.png = (enum io_decoder)d;
            if (io_load(path, &lo2, &other)) {
                fprintf(stderr, "%s (%s)\n", gpuimg_errmsg(), d == DEC_STB ? "stb_image" : "libpng");
                return 1;
            }
            long over = 0, worst = test_max_diff(&other, &in, &over, 0);
            if (worst != 0) {
                fprintf(stderr, "FAIL %s: %s decodes it differently from the default decoder (max diff %ld)\n",
                        in_name, d == DEC_STB ? "stb_image" : "libpng", worst);
                failed++;
            }
            pngs++;
            image_free(&other);
        }
        snprintf(path, sizeof path, "%s/%s", dir, out_name);
        if (io_load(path, &lo, &want)) {
            fprintf(stderr, "%s\n", gpuimg_errmsg());
            return 1;
        }
        cases++;
        golden_name(in_name, pipe, want_name, sizeof want_name);
        if (coverage && strcmp(out_name, want_name)) {
            fprintf(stderr, "FAIL %s %s: golden %s, not %s as make_goldens.py names it\n", in_name, pipe, out_name,
                    want_name);
            failed++;
        }
        if (coverage) {
            char (*more)[256] = realloc(outs, (size_t)(nouts + 1) * sizeof *outs);
            if (!more) {
                fprintf(stderr, "out of memory\n");
                return 1;
            }
            outs = more;
            snprintf(outs[nouts++], sizeof *outs, "%s", out_name);
        }
        if (test_run_pipeline(pipe, &in, &got)) {
            failed++;
        } else {
            long over = 0, worst = test_max_diff(&got, &want, &over, tol);
            if (worst < 0 || worst > tol) {
                failed++;
                if (worst < 0)
                    fprintf(stderr, "FAIL %s %s: got %dx%d c%d d%d, want %dx%d c%d d%d\n", in_name, pipe, got.w, got.h,
                            got.c, got.depth, want.w, want.h, want.c, want.depth);
                else
                    fprintf(stderr, "FAIL %s %s%s: max diff %ld > %ld in %ld samples (golden %s)\n", in_name, pipe,
                            fields < 5 ? "" : lo.jpeg == DEC_STB ? " (stb_image)" : " (libjpeg-turbo)", worst, tol, over,
                            out_name);
            }
            image_free(&got);
        }
        char opname[64];
        snprintf(opname, sizeof opname, "%.*s", (int)strcspn(pipe, "=:,"), pipe);
        for (int i = 0; i < gpuimg_nops; i++)
            if (!strcmp(gpuimg_ops[i]->name, opname))
                covered[i] = 1;
        image_free(&in);
        image_free(&want);
    }
    fclose(m);
    DIR *d = coverage ? opendir(dir) : NULL;
    for (struct dirent *e; d && (e = readdir(d));) {
        const size_t l = strlen(e->d_name);
        int listed = strncmp(e->d_name, "out-", 4) || l < 8 || strcmp(e->d_name + l - 4, ".png");
        for (int i = 0; i < nouts && !listed; i++)
            listed = !strcmp(outs[i], e->d_name);
        if (!listed) {
            fprintf(stderr, "FAIL %s/%s is no case's golden (left from an older MANIFEST?)\n", dir, e->d_name);
            failed++;
        }
    }
    if (d)
        closedir(d);
    free(outs);
    for (int i = 0; coverage && i < gpuimg_nops; i++)
        if (!covered[i]) {
            fprintf(stderr, "FAIL operation %s has no golden case\n", gpuimg_ops[i]->name);
            failed++;
        }
    printf("%s: %d cases, %d failed (%d PNG decodes compared)\n", dir, cases, failed, pngs);
    return failed ? 1 : 0;
}
