#include "csegment.h"

#include "convolution.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
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
        auto model = new CSegmentModel();
        try {
            csegment::ConvolutionKernels used;
            model->net = csegment::read_network(path, kernels_named(kernels), &used);
            *kernels_used = int(used);
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

static cv::Mat three_channels(const cv::Mat &plane) {
    cv::Mat out;
    cv::cvtColor(plane, out, cv::COLOR_GRAY2RGB);
    return out;
}

// A value between pixels of `plane` (float, `channels` deep), for pixel (x, y) of an image
// `scale` times larger, by bilinear interpolation.
static inline void sample_between(const cv::Mat &plane, int channels, float scaleX, float scaleY, int x, int y,
                                  float *out) {
    float u = std::max(0.0f, (x + 0.5f) * scaleX - 0.5f), v = std::max(0.0f, (y + 0.5f) * scaleY - 0.5f);
    int x0 = std::min(int(u), plane.cols - 1), y0 = std::min(int(v), plane.rows - 1);
    int x1 = std::min(x0 + 1, plane.cols - 1), y1 = std::min(y0 + 1, plane.rows - 1);
    float fx = u - x0, fy = v - y0;
    const float *p00 = plane.ptr<float>(y0) + channels * x0, *p01 = plane.ptr<float>(y0) + channels * x1,
                *p10 = plane.ptr<float>(y1) + channels * x0, *p11 = plane.ptr<float>(y1) + channels * x1;
    for (int c = 0; c < channels; c++)
        out[c] = (p00[c] * (1 - fx) + p01[c] * fx) * (1 - fy) + (p10[c] * (1 - fx) + p11[c] * fx) * fy;
}

// The weighted mean colour around each pixel (normalised convolution), taken at the smallest
// of the scales where enough weighted pixels lie near: close to the subject the mean follows the
// nearby colours, deep in the edge band it reaches as far as it must. Each scale blurs a copy
// reduced in step with its blur (each made from the last), so the widest costs no more than the
// narrowest. Only the pixels in `needed` get a mean (the rest stay 0), read from the reduced
// copies between their pixels, and the scales stop once they all have one.
static cv::Mat local_mean(const cv::Mat &image, const cv::Mat &weight, double unit, const cv::Mat &needed) {
    cv::Mat values = image.mul(three_channels(weight)), weights = weight.clone();
    cv::Mat mean(image.size(), CV_32FC3, cv::Scalar::all(0));
    cv::Mat found(image.size(), CV_32F, cv::Scalar(0));
    // From 5 pixels per 1,000 across, doubling until every pixel needed has found enough weight
    // (or the blur spans the whole image: a side with no pixel at all keeps a mean of 0).
    double widest = std::max(image.cols, image.rows);
    int reduction = 1;
    for (double sigma = std::max(1.0, 5 * unit);; sigma *= 2) {
        // Blurs of two pixels or more at the reduced size are smooth enough to read between.
        int factor = std::max(1, int(sigma / 2));
        if (factor > reduction) {
            cv::Size reduced(std::max(1, image.cols / factor), std::max(1, image.rows / factor));
            cv::resize(values, values, reduced, 0, 0, cv::INTER_AREA);
            cv::resize(weights, weights, reduced, 0, 0, cv::INTER_AREA);
            reduction = factor;
        }
        // Three sigmas each side: wider windows only add weight from far away.
        double blur = sigma / reduction;
        int side = 2 * int(3 * blur) + 1;
        cv::Mat blurredValues, blurredWeights;
        cv::GaussianBlur(values, blurredValues, cv::Size(side, side), blur, 0, cv::BORDER_REPLICATE);
        cv::GaussianBlur(weights, blurredWeights, cv::Size(side, side), blur, 0, cv::BORDER_REPLICATE);
        float scaleX = float(values.cols) / image.cols, scaleY = float(values.rows) / image.rows;
        bool complete = true;
        for (int y = 0; y < image.rows; y++) {
            const unsigned char *n = needed.ptr<unsigned char>(y);
            cv::Vec3f *m = mean.ptr<cv::Vec3f>(y);
            float *f = found.ptr<float>(y);
            for (int x = 0; x < image.cols; x++) {
                if (!n[x] || f[x] >= 0.999f) continue;
                float v[3], w;
                sample_between(blurredValues, 3, scaleX, scaleY, x, y, v);
                sample_between(blurredWeights, 1, scaleX, scaleY, x, y, &w);
                // A twentieth of the window's weight is enough to trust its mean.
                float take = std::min(1.0f, w * 20) * (1 - f[x]);
                m[x] += cv::Vec3f(v[0], v[1], v[2]) * (take / (w + 1e-6f));
                f[x] += take;
                complete = complete && f[x] >= 0.999f;
            }
        }
        if (complete || sigma > widest) break;
    }
    for (int y = 0; y < image.rows; y++) {
        cv::Vec3f *m = mean.ptr<cv::Vec3f>(y);
        const float *f = found.ptr<float>(y);
        for (int x = 0; x < image.cols; x++) m[x] /= std::max(f[x], 1e-6f);
    }
    return mean;
}

// Where a pixel lies between the subject's colour F and the background's B (its projection on
// the line from B to F), and how much that is worth: little when the two colours are near.
struct Projection {
    float alpha, confidence;
};
static inline Projection project(const float *image, const float *foreground, const float *background) {
    float along = 0, apart = 0;
    for (int c = 0; c < 3; c++) {
        float d = foreground[c] - background[c];
        along += (image[c] - background[c]) * d;
        apart += d * d;
    }
    float alpha = std::min(1.0f, std::max(0.0f, along / (apart + 1e-4f)));
    // Colours 0.14 apart (0.02 squared) get half a say; the model's alpha has the rest.
    return {alpha, apart / (apart + 0.02f)};
}

extern "C" int csegment_matte(const unsigned char *rgb, unsigned char *alpha, int width, int height,
                              unsigned char *foreground, char *error, size_t error_size) {
    return guarded(error, error_size, [&]() {
        cv::Mat image8(height, width, CV_8UC3, const_cast<unsigned char *>(rgb));
        cv::Mat alpha8(height, width, CV_8U, alpha);
        cv::Mat out(height, width, CV_8UC3, foreground);
        image8.copyTo(out);
        // The colours on either side are smooth, so they are found on a copy at most 1,024
        // pixels long; only the alpha and colour of each edge pixel are computed at full size.
        cv::Size work = working_size(width, height, 1024);
        double unit = std::max(work.width, work.height) / 1000.0;
        cv::Mat image, mask;
        cv::resize(image8, image, work, 0, 0, cv::INTER_AREA);
        cv::resize(alpha8, mask, work, 0, 0, cv::INTER_AREA);
        image.convertTo(image, CV_32FC3, 1.0 / 255.0);
        mask.convertTo(mask, CV_32F, 1.0 / 255.0);
        // What the model is sure of: the subject (eroded a little, where its edge is least sure)
        // and the background. The rest is the edge band, where the alpha is found again.
        // (0.95 and 0.03: the guided filter's soft ramp lies between; outside it the model's map
        // is flat.) A subject too thin to survive the erosion keeps its uneroded core.
        cv::Mat subject = mask >= 0.95f, background = mask <= 0.03f;
        int erosion = std::max(1, int(2 * unit + 0.5));
        cv::Mat eroded;
        cv::erode(subject, eroded,
                  cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * erosion + 1, 2 * erosion + 1)));
        if (cv::countNonZero(eroded) > 0) subject = eroded;
        // With no sure subject or no sure background in the crop (a subject that is haze all
        // over, or haze reaching every side), one of the two colours is unknown: the model's
        // alpha and the photo's colours stay as they are.
        if (cv::countNonZero(subject) == 0 || cv::countNonZero(background) == 0) return 0;
        // The band, and a pixel around it for reading the means between pixels at full size.
        cv::Mat band = ~(subject | background);
        cv::dilate(band, band, cv::Mat(), cv::Point(-1, -1), 2);
        cv::Mat subjectWeight, backgroundWeight;
        subject.convertTo(subjectWeight, CV_32F, 1.0 / 255.0);
        background.convertTo(backgroundWeight, CV_32F, 1.0 / 255.0);
        cv::Mat subjectColour = local_mean(image, subjectWeight, unit, band);
        cv::Mat backgroundColour = local_mean(image, backgroundWeight, unit, band);
        // Two more looks at the background: band pixels that are clearly background (the gaps
        // between strands) join its mean, weighted by the fourth power of their share, so it
        // follows the background where it shows through. The subject's colour stays the mean of
        // what is surely subject: band pixels that are mostly subject still hold some background,
        // and taking them in pulled the subject's colour towards it.
        for (int look = 0; look < 2; look++) {
            cv::Mat backgroundMore = backgroundWeight.clone();
            for (int y = 0; y < work.height; y++) {
                const float *i = image.ptr<float>(y), *f = subjectColour.ptr<float>(y),
                            *b = backgroundColour.ptr<float>(y);
                const unsigned char *s = subject.ptr<unsigned char>(y), *g = background.ptr<unsigned char>(y);
                float *w = backgroundMore.ptr<float>(y);
                for (int x = 0; x < work.width; x++) {
                    if (s[x] || g[x]) continue;
                    Projection p = project(i + 3 * x, f + 3 * x, b + 3 * x);
                    float away = (1 - p.alpha) * (1 - p.alpha);
                    w[x] = away * away * p.confidence;
                }
            }
            backgroundColour = local_mean(image, backgroundMore, unit, band);
        }
        // The means are read at full size between their pixels rather than from full-size
        // copies (two float planes of 3 channels would be 290 MB at 12 MP), and whether a pixel
        // is sure subject or in the band through tables from full-size to working rows and columns.
        float scaleX = float(work.width) / width, scaleY = float(work.height) / height;
        std::vector<int> workColumn(width), workRow(height);
        for (int x = 0; x < width; x++) workColumn[x] = std::min(work.width - 1, int(int64_t(x) * work.width / width));
        for (int y = 0; y < height; y++) workRow[y] = std::min(work.height - 1, int(int64_t(y) * work.height / height));
        // Each band pixel at full size: its alpha is the projection, mixed with the model's by how
        // far apart the two colours are; its colour is what, mixed by that alpha with the
        // background, gives the photo back (the subject's mean where too little of it shows).
        cv::parallel_for_(cv::Range(0, height), [&](const cv::Range &rows) {
            for (int y = rows.start; y < rows.end; y++) {
                unsigned char *a = alpha8.ptr<unsigned char>(y);
                const unsigned char *i8 = image8.ptr<unsigned char>(y);
                const unsigned char *sure = subject.ptr<unsigned char>(workRow[y]),
                                    *inBand = band.ptr<unsigned char>(workRow[y]);
                unsigned char *o = out.ptr<unsigned char>(y);
                for (int x = 0; x < width; x++) {
                    // Below 3 % (7 of 255) the sure background's haze: nothing anyone sees.
                    if (a[x] <= 7) {
                        a[x] = 0;
                        continue;
                    }
                    if (sure[workColumn[x]]) {
                        a[x] = 255;
                        continue;
                    }
                    // A faint strand the reduced copy averaged away into the background has no
                    // means read for it: it keeps the model's alpha and the photo's colour.
                    if (!inBand[workColumn[x]]) continue;
                    float i[3], f[3], b[3];
                    for (int c = 0; c < 3; c++) i[c] = i8[3 * x + c] * (1.0f / 255.0f);
                    sample_between(subjectColour, 3, scaleX, scaleY, x, y, f);
                    sample_between(backgroundColour, 3, scaleX, scaleY, x, y, b);
                    Projection p = project(i, f, b);
                    float model = a[x] * (1.0f / 255.0f);
                    float share = p.confidence * p.alpha + (1 - p.confidence) * model;
                    a[x] = (unsigned char)(share * 255 + 0.5f);
                    // Dividing by a small alpha magnifies noise: below 12 % the colour fades
                    // to the subject's mean.
                    float own = std::min(1.0f, std::max(0.0f, (share - 0.02f) / 0.1f));
                    for (int c = 0; c < 3; c++) {
                        float recovered = b[c] + (i[c] - b[c]) / std::max(share, 0.02f);
                        recovered = std::min(1.0f, std::max(0.0f, recovered));
                        float value = own * recovered + (1 - own) * f[c];
                        o[3 * x + c] = (unsigned char)(value * 255 + 0.5f);
                    }
                }
            }
        });
        return 0;
    });
}
