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

// The model's map of `small` (the photo at the model's side, 8-bit RGB), as it answered it.
// The photo is scaled so its brightest value is 1, as U²-Net was trained (and as rembg runs it):
// scaled by 1/255 instead, an underexposed photo reached the model as a dark blur it found
// little in (twelve photos at a sixth of their exposure, their masks against the photos' own
// shared at 0.5: 0.73 on average, the cat 0.03; so scaled, 0.97 and 0.88). At most four times
// brighter: a black frame's noise is not made a picture.
static cv::Mat raw_map(CSegmentModel *model, const cv::Mat &small) {
    double brightest = 0;
    cv::minMaxLoc(small.reshape(1), nullptr, &brightest);
    cv::Mat normalised;
    small.convertTo(normalised, CV_32FC3, 1.0 / std::max(64.0, brightest));
    normalised -= cv::Scalar(0.485, 0.456, 0.406);
    cv::divide(normalised, cv::Scalar(0.229, 0.224, 0.225), normalised);
    cv::Mat blob = cv::dnn::blobFromImage(normalised);  // HWC -> 1x3xHxW, RGB order kept
    cv::Mat output = model->backend->run(blob);
    if (output.total() != size_t(CSEGMENT_MAP_SIDE * CSEGMENT_MAP_SIDE))
        throw std::runtime_error("unexpected output size " + std::to_string(output.total()));
    return cv::Mat(CSEGMENT_MAP_SIDE, CSEGMENT_MAP_SIDE, CV_32F, output.ptr<float>()).clone();
}

// A map stretched to 0-1 between its extremes (all 0 when it is flat).
static cv::Mat stretched(const cv::Mat &plane, double lowest, double highest) {
    cv::Mat result(plane.size(), CV_32F, cv::Scalar(0));
    double range = highest - lowest;
    if (range >= 1e-12) plane.convertTo(result, CV_32F, 1.0 / range, -lowest / range);
    return result;
}

// The model's map of `small` stretched to 0-1 (see stretched).
static cv::Mat stretched_map(CSegmentModel *model, const cv::Mat &small) {
    cv::Mat map = raw_map(model, small);
    double lowest, highest;
    cv::minMaxLoc(map, &lowest, &highest);
    return stretched(map, lowest, highest);
}

// The share of a stretched map at 0.5 or more: how much of the photo the model calls subject.
static double subject_share(const cv::Mat &map) {
    return double(cv::countNonZero(map >= 0.5)) / double(std::max<size_t>(1, map.total()));
}

// What of `seen` (a stretched map) a later look adds to `found`: the parts of it at 0.5 or more
// that meet what `found` calls subject, with their soft rim (two map pixels), and nothing when
// they hold under `share` of it; all of it when `found` calls nothing subject. A look that finds
// the rest of a cat around its eyes adds the cat; a lawn it finds apart from a small squirrel
// is left out.
static cv::Mat joined_parts(const cv::Mat &seen, const cv::Mat &found, double share) {
    cv::Mat held = found >= 0.5, seenHeld = seen >= 0.5;
    int count = cv::countNonZero(held);
    if (count == 0) return seen;
    if (double(cv::countNonZero(held & seenHeld)) < share * count) return cv::Mat();
    cv::Mat labels;
    int parts = cv::connectedComponents(seenHeld, labels, 8, CV_32S);
    std::vector<unsigned char> meets(parts, 0);
    for (int y = 0; y < labels.rows; y++) {
        const int *label = labels.ptr<int>(y);
        const unsigned char *h = held.ptr<unsigned char>(y);
        for (int x = 0; x < labels.cols; x++)
            if (h[x] && label[x]) meets[label[x]] = 1;
    }
    cv::Mat kept(seen.size(), CV_8U, cv::Scalar(0));
    for (int y = 0; y < labels.rows; y++) {
        const int *label = labels.ptr<int>(y);
        unsigned char *k = kept.ptr<unsigned char>(y);
        for (int x = 0; x < labels.cols; x++) k[x] = meets[label[x]] ? 255 : 0;
    }
    cv::dilate(kept, kept, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(5, 5)));
    cv::Mat result(seen.size(), CV_32F, cv::Scalar(0));
    seen.copyTo(result, kept);
    return result;
}

// `photo` (8-bit RGB) with each channel stretched so its 1st percentile is black and its 99th
// white: a haze, a washed-out print or a colour cast taken out. A channel is stretched at most
// eight times (a range of 32 values made 255): a plain sky's few values are not made a texture.
static cv::Mat levels_stretched(const cv::Mat &photo) {
    std::vector<cv::Mat> channels;
    cv::split(photo, channels);
    for (cv::Mat &channel : channels) {
        int histogram[256] = {0};
        for (int y = 0; y < channel.rows; y++) {
            const unsigned char *row = channel.ptr<unsigned char>(y);
            for (int x = 0; x < channel.cols; x++) histogram[row[x]]++;
        }
        double total = double(channel.total()), seen = 0;
        int low = 0, high = 255;
        for (int value = 0; value < 256; value++) {
            seen += histogram[value];
            if (seen < 0.01 * total) low = value + 1;
            if (seen < 0.99 * total) high = value + 1;
        }
        if (high - low < 32) {
            int middle = (low + high) / 2;
            low = std::max(0, std::min(255 - 32, middle - 16));
            high = low + 32;
        }
        high = std::min(255, high);
        channel.convertTo(channel, CV_8U, 255.0 / (high - low), -255.0 * low / (high - low));
    }
    cv::Mat result;
    cv::merge(channels, result);
    return result;
}

