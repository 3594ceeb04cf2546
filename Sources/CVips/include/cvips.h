// Fixed-arity wrappers over libvips for Swift, which cannot call C variadic functions.
// Each function wraps one libvips operation; an image is an opaque handle that Swift owns and
// releases with cvips_unref. Every function returns 0 on success and -1 on failure, with the
// message waiting in cvips_error_take().
#ifndef CVIPS_H
#define CVIPS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _VipsImage CVipsImage;

/// Starts libvips once per process; safe to call from any thread, any number of times.
int cvips_init(void);
/// As cvips_init, but libvips' optional format modules (HEIF, JPEG XL, PDF, ImageMagick...)
/// are loaded only when a file or saver needs one. Call first, while the process has one thread.
int cvips_init_deferring_modules(void);
/// 1 when libvips runs Orc-generated code; cvips_init turns that off (see cvips.c for why).
int cvips_vector_enabled(void);
/// The libvips version as "major.minor.micro".
const char *cvips_version(void);
/// How many threads libvips works with.
int cvips_concurrency(void);
/// Copies and clears the global error buffer; free the result with cvips_free.
char *cvips_error_take(void);
void cvips_free(void *pointer);
void cvips_unref(CVipsImage *image);
// vips_image_set_kill: once set, every computation reading this image stops with an error.
void cvips_set_kill(CVipsImage *image, int kill);

/// Whether this libvips can save with the named saver, e.g. "heifsave".
int cvips_has_operation(const char *name);

// Header and pixels.
int cvips_width(const CVipsImage *image);
int cvips_height(const CVipsImage *image);
int cvips_bands(const CVipsImage *image);
/// Opens a file lazily: only the header is read until pixels are asked for.
int cvips_open_header(const char *path, CVipsImage **out);
/// The EXIF orientation (1-8), or 1 when there is none.
int cvips_orientation(const CVipsImage *image);
/// The loader's nickname (e.g. "jpegload"), or "" when unknown; valid while the image lives.
const char *cvips_loader(const CVipsImage *image);
/// Whether the image carries an embedded ICC profile.
int cvips_has_icc(const CVipsImage *image);
/// The embedded ICC profile's bytes (valid while the image lives) and their count in `size`;
/// NULL when there is none.
const void *cvips_icc_profile(const CVipsImage *image, size_t *size);
/// Decodes a file at about `width` x `height`, shrink-on-load, upright (EXIF). With `to_srgb`,
/// converts through the file's embedded ICC profile to sRGB. Truncated files fail.
int cvips_thumbnail(const char *path, int width, int height, int to_srgb, CVipsImage **out);
/// Opens a file for one top-to-bottom read, without applying its orientation or profile. A
/// JPEG (`loader` "jpegload") decodes at 1/`shrink` of its size (1, 2, 4 or 8) straight from
/// its DCT coefficients; other formats load at full size. Truncated files fail.
int cvips_load_sequential(const char *path, const char *loader, int shrink, CVipsImage **out);
/// The largest rectangle cvips_jpeg_region decodes and keeps (its rows at their full width).
#define CVIPS_JPEG_REGION_MAX_BYTES ((size_t)64 << 20)
/// The rectangle `x`, `y`, `width` x `height` (in pixels of the image decoded at 1/`shrink`:
/// 1, 2, 4 or 8) of the JPEG at `path`, decoded lazily top to bottom with only its columns
/// transformed and nothing below it read, as 8-bit sRGB (or B_W for a grey JPEG) carrying the
/// file's ICC profile; the pixels are those of jpegload at that shrink, then cropped. Truncated
/// files fail. Returns 1, with nothing made, for a file this does not handle (CMYK, 12-bit, not
/// a JPEG, a rectangle larger than CVIPS_JPEG_REGION_MAX_BYTES): open it with libvips then.
/// With `out_width` x `out_height` smaller than the rectangle (by at most
/// CVIPS_REDUCE_MAX_SHRINK each way), the image is the rectangle shrunk to that size by
/// cvips_reduce_lanczos3 once it is decoded, and the decoded rows are let go then.
int cvips_jpeg_region(const char *path, int shrink, int x, int y, int width, int height, int out_width,
                      int out_height, CVipsImage **out);
/// The largest shrink cvips_reduce_lanczos3 takes, each way.
#define CVIPS_REDUCE_MAX_SHRINK 4
/// Shrinks `in_width` x `in_height` 8-bit pixels of `bands` (1-4) interleaved samples, rows
/// `in_stride` bytes apart, to `out_width` x `out_height` (tightly packed in `out`) with a
/// Lanczos-3 kernel on libvips' sampling grid, edges extended. Neither side may grow, nor shrink
/// by more than CVIPS_REDUCE_MAX_SHRINK. Returns 0, or -1 (sizes out of range, out of memory).
/// Samples are within a level of an exact Lanczos-3; libvips' reduce, which centres its kernel
/// to a 64th of a pixel and cuts it short at large shrinks, may differ by a few levels.
int cvips_reduce_lanczos3(const unsigned char *in, size_t in_stride, int in_width, int in_height, int bands,
                          unsigned char *out, int out_width, int out_height);
