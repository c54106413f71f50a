/* gpuimg info [--json] FILE...: what each file is, from its header and metadata alone (nothing
 * decoded): format, size, channels, depth, EXIF orientation, a JPEG's progressive coding, and the
 * metadata it carries with their sizes; text a line a file, or JSON a line a file. */
#ifndef GPUIMG_APP_INFO_H
#define GPUIMG_APP_INFO_H

/* argv[0] is "info". Returns the exit code: 0, 1 when a file could not be read (said, one line
 * each, the others described), 2 for usage. */
int info_main(int argc, char **argv);

#endif
