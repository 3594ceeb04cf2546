// What the subject-lifting library's algorithms share: its C entry points turn every C++
// exception into a message and -1 through `guarded`, and its images are worked on at a reduced
// size computed by `working_size`.
#pragma once

#include <algorithm>
#include <cstring>
#include <exception>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <string>

namespace csegment {

inline void copy_message(const std::string &message, char *error, size_t error_size) {
    if (!error || error_size == 0) return;
    size_t length = std::min(message.size(), error_size - 1);
    std::memcpy(error, message.data(), length);
    error[length] = '\0';
}

// Runs `body`, whose result is the entry point's; an exception becomes -1 and its message.
template <typename Body> int guarded(char *error, size_t error_size, Body body) {
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

// A `width` x `height` image shrunk so its long side is at most `side` (never enlarged).
inline cv::Size working_size(int width, int height, int side) {
    double scale = std::min(1.0, double(side) / std::max(width, height));
    return cv::Size(std::max(1, int(width * scale + 0.5)), std::max(1, int(height * scale + 0.5)));
}

// `image` averaged down to `target` (OpenCV's INTER_AREA). A photo many times the target is
// first averaged by a whole factor (OpenCV's fast path, several times quicker than a fractional
// one over a 48 MP photo) to at least twice the target, dropping the under-a-factor columns and
// rows at its right and bottom edges, then averaged the rest of the way.
inline void area_shrunk(const cv::Mat &image, cv::Mat &out, cv::Size target) {
    int factor = std::min(image.cols / (2 * target.width), image.rows / (2 * target.height));
    if (factor < 2) {
        cv::resize(image, out, target, 0, 0, cv::INTER_AREA);
        return;
    }
    cv::Size whole(image.cols / factor, image.rows / factor);
    cv::Mat reduced;
    cv::resize(image(cv::Rect(0, 0, whole.width * factor, whole.height * factor)), reduced, whole, 0, 0,
               cv::INTER_AREA);
    cv::resize(reduced, out, target, 0, 0, cv::INTER_AREA);
}

} // namespace csegment