/// How many cvips_jpeg_region images have begun decoding in this process (for tests).
int cvips_jpeg_regions_started(void);
/// Converts through the image's embedded ICC profile to 8-bit sRGB.
int cvips_icc_to_srgb(CVipsImage *in, CVipsImage **out);
/// Turns stored pixels upright for an EXIF `orientation` (1-8). Reads its input out of order.
int cvips_orient(CVipsImage *in, int orientation, CVipsImage **out);
/// Renders the pipeline into memory, so later reads cannot fail on the source file.
int cvips_copy_memory(CVipsImage *in, CVipsImage **out);
/// A layer decoded ahead on another thread: `*out` has `like`'s size, bands and format, and each
/// region asked of it waits until `cvips_pending_fill` (or `_fail`) has been called. Each of the
/// image and the returned handle holds a reference: `cvips_pending_release` drops the handle's.
typedef struct CVipsPending CVipsPending;
int cvips_pending_new(CVipsImage *like, CVipsPending **pending, CVipsImage **out);
/// Serves `pixels` (an image in memory, of the promised size) from now on; takes a reference.
void cvips_pending_fill(CVipsPending *pending, CVipsImage *pixels);
/// Makes every region asked for fail with `message`, now and later.
void cvips_pending_fail(CVipsPending *pending, const char *message);
void cvips_pending_release(CVipsPending *pending);
/// Wraps a copy of 8-bit interleaved pixels.
int cvips_from_memory(const void *data, size_t size, int width, int height, int bands, CVipsImage **out);
/// Wraps 8-bit interleaved pixels without copying; the image must not outlive them.
int cvips_borrow_memory(const void *data, size_t size, int width, int height, int bands, CVipsImage **out);
/// Writes 8-bit interleaved pixels into `data` (width * height * bands bytes).
int cvips_to_memory(CVipsImage *in, void *data, size_t size);

// Operations, one each.
int cvips_extract_area(CVipsImage *in, int left, int top, int width, int height, CVipsImage **out);
int cvips_extract_bands(CVipsImage *in, int first, int count, CVipsImage **out);
int cvips_resize(CVipsImage *in, double hscale, double vscale, CVipsImage **out);
int cvips_embed(CVipsImage *in, int x, int y, int width, int height, CVipsImage **out);
/// Enlarges the canvas to `width` x `height` at the top-left, repeating the last row and column.
int cvips_extend_edges(CVipsImage *in, int width, int height, CVipsImage **out);
/// Rotates by `degrees` clockwise about the centre with bilinear interpolation, on a zero background.
int cvips_rotate(CVipsImage *in, double degrees, CVipsImage **out);
/// Mirrors left to right (`vertical` 0) or top to bottom (`vertical` 1).
int cvips_flip(CVipsImage *in, int vertical, CVipsImage **out);
/// A `width` × `height` gradient: t at each pixel's centre, looked up in `lut` (`count` RGBA entries for t from 0
/// to 1, the ends held beyond). Linear: t = p[0]·x + p[1]·y + p[2]. Radial: t = |((x − p[0]) / p[2], (y − p[1]) / p[3])|.
/// With `bands` 3 the entries' alpha is left out (for colours already laid on white).
int cvips_gradient(int width, int height, int radial, const double *p, const unsigned char *lut, int count,
                   int bands, CVipsImage **out);
/// The bytes of a photo look's colour table: 52³ nodes of red, green and blue.
enum { CVIPS_COLOUR_LUT_BYTES = 52 * 52 * 52 * 3 };
/// The colour part of a photo's look (see CollageRender's PhotoAdjusting) tabulated for one-pass use: `lut`
/// (CVIPS_COLOUR_LUT_BYTES) receives the sRGB colour that each node (red, green, blue at 0, 5 … 255; red slowest) becomes.
/// Exposure and white balance as `gains` (3 factors) on red, green and blue in linear light; in Lab, lightness
/// through `tone` (1001 floats for L = 0, 0.1 … 100), chroma scaled by `chroma` (2001 factors for
/// C = 0, 0.1 … 200); then `curves` (256 × 3 bytes, or NULL).
int cvips_colour_lut(const double *gains, const float *tone, const float *chroma, const unsigned char *curves,
                     unsigned char *lut);