// `photo` blurred by a pixel (of the model's 320): noise and JPEG's blocks smoothed over.
static cv::Mat lightly_blurred(const cv::Mat &photo) {
    cv::Mat result;
    cv::GaussianBlur(photo, result, cv::Size(0, 0), 1.0);
    return result;
}

// `photo` with its levels stretched, then lightly blurred (see both).
static cv::Mat levels_stretched_and_blurred(const cv::Mat &photo) { return lightly_blurred(levels_stretched(photo)); }

// Whether a photo has next to no colour: its mean spread between its brightest and darkest
// channel under 12 of 255 (black and white, or nearly; a grey desk in colour is 11, a colour
// portrait 50 and more).
static bool nearly_colourless(const cv::Mat &small) {
    double spread = 0;
    for (int y = 0; y < small.rows; y++) {
        const unsigned char *p = small.ptr<unsigned char>(y);
        for (int x = 0; x < small.cols; x++, p += 3)
            spread += std::max({p[0], p[1], p[2]}) - std::min({p[0], p[1], p[2]});
    }
    return spread < 12.0 * small.rows * small.cols;
}

extern "C" int csegment_predict(CSegmentModel *model, const unsigned char *rgb, int width, int height, float *map,
                                float *raw_min, float *raw_max, char *error, size_t error_size) {
    return guarded(error, error_size, [&]() {
        cv::Mat image(height, width, CV_8UC3, const_cast<unsigned char *>(rgb));
        cv::Mat small;
        cv::Size side(CSEGMENT_MAP_SIDE, CSEGMENT_MAP_SIDE);
        if (width > CSEGMENT_MAP_SIDE || height > CSEGMENT_MAP_SIDE)
            csegment::area_shrunk(image, small, side);
        else
            cv::resize(image, small, side, 0, 0, cv::INTER_LINEAR);
        cv::Mat plane = raw_map(model, small);
        double lowest, highest;
        cv::minMaxLoc(plane, &lowest, &highest);
        // Whether there is a subject at all is the plain map's to say.
        *raw_min = float(lowest);
        *raw_max = float(highest);
        cv::Mat result(CSEGMENT_MAP_SIDE, CSEGMENT_MAP_SIDE, CV_32F, map);
        cv::Mat found = stretched(plane, lowest, highest);
        // A map with next to no spread says there is no subject (SubjectModel's check of the
        // contrast, 0.3), and no other look is taken: each would be thrown away.
        bool flat = highest - lowest < 0.3;
        // The model leans on colour: in a black-and-white photo it often found only the most
        // striking part (a grey cat's eye, not the cat). A copy with its lightness spread
        // evenly is seen too, and where the photo itself gave under 8 % subject, the same copy
        // toned warm as an old print is (the model learnt its subjects in colour, and warm ones
        // stand out to it); each pixel keeps the surest of the maps. (Twelve photos made grey,
        // each map at 0.5 against the colour photo's, as intersection over union, with rembg's
        // u2netp: the grey cat 0.04 alone, 0.51 with the even copy, 0.83 with the warm one too;
        // the other eleven within 0.01 of what the even copy kept, and found 8 % or more alone; a
        // cool tone instead found less on all.)
        if (!flat && nearly_colourless(small)) {
            bool weak = subject_share(found) < 0.08;
            cv::Mat luma, equalised;
            cv::cvtColor(small, luma, cv::COLOR_RGB2GRAY);
            cv::equalizeHist(luma, luma);
            cv::cvtColor(luma, equalised, cv::COLOR_GRAY2RGB);
            cv::max(found, stretched_map(model, equalised), found);
            if (weak) {
                cv::Mat warm;
                equalised.convertTo(warm, CV_32FC3);
                cv::multiply(warm, cv::Scalar(1.0, 0.85, 0.65), warm);
                warm.convertTo(warm, CV_8UC3);
                cv::max(found, stretched_map(model, warm), found);
            }
        }
        // On the edge of what it knows, the model finds only the most striking part of a subject
        // (a cat's eyes, 87 × 73 px of a 451 × 300 photo) after a small change to the photo: a
        // haze, a tungsten cast, noise, heavy JPEG compression. When under 8 % of the map is
        // subject, it looks again at the photo with each channel's levels stretched, then lightly
        // blurred, then both, until 8 % is; a look adds only its parts that meet what was found,
        // only when it holds 7 in 10 of it (see joined_parts), and only when it makes a subject
        // of a fifth of the photo. (Each map at 0.5 against the plain photo's, as intersection
        // over union, with rembg's u2netp: the cat hazy 0.04 -> 0.91, washed out 0.04 -> 0.93,
        // under tungsten 0.03 -> 0.93, as a JPEG of quality 3 0.02 -> 0.84, with noise of 8 levels
        // 0.07-0.10 -> 0.86-0.88. No photo of bench/matting is under 8 %; a small subject pays up
        // to three more runs of the model, a black-and-white one up to five in all, a photo with
        // no subject none.)
        const std::vector<cv::Mat (*)(const cv::Mat &)> looks = {levels_stretched, lightly_blurred,
                                                                  levels_stretched_and_blurred};
        for (auto look : looks) {
            if (flat || subject_share(found) >= 0.08) break;
            cv::Mat added = joined_parts(stretched_map(model, look(small)), found, 0.7);
            if (added.empty()) continue;
            cv::Mat seen;
            cv::max(found, added, seen);
            // What these looks mend is a large subject found as a small part of it; a look that
            // makes no subject of a fifth of the photo is not that, and what it adds is more
            // likely the ground round a small subject (a blurred lawn round a squirrel a third of
            // a per cent of the photo came out as a tenth of it).
            if (subject_share(seen) >= 0.2) found = seen;
        }
        found.copyTo(result);
        return 0;
    });
}
