/* gpuimg: clock and report formats (see timing.h). */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "core/error.h"
#include "core/timing.h"

double timing_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The process's own peak (VmHWM: this address space's high-water mark). getrusage's ru_maxrss
 * is not: exec keeps the larger of it and the address space before, which fork copied from the
 * parent, so a small job started by a large process would report the parent's size. */
long timing_peak_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && kb < 0 && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) != 1)
            kb = -1;
    if (f)
        fclose(f);
    struct rusage ru;
    if (kb < 0 && getrusage(RUSAGE_SELF, &ru) == 0)   /* no /proc */
        kb = ru.ru_maxrss;
    return kb;
}

void timing_report_init(struct run_report *r)
{
    memset(r, 0, sizeof *r);
    r->gpu_init_ms = -1;
    r->upload_ms = r->download_ms = -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double timing_median(double *v, int n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

