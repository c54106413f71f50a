/* gpuimg: what a run, a batch and --compare report, in the words the command prints (see
 * report.h). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include "app/report.h"

static void geom_text(char *buf, size_t n, const struct geom *g)
{
    snprintf(buf, n, "%dx%d %s %d-bit", g->w, g->h, layout_name(g->c), g->depth);
}

void report_print_line(FILE *f, const struct run_report *r, int verbose, const char *server)
{
    if (verbose) {
        char a[64], b[64];
        geom_text(a, sizeof a, &r->in);
        geom_text(b, sizeof b, &r->out);
        char shrunk[80] = "";
        if (r->shrink > 1)
            snprintf(shrunk, sizeof shrunk, ", shrunk 1/%d on load", r->shrink);
        if (r->orient > 1)
            snprintf(shrunk + strlen(shrunk), sizeof shrunk - strlen(shrunk), ", EXIF orientation %d turned upright",
                     r->orient);
        if (r->frames > 1)
            snprintf(shrunk + strlen(shrunk), sizeof shrunk - strlen(shrunk), ", frame 1 of %d", r->frames);
        fprintf(f, "gpuimg: %s (%s, %s%s) -> %s (%s, %s)\n", r->input, a, r->decoder ? r->decoder : "not decoded",
                shrunk, r->output, b, r->encoder ? r->encoder : "not encoded");
        if (r->declined[0])
            fprintf(f, "gpuimg: %s\n", r->declined);
    }
    fprintf(f, "gpuimg: decode %.1f ms", r->decode_ms);
    if (r->gpu_init_ms >= 0)
        fprintf(f, ", gpu init %.1f ms", r->gpu_init_ms);
    if (r->upload_ms >= 0)
        fprintf(f, ", upload %.2f ms", r->upload_ms);
    const int gpu = r->backend && !strcmp(r->backend, "gpu");
    fprintf(f, ", %s %.2f ms", gpu ? "kernels" : "process", r->process_ms);
    if (verbose && r->nsteps > 0) {
        fprintf(f, " (");
        for (int i = 0; i < r->nsteps; i++)
            fprintf(f, "%s%s %.2f", i ? ", " : "", r->steps[i].label, r->steps[i].ms);
        fprintf(f, ")");
    }
    if (r->download_ms >= 0)
        fprintf(f, ", download %.2f ms", r->download_ms);
    fprintf(f, ", encode %.1f ms, total %.1f ms [%s", r->encode_ms, r->total_ms, r->backend);
    if (r->device)
        fprintf(f, " %s", r->device);
    else
        fprintf(f, ", %d thread%s", r->threads, r->threads == 1 ? "" : "s");
    if (r->tiles)
        fprintf(f, ", %d tile%s of %dx%d", r->tiles, r->tiles == 1 ? "" : "s", r->tile_w, r->tile_h);
    if (r->streamed)
        fprintf(f, ", streamed: the stages overlap");
    if (r->fallback)
        fprintf(f, ", %s", r->fallback);
    if (server && server[0])
        fprintf(f, ", %s", server);
    fprintf(f, "]\n");
    if (verbose && r->peak_rss_kb > 0)
        fprintf(f, "gpuimg: peak memory %.1f MiB\n", r->peak_rss_kb / 1024.0);
}

void report_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_geom(FILE *f, const char *key, const struct geom *g)
{
    fprintf(f, "  \"%s\": {\"width\": %d, \"height\": %d, \"channels\": %d, \"depth\": %d},\n", key, g->w, g->h, g->c,
            g->depth);
}

void report_write_json(FILE *f, const struct run_report *r, const char *server, const struct compare_table *t)
{
    fprintf(f, "{\n  \"input\": ");
    report_json_str(f, r->input);
    fprintf(f, ",\n  \"output\": ");
    report_json_str(f, r->output);
    fprintf(f, ",\n  \"pipeline\": ");
    report_json_str(f, r->pipeline);
    fprintf(f, ",\n");
    json_geom(f, "input_image", &r->in);
    json_geom(f, "output_image", &r->out);
    fprintf(f, "  \"backend\": ");
    report_json_str(f, r->backend);
    fprintf(f, ",\n  \"threads\": %d,\n  \"device\": ", r->threads);
    if (r->device)
        report_json_str(f, r->device);
    else
        fprintf(f, "null");
    fprintf(f, ",\n  \"decoder\": ");
    report_json_str(f, r->decoder);
    fprintf(f, ",\n  \"shrink_on_load\": %d", r->shrink > 1 ? r->shrink : 1);
    fprintf(f, ",\n  \"exif_orientation\": %d", r->orient > 1 ? r->orient : 1);
    fprintf(f, ",\n  \"frames\": %d", r->frames > 1 ? r->frames : 1);
    fprintf(f, ",\n  \"encoder\": ");
    report_json_str(f, r->encoder);
    fprintf(f, ",\n  \"streamed\": %s", r->streamed ? "true" : "false");
    if (r->tiles)
        fprintf(f, ",\n  \"tiles\": {\"count\": %d, \"width\": %d, \"height\": %d}", r->tiles, r->tile_w, r->tile_h);
    if (r->note[0]) {
        fprintf(f, ",\n  \"note\": ");
        report_json_str(f, r->note);
    }
    if (r->declined[0]) {
        fprintf(f, ",\n  \"declined\": ");
        report_json_str(f, r->declined);
    }
    if (server && server[0]) {
        fprintf(f, ",\n  \"server\": ");
        report_json_str(f, server);
    }
    fprintf(f, ",\n  \"ms\": {\"decode\": %.3f, ", r->decode_ms);
    if (r->gpu_init_ms >= 0)
        fprintf(f, "\"gpu_init\": %.3f, ", r->gpu_init_ms);
    if (r->upload_ms >= 0)
        fprintf(f, "\"upload\": %.3f, ", r->upload_ms);
    fprintf(f, "\"process\": %.3f, ", r->process_ms);
    if (r->download_ms >= 0)
        fprintf(f, "\"download\": %.3f, ", r->download_ms);
    fprintf(f, "\"encode\": %.3f, \"total\": %.3f},\n  \"steps\": [", r->encode_ms, r->total_ms);
    for (int i = 0; i < r->nsteps; i++) {
        fprintf(f, "%s\n    {\"step\": ", i ? "," : "");
        report_json_str(f, r->steps[i].label);
        fprintf(f, ", \"ms\": %.3f}", r->steps[i].ms);
    }
    fprintf(f, "%s],\n", r->nsteps ? "\n  " : "");
    if (t) {
        fprintf(f, "  \"compare\": {\"repeat\": %d, \"agree\": %s, \"rows\": [", t->repeat, t->failed ? "false" : "true");
        for (int i = 0; i < t->nrows; i++) {
            const struct compare_row *w = &t->rows[i];
            fprintf(f, "%s\n    {\"what\": ", i ? "," : "");
            report_json_str(f, w->what);
            fprintf(f, ", \"impl\": ");
            report_json_str(f, w->impl);
            fprintf(f, ", \"ms\": %.4f", w->ms);
            if (w->bytes > 0 && w->ms > 0)
                fprintf(f, ", \"gb_per_s\": %.2f", w->bytes / w->ms / 1e6);
            if (w->ref_ms > 0 && w->ms > 0)
                fprintf(f, ", \"speedup\": %.2f", w->ref_ms / w->ms);
            if (w->check[0]) {
                fprintf(f, ", \"check\": ");
                report_json_str(f, w->check);
            }
            fprintf(f, "}");
        }
        fprintf(f, "\n  ]},\n");
    }
    fprintf(f, "  \"peak_rss_kib\": %ld\n}\n", r->peak_rss_kb);
}

static const char *const stage_names[STAGE_COUNT] = { "decode", "upload", "process", "download", "encode" };

double report_stage_ms(const struct run_report *r, int stage)
{
    const double v[STAGE_COUNT] = { r->decode_ms, r->upload_ms, r->process_ms, r->download_ms, r->encode_ms };
    return v[stage] > 0 ? v[stage] : 0;
}

static double batch_busy_total(const struct batch_report *b)
{
    double t = 0;
    for (int i = 0; i < STAGE_COUNT; i++)
        t += b->busy_ms[i];
    return t;
}

void report_print_batch(FILE *f, const struct batch_report *b)
{
    const double s = b->wall_ms / 1e3;
    fprintf(f, "gpuimg: batch: %ld done, %ld failed, %ld skipped of %ld", b->done, b->failed, b->skipped, b->selected);
    if (b->shard_n)
        fprintf(f, " (shard %d/%d of %ld)", b->shard_k, b->shard_n, b->listed);
    fprintf(f, " in %.2f s, %.2f images/s [%s", s, s > 0 ? b->done / s : 0.0, b->backend);
    if (b->device)
        fprintf(f, " %s", b->device);
    if (b->ndevices > 1)
        fprintf(f, " x%d", b->ndevices);
    fprintf(f, ", %d job%s x %d thread%s", b->jobs, b->jobs == 1 ? "" : "s", b->threads_per_job,
            b->threads_per_job == 1 ? "" : "s");
    if (b->fallback)
        fprintf(f, ", %s", b->fallback);
    if (b->server)
        fprintf(f, ", %s", b->server);
    fprintf(f, "]\n");
    if (b->skipped)
        fprintf(f, "gpuimg: %ld output%s existed and %s skipped (--force replaces them)\n", b->skipped,
                b->skipped == 1 ? "" : "s", b->skipped == 1 ? "was" : "were");
    const double total = batch_busy_total(b);
    if (total <= 0)
        return;
    fprintf(f, "gpuimg: busy:");
    const int gpu = b->backend && !strcmp(b->backend, "gpu");
    for (int i = 0; i < STAGE_COUNT; i++)
        if (gpu || (i != STAGE_UPLOAD && i != STAGE_DOWNLOAD))
            fprintf(f, "%s %s %.2f s (%.0f%%)", i ? "," : "", gpu && i == STAGE_PROCESS ? "kernels" : stage_names[i],
                    b->busy_ms[i] / 1e3, 100 * b->busy_ms[i] / total);
    fprintf(f, "; summed over files, stages of different files overlap\n");
    for (int i = 0; i < b->ndecoders; i++)
        fprintf(f, "%s %s %ld", i ? "," : "gpuimg: decoded by:", b->decoders[i].name, b->decoders[i].n);
    if (b->ndecoders)
        fprintf(f, "\n");
    for (int i = 0; i < b->nencoders; i++)
        fprintf(f, "%s %s %ld", i ? ";" : "gpuimg: encoded by:", b->encoders[i].name, b->encoders[i].n);
    if (b->nencoders)
        fprintf(f, "\n");
}

static void count(struct codec_count *c, int *n, const char *name)
{
    int i = 0;
    while (i < *n && strcmp(c[i].name, name))
        i++;
    if (i == BATCH_MAX_CODECS) {
        i = BATCH_MAX_CODECS - 1;
        c[i].name = "other";
    }
    if (i == *n) {
        c[i].name = name;
        (*n)++;
    }
    c[i].n++;
}

void report_count_decoder(struct batch_report *b, const char *name)
{
    count(b->decoders, &b->ndecoders, name ? name : "not decoded");
}

void report_count_encoder(struct batch_report *b, const char *name)
{
    if (name)
        count(b->encoders, &b->nencoders, name);
}

void report_write_batch_json(FILE *f, const struct batch_report *b)
{
    fprintf(f, "{\"summary\": true, \"pipeline\": ");
    report_json_str(f, b->pipeline);
    fprintf(f, ", \"output_template\": ");
    report_json_str(f, b->template);
    fprintf(f, ", \"files\": {\"listed\": %ld, \"selected\": %ld, \"done\": %ld, \"failed\": %ld, \"skipped\": %ld}, ",
            b->listed, b->selected, b->done, b->failed, b->skipped);
    if (b->shard_n)
        fprintf(f, "\"shard\": {\"k\": %d, \"n\": %d}, ", b->shard_k, b->shard_n);
    fprintf(f, "\"backend\": ");
    report_json_str(f, b->backend);
    fprintf(f, ", \"device\": ");
    if (b->device)
        report_json_str(f, b->device);
    else
        fprintf(f, "null");
    fprintf(f, ", \"server\": ");
    if (b->server)
        report_json_str(f, b->server);
    else
        fprintf(f, "null");
    fprintf(f, ", \"gpus\": %d, \"jobs\": %d, \"threads_per_job\": %d, ", b->ndevices, b->jobs, b->threads_per_job);
    fprintf(f, "\"wall_ms\": %.3f, \"images_per_s\": %.3f, \"busy_ms\": {", b->wall_ms,
            b->wall_ms > 0 ? b->done / (b->wall_ms / 1e3) : 0.0);
    for (int i = 0; i < STAGE_COUNT; i++)
        fprintf(f, "%s\"%s\": %.3f", i ? ", " : "", stage_names[i], b->busy_ms[i]);
    fprintf(f, "}, \"decoders\": {");
    for (int i = 0; i < b->ndecoders; i++) {
        fprintf(f, "%s", i ? ", " : "");
        report_json_str(f, b->decoders[i].name);
        fprintf(f, ": %ld", b->decoders[i].n);
    }
    fprintf(f, "}, \"encoders\": {");
    for (int i = 0; i < b->nencoders; i++) {
        fprintf(f, "%s", i ? ", " : "");
        report_json_str(f, b->encoders[i].name);
        fprintf(f, ": %ld", b->encoders[i].n);
    }
    fprintf(f, "}, \"peak_rss_kib\": %ld}\n", b->peak_rss_kb);
}

void report_write_file_json(FILE *f, const char *in, const char *out, const char *status, const char *error,
                            const char *decoder, const float *ms)
{
    fprintf(f, "{\"input\": ");
    report_json_str(f, in);
    fprintf(f, ", \"output\": ");
    report_json_str(f, out);
    fprintf(f, ", \"status\": ");
    report_json_str(f, status);
    if (error) {
        fprintf(f, ", \"error\": ");
        report_json_str(f, error);
    }
    if (ms) {
        fprintf(f, ", \"decoder\": ");
        report_json_str(f, decoder);
        fprintf(f, ", \"ms\": {");
        for (int i = 0, k = 0; i < STAGE_COUNT; i++)
            if (ms[i] >= 0)
                fprintf(f, "%s\"%s\": %.3f", k++ ? ", " : "", stage_names[i], ms[i]);
        fprintf(f, "}");
    }
    fprintf(f, "}\n");
}

void report_print_compare(FILE *f, const struct run_report *r, const struct compare_table *t)
{
    char a[64];
    snprintf(a, sizeof a, "%dx%d %s %d-bit", r->in.w, r->in.h, layout_name(r->in.c), r->in.depth);
    fprintf(f, "gpuimg --compare: %s (%s), median of %d runs; %s vs OpenMP with %d threads\n", r->input, a, t->repeat,
            t->device ? t->device : "no GPU", r->threads);
    fprintf(f, "%-28s %-22s %10s %9s %10s  %s\n", "step", "implementation", "ms", "GB/s", "vs OpenMP", "check");
    for (int i = 0; i < t->nrows; i++) {
        const struct compare_row *w = &t->rows[i];
        char gbs[32] = "", sp[32] = "";
        if (w->bytes > 0 && w->ms > 0)
            snprintf(gbs, sizeof gbs, "%.1f", w->bytes / w->ms / 1e6);
        if (w->ref_ms > 0 && w->ms > 0)
            snprintf(sp, sizeof sp, "%.1fx", w->ref_ms / w->ms);
        fprintf(f, "%-28.28s %-22.22s %10.3f %9s %10s  %s\n", w->what, w->impl, w->ms, gbs, sp, w->check);
    }
    if (t->failed)
        fprintf(f, "gpuimg --compare: %d check%s FAILED: the GPU and the OpenMP reference disagree\n", t->failed,
                t->failed == 1 ? "" : "s");
}
