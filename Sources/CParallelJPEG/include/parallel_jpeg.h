#ifndef PARALLEL_JPEG_H
#define PARALLEL_JPEG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Writes 8-bit interleaved pixels (1 channel: grey, 3: RGB) to `path` as a baseline JPEG with
/// libjpeg-turbo's standard Huffman tables at `quality` (1-100), chroma at full resolution
/// (4:4:4) when `full_chroma` is non-zero, else halved both ways (4:2:0). Bands of rows are
/// encoded on up to `threads` threads (at most 16) and joined with restart markers, which every
/// JPEG decoder reads. `dpi` above 0 is written as the JFIF density in dots per inch; 0 writes
/// none (square pixels). Returns 0, or -1 with a NUL-terminated reason in `message`
/// (`message_size` bytes).
int parallel_jpeg_write(const unsigned char *pixels, int width, int height, int channels, int quality,
                        int full_chroma, double dpi, int threads, const char *path, char *message,
                        size_t message_size);

#ifdef __cplusplus
}
#endif

#endif
