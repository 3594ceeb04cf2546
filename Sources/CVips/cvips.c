#define _GNU_SOURCE
#include "cvips.h"

#include <dlfcn.h>
#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <gmodule.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <vips/vips.h>
#include <vips/vector.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_result = -1;

// libvips warns on standard error as it decodes a damaged file ("VIPS-WARNING **: error in
// tile 0 x 88", ten lines of them before Collage's own message naming the file and the
// problem). The failure itself still reaches the caller as an error; the warnings are dropped.
static void drop_warning(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain;
    (void)level;
    (void)message;
    (void)data;
}

static void start_vips(void) {
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, drop_warning, NULL);
    init_result = vips_init("collage");
    // Each render builds fresh pipelines; caching operations would only hold memory.
    vips_cache_set_max(0);
    // libvips 8.14 compiles an Orc program for each resize, blur or morphology it builds, and
    // Orc 0.4.33 frees a program's code memory without the lock its allocator takes. Two
    // requests building pipelines at once (the editor asks for several pictures together) then
    // corrupt the heap: `collage serve` died in liborc. libvips' own C loops run instead.
    vips_vector_set_enabled(FALSE);
}

int cvips_init(void) {
    pthread_once(&init_once, start_vips);
    return init_result;
}

int cvips_vector_enabled(void) { return vips_vector_isenabled() ? 1 : 0; }

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

/// The loader libvips finds for `path` (the modules' too, loaded when no built-in one claims
/// it); NULL, with libvips' error saying the format is unknown, when none does.
static const char *loader_for(const char *path) {
    const char *loader = vips_foreign_find_load(path);
    if (loader || !modules_deferred || __atomic_load_n(&modules_loaded, __ATOMIC_ACQUIRE)) return loader;
    vips_error_clear();
    ensure_modules();
    return vips_foreign_find_load(path);
}

/// Whether `loader` names one of libvips' file loaders that find their own format in a file
/// (the `vips-loader` a header opened from a file records): called with the file name alone, not
/// one that reads from memory or a stream, nor one that needs the pixel layout given (rawload).
static int is_file_loader(const char *loader) {
    if (!loader || !*loader || g_str_has_suffix(loader, "_source") || g_str_has_suffix(loader, "_buffer")) return 0;
    GType type = vips_type_find("VipsForeignLoad", loader);
    if (!type) return 0;
    VipsForeignLoadClass *class = g_type_class_ref(type);
    int sniffs = class->is_a != NULL;
    g_type_class_unref(class);
    return sniffs;
}

// Finding a file's loader opens the file once for each loader asked whether it is theirs (seven
// for a JPEG): a header and then its pixels are opened by the loader found once, not found again.
int cvips_open_header(const char *path, CVipsImage **out) {
    *out = NULL;
    const char *loader = loader_for(path);
    if (!loader) return -1;
    return vips_call(loader, path, out, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
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
    *out = NULL;
    VipsAccess access = VIPS_ACCESS_SEQUENTIAL;
    VipsFailOn fail_on = VIPS_FAIL_ON_TRUNCATED;
    if (!is_file_loader(loader)) {
        ensure_loader_for(path);
        *out = vips_image_new_from_file(path, "access", access, "fail_on", fail_on, NULL);
        return *out ? 0 : -1;
    }
    if (shrink > 1 && strcmp(loader, "jpegload") == 0)
        return vips_call(loader, path, out, "access", access, "fail_on", fail_on, "shrink", shrink, NULL);
    return vips_call(loader, path, out, "access", access, "fail_on", fail_on, NULL);
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

// A layer's pixels promised by another thread. The write of the collage starts with the photos
// at the top decoded, while the ones below are still being decoded: on two cores the encoder's
// work then overlaps the last decodes, where it used to run alone after all of them.
struct CVipsPending {
    GMutex lock;
    GCond ready;
    int done;
    VipsImage *pixels;
    char message[512];
    gint references;
};

static void pending_unref(CVipsPending *pending) {
    if (!g_atomic_int_dec_and_test(&pending->references)) return;
    if (pending->pixels) g_object_unref(pending->pixels);
    g_mutex_clear(&pending->lock);
    g_cond_clear(&pending->ready);
    free(pending);
}

static void pending_closed(VipsImage *image, void *data) {
    (void)image;
    pending_unref(data);
}

static int pending_generate(VipsRegion *region, void *sequence, void *a, void *b, gboolean *stop) {
    (void)sequence;
    (void)b;
    (void)stop;
    CVipsPending *pending = a;
    g_mutex_lock(&pending->lock);
    while (!pending->done) g_cond_wait(&pending->ready, &pending->lock);
    VipsImage *pixels = pending->pixels;
    if (pixels) g_object_ref(pixels);
    g_mutex_unlock(&pending->lock);
    if (!pixels) {
        vips_error("pending", "%s", pending->message);
        return -1;
    }
    VipsRegion *source = vips_region_new(pixels);
    int status = vips_region_prepare(source, &region->valid);
    if (!status) vips_region_copy(source, region, &region->valid, region->valid.left, region->valid.top);
    g_object_unref(source);
    g_object_unref(pixels);
    return status;
}

int cvips_pending_new(CVipsImage *like, CVipsPending **pending, CVipsImage **out) {
    CVipsPending *made = calloc(1, sizeof(CVipsPending));
    if (!made) {
        vips_error("pending", "out of memory");
        return -1;
    }
    g_mutex_init(&made->lock);
    g_cond_init(&made->ready);
    made->references = 2;
    VipsImage *image = vips_image_new();
    vips_image_init_fields(image, like->Xsize, like->Ysize, like->Bands, like->BandFmt, like->Coding, like->Type,
                           like->Xres, like->Yres);
    if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, NULL) ||
        vips_image_generate(image, NULL, pending_generate, NULL, made, NULL)) {
        g_object_unref(image);
        made->references = 1;
        pending_unref(made);
        return -1;
    }
    g_signal_connect(image, "close", G_CALLBACK(pending_closed), made);
    *pending = made;
    *out = image;
    return 0;
}

