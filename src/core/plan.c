/* gpuimg: pipeline parsing and geometry resolution (see plan.h). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include "core/error.h"
#include "core/params.h"
#include "core/plan.h"

static const struct op_param *find_param(const struct op_desc *op, const char *name, size_t len, int *idx)
{
    for (int i = 0; i < op->nparams; i++)
        if (strlen(op->params[i].name) == len && strncmp(op->params[i].name, name, len) == 0) {
            *idx = i;
            return &op->params[i];
        }
    return NULL;
}

static int parse_step(const char *s, size_t len, struct step *st)
{
    char buf[256];
    if (len == 0)
        return gpuimg_fail(GPUIMG_EPARAM, "empty operation in the pipeline (two commas, or a comma at an end?)");
    if (len >= sizeof buf)
        return gpuimg_fail(GPUIMG_EPARAM, "operation '%.40s...' is too long", s);
    memcpy(buf, s, len);
    buf[len] = 0;
    snprintf(st->text, sizeof st->text, "%.95s", buf);

    size_t nlen = strcspn(buf, "=:");
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(nlen < 63 ? nlen : 63), buf);
    st->op = op_find(name);
    if (!st->op)
        return gpuimg_fail(GPUIMG_EPARAM, "unknown operation '%s' (gpuimg --list shows them)", name);
    const struct op_desc *op = st->op;
    memset(&st->args, 0, sizeof st->args);

    char *p = buf + nlen;
    if (*p == '=') {   /* name=VALUE sets the first parameter; name=V1,V2,... the first ones in turn,
                          but a colour's commas are its own (flatten=255,0,0), and a file's
                          (refused) */
        p++;
        size_t vl = strcspn(p, ":");
        char save = p[vl];
        p[vl] = 0;
        if (op->nparams == 0)
            return gpuimg_fail(GPUIMG_EPARAM, "%s takes no value (got '%s')", op->name, p);
        int nv = 1;
        for (const char *c = p; op->params[0].type != PARAM_COLOR && op->params[0].type != PARAM_FILE && (c = strchr(c, ',')); c++)
            nv++;
        if (nv > op->nparams) {
            char names[128] = "";
            for (int i = 0; i < op->nparams; i++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? "," : "", op->params[i].name);
            return gpuimg_fail(GPUIMG_EPARAM, "%s takes at most %d value%s (%s=%s), not '%s'", op->name, op->nparams,
                               op->nparams > 1 ? "s" : "", op->name, names, p);
        }
        char *v = p;
        for (int i = 0; i < nv; i++) {
            const size_t l = nv > 1 ? strcspn(v, ",") : strlen(v);
            v[l] = 0;
            int r = param_parse(op, &op->params[i], v, &st->args.v[i]);
            if (r)
                return r;
            v += l + 1;
        }
        p[vl] = save;
        p += vl;
    }
    while (*p == ':') {
        p++;
        size_t kl = strcspn(p, "=:");
        if (p[kl] != '=')
            return gpuimg_fail(GPUIMG_EPARAM, "%s: '%.*s' needs a value (key=value)", op->name, (int)kl, p);
        int idx;
        const struct op_param *pp = find_param(op, p, kl, &idx);
        if (!pp) {
            char names[128] = "";
            for (int i = 0; i < op->nparams; i++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", op->params[i].name);
            return gpuimg_fail(GPUIMG_EPARAM, "%s has no parameter '%.*s' (it has: %s)", op->name, (int)kl, p,
                               op->nparams ? names : "none");
        }
        if (st->args.v[idx].set)
            return gpuimg_fail(GPUIMG_EPARAM, "%s: %s is given twice", op->name, pp->name);
        char *val = p + kl + 1;
        size_t vl = strcspn(val, ":");
        char save = val[vl];
        val[vl] = 0;
        int r = param_parse(op, pp, val, &st->args.v[idx]);
        if (r)
            return r;
        val[vl] = save;
        p = val + vl;
    }
    if (*p)
        return gpuimg_fail(GPUIMG_EPARAM, "%s: cannot parse '%s'", op->name, p);
    for (int i = 0; i < op->nparams; i++) {
        if (st->args.v[i].set)
            continue;
        const struct op_param *pp = &op->params[i];
        if (!pp->dflt) {
            char what[160];
            param_describe(pp, what, sizeof what);
            return gpuimg_fail(GPUIMG_EPARAM, "%s needs its %s: %s%s (%s)", op->name, pp->name, op->name,
                               i == 0 ? "=VALUE" : ":KEY=VALUE", what);
        }
        if (pp->dflt[0] == '(')   /* "(the top-left pixel's)": the operation works it out, the parameter unset */
            continue;
        int r = param_parse(op, pp, pp->dflt, &st->args.v[i]);
        if (r)
            return gpuimg_fail(GPUIMG_EINTERNAL, "%s: bad default for %s", op->name, pp->name);
    }
    return GPUIMG_OK;
}

