#include "csegment.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <type_traits>

// The loader in the Stickers module calls these through the interface's pointer types.
static_assert(std::is_same<decltype(&csegment_load), csegment_load_fn>::value, "csegment_load");
static_assert(std::is_same<decltype(&csegment_free), csegment_free_fn>::value, "csegment_free");
static_assert(std::is_same<decltype(&csegment_output_name), csegment_output_name_fn>::value, "csegment_output_name");
static_assert(std::is_same<decltype(&csegment_predict), csegment_predict_fn>::value, "csegment_predict");
static_assert(std::is_same<decltype(&csegment_upsample), csegment_upsample_fn>::value, "csegment_upsample");
static_assert(std::is_same<decltype(&csegment_components), csegment_components_fn>::value, "csegment_components");
static_assert(std::is_same<decltype(&csegment_foreground), csegment_foreground_fn>::value, "csegment_foreground");

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

// A `width` x `height` image shrunk so its long side is at most `side` (never enlarged).
static cv::Size working_size(int width, int height, int side) {
    double scale = std::min(1.0, double(side) / std::max(width, height));
    return cv::Size(std::max(1, int(width * scale + 0.5)), std::max(1, int(height * scale + 0.5)));
}

// The refinement is a guided filter (He, Sun and Tang) with a grey guide, built from box
// filters, run at a working size; only its two coefficient planes are carried up (the "fast
// guided filter"), and the full-size alpha is computed row by row from them, on every core,
// without full-size temporaries (a 12 MP photo would need ~200 MB of float planes).
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
        cv::Size work = working_size(width, height, work_side);
        cv::Mat image(height, width, CV_8UC3, const_cast<unsigned char *>(rgb));
        cv::Mat smallImage, greyWork;
        cv::resize(image, smallImage, work, 0, 0, cv::INTER_AREA);
        cv::cvtColor(smallImage, greyWork, cv::COLOR_RGB2GRAY);
        greyWork.convertTo(greyWork, CV_32F, 1.0 / 255.0);
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
        cv::Mat meanA = box(a), meanB = box(b);
        // Bilinear sampling positions, as cv::resize's INTER_LINEAR places them.
        auto sample = [](int target, int count, int size, std::vector<int> &low, std::vector<float> &weight) {
            low.resize(target);
            weight.resize(target);
            double step = double(size) / count;
            for (int i = 0; i < target; i++) {
                double position = std::max(0.0, (i + 0.5) * step - 0.5);
                int index = std::min(int(position), size - 1);
                low[i] = index;
                weight[i] = index >= size - 1 ? 0.0f : float(position - index);
            }
        };
        std::vector<int> columnLow, rowLow;
        std::vector<float> columnWeight, rowWeight;
        sample(width, width, work.width, columnLow, columnWeight);
        sample(height, height, work.height, rowLow, rowWeight);
        int lastColumn = work.width - 1;
        cv::parallel_for_(cv::Range(0, height), [&](const cv::Range &rows) {
            for (int y = rows.start; y < rows.end; y++) {
                int top = rowLow[y], bottom = std::min(top + 1, work.height - 1);
                float fy = rowWeight[y];
                const float *a0 = meanA.ptr<float>(top), *a1 = meanA.ptr<float>(bottom);
                const float *b0 = meanB.ptr<float>(top), *b1 = meanB.ptr<float>(bottom);
                const unsigned char *pixel = image.ptr<unsigned char>(y);
                unsigned char *target = out.ptr<unsigned char>(y);
                for (int x = 0; x < width; x++, pixel += 3) {
                    int left = columnLow[x], right = std::min(left + 1, lastColumn);
                    float fx = columnWeight[x];
                    float aTop = a0[left] + (a0[right] - a0[left]) * fx;
                    float aBottom = a1[left] + (a1[right] - a1[left]) * fx;
                    float bTop = b0[left] + (b0[right] - b0[left]) * fx;
                    float bBottom = b1[left] + (b1[right] - b1[left]) * fx;
                    float coefficient = aTop + (aBottom - aTop) * fy;
                    float offset = bTop + (bBottom - bTop) * fy;
                    // The grey weights cv::COLOR_RGB2GRAY uses.
                    float grey = (0.299f * pixel[0] + 0.587f * pixel[1] + 0.114f * pixel[2]) * (1.0f / 255.0f);
                    float value = (coefficient * grey + offset) * 255.0f + 0.5f;
                    target[x] = value <= 0 ? 0 : value >= 255 ? 255 : (unsigned char)value;
                }
            }
        });
        return 0;
    });
}

