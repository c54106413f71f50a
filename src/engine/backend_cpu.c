/* gpuimg: the OpenMP backend. Steps run one after another, each into a freshly allocated
 * output; the previous image is freed as soon as it has been read, so at most two images are
 * alive at once. A step that measures its input (trim) does so first, and the steps from it on
 * are resolved again (plan_measured): the plan is the run's own and ends with the true sizes. */
#include <config.h>
#include <stdio.h>
#include "engine/backend_cpu.h"
#include "core/error.h"

int backend_cpu_run(struct plan *pl, struct image *img, struct run_report *r)
{
    r->backend = "cpu";
    double t0 = timing_now_ms();
    for (int i = 0; i < pl->nsteps; i++) {
        struct step *st = &pl->steps[i];
        struct image out;
        double ts = timing_now_ms();
        int rc = plan_abandoned(pl);
        if (!rc)   /* a step that measures its input: the rest of the plan sized anew (op.h) */
            rc = plan_measure(pl, i, img);
        if (!rc)
            rc = image_alloc(&out, &st->out);
        if (rc)
            return rc;
        rc = st->op->cpu(&st->args, img, &out);
        double te = timing_now_ms();
        if (rc) {
            image_free(&out);
            return rc;
        }
        if (r->nsteps < REPORT_MAX_STEPS) {
            snprintf(r->steps[r->nsteps].label, sizeof r->steps[0].label, "%s", st->text);
            r->steps[r->nsteps++].ms = te - ts;
        }
        image_free(img);
        *img = out;
    }
    r->process_ms = timing_now_ms() - t0;
    return GPUIMG_OK;
}