/* The length of the step s starts with: up to a comma, one before a number excepted (no
 * operation's name starts with a digit, '.', '+' or '-': it is inside a value, the colour R,G,B or
 * a step's values, levels=10,240). */
static size_t step_len(const char *s)
{
    size_t len = 0;
    while (s[len += strcspn(s + len, ",")] && s[len + 1] && strchr("0123456789.+-", s[len + 1]))
        len++;
    return len;
}

/* The steps of text appended to pl, each followed by those it implies (op->then, one level: an
 * implied step implies none). */
static int add_steps(struct plan *pl, const char *s, int implied)
{
    for (;;) {
        size_t len = step_len(s);
        if (pl->nsteps == PLAN_MAX_STEPS)
            return gpuimg_fail(GPUIMG_EPARAM, "more than %d operations in one pipeline", PLAN_MAX_STEPS);
        struct step *st = &pl->steps[pl->nsteps];
        int r = parse_step(s, len, st);
        if (r)
            return r;
        pl->nsteps++;
        char then[128] = "";
        if (!implied && st->op->then && (r = st->op->then(&st->args, then, sizeof then)))
            return r;
        if (then[0] && (r = add_steps(pl, then, 1)))
            return r;
        if (!s[len])
            break;
        s += len + 1;
    }
    return GPUIMG_OK;
}

int plan_parse(const char *text, struct plan *pl)
{
    memset(pl, 0, sizeof *pl);
    if (!*text)
        return gpuimg_fail(GPUIMG_EPARAM, "the pipeline is empty");
    return add_steps(pl, text, 0);
}

const char *plan_file(const struct plan *pl)
{
    for (int i = 0; i < pl->nsteps; i++)
        for (int k = 0; k < pl->steps[i].op->nparams; k++)
            if (pl->steps[i].op->params[k].type == PARAM_FILE && pl->steps[i].args.v[k].file)
                return pl->steps[i].args.v[k].file->path;
    return NULL;
}

/* Steps first .. the last resolved in turn from cur, each bounded by max_pixels; pl->out the last's.
 * A step after one that has not measured its input yet is sized on the bound: one that cannot
 * take the bound's size (a pad to a canvas smaller than the untrimmed image) is left to
 * plan_measured to judge on the measured size, the bound passed through it meanwhile. */
static int resolve_steps(struct plan *pl, int first, struct geom cur, uint64_t max_pixels)
{
    size_t bytes;
    int bound = 0;   /* a step before this one measures its input later */
    for (int i = first; i < pl->nsteps; i++) {
        struct step *st = &pl->steps[i];
        st->in = cur;
        int r = st->op->resolve(&st->args, &cur, &st->out);
        if (r == GPUIMG_EGEOMETRY && bound) {
            gpuimg_clear_error();
            st->args = st->given;
            st->out = cur;
            r = GPUIMG_OK;
        }
        if (r)
            return r;
        bound |= st->op->measure && !st->args.measured;
        uint64_t px = (uint64_t)st->out.w * (uint64_t)st->out.h;
        if (max_pixels && px > max_pixels)
            return gpuimg_fail(GPUIMG_ETOOBIG, "%s: the result would be %dx%d (%llu pixels), over the limit of %llu (--max-pixels)",
                               st->text, st->out.w, st->out.h, (unsigned long long)px, (unsigned long long)max_pixels);
        r = geom_bytes(&st->out, &bytes);
        if (r)
            return r;
        if (bytes > pl->max_bytes)
            pl->max_bytes = bytes;
        cur = st->out;
    }
    pl->out = cur;
    return GPUIMG_OK;
}