/// A photo cell with its look, in one pass over its pixels: colours through `lut` (from cvips_colour_lut, or
/// NULL for none), the `vignette` factor by distance from the centre (1501 floats for r = 0, 0.001 … 1.5; used
/// when `vignette_amount` is not 0), grain of `grain` levels made `grain_cell` pixels a grain; then sharpening
/// (none when `sharpen_amount` is 0). Alpha is kept.
int cvips_adjust(CVipsImage *in, const unsigned char *lut, double vignette_amount, const float *vignette,
                 double grain, double grain_cell, double sharpen_sigma, double sharpen_amount, CVipsImage **out);
/// The image repeated `across` times and `down` times.
int cvips_replicate(CVipsImage *in, int across, int down, CVipsImage **out);
/// A procedural paper (`kind` 0 kraft, 1 linen, 2 watercolour) of the colour `rgb`, a pixel a point.
int cvips_paper(int width, int height, int kind, const double *rgb, CVipsImage **out);
int cvips_premultiply(CVipsImage *in, CVipsImage **out);
int cvips_unpremultiply(CVipsImage *in, CVipsImage **out);
int cvips_cast_uchar(CVipsImage *in, CVipsImage **out);
/// Converts to 8-bit sRGB (from greyscale, CMYK, 16-bit, Lab...).
int cvips_to_srgb(CVipsImage *in, CVipsImage **out);
int cvips_bandjoin2(CVipsImage *a, CVipsImage *b, CVipsImage **out);
int cvips_bandjoin_const(CVipsImage *in, double value, CVipsImage **out);
/// out = in * a + b, per band when `count` > 1, as float.
int cvips_linear(CVipsImage *in, const double *a, const double *b, int count, CVipsImage **out);
int cvips_multiply(CVipsImage *a, CVipsImage *b, CVipsImage **out);
int cvips_gaussblur(CVipsImage *in, double sigma, CVipsImage **out);
/// A constant image of `count` bands (uchar, sRGB when 3 or 4 bands).
int cvips_solid(int width, int height, const double *values, int count, CVipsImage **out);
/// Pastes `sub` into `main` at (x, y), replacing what was there (no blending).
int cvips_insert(CVipsImage *main, CVipsImage *sub, int x, int y, CVipsImage **out);
/// Composites `count` images over `base`, each at (x[i], y[i]), with the OVER blend.
int cvips_composite(CVipsImage *base, CVipsImage **images, const int *x, const int *y, int count,
                    CVipsImage **out);
/// Serves the image to its consumer in full-width strips computed on several threads at once.
/// Pasting (vips_insert) asks for small tiles, which makes the one-pass photo decoders under it
/// take turns; strips let them run side by side.
int cvips_strips(CVipsImage *in, CVipsImage **out);
/// Tags the image with an EXIF orientation (1-8), written by JPEG, PNG and WebP savers.
int cvips_set_orientation(CVipsImage *in, int orientation, CVipsImage **out);
/// Removes alpha by blending onto an opaque colour.
int cvips_flatten(CVipsImage *in, double red, double green, double blue, CVipsImage **out);
/// A copy as a new picture is written: with none of the metadata of the files that went into it
/// (EXIF with camera, time and GPS place, XMP, IPTC, comments, their ICC profiles), tagged with
/// libvips' sRGB profile, which its pixels must be in; the pixels, size and resolution stay.
int cvips_as_new_srgb_picture(CVipsImage *in, CVipsImage **out);
/// Sets the resolution in pixels per inch (stored as pixels per millimetre).
int cvips_set_dpi(CVipsImage *in, double dpi, CVipsImage **out);
/// Lays out Pango `markup` in `font` ("Family 40", sizes in pixels at 72 DPI), wrapping words
/// (or, inside a word too long for a line, characters) at `width` pixels and aligning the lines
/// on their low (0), centre (1) or high (2) edge. RGBA, so colour emoji keep their colours; the
/// image is cropped to the ink.
int cvips_text(const char *markup, const char *font, int width, int align, CVipsImage **out);

// Savers.
/// Baseline JPEG streams row by row; progressive (with optimised Huffman tables) buffers the
/// whole image's coefficients while it encodes.
int cvips_jpegsave(CVipsImage *in, const char *path, int quality, int progressive, int no_subsample);
/// PNG with every row "up"-filtered (each byte stored as its difference from the byte above).
int cvips_pngsave(CVipsImage *in, const char *path, int compression);
int cvips_webpsave(CVipsImage *in, const char *path, int quality, int lossless);
int cvips_pngsave_palette(CVipsImage *in, const char *path, int quality);
int cvips_webpsave_smallest(CVipsImage *in, const char *path, int quality);
/// HEIF with HEVC (`av1` = 0) or AVIF (`av1` = 1).
int cvips_heifsave(CVipsImage *in, const char *path, int quality, int av1);

#ifdef __cplusplus
}
#endif

#endif
