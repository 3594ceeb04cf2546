// Connected components of a mask: the separate subjects a lift can pick from.
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
