// A rectangle of a JPEG, decoded by libjpeg-turbo at 1/1, 1/2, 1/4 or 1/8 of its size.
//
// libvips' loader decodes every column of every row it is asked for. A collage cell usually
// keeps a part of its photo (a 4:3 photo in a square cell keeps three quarters of each row),
// and libjpeg-turbo can skip the inverse DCT, upsampling and colour conversion of the columns
// outside it (jpeg_crop_scanline) and stop reading after the last row the cell keeps. On the
// 1,800 px grid of four 12 MP photos that was 8 % less CPU than the loader followed by a crop,
// with the same pixels to the byte.
//
// The image is lazy: nothing is decoded until a region is asked for, and then only down to the
// last row asked for, so a cancelled render stops between strips as it does with the loader
// (a rectangle to be shrunk is decoded and shrunk whole at the first request: a cancel waits
// for that, a tenth of a second for a 12 MP photo's crop).
// The decoded rows are kept until the image is closed (the whole rectangle, at most
// CVIPS_JPEG_REGION_MAX_BYTES), so rows asked for twice by a resampler are not decoded again,
// and any order of reading is served. That is why the renderer uses it only for cells it
// decodes into memory before the write anyway: a render too big for that streams its photos
// through libvips' loader, holding a few rows of each. Asked for smaller than the rectangle,
// the image is the rectangle shrunk by reduce.c once it is all in, and only the shrunk pixels
// are kept from then on.
#define _GNU_SOURCE  // MADV_HUGEPAGE
#include "cvips.h"

#include <setjmp.h>
#include <sys/mman.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vips/vips.h>

#include <jpeglib.h>
#include <jerror.h>

// Columns decoded on each side of the rectangle (see region_start).
#define CROP_MARGIN 8

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf escape;
    int truncated;
    char message[JMSG_LENGTH_MAX];
} RegionErrors;

typedef struct {
    GMutex lock;
    char *path;
    int shrink;
    // The rectangle, in the decoded (shrunk) image's pixels.
    int x, y, width, height;
    int bands;
    // The decoder, open from the first region asked for until the last row is in.
    int started;
    FILE *file;
    struct jpeg_decompress_struct decoder;
    RegionErrors errors;
    // Rows as libjpeg gives them: from `first_column` (an iMCU boundary at or before x),
    // `row_width` pixels wide.
    unsigned char *pixels;
    size_t row_bytes;
    int first_column;
    int rows_in;
    // The image's size: the rectangle's, or smaller when it is shrunk once decoded; then the
    // shrunk pixels, and the decoded rows are freed.
    int out_width, out_height;
    unsigned char *shrunk;
    int failed;
    char message[JMSG_LENGTH_MAX + 64];
} JpegRegion;

static gint regions_started = 0;

int cvips_jpeg_regions_started(void) { return g_atomic_int_get(&regions_started); }

static void region_error_exit(j_common_ptr decoder) {
    RegionErrors *errors = (RegionErrors *)decoder->err;
    decoder->err->format_message(decoder, errors->message);
    longjmp(errors->escape, 1);
}

// Warnings (corrupt data libjpeg can step over) are let through, as libvips' loader does when
// it fails on truncation only; the end of the data coming early is remembered and fails the read.
static void region_emit_message(j_common_ptr decoder, int level) {
    RegionErrors *errors = (RegionErrors *)decoder->err;
    if (level < 0 && decoder->err->msg_code == JWRN_JPEG_EOF) errors->truncated = 1;
}

// libjpeg's messages, with errors escaping to the caller's setjmp and truncation remembered.
static void region_errors_init(RegionErrors *errors, struct jpeg_decompress_struct *decoder) {
    decoder->err = jpeg_std_error(&errors->manager);
    errors->manager.error_exit = region_error_exit;
    errors->manager.emit_message = region_emit_message;
}

