// A thin edge over FFmpeg's libraries (libavformat, libavcodec, libswscale): frames of pixels in,
// an animated file out. The only code that includes FFmpeg's headers; its functions are the
// types cmotion_interface.h names, looked up by name when the library is loaded.
#ifndef CMOTION_H
#define CMOTION_H

#include "cmotion_interface.h"

CMotionWriter *cmotion_open(const char *path, int format, int width, int height, int fps, int quality,
                            char *error, size_t error_size);
int cmotion_write_rgba(CMotionWriter *writer, const uint8_t *rgba, char *error, size_t error_size);
int cmotion_write_indexed(CMotionWriter *writer, const uint8_t *indices, const uint32_t *palette, char *error,
                          size_t error_size);
int cmotion_finish(CMotionWriter *writer, char *error, size_t error_size);
void cmotion_discard(CMotionWriter *writer);

#endif
