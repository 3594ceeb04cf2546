#define _GNU_SOURCE
#include "cvips.h"

#include <dlfcn.h>
#include <gmodule.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdint.h>
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

// libvips loads its optional format modules (HEIF, JPEG XL, PDF, ImageMagick, OpenSlide) at
// start-up, which pulls in dozens of large libraries: about 17 ms and 7 MB per process. Started
// with cvips_init_deferring_modules, it starts without them, and they are loaded the first
// time a file no built-in loader reads, or a saver only a module has, is asked for.
static int modules_deferred = 0;
static char module_dir[4096];
static pthread_once_t modules_once = PTHREAD_ONCE_INIT;
static int modules_loaded = 0;

static void load_modules(void) {
    GDir *dir = g_dir_open(module_dir, 0, NULL);
    if (!dir) {
        __atomic_store_n(&modules_loaded, 1, __ATOMIC_RELEASE);
        return;
    }
    const char *name;
    while ((name = g_dir_read_name(dir))) {
        if (!g_str_has_suffix(name, "." G_MODULE_SUFFIX)) continue;
        char *path = g_build_filename(module_dir, name, NULL);
        // Opening runs the module's g_module_check_init, which registers its operations.
        GModule *module = g_module_open(path, G_MODULE_BIND_LAZY);
        if (module) g_module_make_resident(module);
        g_free(path);
    }
    g_dir_close(dir);
    __atomic_store_n(&modules_loaded, 1, __ATOMIC_RELEASE);
}

static void ensure_modules(void) {
    if (modules_deferred) pthread_once(&modules_once, load_modules);
}

/// Before opening `path`: when no loader already known claims it, the modules may have one.
static void ensure_loader_for(const char *path) {
    if (!modules_deferred || __atomic_load_n(&modules_loaded, __ATOMIC_ACQUIRE)) return;
    if (vips_foreign_find_load(path)) return;
    vips_error_clear();
    ensure_modules();
}

int cvips_init_deferring_modules(void) {
    // vips_init looks for modules under $VIPSHOME when it is set: point it nowhere for the
    // duration, then put back what was there. Only safe while the process has one thread.
    char *previous = getenv("VIPSHOME") ? g_strdup(getenv("VIPSHOME")) : NULL;
    setenv("VIPSHOME", "/nonexistent/collage-defers-vips-modules", 1);
    int result = cvips_init();
    if (previous) {
        setenv("VIPSHOME", previous, 1);
        g_free(previous);
    } else {
        unsetenv("VIPSHOME");
    }
    // The modules live beside libvips itself, in vips-modules-MAJOR.MINOR.
    Dl_info info;
    if (result == 0 && !vips_type_find("VipsOperation", "heifload") &&
        dladdr((void *)vips_init, &info) && info.dli_fname) {
        char *libdir = g_path_get_dirname(info.dli_fname);
        g_snprintf(module_dir, sizeof module_dir, "%s/vips-modules-%d.%d", libdir, vips_version(0), vips_version(1));
        g_free(libdir);
        modules_deferred = 1;
    }
    return result;
}

const char *cvips_version(void) { return vips_version_string(); }

int cvips_concurrency(void) { return vips_concurrency_get(); }

char *cvips_error_take(void) {
    // vips_error_buffer_copy copies and clears the (global) buffer in one step.
    return vips_error_buffer_copy();
}

void cvips_free(void *pointer) { g_free(pointer); }

void cvips_unref(CVipsImage *image) {
    if (image) g_object_unref(image);
}

void cvips_set_kill(CVipsImage *image, int kill) { vips_image_set_kill(image, kill ? TRUE : FALSE); }

int cvips_has_operation(const char *name) {
    if (vips_type_find("VipsOperation", name)) return 1;
    ensure_modules();
    return vips_type_find("VipsOperation", name) != 0;
}

int cvips_width(const CVipsImage *image) { return vips_image_get_width(image); }
int cvips_height(const CVipsImage *image) { return vips_image_get_height(image); }
int cvips_bands(const CVipsImage *image) { return vips_image_get_bands(image); }