extern "C" int csegment_components(const unsigned char *mask, int width, int height, int threshold, int work_side,
                                   int *labels, int *label_width, int *label_height, int *stats, int max_labels,
                                   char *error, size_t error_size) {
    return guarded(error, error_size, [&]() {
        cv::Mat source(height, width, CV_8U, const_cast<unsigned char *>(mask));
        cv::Size work = work_side > 0 ? working_size(width, height, work_side) : cv::Size(width, height);
        cv::Mat small = source;
        if (work != source.size()) cv::resize(source, small, work, 0, 0, cv::INTER_AREA);
        cv::Mat binary = small >= threshold;
        cv::Mat labelImage(work.height, work.width, CV_32S, labels), statistics, centroids;
        int count = cv::connectedComponentsWithStats(binary, labelImage, statistics, centroids, 8, CV_32S);
        *label_width = work.width;
        *label_height = work.height;
        double sx = double(width) / work.width, sy = double(height) / work.height;
        int written = 0;
        for (int label = 1; label < count && written < max_labels; label++, written++) {
            // Bounds back in the mask's own pixels: whole label cells, clamped to the mask.
            int left = int(statistics.at<int>(label, cv::CC_STAT_LEFT) * sx);
            int top = int(statistics.at<int>(label, cv::CC_STAT_TOP) * sy);
            int right = std::min(width, int(std::ceil((statistics.at<int>(label, cv::CC_STAT_LEFT) +
                                                       statistics.at<int>(label, cv::CC_STAT_WIDTH)) * sx)));
            int bottom = std::min(height, int(std::ceil((statistics.at<int>(label, cv::CC_STAT_TOP) +
                                                         statistics.at<int>(label, cv::CC_STAT_HEIGHT)) * sy)));
            stats[written * 5 + 0] = left;
            stats[written * 5 + 1] = top;
            stats[written * 5 + 2] = right - left;
            stats[written * 5 + 3] = bottom - top;
            stats[written * 5 + 4] = int(statistics.at<int>(label, cv::CC_STAT_AREA) * sx * sy + 0.5);
        }
        return written;
    });
}

// One blur-fusion step: from the image, its alpha and the current foreground and background
// estimates (all float, 0...1), the smoothed foreground and background (weighted means around
// each pixel) and the next foreground they give.
static void blur_fusion(const cv::Mat &image, const cv::Mat &alpha, const cv::Mat &foreground,
                        const cv::Mat &background, int radius, cv::Mat &meanForeground, cv::Mat &meanBackground,
                        cv::Mat &nextForeground) {
    cv::Size window(2 * radius + 1, 2 * radius + 1);
    auto box = [&](const cv::Mat &m) {
        cv::Mat o;
        cv::boxFilter(m, o, CV_32F, window, cv::Point(-1, -1), true, cv::BORDER_REPLICATE);
        return o;
    };
    auto three = [](const cv::Mat &m) {
        cv::Mat o;
        cv::cvtColor(m, o, cv::COLOR_GRAY2RGB);
        return o;
    };
    cv::Mat inverse = 1.0f - alpha;
    // Means weighted by the square of each side's share: a pixel that is mostly subject says more
    // about the subject's colour than one that is half background.
    cv::Mat foreWeight = alpha.mul(alpha), backWeight = inverse.mul(inverse);
    meanForeground = box(foreground.mul(three(foreWeight))) / (three(box(foreWeight)) + 1e-5f);
    meanBackground = box(background.mul(three(backWeight))) / (three(box(backWeight)) + 1e-5f);
    // The foreground that, mixed by alpha with the smoothed background, gives the image back.
    cv::Mat alpha3 = three(alpha), inverse3 = three(inverse);
    cv::Mat residual = image - alpha3.mul(meanForeground) - inverse3.mul(meanBackground);
    nextForeground = meanForeground + alpha3.mul(residual);
    cv::min(cv::max(nextForeground, 0.0f), 1.0f, nextForeground);
}

