// The guided filter that carries the model's small map up to the photo's full size along its edges.
#include "csegment.h"
#include "shared.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <vector>

using csegment::guarded;
using csegment::working_size;

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
        csegment::area_shrunk(image, smallImage, work);
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
            // Bilinear is separable: each output row first blends its two working rows (a few
            // hundred values), so each of its thousands of pixels blends only along the row.
            std::vector<float> rowA(work.width), rowB(work.width);
            int blendedTop = -1;
            float blendedWeight = -1;
            for (int y = rows.start; y < rows.end; y++) {
                int top = rowLow[y], bottom = std::min(top + 1, work.height - 1);
                float fy = rowWeight[y];
                if (top != blendedTop || fy != blendedWeight) {
                    const float *a0 = meanA.ptr<float>(top), *a1 = meanA.ptr<float>(bottom);
                    const float *b0 = meanB.ptr<float>(top), *b1 = meanB.ptr<float>(bottom);
                    for (int x = 0; x < work.width; x++) {
                        rowA[x] = a0[x] + (a1[x] - a0[x]) * fy;
                        rowB[x] = b0[x] + (b1[x] - b0[x]) * fy;
                    }
                    blendedTop = top;
                    blendedWeight = fy;
                }
                const float *a = rowA.data(), *b = rowB.data();
                const unsigned char *pixel = image.ptr<unsigned char>(y);
                unsigned char *target = out.ptr<unsigned char>(y);
                for (int x = 0; x < width; x++, pixel += 3) {
                    int left = columnLow[x], right = std::min(left + 1, lastColumn);
                    float fx = columnWeight[x];
                    float coefficient = a[left] + (a[right] - a[left]) * fx;
                    float offset = b[left] + (b[right] - b[left]) * fx;
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