static void region_free(JpegRegion *region) {
    if (region->started) jpeg_destroy_decompress(&region->decoder);
    if (region->file) fclose(region->file);
    free(region->pixels);
    free(region->shrunk);
    free(region->path);
    g_mutex_clear(&region->lock);
    free(region);
}

static void region_closed(VipsImage *image, void *data) {
    (void)image;
    region_free(data);
}

static void region_fail(JpegRegion *region, const char *reason) {
    region->failed = 1;
    g_snprintf(region->message, sizeof region->message, "%s", reason);
}

static void region_finish_decoding(JpegRegion *region) {
    if (region->started) jpeg_destroy_decompress(&region->decoder);
    region->started = 0;
    if (region->file) fclose(region->file);
    region->file = NULL;
}

// A buffer of several megabytes, filled once: in 2 MB pages where the kernel has them, 512
// times fewer page faults than 4 KB ones.
static unsigned char *region_alloc(size_t bytes) {
    const size_t huge = (size_t)2 << 20;
    if (bytes < 2 * huge) return malloc(bytes);
    void *pixels = NULL;
    if (posix_memalign(&pixels, huge, (bytes + huge - 1) / huge * huge)) return NULL;
    madvise(pixels, (bytes + huge - 1) / huge * huge, MADV_HUGEPAGE);
    return pixels;
}

// Opens the decoder at the region's scale, cropped to its columns, past the rows above it.
// Called with the lock held, under the caller's setjmp.
static void region_start(JpegRegion *region) {
    struct jpeg_decompress_struct *decoder = &region->decoder;
    jpeg_read_header(decoder, TRUE);
    decoder->scale_num = 1;
    decoder->scale_denom = (unsigned)region->shrink;
    decoder->out_color_space = region->bands == 3 ? JCS_RGB : JCS_GRAYSCALE;
    jpeg_start_decompress(decoder);
    // The file is opened again here, maybe long after its header was read: one replaced by a
    // file of other colours in between must not write more bands than the rows hold.
    if (decoder->output_components != region->bands || decoder->num_components != region->bands)
        ERREXIT(decoder, JERR_CONVERSION_NOTIMPL);
    int full_width = (int)decoder->output_width;
    if (full_width < region->x + region->width || (int)decoder->output_height < region->y + region->height)
        ERREXIT(decoder, JERR_BAD_CROP_SPEC);
    // The cropped rows' edges are edges to the chroma upsampler, which would repeat the last
    // colour sample there instead of blending with the next: a margin on each side keeps the
    // rectangle's own columns as the whole row has them.
    int left = region->x > CROP_MARGIN ? region->x - CROP_MARGIN : 0;
    int right = full_width - region->x - region->width > CROP_MARGIN ? region->x + region->width + CROP_MARGIN
                                                                     : full_width;
    JDIMENSION first = (JDIMENSION)left, width = (JDIMENSION)(right - left);
    if ((int)width < full_width) jpeg_crop_scanline(decoder, &first, &width);
    region->first_column = (int)first;
    region->row_bytes = (size_t)width * (size_t)region->bands;
    region->pixels = region_alloc(region->row_bytes * (size_t)region->height);
    if (!region->pixels) ERREXIT1(decoder, JERR_OUT_OF_MEMORY, 0);
    if (region->y > 0 && jpeg_skip_scanlines(decoder, (JDIMENSION)region->y) != (JDIMENSION)region->y)
        region->errors.truncated = 1;
}