static void pending_settle(CVipsPending *pending, VipsImage *pixels, const char *message) {
    g_mutex_lock(&pending->lock);
    if (!pending->done) {
        pending->pixels = pixels;
        if (pixels) g_object_ref(pixels);
        if (message) g_strlcpy(pending->message, message, sizeof pending->message);
        pending->done = 1;
        g_cond_broadcast(&pending->ready);
    }
    g_mutex_unlock(&pending->lock);
}

void cvips_pending_fill(CVipsPending *pending, CVipsImage *pixels) { pending_settle(pending, pixels, NULL); }

void cvips_pending_fail(CVipsPending *pending, const char *message) { pending_settle(pending, NULL, message); }

// A promise dropped unkept would leave every strip that needs it waiting for good.
void cvips_pending_release(CVipsPending *pending) {
    pending_settle(pending, NULL, "the layer was never decoded");
    pending_unref(pending);
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

// The smallest files each format makes at a quality, for pictures with a size limit (sticker
// packs): the slowest effort, and for PNG a palette of up to 256 colours and alpha levels.
int cvips_pngsave_palette(CVipsImage *in, const char *path, int quality) {
    return vips_pngsave(in, path, "compression", 9, "palette", TRUE, "Q", quality, "effort", 10, "strip", TRUE, NULL);
}

int cvips_webpsave_smallest(CVipsImage *in, const char *path, int quality) {
    return vips_webpsave(in, path, "Q", quality, "alpha_q", quality, "effort", 6, "smart_subsample", TRUE, "strip", TRUE, NULL);
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

// MARK: - One-pass pixel operations
//
// Operations that a chain of libvips operations would do in several passes over float images,
// done here in one pass over bytes: a lazily computed image whose rows are made by a function
// of the input row (or of the position alone), so they stream and run on libvips' threads.

typedef struct PointState PointState;
typedef void (*PointRow)(const PointState *state, const VipsPel *in, VipsPel *out, int x, int y, int width);

struct PointState {
    PointRow row;
    VipsImage *input;  // held until the output is freed; NULL for an image made from nothing
    int width, height;
    // A photo's look.
    unsigned char *lut;
    unsigned short *vignette_by_r2;
    float *column_x2;
    // Made at the first rows asked for (on a decoding thread, not while the render is set up),
    // from `grain` and `grain_cell`, under `grain_lock`.
    signed char *grain_tile;
    double grain, grain_cell;
    GMutex grain_lock;
    // A gradient.
    unsigned char *colours;
    int count, radial, bands;
    double p[4];
};

static void point_free(void *data) {
    PointState *state = data;
    if (state->input) g_object_unref(state->input);
    free(state->lut);
    free(state->vignette_by_r2);
    free(state->column_x2);
    free(state->colours);
    free(state->grain_tile);
    if (state->grain > 0) g_mutex_clear(&state->grain_lock);
    free(state);
}

static void *point_start(VipsImage *out, void *a, void *b) {
    (void)out;
    (void)b;
    PointState *state = a;
    // A region on the input, or a token for an image with no input (NULL means failure here).
    return state->input ? (void *)vips_region_new(state->input) : (void *)state;
}

static int point_stop(void *seq, void *a, void *b) {
    (void)b;
    PointState *state = a;
    if (state->input) g_object_unref(seq);
    return 0;
}

static signed char *shared_grain_tile(double grain, double cell);

static int point_generate(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop) {
    (void)b;
    (void)stop;
    PointState *state = a;
    if (state->grain > 0 && !__atomic_load_n(&state->grain_tile, __ATOMIC_ACQUIRE)) {
        g_mutex_lock(&state->grain_lock);
        if (!state->grain_tile)
            __atomic_store_n(&state->grain_tile, shared_grain_tile(state->grain, state->grain_cell), __ATOMIC_RELEASE);
        int made = state->grain_tile != NULL;
        g_mutex_unlock(&state->grain_lock);
        if (!made) {
            vips_error("cvips_adjust", "out of memory for the grain");
            return -1;
        }
    }
    VipsRect *r = &out_region->valid;
    VipsRegion *in_region = state->input ? seq : NULL;
    if (in_region && vips_region_prepare(in_region, r)) return -1;
    for (int y = 0; y < r->height; y++) {
        const VipsPel *p = in_region ? VIPS_REGION_ADDR(in_region, r->left, r->top + y) : NULL;
        state->row(state, p, VIPS_REGION_ADDR(out_region, r->left, r->top + y), r->left, r->top + y, r->width);
    }
    return 0;
}

/// `out` made row by row by `state` (which it then owns), `bands` bytes a pixel, the size of the input or of
/// `width` × `height` when there is none.
static int point_image(PointState *state, int width, int height, int bands, CVipsImage **out) {
    VipsImage *image = vips_image_new();
    if (state->input) {
        g_object_ref(state->input);
        width = vips_image_get_width(state->input);
        height = vips_image_get_height(state->input);
        if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, state->input, NULL)) {
            point_free(state);
            g_object_unref(image);
            return -1;
        }
    } else {
        vips_image_pipelinev(image, VIPS_DEMAND_STYLE_ANY, NULL);
    }
    double xres = state->input ? vips_image_get_xres(state->input) : 1.0;
    double yres = state->input ? vips_image_get_yres(state->input) : 1.0;
    vips_image_init_fields(image, width, height, bands, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE,
                           VIPS_INTERPRETATION_sRGB, xres, yres);
    state->width = width;
    state->height = height;
    g_object_set_data_full(G_OBJECT(image), "collage-point-state", state, point_free);
    if (vips_image_generate(image, point_start, point_generate, point_stop, state, NULL)) {
        g_object_unref(image);
        return -1;
    }
    *out = image;
    return 0;
}

