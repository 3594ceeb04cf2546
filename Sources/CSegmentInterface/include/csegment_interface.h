// The subject-lifting library's interface as function-pointer types. The library (OpenCV DNN
// behind csegment.h) is built as its own shared object and loaded only when a model is, so
// commands that never lift a subject do not pay for loading OpenCV. csegment.cpp checks at
// compile time that its functions have exactly these types.
#ifndef CSEGMENT_INTERFACE_H
#define CSEGMENT_INTERFACE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A loaded saliency model; one per process, safe to use from several threads.
typedef struct CSegmentModel CSegmentModel;

/// The side of the square map the model reads and writes.
enum { CSEGMENT_MAP_SIDE = 320 };

/// The shared object's file name, looked for next to the executable.
#define CSEGMENT_LIBRARY_NAME "libCollageSegment.so"

/// Which convolution kernels a loaded model runs (see convolution.cpp).
enum {
    /// Collage's, with the widest vectors the processor has; OpenCV's where it has neither
    /// AVX-512 nor AVX2 with FMA.
    CSEGMENT_KERNELS_OWN = 0,
    /// Collage's with AVX2 even where AVX-512 is there, so that path can be tested anywhere.
    CSEGMENT_KERNELS_OWN_AVX2 = 1,
    /// OpenCV's own, for every layer.
    CSEGMENT_KERNELS_OPENCV = 2,
};

typedef CSegmentModel *(*csegment_load_model_fn)(const char *path, int kernels, int *kernels_used, char *error,
                                                 size_t error_size);
typedef void (*csegment_free_fn)(CSegmentModel *model);
typedef const char *(*csegment_output_name_fn)(const CSegmentModel *model);
typedef int (*csegment_predict_fn)(CSegmentModel *model, const unsigned char *rgb, int width, int height,
                                   float *map, float *raw_min, float *raw_max, char *error, size_t error_size);
typedef int (*csegment_upsample_fn)(const float *map, int map_width, int map_height, const unsigned char *rgb,
                                    int width, int height, int radius, double epsilon, int work_side,
                                    unsigned char *alpha, char *error, size_t error_size);
typedef int (*csegment_matte_fn)(unsigned char *rgba, int width, int height, char *error, size_t error_size);
typedef int (*csegment_check_convolution_fn)(int input_channels, int output_channels, int kernel, int dilation,
                                             int height, int width, int relu, int kernels, double *difference,
                                             int *kernels_used, char *error, size_t error_size);
typedef int (*csegment_components_fn)(const unsigned char *mask, int width, int height, int threshold,
                                      int work_side, int *labels, int *label_width, int *label_height,
                                      int *stats, int max_labels, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
