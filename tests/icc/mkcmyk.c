/* gpuimg tests: a small CMYK output profile made by LittleCMS from a plain ink model (each ink
 * the complement of an sRGB colour, black their common part), for tests/icc/make_cmyk.sh: CMYK
 * JPEGs whose colours only a profile gives right. Not part of the build.
 *   cc tests/icc/mkcmyk.c -llcms2 -o mkcmyk && ./mkcmyk OUT.icc */
#include <lcms2.h>
#include <stdio.h>

static cmsHTRANSFORM to_lab, from_lab;

static cmsUInt16Number word(double v) { return (cmsUInt16Number)(v < 0 ? 0 : v > 1 ? 65535 : v * 65535.0 + 0.5); }

/* CMYK (0..65535) to Lab (ICC v4's 16-bit encoding): the sRGB colour (1 - C)(1 - K), ... through
 * LittleCMS's sRGB */
static int cmyk_to_lab(const cmsUInt16Number in[], cmsUInt16Number out[], void *cargo)
{
    cmsFloat64Number rgb[3], lab[3];
    for (int i = 0; i < 3; i++)
        rgb[i] = (1.0 - in[i] / 65535.0) * (1.0 - in[3] / 65535.0);
    cmsDoTransform(to_lab, rgb, lab, 1);
    out[0] = word(lab[0] / 100.0);
    out[1] = word((lab[1] + 128.0) / 255.0);
    out[2] = word((lab[2] + 128.0) / 255.0);
    return 1;
}

/* Lab to CMYK: the sRGB colour's complement, black the inks' common part taken out */
static int lab_to_cmyk(const cmsUInt16Number in[], cmsUInt16Number out[], void *cargo)
{
    cmsFloat64Number lab[3] = { in[0] / 65535.0 * 100.0, in[1] / 65535.0 * 255.0 - 128.0, in[2] / 65535.0 * 255.0 - 128.0 },
                     rgb[3];
    cmsDoTransform(from_lab, lab, rgb, 1);
    double c[3], k = 1.0;
    for (int i = 0; i < 3; i++) {
        c[i] = 1.0 - (rgb[i] < 0 ? 0 : rgb[i] > 1 ? 1 : rgb[i]);
        k = c[i] < k ? c[i] : k;
    }
    for (int i = 0; i < 3; i++)
        out[i] = word(k < 1.0 ? (c[i] - k) / (1.0 - k) : 0.0);
    out[3] = word(k);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: mkcmyk OUT.icc\n");
        return 2;
    }
    cmsHPROFILE srgb = cmsCreate_sRGBProfile(), lab = cmsCreateLab4Profile(NULL);
    to_lab = cmsCreateTransform(srgb, TYPE_RGB_DBL, lab, TYPE_Lab_DBL, INTENT_RELATIVE_COLORIMETRIC, 0);
    from_lab = cmsCreateTransform(lab, TYPE_Lab_DBL, srgb, TYPE_RGB_DBL, INTENT_RELATIVE_COLORIMETRIC, 0);
    cmsHPROFILE p = cmsCreateProfilePlaceholder(NULL);
    cmsSetProfileVersion(p, 4.3);
    cmsSetDeviceClass(p, cmsSigOutputClass);
    cmsSetColorSpace(p, cmsSigCmykData);
    cmsSetPCS(p, cmsSigLabData);
    cmsMLU *desc = cmsMLUalloc(NULL, 1);
    cmsMLUsetASCII(desc, "en", "US", "gpuimg test CMYK (plain inks)");
    cmsWriteTag(p, cmsSigProfileDescriptionTag, desc);
    cmsWriteTag(p, cmsSigMediaWhitePointTag, cmsD50_XYZ());
    cmsPipeline *a2b = cmsPipelineAlloc(NULL, 4, 3), *b2a = cmsPipelineAlloc(NULL, 3, 4);
    cmsStage *c1 = cmsStageAllocCLut16bit(NULL, 7, 4, 3, NULL), *c2 = cmsStageAllocCLut16bit(NULL, 9, 3, 4, NULL);
    cmsStageSampleCLut16bit(c1, cmyk_to_lab, NULL, 0);
    cmsStageSampleCLut16bit(c2, lab_to_cmyk, NULL, 0);
    /* identity curves around each table: the layout ICC's lutAtoB and lutBtoA types take */
    cmsPipelineInsertStage(a2b, cmsAT_END, cmsStageAllocToneCurves(NULL, 4, NULL));
    cmsPipelineInsertStage(a2b, cmsAT_END, c1);
    cmsPipelineInsertStage(a2b, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, NULL));
    cmsPipelineInsertStage(b2a, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, NULL));
    cmsPipelineInsertStage(b2a, cmsAT_END, c2);
    cmsPipelineInsertStage(b2a, cmsAT_END, cmsStageAllocToneCurves(NULL, 4, NULL));
    /* the same tables for the perceptual (0) and the colorimetric (1) intents */
    int ok = cmsWriteTag(p, cmsSigAToB0Tag, a2b) && cmsWriteTag(p, cmsSigBToA0Tag, b2a)
             && cmsWriteTag(p, cmsSigAToB1Tag, a2b) && cmsWriteTag(p, cmsSigBToA1Tag, b2a)
             && cmsSaveProfileToFile(p, argv[1]);
    if (!ok)
        fprintf(stderr, "mkcmyk: LittleCMS could not make the profile\n");
    return ok ? 0 : 1;
}