// Decodes rows until `rows` of the region are in. Called with the lock held.
static int region_decode_to(JpegRegion *region, int rows) {
    if (region->failed) return -1;
    if (region->rows_in >= rows) return 0;
    if (setjmp(region->errors.escape)) {
        region_fail(region, region->errors.message);
        region_finish_decoding(region);
        return -1;
    }
    if (!region->started) {
        region->file = fopen(region->path, "rb");
        if (!region->file) {
            region_fail(region, "the file could not be opened again to decode it");
            return -1;
        }
        region_errors_init(&region->errors, &region->decoder);
        jpeg_create_decompress(&region->decoder);
        region->started = 1;
        jpeg_stdio_src(&region->decoder, region->file);
        region_start(region);
        g_atomic_int_inc(&regions_started);
    }
    while (region->rows_in < rows && !region->errors.truncated) {
        JSAMPROW batch[16];
        int count = rows - region->rows_in < 16 ? rows - region->rows_in : 16;
        for (int i = 0; i < count; i++)
            batch[i] = region->pixels + (size_t)(region->rows_in + i) * region->row_bytes;
        JDIMENSION read = jpeg_read_scanlines(&region->decoder, batch, (JDIMENSION)count);
        if (read == 0) region->errors.truncated = 1;
        region->rows_in += (int)read;
    }
    if (region->errors.truncated) {
        region_fail(region, "Premature end of JPEG file: the file is cut short");
        region_finish_decoding(region);
        return -1;
    }
    // The rows below the region are never read.
    if (region->rows_in == region->height) region_finish_decoding(region);
    return 0;
}

// Decodes the whole rectangle and shrinks it to the image's size. Called with the lock held.
static int region_shrink(JpegRegion *region) {
    if (region->shrunk) return 0;
    if (region_decode_to(region, region->height)) return -1;
    // Plain memory: rounded up to 2 MB pages, a dozen cells held at once took 16 MB more.
    unsigned char *shrunk = malloc((size_t)region->out_width * (size_t)region->out_height * region->bands);
    const unsigned char *corner = region->pixels + (size_t)(region->x - region->first_column) * region->bands;
    if (!shrunk || cvips_reduce_lanczos3(corner, region->row_bytes, region->width, region->height, region->bands,
                                         shrunk, region->out_width, region->out_height)) {
        free(shrunk);
        region_fail(region, "out of memory while shrinking the photo");
        return -1;
    }
    region->shrunk = shrunk;
    free(region->pixels);
    region->pixels = NULL;
    return 0;
}

static int region_generate(VipsRegion *out, void *sequence, void *a, void *b, gboolean *stop) {
    (void)sequence;
    (void)b;
    (void)stop;
    JpegRegion *region = a;
    const VipsRect *rect = &out->valid;
    int shrinks = region->out_width != region->width || region->out_height != region->height;
    g_mutex_lock(&region->lock);
    int result = shrinks ? region_shrink(region) : region_decode_to(region, rect->top + rect->height);
    g_mutex_unlock(&region->lock);
    if (!result && shrinks) {
        size_t row_bytes = (size_t)region->out_width * region->bands;
        for (int row = 0; row < rect->height; row++)
            memcpy(VIPS_REGION_ADDR(out, rect->left, rect->top + row),
                   region->shrunk + (size_t)(rect->top + row) * row_bytes + (size_t)rect->left * region->bands,
                   (size_t)rect->width * region->bands);
        return 0;
    }
    if (result) {
        vips_error("jpegload", "%s", region->message);
        return -1;
    }
    size_t offset = (size_t)(region->x + rect->left - region->first_column) * (size_t)region->bands;
    size_t bytes = (size_t)rect->width * (size_t)region->bands;
    for (int row = 0; row < rect->height; row++)
        memcpy(VIPS_REGION_ADDR(out, rect->left, rect->top + row),
               region->pixels + (size_t)(rect->top + row) * region->row_bytes + offset, bytes);
    return 0;
}

