// Collage's own convolution for OpenCV DNN: U²-Net-p spends nine tenths of its time in 3 × 3
// convolutions of 16 to 128 channels, where OpenCV 4.6's general kernels reach about a third
// of what the processor can do. See convolution.cpp.
#ifndef CSEGMENT_CONVOLUTION_HPP
#define CSEGMENT_CONVOLUTION_HPP

#include <opencv2/dnn.hpp>

#include "csegment_interface.h"

namespace csegment {

/// Which convolution a model loaded with `read_network` uses; its values are the C interface's
/// CSEGMENT_KERNELS_ codes.
enum class ConvolutionKernels {
    /// Collage's, with the widest vectors the processor has (AVX-512, else AVX2); OpenCV's
    /// where neither is there or a layer's shape is not one Collage's handles.
    own = CSEGMENT_KERNELS_OWN,
    /// Collage's with AVX2 even where AVX-512 is there (to test that path on any machine).
    ownWithoutAVX512 = CSEGMENT_KERNELS_OWN_AVX2,
    /// OpenCV's own, for every layer.
    opencv = CSEGMENT_KERNELS_OPENCV,
};

/// Reads an ONNX model, its convolutions made by `kernels`; `used` says whose it got (OpenCV's
/// where Collage's cannot run: not x86, no AVX2 with FMA, or an OpenCV other than 4.6).
cv::dnn::Net read_network(const char *path, ConvolutionKernels kernels, ConvolutionKernels *used);

/// One convolution layer of random weights, bias and input (stride 1, same-size output, with
/// or without a ReLU after it) run by `kernels` and by OpenCV's own: the largest difference
/// between their outputs; `used` says whose kernels ran.
double largest_difference_from_opencv(int inputChannels, int outputChannels, int kernel, int dilation, int height,
                                      int width, bool relu, ConvolutionKernels kernels, ConvolutionKernels *used);

}  // namespace csegment

#endif
