/* gpuimg fuzz targets without libFuzzer: run LLVMFuzzerTestOneInput once on every file named
 * on the command line, and on every file inside directories named there (sorted, not
 * recursive). Prints how many inputs ran; a failing property aborts (see fuzz.h). */
#include <config.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fuzz.h"

void fuzz_fail(const char *what)
{
    fprintf(stderr, "fuzz: property failed: %s\n", what);
    abort();
}

#ifndef GPUIMG_LIBFUZZER
static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (size_t r; buf && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "%s: out of memory\n", path);
        return 1;
    }
    /* an exact-size copy, so that ASan sees a read past the end of the input */
    uint8_t *exact = malloc(n ? n : 1);
    memcpy(exact, buf, n);
    free(buf);
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "fuzz: %s (%zu bytes)\n", path, n);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv)
{
    long ran = 0;
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            bad = 1;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad |= run_file(argv[i]);
            ran++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            perror(argv[i]);
            bad = 1;
            continue;
        }
        char **names = NULL;
        size_t nn = 0;
        for (struct dirent *e; (e = readdir(d));) {
            if (e->d_name[0] == '.')
                continue;
            char **nx = realloc(names, (nn + 1) * sizeof *names);
            if (!nx)
                break;
            names = nx;
            size_t l = strlen(argv[i]) + strlen(e->d_name) + 2;
            names[nn] = malloc(l);
            snprintf(names[nn++], l, "%s/%s", argv[i], e->d_name);
        }
        closedir(d);
        qsort(names, nn, sizeof *names, cmp);
        for (size_t k = 0; k < nn; k++) {
            struct stat fs;
            if (stat(names[k], &fs) == 0 && S_ISREG(fs.st_mode)) {
                bad |= run_file(names[k]);
                ran++;
            }
            free(names[k]);
        }
        free(names);
    }
    printf("replayed %ld inputs\n", ran);
    return bad;
}
#endif