extern "C" int csegment_foreground(const unsigned char *rgb, const unsigned char *alpha, int width, int height,
                                   unsigned char *foreground, char *error, size_t error_size) {
    return guarded(error, error_size, [&]() {
        cv::Mat image8(height, width, CV_8UC3, const_cast<unsigned char *>(rgb));
        cv::Mat alpha8(height, width, CV_8U, const_cast<unsigned char *>(alpha));
        cv::Mat out(height, width, CV_8UC3, foreground);
        image8.copyTo(out);
        // The means are smooth, so both passes run on a copy at most 1,024 pixels long (at 512 the
        // fringe of old background came back); only the last step, which puts the photo's own
        // detail back, runs at full size, pixel by pixel.
        cv::Size work = working_size(width, height, 1024);
        double size = std::max(work.width, work.height) / 1000.0;
        cv::Mat smallImage, smallAlpha;
        cv::resize(image8, smallImage, work, 0, 0, cv::INTER_AREA);
        cv::resize(alpha8, smallAlpha, work, 0, 0, cv::INTER_AREA);
        smallImage.convertTo(smallImage, CV_32FC3, 1.0 / 255.0);
        smallAlpha.convertTo(smallAlpha, CV_32F, 1.0 / 255.0);
        // Radii per 1,000 pixels across. The authors chose 90 and 6; a wider first pass (150)
        // measured a third less edge colour error on long strands fading over a tenth of the
        // image (Tests/StickersTests/ForegroundTests), and cannot blur what is opaque.
        int wide = std::max(3, int(150 * size + 0.5));
        int narrow = std::max(2, int(6 * size + 0.5));
        cv::Mat meanForeground, meanBackground, estimate;
        blur_fusion(smallImage, smallAlpha, smallImage, smallImage, wide, meanForeground, meanBackground, estimate);
        // The second pass starts from the first's estimates (copies: its outputs are reassigned).
        cv::Mat coarseForeground = estimate.clone(), coarseBackground = meanBackground.clone();
        blur_fusion(smallImage, smallAlpha, coarseForeground, coarseBackground, narrow, meanForeground,
                    meanBackground, estimate);
        cv::Mat foreground8, background8;
        meanForeground.convertTo(foreground8, CV_8UC3, 255.0);
        meanBackground.convertTo(background8, CV_8UC3, 255.0);
        if (work != cv::Size(width, height)) {
            cv::resize(foreground8, foreground8, cv::Size(width, height), 0, 0, cv::INTER_LINEAR);
            cv::resize(background8, background8, cv::Size(width, height), 0, 0, cv::INTER_LINEAR);
        }
        // F = mean F + a (I - a mean F - (1 - a) mean B), where the alpha is partial.
        cv::parallel_for_(cv::Range(0, height), [&](const cv::Range &rows) {
            for (int y = rows.start; y < rows.end; y++) {
                const unsigned char *a = alpha8.ptr<unsigned char>(y);
                const unsigned char *i = image8.ptr<unsigned char>(y);
                const unsigned char *f = foreground8.ptr<unsigned char>(y);
                const unsigned char *b = background8.ptr<unsigned char>(y);
                unsigned char *o = out.ptr<unsigned char>(y);
                for (int x = 0; x < width; x++) {
                    if (a[x] == 0 || a[x] == 255) continue;
                    float share = a[x] * (1.0f / 255.0f);
                    for (int c = 0; c < 3; c++) {
                        int k = 3 * x + c;
                        float value = f[k] + share * (i[k] - share * f[k] - (1 - share) * b[k]);
                        o[k] = value <= 0 ? 0 : value >= 255 ? 255 : (unsigned char)(value + 0.5f);
                    }
                }
            }
        });
        return 0;
    });
}
