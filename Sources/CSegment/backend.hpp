// The seam between the model's pre- and post-processing (inference.cpp) and what runs its
// network: OpenCV DNN today, with its convolutions on Collage's own kernels or OpenCV's. A
// future runtime is one more implementation of `InferenceBackend`; nothing else changes.
#pragma once

#include "convolution.hpp"

#include <memory>
#include <opencv2/core.hpp>
#include <string>

namespace csegment {

/// Runs the subject model's network on one prepared input.
class InferenceBackend {
  public:
    virtual ~InferenceBackend() = default;

    /// The network's full-detail output for `blob` (1 x 3 x side x side, normalised RGB), as it
    /// came out: one float per pixel of the map. Safe to call from several threads (one runs
    /// at a time).
    virtual cv::Mat run(const cv::Mat &blob) = 0;

    /// The name of the output `run` returns (for diagnostics).
    virtual const std::string &output_name() const = 0;

    /// Whose convolutions run the network.
    virtual ConvolutionKernels kernels() const = 0;
};

/// The network in the ONNX file at `path`, run by OpenCV DNN with its convolutions made by
/// `kernels` (OpenCV's own where Collage's cannot run). Throws with a message when the file
/// holds no usable network.
std::unique_ptr<InferenceBackend> open_opencv_backend(const char *path, ConvolutionKernels kernels);

}  // namespace csegment
