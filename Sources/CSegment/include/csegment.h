// A plain-C face over OpenCV DNN and imgproc for the Stickers module. C++ stays inside
// csegment.cpp; every exception is caught there and its message copied into `error`.
#ifndef CSEGMENT_H
#define CSEGMENT_H

#include <stddef.h>

#include "csegment_interface.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Loads an ONNX model and pins its first graph output; `kernels` (a CSEGMENT_KERNELS_ value)
/// asks whose convolutions it runs, and `kernels_used` says whose it got (OpenCV's where
/// Collage's cannot run). NULL on failure, with a message.
CSegmentModel *csegment_load_model(const char *path, int kernels, int *kernels_used, char *error, size_t error_size);
void csegment_free(CSegmentModel *model);
/// The name of the output the model's maps are read from.
const char *csegment_output_name(const CSegmentModel *model);

/// Runs the model on 8-bit RGB pixels (any size; resized to 320 x 320 inside) and writes a
/// 320 x 320 saliency map, min-max normalised to 0...1, into `map`; the raw range before
/// normalising goes to `raw_min` and `raw_max` (a flat map means no subject). 0 on success.
int csegment_predict(CSegmentModel *model, const unsigned char *rgb, int width, int height, float *map,
                     float *raw_min, float *raw_max, char *error, size_t error_size);

/// Upsamples a map to the photo's size. With `radius` > 0, refines it with a guided filter
/// steered by the photo's own edges (computed at `work_side` pixels on the long side, then
/// carried up); with 0, plain bilinear. Writes 8-bit alpha (width * height bytes). 0 on success.
int csegment_upsample(const float *map, int map_width, int map_height, const unsigned char *rgb, int width,
                      int height, int radius, double epsilon, int work_side, unsigned char *alpha,
                      char *error, size_t error_size);

/// Labels the connected regions of `mask` at or above `threshold` (8-connected), found on a copy
/// whose long side is at most `work_side` (0: full size). Writes a label per copy pixel (0 =
/// background; room for the full size is always enough) and the copy's size, and for each label
/// 1...count its x, y, width, height and area in the mask's own pixels into `stats` (5 ints each,
/// room for `max_labels`). Returns the number of labels, or -1.
int csegment_components(const unsigned char *mask, int width, int height, int threshold, int work_side,
                        int *labels, int *label_width, int *label_height, int *stats, int max_labels,
                        char *error, size_t error_size);

/// Finds the alpha and the colour of the subject again in the mask's edge band (hair, fur,
/// strands, glass), where the model's alpha is a soft haze and the photo's colours still hold
/// the old background. `rgba` is the photo with its mask as alpha (4 bytes a pixel), refined in
/// place: alpha 255 in the sure subject (the model's 0.95 and above, eroded by a pixel or two), 0
/// where the model said at most 7, anything between elsewhere (a thin part that was opaque may
/// become partly transparent); colour the photo's own where the subject is opaque, the recovered
/// colour elsewhere, 0 where the alpha is. Then only what is joined to the sure subject is kept:
/// separate parts at least 10 % opaque become clear, but for parts larger than a speck within
/// two cells of a kept one, and fainter pixels more than a few cells from what is kept. With no
/// sure subject or no sure background anywhere in the image, all is left as it came.
/// Each band pixel is placed on the line between the subject's and the background's local mean
/// colours (found on a copy at most 1,024 pixels long), mixed with the model's alpha by how far
/// apart the two colours are. 0 on success.
int csegment_matte(unsigned char *rgba, int width, int height, char *error, size_t error_size);

/// Runs one convolution layer of random weights and input through `kernels` (a
/// CSEGMENT_KERNELS_ value) and through OpenCV's own, and writes the largest difference between
/// their outputs to `difference`, and whose kernels ran to `kernels_used`: a check of Collage's
/// kernels on shapes the model does not have. 0 on success.
int csegment_check_convolution(int input_channels, int output_channels, int kernel, int dilation, int height,
                               int width, int relu, int kernels, double *difference, int *kernels_used, char *error,
                               size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
