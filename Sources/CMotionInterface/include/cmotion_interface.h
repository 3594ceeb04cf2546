// The animation library's interface as function-pointer types. The library (FFmpeg's libraries
// behind cmotion.h) is built as its own shared object and loaded only when an animation is
// written, so commands that write none do not pay for loading FFmpeg (about 60 shared objects,
// 20 ms of every start). cmotion.c checks at compile time that its functions have these types.
#ifndef CMOTION_INTERFACE_H
#define CMOTION_INTERFACE_H

#include <stddef.h>
#include <stdint.h>

/// The shared object's file name, looked for next to the executable.
#define CMOTION_LIBRARY_NAME "libCollageMotion.so"

/// The files a writer makes.
enum {
    CMOTION_MP4 = 0,  // H.264 (libx264), yuv420p, moov atom first (+faststart)
    CMOTION_WEBM = 1, // VP9 (libvpx), yuv420p with an alpha plane
    CMOTION_WEBP = 2, // animated WebP (libwebp), with alpha, looping
    CMOTION_GIF = 3,  // GIF of 8-bit frames on the caller's palette, looping
    CMOTION_APNG = 4, // animated PNG, RGBA, looping
    // Animated PNG of 8-bit frames on the caller's palette (one for the whole animation, its
    // entries' alpha kept), deflated hard and looping: the smallest APNG, for messengers' limits.
    CMOTION_APNG_PALETTE = 5,
};

typedef struct CMotionWriter CMotionWriter;

/// Opens `path` for a `width` × `height` animation at `fps` frames a second. `quality` is 1–100
/// (higher is better and larger). Returns NULL with a message in `error` on failure.
typedef CMotionWriter *(*cmotion_open_fn)(const char *path, int format, int width, int height, int fps, int quality,
                                          char *error, size_t error_size);
/// Appends one frame of RGBA pixels (width × height × 4 bytes, rows packed). 0, or -1 with a message.
typedef int (*cmotion_write_rgba_fn)(CMotionWriter *writer, const uint8_t *rgba, char *error, size_t error_size);
/// Appends one frame of palette indices (width × height bytes) on `palette` (256 colours, each
/// 0xAARRGGBB). GIF and palette APNG writers only. 0, or -1 with a message.
typedef int (*cmotion_write_indexed_fn)(CMotionWriter *writer, const uint8_t *indices, const uint32_t *palette,
                                        char *error, size_t error_size);
/// Flushes the encoder, writes the file's end and frees the writer. 0, or -1 with a message (the
/// writer is freed either way).
typedef int (*cmotion_finish_fn)(CMotionWriter *writer, char *error, size_t error_size);
/// Frees a writer without finishing its file (the caller removes the file).
typedef void (*cmotion_discard_fn)(CMotionWriter *writer);

#endif
