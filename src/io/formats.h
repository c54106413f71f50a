/* gpuimg: container checks run before stb_image decodes a file. stb ignores PNG CRCs and pads
 * a truncated JPEG with grey, so a damaged file would otherwise decode "successfully" into a
 * wrong image. These walks catch truncation, bad CRCs and zero-sized headers and say where. */
#ifndef GPUIMG_FORMATS_H
#define GPUIMG_FORMATS_H
#include <stddef.h>
#include <stdint.h>

enum file_kind { KIND_UNKNOWN, KIND_PNG, KIND_JPEG, KIND_PNM };

enum file_kind sniff_kind(const uint8_t *buf, size_t len);
/* Each returns a gpuimg_status; `name` is used in the message. The image size in the header
 * is stored in *w, *h (left 0 when no frame header was seen), so that the pixel limit can be
 * applied before the decoder is asked anything: stb refuses to describe very large images. */
int png_check(const char *name, const uint8_t *buf, size_t len, uint32_t *w, uint32_t *h);
int jpeg_check(const char *name, const uint8_t *buf, size_t len, uint32_t *w, uint32_t *h);
int pnm_check(const char *name, const uint8_t *buf, size_t len, uint32_t *w, uint32_t *h);

#endif
