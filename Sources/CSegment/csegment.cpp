#include "csegment.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>
#include <string>

struct CSegmentModel {
    cv::dnn::Net net;
    std::string output;
    // cv::dnn::Net::forward keeps per-net state: one inference at a time.
    std::mutex lock;
};

static void copy_message(const std::string &message, char *error, size_t error_size) {
    if (!error || error_size == 0) return;
    size_t length = std::min(message.size(), error_size - 1);
    std::memcpy(error, message.data(), length);
    error[length] = '\0';
}

template <typename Body> static int guarded(char *error, size_t error_size, Body body) {
    try {
        return body();
    } catch (const cv::Exception &exception) {
        copy_message(exception.err.empty() ? exception.what() : exception.err, error, error_size);
    } catch (const std::exception &exception) {
        copy_message(exception.what(), error, error_size);
    } catch (...) {
        copy_message("unknown C++ exception", error, error_size);
    }
    return -1;
}

extern "C" CSegmentModel *csegment_load(const char *path, char *error, size_t error_size) {
    CSegmentModel *result = nullptr;
    guarded(error, error_size, [&]() {
        auto model = new CSegmentModel();
        try {
            model->net = cv::dnn::readNetFromONNX(path);
            if (model->net.empty()) throw std::runtime_error("the file holds no network");
            std::vector<std::string> outputs = model->net.getUnconnectedOutLayersNames();
            if (outputs.empty()) throw std::runtime_error("the network has no outputs");
            // U^2-Net lists its fused, full-detail map first; forward() alone returns a coarse side output.
            model->output = outputs.front();
        } catch (...) {
            delete model;
            throw;
        }
        result = model;
        return 0;
    });
    return result;
}

extern "C" void csegment_free(CSegmentModel *model) { delete model; }

extern "C" const char *csegment_output_name(const CSegmentModel *model) { return model->output.c_str(); }

extern "C" int csegment_predict(CSegmentModel *model, const unsigned char *rgb, int width, int height, float *map,
                                float *raw_min, float *raw_max, char *error, size_t error_size) {
    return guarded(error, error_size, [&]() {
        cv::Mat image(height, width, CV_8UC3, const_cast<unsigned char *>(rgb));
        cv::Mat small;
        cv::resize(image, small, cv::Size(CSEGMENT_MAP_SIDE, CSEGMENT_MAP_SIDE), 0, 0,
                   width > CSEGMENT_MAP_SIDE ? cv::INTER_AREA : cv::INTER_LINEAR);
        cv::Mat normalised;
        small.convertTo(normalised, CV_32FC3, 1.0 / 255.0);
        normalised -= cv::Scalar(0.485, 0.456, 0.406);
        cv::divide(normalised, cv::Scalar(0.229, 0.224, 0.225), normalised);
        cv::Mat blob = cv::dnn::blobFromImage(normalised);  // HWC -> 1x3xHxW, RGB order kept
        cv::Mat output;
        {
            std::lock_guard<std::mutex> hold(model->lock);
            model->net.setInput(blob);
            output = model->net.forward(model->output).clone();
        }
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

// The refinement is a guided filter (He, Sun and Tang) with a grey guide, built from box
// filters, run at a working size and carried up (the "fast guided filter").
extern "C" int csegment_upsample(const float *map, int map_width, int map_height, const unsigned char *rgb,
                                 int width, int height, int radius, double epsilon, int work_side,
                                 unsigned char *alpha, char *error, size_t error_size) {
    return guarded(error, error_size, [&]() {
        cv::Mat source(map_height, map_width, CV_32F, const_cast<float *>(map));
        cv::Mat out(height, width, CV_8U, alpha);
        if (radius <= 0 || !rgb) {
            cv::Mat up;
            cv::resize(source, up, cv::Size(width, height), 0, 0, cv::INTER_LINEAR);
            up.convertTo(out, CV_8U, 255.0);
            return 0;
        }
        // Filter at a working size (fast guided filter), then carry the coefficients up.
        double scale = std::min(1.0, double(work_side) / std::max(width, height));
        cv::Size work(std::max(1, int(width * scale + 0.5)), std::max(1, int(height * scale + 0.5)));
        cv::Mat image(height, width, CV_8UC3, const_cast<unsigned char *>(rgb));
        cv::Mat grey, greyWork;
        cv::cvtColor(image, grey, cv::COLOR_RGB2GRAY);
        grey.convertTo(grey, CV_32F, 1.0 / 255.0);
        cv::resize(grey, greyWork, work, 0, 0, cv::INTER_AREA);
        cv::Mat mapWork;
        cv::resize(source, mapWork, work, 0, 0, cv::INTER_LINEAR);
        cv::Size window(2 * radius + 1, 2 * radius + 1);
        auto box = [&](const cv::Mat &m) {
            cv::Mat o;
            cv::boxFilter(m, o, CV_32F, window, cv::Point(-1, -1), true, cv::BORDER_REFLECT);
            return o;
        };
        cv::Mat meanGuide = box(greyWork), meanInput = box(mapWork);
        cv::Mat covariance = box(greyWork.mul(mapWork)) - meanGuide.mul(meanInput);
        cv::Mat variance = box(greyWork.mul(greyWork)) - meanGuide.mul(meanGuide);
        cv::Mat a = covariance / (variance + epsilon);
        cv::Mat b = meanInput - a.mul(meanGuide);
        cv::Mat meanA = box(a), meanB = box(b), bigA, bigB;
        cv::resize(meanA, bigA, cv::Size(width, height), 0, 0, cv::INTER_LINEAR);
        cv::resize(meanB, bigB, cv::Size(width, height), 0, 0, cv::INTER_LINEAR);
        cv::Mat refined = bigA.mul(grey) + bigB;
        refined.convertTo(out, CV_8U, 255.0);  // saturates into 0...255
        return 0;
    });
}

extern "C" int csegment_components(const unsigned char *mask, int width, int height, int threshold, int *labels,
                                   int *stats, int max_labels, char *error, size_t error_size) {
    return guarded(error, error_size, [&]() {
        cv::Mat source(height, width, CV_8U, const_cast<unsigned char *>(mask));
        cv::Mat binary = source >= threshold;
        cv::Mat labelImage(height, width, CV_32S, labels), statistics, centroids;
        int count = cv::connectedComponentsWithStats(binary, labelImage, statistics, centroids, 8, CV_32S);
        int written = 0;
        for (int label = 1; label < count && written < max_labels; label++, written++) {
            stats[written * 5 + 0] = statistics.at<int>(label, cv::CC_STAT_LEFT);
            stats[written * 5 + 1] = statistics.at<int>(label, cv::CC_STAT_TOP);
            stats[written * 5 + 2] = statistics.at<int>(label, cv::CC_STAT_WIDTH);
            stats[written * 5 + 3] = statistics.at<int>(label, cv::CC_STAT_HEIGHT);
            stats[written * 5 + 4] = statistics.at<int>(label, cv::CC_STAT_AREA);
        }
        return written;
    });
}
