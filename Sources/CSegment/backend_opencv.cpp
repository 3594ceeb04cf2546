// The OpenCV DNN backend: the network read from its ONNX file (its convolutions registered as
// Collage's own while it is read, see convolution.cpp) and run one input at a time.
#include "backend.hpp"

#include <mutex>
#include <opencv2/dnn.hpp>
#include <stdexcept>
#include <vector>

namespace csegment {

namespace {

class OpenCVBackend final : public InferenceBackend {
  public:
    OpenCVBackend(const char *path, ConvolutionKernels kernels) {
        net_ = read_network(path, kernels, &kernels_);
        if (net_.empty()) throw std::runtime_error("the file holds no network");
        std::vector<std::string> outputs = net_.getUnconnectedOutLayersNames();
        if (outputs.empty()) throw std::runtime_error("the network has no outputs");
        // U^2-Net lists its fused, full-detail map first; forward() alone returns a coarse side output.
        output_ = outputs.front();
    }

    cv::Mat run(const cv::Mat &blob) override {
        // cv::dnn::Net::forward keeps per-net state: one inference at a time.
        std::lock_guard<std::mutex> hold(lock_);
        net_.setInput(blob);
        return net_.forward(output_).clone();
    }

    const std::string &output_name() const override { return output_; }

    ConvolutionKernels kernels() const override { return kernels_; }

  private:
    cv::dnn::Net net_;
    std::string output_;
    ConvolutionKernels kernels_ = ConvolutionKernels::opencv;
    std::mutex lock_;
};

}  // namespace

std::unique_ptr<InferenceBackend> open_opencv_backend(const char *path, ConvolutionKernels kernels) {
    return std::make_unique<OpenCVBackend>(path, kernels);
}

}  // namespace csegment
