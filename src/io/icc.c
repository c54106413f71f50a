/* gpuimg: colour to sRGB through LittleCMS 2 (icc.h). */
#include <config.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "io/icc.h"
#include "io/meta.h"
#ifdef HAVE_LCMS2
#include <lcms2.h>

struct icc_xform { cmsHTRANSFORM t; };

/* A profile as bytes (malloc'ed) */
static int profile_bytes(cmsHPROFILE s, uint8_t **p, size_t *n)
{
    cmsUInt32Number len = 0;
    *p = NULL;
    if (!cmsSaveProfileToMem(s, NULL, &len) || !(*p = malloc(len)) || !cmsSaveProfileToMem(s, *p, &len)) {
        free(*p);
        *p = NULL;
        return GPUIMG_ENOMEM;
    }
    *n = len;
    return GPUIMG_OK;
}

int icc_srgb_prepare(const char *name, struct io_meta *m, const struct geom *g, struct icc_xform **x)
{
    *x = NULL;
    if (!m || !m->icc || g->c < 3 || !meta_icc_fits(m, g->c))
        return GPUIMG_OK;
    cmsHPROFILE in = cmsOpenProfileFromMem(m->icc, (cmsUInt32Number)m->icc_len);
    if (!in)
        return gpuimg_fail(GPUIMG_EDECODE, "%s: its ICC profile is one LittleCMS cannot read (--profile=srgb)", name);
    cmsHPROFILE out = cmsCreate_sRGBProfile();
    const cmsUInt32Number type = g->depth == 16 ? (g->c == 4 ? TYPE_RGBA_16 : TYPE_RGB_16)
                                                : (g->c == 4 ? TYPE_RGBA_8 : TYPE_RGB_8);
    /* no cache: one transform used by every thread at once */
    cmsHTRANSFORM t = out && cmsGetColorSpace(in) == cmsSigRgbData
                          ? cmsCreateTransform(in, type, out, type, INTENT_RELATIVE_COLORIMETRIC,
                                               cmsFLAGS_NOCACHE | (g->c == 4 ? cmsFLAGS_COPY_ALPHA : 0))
                          : NULL;
    uint8_t *p = NULL;   /* the output's profile: the sRGB the transform goes to */
    size_t n = 0;
    const int nomem = t && profile_bytes(out, &p, &n);
    cmsCloseProfile(in);
    if (out)
        cmsCloseProfile(out);
    if (!t)
        return gpuimg_fail(GPUIMG_EDECODE, "%s: LittleCMS cannot convert from its ICC profile to sRGB (--profile=srgb)",
                           name);
    if (nomem || !(*x = malloc(sizeof **x))) {
        free(p);
        *x = NULL;
        cmsDeleteTransform(t);
        return gpuimg_fail(GPUIMG_ENOMEM, "%s: out of memory for the sRGB profile", name);
    }
    (*x)->t = t;
    free(m->icc);
    m->icc = p;
    m->icc_len = n;
    return GPUIMG_OK;
}

void icc_apply(struct icc_xform *x, struct image *im)
{
#pragma omp parallel for schedule(static)
    for (int y = 0; y < im->h; y++) {
        uint8_t *row = im->data + (size_t)y * im->stride;
        cmsDoTransform(x->t, row, row, (cmsUInt32Number)im->w);
    }
}

void icc_free(struct icc_xform *x)
{
    if (x) {
        cmsDeleteTransform(x->t);
        free(x);
    }
}

static char icc_name[32];
static void icc_name_once(void)
{
    const int v = cmsGetEncodedCMMversion();
    snprintf(icc_name, sizeof icc_name, "LittleCMS %d.%d", v / 1000, v % 1000 / 10);
}

struct icc_xform *icc_cmyk_prepare(const uint8_t *icc, size_t len)
{
    if (!icc || !len)
        return NULL;
    cmsHPROFILE in = cmsOpenProfileFromMem(icc, (cmsUInt32Number)len), out = in ? cmsCreate_sRGBProfile() : NULL;
    cmsHTRANSFORM t = out && cmsGetColorSpace(in) == cmsSigCmykData
                          ? cmsCreateTransform(in, TYPE_CMYK_8_REV, out, TYPE_RGB_8, INTENT_RELATIVE_COLORIMETRIC,
                                               cmsFLAGS_NOCACHE)
                          : NULL;
    if (in)
        cmsCloseProfile(in);
    if (out)
        cmsCloseProfile(out);
    struct icc_xform *x = t ? malloc(sizeof *x) : NULL;
    if (x)
        x->t = t;
    else if (t)
        cmsDeleteTransform(t);
    return x;
}

void icc_cmyk_row(struct icc_xform *x, const uint8_t *in, uint8_t *out, int w)
{
    cmsDoTransform(x->t, in, out, (cmsUInt32Number)w);
}

const char *icc_codec_name(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, icc_name_once);
    return icc_name;
}
#else
int icc_srgb_prepare(const char *name, struct io_meta *m, const struct geom *g, struct icc_xform **x)
{
    *x = NULL;
    if (!m || !m->icc || g->c < 3 || !meta_icc_fits(m, g->c))
        return GPUIMG_OK;
    return gpuimg_fail(GPUIMG_EUNSUPPORTED, "%s: --profile=srgb, and this gpuimg was built without LittleCMS "
                       "(install liblcms2-dev, then configure and build again)", name);
}
void icc_apply(struct icc_xform *x, struct image *im) {}
void icc_free(struct icc_xform *x) {}
const char *icc_codec_name(void) { return NULL; }
struct icc_xform *icc_cmyk_prepare(const uint8_t *icc, size_t len) { return NULL; }
void icc_cmyk_row(struct icc_xform *x, const uint8_t *in, uint8_t *out, int w) {}
#endif