int plan_resolve(struct plan *pl, const struct geom *in, uint64_t max_pixels)
{
    size_t bytes;
    int r = geom_bytes(in, &bytes);
    if (r)
        return r;
    pl->in = *in;
    pl->max_bytes = bytes;
    pl->max_pixels = max_pixels;
    for (int i = 0; i < pl->nsteps; i++) {   /* a new input: nothing measured yet */
        pl->steps[i].args.measured = 0;
        pl->steps[i].given = pl->steps[i].args;
    }
    return resolve_steps(pl, 0, *in, max_pixels);
}

int plan_measured(struct plan *pl, int i)
{
    if (!pl->steps[i].args.measured)
        return GPUIMG_OK;
    size_t bytes;
    int r = geom_bytes(&pl->in, &bytes);
    if (r)
        return r;
    pl->max_bytes = bytes;   /* made anew: the bound's sizes are gone */
    for (int k = 0; k < i; k++)
        if (!(r = geom_bytes(&pl->steps[k].out, &bytes)) && bytes > pl->max_bytes)
            pl->max_bytes = bytes;
    /* step i and those after resolved again from their parameters as given (resolve rewrote them
     * for the bound: crop's and pad's placements, resize's box), step i keeping its measure */
    const struct rect box = pl->steps[i].args.box;
    for (int k = i; k < pl->nsteps; k++)
        pl->steps[k].args = pl->steps[k].given;
    pl->steps[i].args.measured = 1;
    pl->steps[i].args.box = box;
    return r ? r : resolve_steps(pl, i, pl->steps[i].in, pl->max_pixels);
}

int plan_measure(struct plan *pl, int i, const struct image *in)
{
    const struct op_desc *op = pl->steps[i].op;
    if (!op->measure)
        return GPUIMG_OK;
    const int r = op->measure(&pl->steps[i].args, in);
    return r ? r : plan_measured(pl, i);
}

int plan_measures(const struct plan *pl)
{
    for (int i = 0; i < pl->nsteps; i++)
        if (pl->steps[i].op->measure)
            return 1;
    return 0;
}

int plan_append(struct plan *pl, const char *text, const char *label, uint64_t max_pixels)
{
    const int first = pl->nsteps;
    pl->max_pixels = max_pixels;
    int r = add_steps(pl, text, 1);
    for (int i = first; !r && label && i < pl->nsteps; i++)
        snprintf(pl->steps[i].text, sizeof pl->steps[i].text, "%s", label);
    for (int i = first; !r && i < pl->nsteps; i++)
        pl->steps[i].given = pl->steps[i].args;
    return r ? r : resolve_steps(pl, first, pl->out, max_pixels);
}

int plan_check_kernel(const struct plan *pl, int kernel)
{
    for (int i = 0; kernel >= 0 && i < pl->nsteps; i++)
        if (!(pl->steps[i].op->gpu_variants & KV_BIT(kernel))) {
            char kl[96];
            kernel_list(pl->steps[i].op->gpu_variants, kl, sizeof kl);
            return gpuimg_fail(GPUIMG_EUSAGE, "--kernel=%s: %s has no %s kernel (it has: %s)", kernel_names[kernel],
                               pl->steps[i].op->name, kernel_names[kernel], kl);
        }
    return GPUIMG_OK;
}

int plan_abandoned(const struct plan *pl)
{
    if (!pl->abandoned || !atomic_load_explicit(pl->abandoned, memory_order_relaxed))
        return GPUIMG_OK;
    return gpuimg_fail(GPUIMG_ECANCELED, "the run was given up: its asker went away or cancelled it");
}