static void gradient_row(const PointState *s, const VipsPel *in, VipsPel *out, int x0, int y, int width) {
    (void)in;
    int last = s->count - 1, bands = s->bands;
    double row_y = (double)y + 0.5;
    // Each pixel's position in the table (t · last, rounded by the + 0.5); t outside 0…1 (or not a number)
    // takes the end colours. A linear gradient's position is the row's plus a step a pixel, counted from
    // the image's own left edge, so a pixel is the same whichever tile it is drawn in.
    double row_position = (s->p[0] * 0.5 + s->p[1] * row_y + s->p[2]) * last + 0.5;
    double step = s->p[0] * last;
    for (int i = 0; i < width; i++) {
        int x = x0 + i;
        double position;
        if (s->radial) {
            double dx = ((double)x + 0.5 - s->p[0]) / s->p[2], dy = (row_y - s->p[1]) / s->p[3];
            position = sqrt(dx * dx + dy * dy) * last + 0.5;
        } else {
            position = row_position + step * x;
        }
        int index = !(position > 0) ? 0 : position >= last ? last : (int)position;
        const unsigned char *colour = s->colours + index * 4;
        VipsPel *q = out + i * bands;
        q[0] = colour[0], q[1] = colour[1], q[2] = colour[2];
        if (bands == 4) q[3] = colour[3];
    }
}

