#include "cvips.h"

#include <pthread.h>
#include <string.h>
#include <vips/vips.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_result = -1;

static void start_vips(void) {
    init_result = vips_init("collage");
    // Each render builds fresh pipelines; caching operations would only hold memory.
    vips_cache_set_max(0);
}

int cvips_init(void) {
    pthread_once(&init_once, start_vips);
    return init_result;
}

const char *cvips_version(void) { return vips_version_string(); }

char *cvips_error_take(void) {
    // vips_error_buffer_copy copies and clears the (global) buffer in one step.
    return vips_error_buffer_copy();
}

void cvips_free(void *pointer) { g_free(pointer); }

void cvips_unref(CVipsImage *image) {
    if (image) g_object_unref(image);
}

int cvips_has_operation(const char *name) { return vips_type_find("VipsOperation", name) != 0; }

int cvips_width(const CVipsImage *image) { return vips_image_get_width(image); }
int cvips_height(const CVipsImage *image) { return vips_image_get_height(image); }
int cvips_bands(const CVipsImage *image) { return vips_image_get_bands(image); }

int cvips_open_header(const char *path, CVipsImage **out) {
    *out = vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    return *out ? 0 : -1;
}

int cvips_orientation(const CVipsImage *image) {
    int orientation = 1;
    if (vips_image_get_typeof(image, VIPS_META_ORIENTATION) &&
        vips_image_get_int((VipsImage *)image, VIPS_META_ORIENTATION, &orientation) == 0 &&
        orientation >= 1 && orientation <= 8)
        return orientation;
    return 1;
}

const char *cvips_loader(const CVipsImage *image) {
    const char *loader = NULL;
    if (vips_image_get_typeof(image, VIPS_META_LOADER) &&
        vips_image_get_string((VipsImage *)image, VIPS_META_LOADER, &loader) == 0 && loader)
        return loader;
    return "";
}

int cvips_has_icc(const CVipsImage *image) {
    return vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0;
}

int cvips_thumbnail(const char *path, int width, int height, int to_srgb, CVipsImage **out) {
    VipsFailOn fail_on = VIPS_FAIL_ON_TRUNCATED;
    if (!to_srgb)
        return vips_thumbnail(path, out, width, "height", height, "size", VIPS_SIZE_BOTH, "fail_on", fail_on, NULL);
    // With export_profile, thumbnail converts through the embedded profile (Display P3, Adobe
    // RGB) instead of passing the numbers through as if they were sRGB.
    return vips_thumbnail(path, out, width, "height", height, "size", VIPS_SIZE_BOTH, "export_profile", "srgb",
                          "fail_on", fail_on, NULL);
}

int cvips_copy_memory(CVipsImage *in, CVipsImage **out) {
    *out = vips_image_copy_memory(in);
    return *out ? 0 : -1;
}

int cvips_from_memory(const void *data, size_t size, int width, int height, int bands, CVipsImage **out) {
    *out = vips_image_new_from_memory_copy(data, size, width, height, bands, VIPS_FORMAT_UCHAR);
    if (!*out) return -1;
    if (bands >= 3) (*out)->Type = VIPS_INTERPRETATION_sRGB;
    return 0;
}

int cvips_to_memory(CVipsImage *in, void *data, size_t size) {
    size_t length = 0;
    void *pixels = vips_image_write_to_memory(in, &length);
    if (!pixels) return -1;
    if (length != size) {
        g_free(pixels);
        vips_error("cvips", "expected %zu bytes of pixels, got %zu", size, length);
        return -1;
    }
    memcpy(data, pixels, size);
    g_free(pixels);
    return 0;
}

int cvips_extract_area(CVipsImage *in, int left, int top, int width, int height, CVipsImage **out) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

int cvips_extract_bands(CVipsImage *in, int first, int count, CVipsImage **out) {
    return vips_extract_band(in, out, first, "n", count, NULL);
}

int cvips_resize(CVipsImage *in, double hscale, double vscale, CVipsImage **out) {
    return vips_resize(in, out, hscale, "vscale", vscale, NULL);
}

int cvips_embed(CVipsImage *in, int x, int y, int width, int height, CVipsImage **out) {
    return vips_embed(in, out, x, y, width, height, "extend", VIPS_EXTEND_BLACK, NULL);
}

int cvips_rotate(CVipsImage *in, double degrees, CVipsImage **out) {
    VipsInterpolate *bilinear = vips_interpolate_new("bilinear");
    int result = vips_similarity(in, out, "angle", degrees, "interpolate", bilinear, NULL);
    g_object_unref(bilinear);
    return result;
}

int cvips_premultiply(CVipsImage *in, CVipsImage **out) { return vips_premultiply(in, out, NULL); }

int cvips_unpremultiply(CVipsImage *in, CVipsImage **out) { return vips_unpremultiply(in, out, NULL); }

int cvips_cast_uchar(CVipsImage *in, CVipsImage **out) { return vips_cast_uchar(in, out, NULL); }

