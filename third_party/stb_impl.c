/* gpuimg: the one translation unit that compiles stb_image and stb_image_write from Debian's
 * libstb-dev headers. Nothing of stb's code is copied into this repository. */
#include <config.h>
#define STBI_FAILURE_USERMSG
/* No Softimage PIC: stb_image's PIC decoder converts a NULL buffer after a failed decode, a
 * crash on damaged files (found by tests/fuzz; tests/crashers/load/pic-null-convert.pic). */
#define STBI_NO_PIC
/* stb_image does not clear its decoder state (JPEG Huffman tables, for one): cleared memory
 * makes whatever a damaged file leaves undefined decode the same way every time. */
#include <stdlib.h>
#define STBI_MALLOC(sz) calloc(1, (sz))
#define STBI_REALLOC(p, newsz) realloc((p), (newsz))
#define STBI_FREE(p) free(p)
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

/* stb_image keeps the last failure's reason until the next failure: cleared before a decode, a
 * decoder that fails without giving one cannot report an earlier file's. */
void gpuimg_stbi_clear_reason(void);
void gpuimg_stbi_clear_reason(void) { stbi__g_failure_reason = NULL; }
