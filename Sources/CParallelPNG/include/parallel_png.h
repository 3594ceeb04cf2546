#ifndef PARALLEL_PNG_H
#define PARALLEL_PNG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Writes 8-bit interleaved pixels (1-4 channels: grey, grey+alpha, RGB, RGBA) to `path` as a
/// PNG with every row "up"-filtered, at ISA-L deflate `level` (0-3: 0 fastest, 1 the usual
/// choice, 3 smallest; 0 compresses too, unlike zlib's), deflating bands of rows on up to
/// `threads` threads (at most 8; images under 128 rows use one). Returns 0, or -1 with a
/// NUL-terminated reason in `message` (`message_size` bytes).
int parallel_png_write(const unsigned char *pixels, int width, int height, int channels, const char *path,
                       int level, int threads, char *message, size_t message_size);

#ifdef __cplusplus
}
#endif

#endif