// What the header says, read with a decoder of its own that is closed again at once. Returns
// the bands the region will have (1 or 3), or 0 when this file is one for libvips' loader.
static int region_header(const char *path, int shrink, int *width, int *height, void **profile,
                         unsigned *profile_size) {
    FILE *file = fopen(path, "rb");
    if (!file) return 0;
    struct jpeg_decompress_struct decoder;
    RegionErrors errors;
    memset(&errors, 0, sizeof errors);
    region_errors_init(&errors, &decoder);
    volatile int bands = 0, created = 0;
    if (setjmp(errors.escape) == 0) {
        jpeg_create_decompress(&decoder);
        created = 1;
        jpeg_stdio_src(&decoder, file);
        jpeg_save_markers(&decoder, JPEG_APP0 + 2, 0xFFFF);
        jpeg_read_header(&decoder, TRUE);
        // CMYK and YCCK (with Adobe's inverted inks) and 12-bit files stay with libvips.
        int colour = decoder.jpeg_color_space == JCS_YCbCr || decoder.jpeg_color_space == JCS_RGB;
        int grey = decoder.jpeg_color_space == JCS_GRAYSCALE && decoder.num_components == 1;
        if ((colour && decoder.num_components == 3) || grey) {
            decoder.scale_num = 1;
            decoder.scale_denom = (unsigned)shrink;
            jpeg_calc_output_dimensions(&decoder);
            *width = (int)decoder.output_width;
            *height = (int)decoder.output_height;
            JOCTET *icc = NULL;
            unsigned icc_size = 0;
            int has_icc = 0;
            for (jpeg_saved_marker_ptr marker = decoder.marker_list; marker; marker = marker->next)
                if (marker->marker == JPEG_APP0 + 2 && marker->data_length >= 14 &&
                    memcmp(marker->data, "ICC_PROFILE", 12) == 0)
                    has_icc = 1;
            if (jpeg_read_icc_profile(&decoder, &icc, &icc_size)) {
                *profile = icc;
                *profile_size = icc_size;
                bands = grey ? 1 : 3;
            } else if (!has_icc) {
                bands = grey ? 1 : 3;
            }
            // A profile libjpeg cannot put together (chunks missing or numbered oddly) is one
            // libvips' loader may still read: the file is left to it, so the colours agree.
        }
    }
    if (created) jpeg_destroy_decompress(&decoder);
    fclose(file);
    return bands;
}

int cvips_jpeg_region(const char *path, int shrink, int x, int y, int width, int height, int out_width,
                      int out_height, CVipsImage **out) {
    *out = NULL;
    if (shrink != 1 && shrink != 2 && shrink != 4 && shrink != 8) return 1;
    if (x < 0 || y < 0 || width < 1 || height < 1) return 1;
    if (out_width < 1 || out_height < 1 || out_width > width || out_height > height ||
        width > CVIPS_REDUCE_MAX_SHRINK * out_width || height > CVIPS_REDUCE_MAX_SHRINK * out_height)
        return 1;
    int full_width = 0, full_height = 0;
    void *profile = NULL;
    unsigned profile_size = 0;
    int bands = region_header(path, shrink, &full_width, &full_height, &profile, &profile_size);
    if (bands == 0 || x > full_width - width || y > full_height - height ||
        (uint64_t)full_width * (uint64_t)height * (uint64_t)bands > CVIPS_JPEG_REGION_MAX_BYTES) {
        free(profile);
        return 1;
    }
    JpegRegion *region = calloc(1, sizeof *region);
    char *copied = region ? strdup(path) : NULL;
    if (!copied) {
        free(region);
        free(profile);
        vips_error("jpegload", "out of memory");
        return -1;
    }
    g_mutex_init(&region->lock);
    region->path = copied;
    region->shrink = shrink;
    region->x = x;
    region->y = y;
    region->width = width;
    region->height = height;
    region->bands = bands;
    region->out_width = out_width;
    region->out_height = out_height;

    VipsImage *image = vips_image_new();
    vips_image_init_fields(image, out_width, out_height, bands, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE,
                           bands == 1 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB, 1.0, 1.0);
    if (profile) vips_image_set_blob_copy(image, VIPS_META_ICC_NAME, profile, profile_size);
    free(profile);
    // Strips in order, as the loader's: the decoder only goes forward.
    if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, NULL) ||
        vips_image_generate(image, NULL, region_generate, NULL, region, NULL)) {
        region_free(region);
        g_object_unref(image);
        return -1;
    }
    g_signal_connect(image, "close", G_CALLBACK(region_closed), region);
    *out = image;
    return 0;
}