int cvips_to_srgb(CVipsImage *in, CVipsImage **out) {
    VipsImage *converted = NULL;
    if (vips_colourspace(in, &converted, VIPS_INTERPRETATION_sRGB, NULL)) return -1;
    int result = vips_cast_uchar(converted, out, NULL);
    g_object_unref(converted);
    return result;
}

int cvips_bandjoin2(CVipsImage *a, CVipsImage *b, CVipsImage **out) { return vips_bandjoin2(a, b, out, NULL); }

int cvips_bandjoin_const(CVipsImage *in, double value, CVipsImage **out) {
    return vips_bandjoin_const1(in, out, value, NULL);
}

int cvips_linear(CVipsImage *in, const double *a, const double *b, int count, CVipsImage **out) {
    return vips_linear(in, out, (double *)a, (double *)b, count, NULL);
}

int cvips_multiply(CVipsImage *a, CVipsImage *b, CVipsImage **out) { return vips_multiply(a, b, out, NULL); }

int cvips_distance(CVipsImage *in, CVipsImage **out) {
    VipsImage *filled = NULL;
    int result = vips_fill_nearest(in, &filled, "distance", out, NULL);
    if (filled) g_object_unref(filled);
    return result;
}

int cvips_gaussblur(CVipsImage *in, double sigma, CVipsImage **out) { return vips_gaussblur(in, out, sigma, NULL); }

int cvips_solid(int width, int height, const double *values, int count, CVipsImage **out) {
    VipsImage *black = NULL;
    if (vips_black(&black, width, height, NULL)) return -1;
    VipsImage *constant = vips_image_new_from_image(black, values, count);
    g_object_unref(black);
    if (!constant) return -1;
    // vips_black makes a "multiband" image; compositing needs it to say sRGB.
    int result = vips_copy(constant, out, "interpretation",
                           count >= 3 ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_B_W, NULL);
    g_object_unref(constant);
    return result;
}

int cvips_insert(CVipsImage *main, CVipsImage *sub, int x, int y, CVipsImage **out) {
    return vips_insert(main, sub, out, x, y, NULL);
}

int cvips_composite(CVipsImage *base, CVipsImage **images, const int *x, const int *y, int count,
                    CVipsImage **out) {
    if (count == 0) return vips_copy(base, out, NULL);
    int total = count + 1;
    VipsImage **all = g_new(VipsImage *, total);
    int *modes = g_new(int, count);
    all[0] = base;
    for (int i = 0; i < count; i++) {
        all[i + 1] = images[i];
        modes[i] = VIPS_BLEND_MODE_OVER;
    }
    VipsArrayInt *xs = vips_array_int_new(x, count);
    VipsArrayInt *ys = vips_array_int_new(y, count);
    int result = vips_composite(all, out, total, modes, "x", xs, "y", ys, NULL);
    vips_area_unref(VIPS_AREA(xs));
    vips_area_unref(VIPS_AREA(ys));
    g_free(modes);
    g_free(all);
    return result;
}

int cvips_set_orientation(CVipsImage *in, int orientation, CVipsImage **out) {
    if (vips_copy(in, out, NULL)) return -1;
    vips_image_set_int(*out, VIPS_META_ORIENTATION, orientation);
    return 0;
}

int cvips_flatten(CVipsImage *in, double red, double green, double blue, CVipsImage **out) {
    double background[] = {red, green, blue};
    VipsArrayDouble *color = vips_array_double_new(background, 3);
    int result = vips_flatten(in, out, "background", color, NULL);
    vips_area_unref(VIPS_AREA(color));
    return result;
}

int cvips_set_dpi(CVipsImage *in, double dpi, CVipsImage **out) {
    double per_mm = dpi / 25.4;
    return vips_copy(in, out, "xres", per_mm, "yres", per_mm, NULL);
}

int cvips_jpegsave(CVipsImage *in, const char *path, int quality, int progressive, int no_subsample) {
    return vips_jpegsave(in, path, "Q", quality, "interlace", progressive, "optimize_coding", TRUE,
                         "subsample_mode", no_subsample ? VIPS_FOREIGN_SUBSAMPLE_OFF : VIPS_FOREIGN_SUBSAMPLE_AUTO,
                         NULL);
}

int cvips_pngsave(CVipsImage *in, const char *path, int compression) {
    return vips_pngsave(in, path, "compression", compression, NULL);
}

int cvips_webpsave(CVipsImage *in, const char *path, int quality, int lossless) {
    return vips_webpsave(in, path, "Q", quality, "lossless", lossless, NULL);
}

int cvips_heifsave(CVipsImage *in, const char *path, int quality, int av1) {
    return vips_heifsave(in, path, "Q", quality, "compression",
                         av1 ? VIPS_FOREIGN_HEIF_COMPRESSION_AV1 : VIPS_FOREIGN_HEIF_COMPRESSION_HEVC, NULL);
}