int cvips_gradient(int width, int height, int radial, const double *p, const unsigned char *lut, int count,
                   int bands, CVipsImage **out) {
    if (count < 1 || bands < 3 || bands > 4 || width < 1 || height < 1) {
        vips_error("cvips_gradient", "a gradient of %d × %d pixels, %d colours, %d bands", width, height, count, bands);
        return -1;
    }
    PointState *state = calloc(1, sizeof(PointState));
    if (!state) return -1;
    state->row = gradient_row;
    state->radial = radial;
    state->count = count;
    state->bands = bands;
    memcpy(state->p, p, (radial ? 4 : 3) * sizeof(double));
    state->colours = malloc((size_t)count * 4);
    if (!state->colours) {
        point_free(state);
        return -1;
    }
    memcpy(state->colours, lut, (size_t)count * 4);
    return point_image(state, width, height, bands, out);
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

// MARK: - A photo's look

#define LUT_NODES 52
#define LUT_STEP 5

// The colour part of a look on a 3-band image, as libvips operations: gains in linear light, lightness
// and chroma through their tables in Lab, back to sRGB bytes, then the curves.
static int colour_pipeline(VipsImage *scope, VipsImage *rgb, const double *gains, const float *tone,
                           const float *chroma, const unsigned char *curves, VipsImage **out) {
    VipsImage **t = (VipsImage **)vips_object_local_array(VIPS_OBJECT(scope), 32);
    double zeros[3] = {0, 0, 0};
    int failed = vips_colourspace(rgb, &t[2], VIPS_INTERPRETATION_scRGB, NULL) ||
                 vips_linear(t[2], &t[3], (double *)gains, zeros, 3, NULL) ||
                 vips_colourspace(t[3], &t[4], VIPS_INTERPRETATION_LAB, "source_space", VIPS_INTERPRETATION_scRGB, NULL) ||
                 vips_extract_band(t[4], &t[5], 0, NULL) || vips_extract_band(t[4], &t[6], 1, NULL) ||
                 vips_extract_band(t[4], &t[7], 2, NULL);
    if (!failed) {
        t[27] = vips_image_new_from_memory_copy(tone, 1001 * sizeof(float), 1001, 1, 1, VIPS_FORMAT_FLOAT);
        t[28] = vips_image_new_from_memory_copy(chroma, 2001 * sizeof(float), 2001, 1, 1, VIPS_FORMAT_FLOAT);
        failed = !t[27] || !t[28];
    }
    failed = failed || vips_linear1(t[5], &t[8], 10, 0.5, NULL) || vips_cast_ushort(t[8], &t[9], NULL) ||
             vips_maplut(t[9], &t[10], t[27], NULL) ||
             vips_multiply(t[6], t[6], &t[13], NULL) || vips_multiply(t[7], t[7], &t[14], NULL) ||
             vips_add(t[13], t[14], &t[15], NULL) ||
             vips_math2_const1(t[15], &t[16], VIPS_OPERATION_MATH2_POW, 0.5, NULL) ||
             vips_linear1(t[16], &t[17], 10, 0.5, NULL) || vips_cast_ushort(t[17], &t[18], NULL) ||
             vips_maplut(t[18], &t[19], t[28], NULL) || vips_multiply(t[6], t[19], &t[20], NULL) ||
             vips_multiply(t[7], t[19], &t[21], NULL) ||
             vips_bandjoin((VipsImage *[]){t[10], t[20], t[21]}, &t[22], 3, NULL) ||
             vips_copy(t[22], &t[23], "interpretation", VIPS_INTERPRETATION_LAB, NULL) ||
             vips_colourspace(t[23], &t[24], VIPS_INTERPRETATION_sRGB, NULL) || vips_cast_uchar(t[24], &t[25], NULL);
    if (failed) return -1;
    if (!curves) {
        *out = t[25];
        return 0;
    }
    t[29] = vips_image_new_from_memory_copy(curves, 256 * 3, 256, 1, 3, VIPS_FORMAT_UCHAR);
    if (!t[29] || vips_maplut(t[25], &t[26], t[29], NULL)) return -1;
    *out = t[26];
    return 0;
}

int cvips_colour_lut(const double *gains, const float *tone, const float *chroma, const unsigned char *curves,
                     unsigned char *lut) {
    // Every node once, as one image: row red, column green × nodes + blue, so its bytes are the table.
    size_t size = CVIPS_COLOUR_LUT_BYTES;
    _Static_assert(CVIPS_COLOUR_LUT_BYTES == LUT_NODES * LUT_NODES * LUT_NODES * 3, "the table's size");
    unsigned char *grid = malloc(size);
    if (!grid) return -1;
    for (int r = 0; r < LUT_NODES; r++)
        for (int g = 0; g < LUT_NODES; g++)
            for (int b = 0; b < LUT_NODES; b++) {
                unsigned char *node = grid + (((size_t)r * LUT_NODES + g) * LUT_NODES + b) * 3;
                node[0] = (unsigned char)(r * LUT_STEP);
                node[1] = (unsigned char)(g * LUT_STEP);
                node[2] = (unsigned char)(b * LUT_STEP);
            }
    VipsImage *scope = vips_image_new();
    VipsImage **t = (VipsImage **)vips_object_local_array(VIPS_OBJECT(scope), 2);
    VipsImage *coloured = NULL;
    t[0] = vips_image_new_from_memory(grid, size, LUT_NODES * LUT_NODES, LUT_NODES, 3, VIPS_FORMAT_UCHAR);
    int failed = !t[0] || vips_copy(t[0], &t[1], "interpretation", VIPS_INTERPRETATION_sRGB, NULL) ||
                 colour_pipeline(scope, t[1], gains, tone, chroma, curves, &coloured);
    size_t written = 0;
    void *table = failed ? NULL : vips_image_write_to_memory(coloured, &written);
    if (table && written == size) memcpy(lut, table, size);
    failed = !table || written != size;
    g_free(table);
    g_object_unref(scope);
    free(grid);
    return failed ? -1 : 0;
}

// 32 well-mixed bits from a grain cell's position.
static inline uint32_t grain_hash(int x, int y) {
    uint32_t h = (uint32_t)x * 0x9E3779B1u ^ ((uint32_t)y * 0x85EBCA77u + 0x165667B1u);
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h;
}

// About normal (the sum of four uniform bytes, scaled to unit spread), for a grain cell.
static inline float grain_value(int x, int y) {
    uint32_t h = grain_hash(x, y);
    int sum = (int)(h & 255) + (int)((h >> 8) & 255) + (int)((h >> 16) & 255) + (int)(h >> 24);
    return (float)(sum - 510) / 147.8f;
}


// The table as a look holds it: a node more along each axis (a copy of the last), so the far corners of
// every colour's cube exist and the strides between nodes never change.
#define PADDED_NODES (LUT_NODES + 1)
#define STRIDE_R (PADDED_NODES * PADDED_NODES * 3)
#define STRIDE_G (PADDED_NODES * 3)
#define STRIDE_B 3

static unsigned char *padded_lut(const unsigned char *lut) {
    // A byte more, for the last node read as 4 bytes.
    unsigned char *padded = calloc((size_t)PADDED_NODES * PADDED_NODES * PADDED_NODES * 3 + 1, 1);
    if (!padded) return NULL;
    for (int r = 0; r < PADDED_NODES; r++)
        for (int g = 0; g < PADDED_NODES; g++)
            for (int b = 0; b < PADDED_NODES; b++) {
                int sr = r < LUT_NODES ? r : LUT_NODES - 1, sg = g < LUT_NODES ? g : LUT_NODES - 1,
                    sb = b < LUT_NODES ? b : LUT_NODES - 1;
                memcpy(padded + r * STRIDE_R + g * STRIDE_G + b * STRIDE_B,
                       lut + (((size_t)sr * LUT_NODES + sg) * LUT_NODES + sb) * 3, 3);
            }
    return padded;
}

// Tetrahedral interpolation: the cube of nodes around a colour is cut into six tetrahedra along its grey
// diagonal, and the colour weighted between the four corners of its own. Which tetrahedron, and the weights,
// depend only on where the colour lies between nodes (5 × 5 × 5 places, as the nodes are 5 apart), so
// they are looked up rather than branched on: on a photo the branches were mispredicted half the time.
typedef struct {
    // Each corner's weight in fifths, four times over (a lane for each byte of a corner): near and second,
    // then third and far, as SSE2 multiplies them.
    short weights[2][8];
    int second, third;  // offsets of the two middle corners from the near one
} Tetrahedron;

static Tetrahedron tetrahedra[LUT_STEP * LUT_STEP * LUT_STEP];
static unsigned node_offset[3][256];
static unsigned char node_fraction[256];
static pthread_once_t tetrahedra_once = PTHREAD_ONCE_INIT;

static void make_tetrahedra(void) {
    for (int v = 0; v < 256; v++) {
        node_offset[0][v] = (unsigned)(v / LUT_STEP * STRIDE_R);
        node_offset[1][v] = (unsigned)(v / LUT_STEP * STRIDE_G);
        node_offset[2][v] = (unsigned)(v / LUT_STEP * STRIDE_B);
        node_fraction[v] = (unsigned char)(v % LUT_STEP);
    }
    for (int fr = 0; fr < LUT_STEP; fr++)
        for (int fg = 0; fg < LUT_STEP; fg++)
            for (int fb = 0; fb < LUT_STEP; fb++) {
                Tetrahedron *t = &tetrahedra[(fr * LUT_STEP + fg) * LUT_STEP + fb];
                // The axes from the largest fraction to the smallest: the path along the cube's edges.
                int fraction[3] = {fr, fg, fb}, stride[3] = {STRIDE_R, STRIDE_G, STRIDE_B}, order[3] = {0, 1, 2};
                for (int i = 0; i < 3; i++)
                    for (int j = i + 1; j < 3; j++)
                        if (fraction[order[j]] > fraction[order[i]]) {
                            int swap = order[i];
                            order[i] = order[j];
                            order[j] = swap;
                        }
                int first = fraction[order[0]], middle = fraction[order[1]], last = fraction[order[2]];
                t->second = stride[order[0]];
                t->third = stride[order[0]] + stride[order[1]];
                int weights[4] = {LUT_STEP - first, first - middle, middle - last, last};
                for (int lane = 0; lane < 8; lane++) {
                    t->weights[0][lane] = (short)weights[lane / 4];
                    t->weights[1][lane] = (short)weights[2 + lane / 4];
                }
            }
}

#if defined(__SSE2__)
// One pixel through the (padded) table: its four corners side by side in one register, each as 4
// bytes (a node and the first byte of the next: the table is padded at its end so the last one can
// be read), interpolated into the low four 16-bit lanes (red, green, blue, and a fourth to ignore),
// each 0-255 and not yet packed into bytes.
static inline __m128i lut_pixel(const unsigned char *restrict lut, const VipsPel *p) {
    const __m128i zero = _mm_setzero_si128(), half = _mm_set1_epi16(LUT_STEP / 2),
                  fifth = _mm_set1_epi16(13108);  // ⌊(x · 13108) / 65536⌋ = ⌊x / 5⌋ for every x up to 1,279
    const unsigned char *near = lut + node_offset[0][p[0]] + node_offset[1][p[1]] + node_offset[2][p[2]];
    const Tetrahedron *t =
        &tetrahedra[(node_fraction[p[0]] * LUT_STEP + node_fraction[p[1]]) * LUT_STEP + node_fraction[p[2]]];
    int corners[4];
    memcpy(&corners[0], near, 4);
    memcpy(&corners[1], near + t->second, 4);
    memcpy(&corners[2], near + t->third, 4);
    memcpy(&corners[3], near + STRIDE_R + STRIDE_G + STRIDE_B, 4);
    __m128i packed = _mm_loadu_si128((const __m128i *)corners);
    __m128i sum = _mm_add_epi16(
        _mm_mullo_epi16(_mm_unpacklo_epi8(packed, zero), _mm_loadu_si128((const __m128i *)t->weights[0])),
        _mm_mullo_epi16(_mm_unpackhi_epi8(packed, zero), _mm_loadu_si128((const __m128i *)t->weights[1])));
    sum = _mm_add_epi16(_mm_add_epi16(sum, _mm_srli_si128(sum, 8)), half);
    return _mm_mulhi_epu16(sum, fifth);
}
#endif

// The colours of a row through the (padded) table: bytes in, bytes out, no floating point.
static void lut_row(const unsigned char *restrict lut, const VipsPel *restrict in, VipsPel *restrict out, int width) {
    int i = 0;
#if defined(__SSE2__)
    // All but the last pixel are stored as 4 bytes, the next pixel overwriting the fourth.
    for (; i < width - 1; i++) {
        int pixel = _mm_cvtsi128_si32(_mm_packus_epi16(lut_pixel(lut, in + i * 3), _mm_setzero_si128()));
        memcpy(out + i * 3, &pixel, 4);
    }
#endif
    for (; i < width; i++) {
        const VipsPel *p = in + i * 3;
        const unsigned char *near = lut + node_offset[0][p[0]] + node_offset[1][p[1]] + node_offset[2][p[2]];
        const Tetrahedron *t =
            &tetrahedra[(node_fraction[p[0]] * LUT_STEP + node_fraction[p[1]]) * LUT_STEP + node_fraction[p[2]]];
        const unsigned char *second = near + t->second, *third = near + t->third;
        const unsigned char *far = near + STRIDE_R + STRIDE_G + STRIDE_B;
        const short *w = t->weights[0], *v = t->weights[1];
        VipsPel *q = out + i * 3;
        for (int c = 0; c < 3; c++)
            q[c] = (VipsPel)((unsigned)(w[0] * near[c] + w[4] * second[c] + v[0] * third[c] + v[4] * far[c] +
                                        LUT_STEP / 2) /
                             LUT_STEP);
    }
}

// The vignette's factor is tabulated by squared distance from the centre, 1,024 steps a unit.
#define VIGNETTE_R2_STEPS 1024
#define VIGNETTE_R2_SIZE (2 * VIGNETTE_R2_STEPS + 1)

// Grain repeats every GRAIN_TILE pixels both ways: a pattern of random cells that long is not seen to repeat,
// and adding it costs a byte read per pixel instead of a noise value made for each.
#define GRAIN_TILE 1024

// A GRAIN_TILE² tile of grain (levels, rounded): about normal values at the centres of cells about `cell`
// pixels across (a whole number of them fills the tile, so it wraps without a seam), bilinear between them,
// with a spread of `grain` levels.
static signed char *grain_tile(double grain, double cell) {
    size_t size = (size_t)GRAIN_TILE * GRAIN_TILE;
    signed char *tile = malloc(size);
    float *values = malloc(size * sizeof(float));
    int cells = (int)(GRAIN_TILE / cell + 0.5);
    if (cells < 1) cells = 1;
    float *columns = malloc((size_t)(cells + 1) * sizeof(float));
    if (!tile || !values || !columns) {
        free(tile);
        free(values);
        free(columns);
        return NULL;
    }
    float cell_size = (float)GRAIN_TILE / (float)cells;
    double sum = 0, squares = 0;
    for (int y = 0; y < GRAIN_TILE; y++) {
        float gy = ((float)y + 0.5f) / cell_size - 0.5f;
        int cy = (int)floorf(gy);
        float fy = gy - (float)cy;
        int top_row = (cy + cells) % cells, bottom_row = (cy + 1) % cells;
        for (int cx = 0; cx <= cells; cx++) {
            float top = grain_value(cx % cells, top_row), bottom = grain_value(cx % cells, bottom_row);
            columns[cx] = top + fy * (bottom - top);
        }
        for (int x = 0; x < GRAIN_TILE; x++) {
            float gx = ((float)x + 0.5f) / cell_size - 0.5f;
            int cx = (int)floorf(gx);
            float fx = gx - (float)cx;
            // Left of the first centre, the row blends the last cell (wrapped) with the first.
            float left = columns[cx < 0 ? cells - 1 : cx], right = columns[cx < 0 ? 0 : cx + 1];
            float value = left + fx * (right - left);
            values[(size_t)y * GRAIN_TILE + x] = value;
            sum += value;
            squares += (double)value * value;
        }
    }
    // Blending cells softens them by how far pixels fall between centres (not at all when a cell is a
    // pixel), so the tile is scaled to a spread of exactly `grain` levels at every cell size: the
    // editor's small drawing and a print have grain of the same strength.
    double mean = sum / (double)size, spread = sqrt(squares / (double)size - mean * mean);
    float scale = spread > 0 ? (float)(grain / spread) : 0;
    for (size_t i = 0; i < size; i++) {
        float value = (values[i] - (float)mean) * scale;
        tile[i] = (signed char)(value >= 127 ? 127 : value <= -127 ? -127 : lrintf(value));
    }
    free(values);
    free(columns);
    return tile;
}

// The last tile made, kept: a collage's photos share a filter's grain, and the editor draws the same photo
// again and again as a slider moves. Each look gets its own copy, freed with it.
static pthread_mutex_t grain_lock = PTHREAD_MUTEX_INITIALIZER;
static signed char *kept_grain_tile;
static double kept_grain = -1, kept_grain_cell = -1;

static signed char *shared_grain_tile(double grain, double cell) {
    signed char *copy = malloc((size_t)GRAIN_TILE * GRAIN_TILE);
    if (!copy) return NULL;
    pthread_mutex_lock(&grain_lock);
    if (!kept_grain_tile || kept_grain != grain || kept_grain_cell != cell) {
        signed char *made = grain_tile(grain, cell);
        if (made) {
            free(kept_grain_tile);
            kept_grain_tile = made;
            kept_grain = grain;
            kept_grain_cell = cell;
        }
    }
    int found = kept_grain_tile && kept_grain == grain && kept_grain_cell == cell;
    if (found) memcpy(copy, kept_grain_tile, (size_t)GRAIN_TILE * GRAIN_TILE);
    pthread_mutex_unlock(&grain_lock);
    if (!found) {
        free(copy);
        return NULL;
    }
    return copy;
}

static inline VipsPel add_grain(VipsPel value, int grain) {
    int sum = value + grain;
    return (VipsPel)(sum < 0 ? 0 : sum > 255 ? 255 : sum);
}

// The look's colours and its grain in one pass, for a look without a vignette: the grain is
// added to each pixel's colours before they are packed into bytes, whose saturation clamps them
// as add_grain does, so the bytes are those of lut_row followed by the grain, without going over
// the row a second time (that second pass was a third of a film look's time).
static void lut_grain_row(const unsigned char *restrict lut, const VipsPel *restrict in, VipsPel *restrict out,
                          int width, const signed char *grain, int column) {
    int i = 0;
#if defined(__SSE2__)
    for (; i < width - 1; i++) {
        __m128i grained = _mm_add_epi16(lut_pixel(lut, in + i * 3), _mm_set1_epi16(grain[column]));
        int pixel = _mm_cvtsi128_si32(_mm_packus_epi16(grained, _mm_setzero_si128()));
        memcpy(out + i * 3, &pixel, 4);
        column = column == GRAIN_TILE - 1 ? 0 : column + 1;
    }
#endif
    for (; i < width; i++) {
        lut_row(lut, in + i * 3, out + i * 3, 1);
        VipsPel *q = out + i * 3;
        for (int c = 0; c < 3; c++) q[c] = add_grain(q[c], grain[column]);
        column = column == GRAIN_TILE - 1 ? 0 : column + 1;
    }
}

static void look_row(const PointState *s, const VipsPel *in, VipsPel *out, int x0, int y, int width) {
    if (s->lut && s->grain_tile && !s->vignette_by_r2) {
        lut_grain_row(s->lut, in, out, width, s->grain_tile + (size_t)(y % GRAIN_TILE) * GRAIN_TILE, x0 % GRAIN_TILE);
        return;
    }
    if (s->lut) {
        lut_row(s->lut, in, out, width);
    } else {
        memcpy(out, in, (size_t)width * 3);
    }
    if (s->vignette_by_r2) {
        // The factor by squared distance from the frame's centre (no square root a pixel), in 256ths.
        float row_y = (float)(2 * y + 1) / (float)s->height - 1;
        float row_y2 = row_y * row_y;
        for (int i = 0; i < width; i++) {
            int index = (int)((s->column_x2[x0 + i] + row_y2) * VIGNETTE_R2_STEPS + 0.5f);
            int factor = s->vignette_by_r2[index < VIGNETTE_R2_SIZE ? index : VIGNETTE_R2_SIZE - 1];
            VipsPel *q = out + i * 3;
            for (int c = 0; c < 3; c++) {
                int value = (q[c] * factor + 128) >> 8;
                q[c] = (VipsPel)(value > 255 ? 255 : value);
            }
        }
    }
    if (s->grain_tile) {
        const signed char *row = s->grain_tile + (size_t)(y % GRAIN_TILE) * GRAIN_TILE;
        int column = x0 % GRAIN_TILE;
        for (int i = 0; i < width; i++) {
            int grain = row[column];
            column = column == GRAIN_TILE - 1 ? 0 : column + 1;
            VipsPel *q = out + i * 3;
            q[0] = add_grain(q[0], grain);
            q[1] = add_grain(q[1], grain);
            q[2] = add_grain(q[2], grain);
        }
    }
}

// The vignette as the look row uses it: its factor (from `vignette`, 1501 factors for r = 0, 0.001 … 1.5) in
// 256ths by r² (0 … 2, the corners), and each column's part of r², squared distance from the centre across.
static void vignette_tables(PointState *state, const float *vignette, int width) {
    state->vignette_by_r2 = malloc(VIGNETTE_R2_SIZE * sizeof(unsigned short));
    state->column_x2 = malloc((size_t)width * sizeof(float));
    if (!state->vignette_by_r2 || !state->column_x2) {
        free(state->vignette_by_r2);
        free(state->column_x2);
        state->vignette_by_r2 = NULL;
        state->column_x2 = NULL;
        return;
    }
    for (int i = 0; i < VIGNETTE_R2_SIZE; i++) {
        int index = (int)(sqrt((double)i / VIGNETTE_R2_STEPS) * 1000 + 0.5);
        double factor = vignette[index > 1500 ? 1500 : index] * 256 + 0.5;
        state->vignette_by_r2[i] = (unsigned short)(factor < 0 ? 0 : factor > 65535 ? 65535 : factor);
    }
    for (int x = 0; x < width; x++) {
        float column = (float)(2 * x + 1) / (float)width - 1;
        state->column_x2[x] = column * column;
    }
}

int cvips_adjust(CVipsImage *in, const unsigned char *lut, double vignette_amount, const float *vignette,
                 double grain, double grain_cell, double sharpen_sigma, double sharpen_amount, CVipsImage **out) {
    VipsImage *scope = vips_image_new();
    VipsImage **t = (VipsImage **)vips_object_local_array(VIPS_OBJECT(scope), 9);
    // The one pass reads 8-bit sRGB, with or without alpha; anything else is converted first.
    int failed = 0;
    VipsImage *source = in;
    if (vips_image_get_format(in) != VIPS_FORMAT_UCHAR || vips_image_get_bands(in) < 3 ||
        vips_image_get_bands(in) > 4) {
        failed = vips_colourspace(in, &t[8], VIPS_INTERPRETATION_sRGB, NULL);
        source = t[8];
    }
    failed = failed || vips_cast_uchar(source, &t[0], NULL);
    int bands = failed ? 0 : vips_image_get_bands(t[0]);
    if (!failed && bands != 3 && bands != 4) {
        vips_error("cvips_adjust", "a photo of %d bands; expected RGB with or without alpha", bands);
        failed = -1;
    }
    int has_alpha = bands == 4;
    VipsImage *rgb = t[0];
    if (!failed && has_alpha) {
        failed = vips_extract_band(t[0], &t[1], 0, "n", 3, NULL) || vips_extract_band(t[0], &t[2], 3, NULL);
        rgb = t[1];
    }
    VipsImage *result = rgb;
    if (!failed && (lut || vignette_amount != 0 || grain > 0)) {
        PointState *state = calloc(1, sizeof(PointState));
        failed = !state;
        if (!failed) {
            state->row = look_row;
            state->input = rgb;
            if (grain > 0) {
                state->grain = grain;
                state->grain_cell = grain_cell < 1 ? 1 : grain_cell;
                g_mutex_init(&state->grain_lock);
            }
            pthread_once(&tetrahedra_once, make_tetrahedra);
            if (lut) state->lut = padded_lut(lut);
            if (vignette_amount != 0) vignette_tables(state, vignette, vips_image_get_width(rgb));
            if ((lut && !state->lut) || (vignette_amount != 0 && !state->column_x2)) {
                state->input = NULL;
                point_free(state);
                failed = -1;
            } else {
                failed = point_image(state, 0, 0, 3, &t[3]);
                result = failed ? NULL : t[3];
            }
        }
    }
    if (!failed && sharpen_amount > 0) {
        failed = vips_sharpen(result, &t[4], "sigma", sharpen_sigma, "m2", sharpen_amount, NULL) ||
                 vips_colourspace(t[4], &t[5], VIPS_INTERPRETATION_sRGB, NULL) || vips_cast_uchar(t[5], &t[6], NULL);
        result = failed ? NULL : t[6];
    }
    if (!failed && has_alpha) {
        failed = vips_bandjoin2(result, t[2], &t[7], NULL);
        result = failed ? NULL : t[7];
    }
    if (!failed) failed = vips_copy(result, out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    g_object_unref(scope);
    return failed ? -1 : 0;
}
