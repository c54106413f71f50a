/* gpuimg: the one translation unit that compiles stb_image and stb_image_write from Debian's
 * libstb-dev headers. Nothing of stb's code is copied into this repository. */
#include <config.h>
#define STBI_FAILURE_USERMSG
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
