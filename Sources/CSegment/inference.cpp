// Inference: a photo prepared for the model (shrunk to its input size, normalised), the network
// run by a backend (backend.hpp: OpenCV DNN, its convolutions on Collage's own kernels when
// asked), and the map it gives scaled to 0...1.
#include "csegment.h"

#include "backend.hpp"
#include "convolution.hpp"
#include "shared.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <type_traits>
#include <vector>

// The loader in the Stickers module calls these through the interface's pointer types.
static_assert(std::is_same<decltype(&csegment_load_model), csegment_load_model_fn>::value, "csegment_load_model");
static_assert(std::is_same<decltype(&csegment_free), csegment_free_fn>::value, "csegment_free");
static_assert(std::is_same<decltype(&csegment_output_name), csegment_output_name_fn>::value, "csegment_output_name");
static_assert(std::is_same<decltype(&csegment_predict), csegment_predict_fn>::value, "csegment_predict");
static_assert(std::is_same<decltype(&csegment_upsample), csegment_upsample_fn>::value, "csegment_upsample");
static_assert(std::is_same<decltype(&csegment_components), csegment_components_fn>::value, "csegment_components");
static_assert(std::is_same<decltype(&csegment_matte), csegment_matte_fn>::value, "csegment_matte");
static_assert(std::is_same<decltype(&csegment_check_convolution), csegment_check_convolution_fn>::value,
              "csegment_check_convolution");

struct CSegmentModel {
    std::unique_ptr<csegment::InferenceBackend> backend;
};

using csegment::guarded;

// The C codes are the C++ enum's values; only their range needs checking.
static csegment::ConvolutionKernels kernels_named(int kernels) {
    if (kernels < CSEGMENT_KERNELS_OWN || kernels > CSEGMENT_KERNELS_OPENCV)
        throw std::runtime_error("unknown kernels " + std::to_string(kernels));
    return csegment::ConvolutionKernels(kernels);
}

extern "C" CSegmentModel *csegment_load_model(const char *path, int kernels, int *kernels_used, char *error,
                                              size_t error_size) {
    CSegmentModel *result = nullptr;
    guarded(error, error_size, [&]() {
        auto backend = csegment::open_opencv_backend(path, kernels_named(kernels));
        *kernels_used = int(backend->kernels());
        result = new CSegmentModel{std::move(backend)};
        return 0;
    });
    return result;
}

extern "C" void csegment_free(CSegmentModel *model) { delete model; }

extern "C" int csegment_check_convolution(int input_channels, int output_channels, int kernel, int dilation,
                                          int height, int width, int relu, int kernels, double *difference,
                                          int *kernels_used, char *error, size_t error_size) {
    return guarded(error, error_size, [&]() {
        if (input_channels < 1 || output_channels < 1 || (kernel != 1 && kernel != 3) || dilation < 1 ||
            dilation > 64 || height < 1 || width < 1 || height > 4096 || width > 4096 || input_channels > 4096 ||
            output_channels > 4096 || double(input_channels) * height * width > 1e8 ||
            double(output_channels) * height * width > 1e8)
            throw std::runtime_error("the layer's sizes are out of range");
        csegment::ConvolutionKernels used;
        *difference = csegment::largest_difference_from_opencv(input_channels, output_channels, kernel, dilation,
                                                                 height, width, relu != 0, kernels_named(kernels), &used);
        *kernels_used = int(used);
        return 0;
    });
}

extern "C" const char *csegment_output_name(const CSegmentModel *model) {
    return model->backend->output_name().c_str();
}

extern "C" int csegment_predict(CSegmentModel *model, const unsigned char *rgb, int width, int height, float *map,
                                float *raw_min, float *raw_max, char *error, size_t error_size) {
    return guarded(error, error_size, [&]() {
        cv::Mat image(height, width, CV_8UC3, const_cast<unsigned char *>(rgb));
        cv::Mat small;
        cv::Size side(CSEGMENT_MAP_SIDE, CSEGMENT_MAP_SIDE);
        if (width > CSEGMENT_MAP_SIDE)
            csegment::area_shrunk(image, small, side);
        else
            cv::resize(image, small, side, 0, 0, cv::INTER_LINEAR);
        cv::Mat normalised;
        small.convertTo(normalised, CV_32FC3, 1.0 / 255.0);
        normalised -= cv::Scalar(0.485, 0.456, 0.406);
        cv::divide(normalised, cv::Scalar(0.229, 0.224, 0.225), normalised);
        cv::Mat blob = cv::dnn::blobFromImage(normalised);  // HWC -> 1x3xHxW, RGB order kept
        cv::Mat output = model->backend->run(blob);
        if (output.total() != size_t(CSEGMENT_MAP_SIDE * CSEGMENT_MAP_SIDE))
            throw std::runtime_error("unexpected output size " + std::to_string(output.total()));
        cv::Mat plane(CSEGMENT_MAP_SIDE, CSEGMENT_MAP_SIDE, CV_32F, output.ptr<float>());
        double lowest, highest;
        cv::minMaxLoc(plane, &lowest, &highest);
        *raw_min = float(lowest);
        *raw_max = float(highest);
        double range = highest - lowest;
        cv::Mat result(CSEGMENT_MAP_SIDE, CSEGMENT_MAP_SIDE, CV_32F, map);
        if (range < 1e-12)
            result.setTo(0);
        else
            plane.convertTo(result, CV_32F, 1.0 / range, -lowest / range);
        return 0;
    });
}