int cvips_open_header(const char *path, CVipsImage **out) {
    ensure_loader_for(path);
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

const void *cvips_icc_profile(const CVipsImage *image, size_t *size) {
    const void *data = NULL;
    *size = 0;
    if (!vips_image_get_typeof(image, VIPS_META_ICC_NAME) ||
        vips_image_get_blob((VipsImage *)image, VIPS_META_ICC_NAME, &data, size))
        return NULL;
    return data;
}

int cvips_thumbnail(const char *path, int width, int height, int to_srgb, CVipsImage **out) {
    ensure_loader_for(path);
    VipsFailOn fail_on = VIPS_FAIL_ON_TRUNCATED;
    if (!to_srgb)
        return vips_thumbnail(path, out, width, "height", height, "size", VIPS_SIZE_BOTH, "fail_on", fail_on, NULL);
    // With export_profile, thumbnail converts through the embedded profile (Display P3, Adobe
    // RGB) instead of passing the numbers through as if they were sRGB.
    return vips_thumbnail(path, out, width, "height", height, "size", VIPS_SIZE_BOTH, "export_profile", "srgb",
                          "fail_on", fail_on, NULL);
}

int cvips_load_sequential(const char *path, const char *loader, int shrink, CVipsImage **out) {
    ensure_loader_for(path);
    VipsAccess access = VIPS_ACCESS_SEQUENTIAL;
    VipsFailOn fail_on = VIPS_FAIL_ON_TRUNCATED;
    if (shrink > 1 && strcmp(loader, "jpegload") == 0)
        *out = vips_image_new_from_file(path, "access", access, "fail_on", fail_on, "shrink", shrink, NULL);
    else
        *out = vips_image_new_from_file(path, "access", access, "fail_on", fail_on, NULL);
    return *out ? 0 : -1;
}

int cvips_icc_to_srgb(CVipsImage *in, CVipsImage **out) {
    return vips_icc_transform(in, out, "srgb", "embedded", TRUE, NULL);
}

int cvips_orient(CVipsImage *in, int orientation, CVipsImage **out) {
    VipsImage *tagged = NULL;
    if (vips_copy(in, &tagged, NULL)) return -1;
    vips_image_set_int(tagged, VIPS_META_ORIENTATION, orientation);
    int result = vips_autorot(tagged, out, NULL);
    g_object_unref(tagged);
    return result;
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

int cvips_borrow_memory(const void *data, size_t size, int width, int height, int bands, CVipsImage **out) {
    *out = vips_image_new_from_memory(data, size, width, height, bands, VIPS_FORMAT_UCHAR);
    if (!*out) return -1;
    if (bands >= 3) (*out)->Type = VIPS_INTERPRETATION_sRGB;
    return 0;
}

int cvips_to_memory(CVipsImage *in, void *data, size_t size) {
    size_t expected = VIPS_IMAGE_SIZEOF_IMAGE(in);
    if (expected != size || vips_image_get_format(in) != VIPS_FORMAT_UCHAR) {
        vips_error("cvips", "expected %zu bytes of 8-bit pixels, the image has %zu", size, expected);
        return -1;
    }
    // Computed straight into the caller's buffer: no second full-size copy.
    VipsImage *target = vips_image_new_from_memory(data, size, vips_image_get_width(in), vips_image_get_height(in),
                                                   vips_image_get_bands(in), VIPS_FORMAT_UCHAR);
    if (!target) return -1;
    int result = vips_image_write(in, target);
    g_object_unref(target);
    return result;
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

int cvips_extend_edges(CVipsImage *in, int width, int height, CVipsImage **out) {
    return vips_embed(in, out, 0, 0, width, height, "extend", VIPS_EXTEND_COPY, NULL);
}

int cvips_rotate(CVipsImage *in, double degrees, CVipsImage **out) {
    VipsInterpolate *bilinear = vips_interpolate_new("bilinear");
    int result = vips_similarity(in, out, "angle", degrees, "interpolate", bilinear, NULL);
    g_object_unref(bilinear);
    return result;
}

int cvips_flip(CVipsImage *in, int vertical, CVipsImage **out) {
    return vips_flip(in, out, vertical ? VIPS_DIRECTION_VERTICAL : VIPS_DIRECTION_HORIZONTAL, NULL);
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

int cvips_strips(CVipsImage *in, CVipsImage **out) {
    return vips_linecache(in, out, "tile_height", 16, "access", VIPS_ACCESS_SEQUENTIAL, "threaded", TRUE, NULL);
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

/// libvips' sRGB profile, loaded once for the life of the process; NULL when it cannot be.
static VipsBlob *srgb_profile(void) {
    static gsize loaded = 0;
    static VipsBlob *profile = NULL;
    if (g_once_init_enter(&loaded)) {
        VipsBlob *blob = NULL;
        if (vips_profile_load("srgb", &blob, NULL) == 0) profile = blob;
        g_once_init_leave(&loaded, 1);
    }
    return profile;
}

int cvips_as_new_srgb_picture(CVipsImage *in, CVipsImage **out) {
    VipsBlob *profile = srgb_profile();
    if (!profile) {
        vips_error("cvips", "libvips' sRGB profile could not be loaded");
        return -1;
    }
    if (vips_copy(in, out, NULL)) return -1;
    // libvips merges every input's metadata into what an operation makes, so a collage would
    // otherwise carry one of its photos' EXIF, GPS position included, to whoever it is sent.
    // The fixed header (size, format, resolution) is not removable metadata and stays; libvips'
    // own markers ("vips-…") steer its pipeline, not the file.
    gchar **fields = vips_image_get_fields(*out);
    for (int index = 0; fields[index]; index++) {
        if (!g_str_has_prefix(fields[index], "vips-")) (void)vips_image_remove(*out, fields[index]);
    }
    g_strfreev(fields);
    size_t length = 0;
    const void *data = vips_blob_get(profile, &length);
    vips_image_set_blob_copy(*out, VIPS_META_ICC_NAME, data, length);
    return 0;
}

int cvips_set_dpi(CVipsImage *in, double dpi, CVipsImage **out) {
    double per_mm = dpi / 25.4;
    return vips_copy(in, out, "xres", per_mm, "yres", per_mm, NULL);
}

int cvips_jpegsave(CVipsImage *in, const char *path, int quality, int progressive, int no_subsample) {
    return vips_jpegsave(in, path, "Q", quality, "interlace", progressive, "optimize_coding", progressive,
                         "subsample_mode", no_subsample ? VIPS_FOREIGN_SUBSAMPLE_OFF : VIPS_FOREIGN_SUBSAMPLE_AUTO,
                         NULL);
}

int cvips_pngsave(CVipsImage *in, const char *path, int compression) {
    return vips_pngsave(in, path, "compression", compression, "filter", VIPS_FOREIGN_PNG_FILTER_UP, NULL);
}

int cvips_webpsave(CVipsImage *in, const char *path, int quality, int lossless) {
    return vips_webpsave(in, path, "Q", quality, "lossless", lossless, NULL);
}

int cvips_heifsave(CVipsImage *in, const char *path, int quality, int av1) {
    return vips_heifsave(in, path, "Q", quality, "compression",
                         av1 ? VIPS_FOREIGN_HEIF_COMPRESSION_AV1 : VIPS_FOREIGN_HEIF_COMPRESSION_HEVC, NULL);
}

int cvips_text(const char *markup, const char *font, int width, int align, CVipsImage **out) {
    VipsAlign alignment = align == 1 ? VIPS_ALIGN_CENTRE : align == 2 ? VIPS_ALIGN_HIGH : VIPS_ALIGN_LOW;
    return vips_text(out, markup, "font", font, "width", width, "dpi", 72, "align", alignment, "rgba", TRUE,
                     "wrap", VIPS_TEXT_WRAP_WORD_CHAR, NULL);
}

int cvips_gradient(int width, int height, int radial, const double *p, const unsigned char *lut, int count,
                   CVipsImage **out) {
    VipsImage *scope = vips_image_new();
    VipsImage **t = (VipsImage **)vips_object_local_array(VIPS_OBJECT(scope), 8);
    // t from each pixel's centre: linear t = p0·x + p1·y + p2, radial t = |((x − p0) / p2, (y − p1) / p3)|.
    double scale[2], offset[2];
    if (radial) {
        scale[0] = 1 / p[2];
        scale[1] = 1 / p[3];
        offset[0] = (0.5 - p[0]) / p[2];
        offset[1] = (0.5 - p[1]) / p[3];
    } else {
        scale[0] = 2 * p[0];
        scale[1] = 2 * p[1];
        offset[0] = p[0] + p[2];
        offset[1] = p[1] + p[2];
    }
    int failed = vips_xyz(&t[0], width, height, NULL) || vips_linear(t[0], &t[1], scale, offset, 2, NULL);
    if (!failed && radial) {
        failed = vips_multiply(t[1], t[1], &t[2], NULL) || vips_bandmean(t[2], &t[3], NULL) ||
                 vips_linear1(t[3], &t[4], 2, 0, NULL) || vips_math2_const1(t[4], &t[5], VIPS_OPERATION_MATH2_POW, 0.5, NULL);
    } else if (!failed) {
        // The mean of (2·p0·x + p0 + p2, 2·p1·y + p1 + p2) is p0·(x + ½) + p1·(y + ½) + p2.
        failed = vips_bandmean(t[1], &t[5], NULL);
    }
    // Out-of-range indices are clipped by the cast, so t outside 0…1 takes the end colours.
    if (!failed) failed = vips_linear1(t[5], &t[6], count - 1, 0.5, NULL) || vips_cast_ushort(t[6], &t[7], NULL);
    VipsImage *table = failed ? NULL : vips_image_new_from_memory_copy(lut, (size_t)count * 4, count, 1, 4, VIPS_FORMAT_UCHAR);
    VipsImage *mapped = NULL;
    if (table && !vips_maplut(t[7], &mapped, table, NULL)) {
        failed = vips_copy(mapped, out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
        g_object_unref(mapped);
    } else {
        failed = -1;
    }
    if (table) g_object_unref(table);
    g_object_unref(scope);
    return failed ? -1 : 0;
}

int cvips_replicate(CVipsImage *in, int across, int down, CVipsImage **out) {
    return vips_replicate(in, out, across, down, NULL);
}

int cvips_paper(int width, int height, int kind, const double *rgb, CVipsImage **out) {
    VipsImage *scope = vips_image_new();
    VipsImage **t = (VipsImage **)vips_object_local_array(VIPS_OBJECT(scope), 16);
    int failed = 0;
    // A grain for every paper: fine noise a point across, the same at every export size.
    failed = vips_gaussnoise(&t[0], width, height, "sigma", 1.0, "mean", 0.0, "seed", 11, NULL);
    switch (kind) {
    case 0: {
        // Kraft: short horizontal fibres (noise stretched eight points wide) over a slow mottle.
        int fibres = width / 8 + 2;
        failed = failed || vips_gaussnoise(&t[1], fibres, height, "sigma", 1.0, "mean", 0.0, "seed", 23, NULL) ||
                 vips_resize(t[1], &t[2], (double)width / fibres, "vscale", 1.0, NULL) ||
                 vips_extract_area(t[2], &t[3], 0, 0, width, height, NULL) ||
                 vips_perlin(&t[4], width, height, "cell_size", 96, "seed", 5, NULL) ||
                 vips_linear1(t[0], &t[5], 5, 0, NULL) || vips_linear1(t[3], &t[6], 7, 0, NULL) ||
                 vips_linear1(t[4], &t[7], 14, 0, NULL);
        break;
    }
    case 1: {
        // Linen: threads both ways (a noise column stretched across, a row stretched down).
        failed = failed || vips_gaussnoise(&t[1], 1, height, "sigma", 1.0, "mean", 0.0, "seed", 31, NULL) ||
                 vips_embed(t[1], &t[2], 0, 0, width, height, "extend", VIPS_EXTEND_COPY, NULL) ||
                 vips_gaussnoise(&t[3], width, 1, "sigma", 1.0, "mean", 0.0, "seed", 37, NULL) ||
                 vips_embed(t[3], &t[8], 0, 0, width, height, "extend", VIPS_EXTEND_COPY, NULL) ||
                 vips_add(t[2], t[8], &t[4], NULL) ||
                 vips_linear1(t[0], &t[5], 3, 0, NULL) || vips_linear1(t[4], &t[6], 5, 0, NULL) ||
                 vips_perlin(&t[9], width, height, "cell_size", 160, "seed", 7, NULL) ||
                 vips_linear1(t[9], &t[7], 6, 0, NULL);
        break;
    }
    default: {
        // Watercolour paper: soft cold-pressed bumps at two sizes, slightly blurred.
        failed = failed || vips_perlin(&t[1], width, height, "cell_size", 10, "seed", 41, NULL) ||
                 vips_perlin(&t[2], width, height, "cell_size", 64, "seed", 43, NULL) ||
                 vips_gaussblur(t[0], &t[3], 0.8, NULL) ||
                 vips_linear1(t[3], &t[5], 4, 0, NULL) || vips_linear1(t[1], &t[6], 9, 0, NULL) ||
                 vips_linear1(t[2], &t[7], 10, 0, NULL);
        break;
    }
    }
    // The grain moves lightness: each channel by the same offset, onto the paper's colour.
    failed = failed || vips_add(t[5], t[6], &t[10], NULL) || vips_add(t[10], t[7], &t[11], NULL) ||
             vips_bandjoin((VipsImage *[]){t[11], t[11], t[11]}, &t[12], 3, NULL) ||
             vips_linear(t[12], &t[13], (double[]){1, 1, 1}, (double *)rgb, 3, NULL) || vips_cast_uchar(t[13], &t[14], NULL) ||
             vips_copy(t[14], out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    g_object_unref(scope);
    return failed ? -1 : 0;
}

int cvips_adjust(CVipsImage *in, const double *gains, const float *tone, const float *chroma,
                 const unsigned char *curves, double vignette_amount, const float *vignette, double grain,
                 double grain_cell, double sharpen_sigma, double sharpen_amount, CVipsImage **out) {
    VipsImage *scope = vips_image_new();
    VipsImage **t = (VipsImage **)vips_object_local_array(VIPS_OBJECT(scope), 48);
    VipsImage **tables = (VipsImage **)vips_object_local_array(VIPS_OBJECT(scope), 4);
    int width = vips_image_get_width(in), height = vips_image_get_height(in);
    int has_alpha = vips_image_get_bands(in) == 4;
    int failed = 0;
    VipsImage *rgb = in;
    if (has_alpha) {
        failed = vips_extract_band(in, &t[0], 0, "n", 3, NULL) || vips_extract_band(in, &t[1], 3, NULL);
        rgb = t[0];
    }
    // Exposure and white balance (warmth, tint) as gains in linear light, as a camera makes
    // them; then lightness and chroma in Lab.
    double zeros[3] = {0, 0, 0};
    failed = failed || vips_colourspace(rgb, &t[2], VIPS_INTERPRETATION_scRGB, NULL) ||
             vips_linear(t[2], &t[3], (double *)gains, zeros, 3, NULL) ||
             vips_colourspace(t[3], &t[4], VIPS_INTERPRETATION_LAB, "source_space", VIPS_INTERPRETATION_scRGB, NULL) ||
             vips_extract_band(t[4], &t[5], 0, NULL) || vips_extract_band(t[4], &t[6], 1, NULL) ||
             vips_extract_band(t[4], &t[7], 2, NULL);
    if (!failed) {
        tables[0] = vips_image_new_from_memory_copy(tone, 1001 * sizeof(float), 1001, 1, 1, VIPS_FORMAT_FLOAT);
        tables[1] = vips_image_new_from_memory_copy(chroma, 2001 * sizeof(float), 2001, 1, 1, VIPS_FORMAT_FLOAT);
        failed = !tables[0] || !tables[1];
    }
    failed = failed || vips_linear1(t[5], &t[8], 10, 0.5, NULL) || vips_cast_ushort(t[8], &t[9], NULL) ||
             vips_maplut(t[9], &t[10], tables[0], NULL) ||
             vips_copy(t[6], &t[11], NULL) || vips_copy(t[7], &t[12], NULL) ||
             vips_multiply(t[11], t[11], &t[13], NULL) || vips_multiply(t[12], t[12], &t[14], NULL) ||
             vips_add(t[13], t[14], &t[15], NULL) ||
             vips_math2_const1(t[15], &t[16], VIPS_OPERATION_MATH2_POW, 0.5, NULL) ||
             vips_linear1(t[16], &t[17], 10, 0.5, NULL) || vips_cast_ushort(t[17], &t[18], NULL) ||
             vips_maplut(t[18], &t[19], tables[1], NULL) || vips_multiply(t[11], t[19], &t[20], NULL) ||
             vips_multiply(t[12], t[19], &t[21], NULL) ||
             vips_bandjoin((VipsImage *[]){t[10], t[20], t[21]}, &t[22], 3, NULL) ||
             vips_copy(t[22], &t[23], "interpretation", VIPS_INTERPRETATION_LAB, NULL) ||
             vips_colourspace(t[23], &t[24], VIPS_INTERPRETATION_sRGB, NULL) || vips_cast_uchar(t[24], &t[25], NULL);
    VipsImage *result = failed ? NULL : t[25];
    if (!failed && curves) {
        tables[2] = vips_image_new_from_memory_copy(curves, 256 * 3, 256, 1, 3, VIPS_FORMAT_UCHAR);
        failed = !tables[2] || vips_maplut(result, &t[26], tables[2], NULL);
        result = failed ? NULL : t[26];
    }
    if (!failed && vignette_amount != 0) {
        // The frame's own ellipse: 0 at its centre, 1 at the middle of its sides, √2 at its corners.
        double scale[2] = {2.0 / width, 2.0 / height}, offset[2] = {1.0 / width - 1, 1.0 / height - 1};
        tables[3] = vips_image_new_from_memory_copy(vignette, 1501 * sizeof(float), 1501, 1, 1, VIPS_FORMAT_FLOAT);
        failed = !tables[3] || vips_xyz(&t[27], width, height, NULL) ||
                 vips_linear(t[27], &t[28], scale, offset, 2, NULL) || vips_multiply(t[28], t[28], &t[29], NULL) ||
                 vips_bandmean(t[29], &t[30], NULL) || vips_linear1(t[30], &t[31], 2, 0, NULL) ||
                 vips_math2_const1(t[31], &t[32], VIPS_OPERATION_MATH2_POW, 0.5, NULL) ||
                 vips_linear1(t[32], &t[33], 1000, 0.5, NULL) || vips_cast_ushort(t[33], &t[34], NULL) ||
                 vips_maplut(t[34], &t[35], tables[3], NULL) || vips_multiply(result, t[35], &t[36], NULL) ||
                 vips_cast_uchar(t[36], &t[37], NULL);
        result = failed ? NULL : t[37];
    }
    if (!failed && grain > 0) {
        // Grain a point across at every size: made coarse and enlarged to the cell.
        int grain_width = (int)(width / grain_cell) + 2, grain_height = (int)(height / grain_cell) + 2;
        failed = vips_gaussnoise(&t[38], grain_width, grain_height, "sigma", grain, "mean", 0.0, "seed", 29, NULL) ||
                 vips_resize(t[38], &t[39], grain_cell, NULL) ||
                 vips_extract_area(t[39], &t[40], 0, 0, width, height, NULL) || vips_add(result, t[40], &t[41], NULL) ||
                 vips_cast_uchar(t[41], &t[42], NULL);
        result = failed ? NULL : t[42];
    }
    if (!failed && sharpen_amount > 0) {
        failed = vips_sharpen(result, &t[43], "sigma", sharpen_sigma, "m2", sharpen_amount, NULL) ||
                 vips_colourspace(t[43], &t[44], VIPS_INTERPRETATION_sRGB, NULL) || vips_cast_uchar(t[44], &t[45], NULL);
        result = failed ? NULL : t[45];
    }
    if (!failed && has_alpha) {
        failed = vips_bandjoin2(result, t[1], &t[46], NULL);
        result = failed ? NULL : t[46];
    }
    if (!failed) failed = vips_copy(result, out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    g_object_unref(scope);
    return failed ? -1 : 0;
}
