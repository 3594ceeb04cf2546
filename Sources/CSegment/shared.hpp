// What the subject-lifting library's algorithms share: its C entry points turn every C++
// exception into a message and -1 through `guarded`, and its images are worked on at a reduced
// size computed by `working_size`.
#pragma once

#include <algorithm>
#include <cstring>
#include <exception>
#include <opencv2/core.hpp>
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

} // namespace csegment
