// U²-Net-p through OpenCV DNN, exactly as Sources/CSegment/inference.cpp runs it (the first unconnected output),
// for bench/sticker's side-by-side with OpenVINO. Same arguments and JSON line as
// infer_openvino.c, and a sixth: `own` (Collage's convolution kernels, what `collage` runs),
// `avx2` (the same without AVX-512) or `opencv` (OpenCV's own).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <string>
#include <vector>

#include "convolution.hpp"

static double milliseconds() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char **argv) {
    if (argc != 7) return std::fprintf(stderr, "usage: %s MODEL INPUTS COUNT REPEATS OUT own|avx2|opencv\n", argv[0]), 2;
    std::string chosen = argv[6];
    csegment::ConvolutionKernels kernels = chosen == "opencv" ? csegment::ConvolutionKernels::opencv
                                           : chosen == "avx2" ? csegment::ConvolutionKernels::ownWithoutAVX512
                                                              : csegment::ConvolutionKernels::own;
    int count = std::atoi(argv[3]), repeats = std::atoi(argv[4]);
    const int side = 320, dimensions[4] = {1, 3, side, side};
    std::vector<float> inputs(size_t(3) * side * side * count);
    FILE *file = std::fopen(argv[2], "rb");
    if (!file || std::fread(inputs.data(), sizeof(float), inputs.size(), file) != inputs.size()) return 1;
    std::fclose(file);
    double started = milliseconds();
    csegment::ConvolutionKernels used;
    cv::dnn::Net net = csegment::read_network(argv[1], kernels, &used);
    std::string output = net.getUnconnectedOutLayersNames().front();
    double loaded = milliseconds();
    std::vector<double> times;
    double first = 0;
    FILE *out = std::fopen(argv[5], "wb");
    if (!out) return std::fprintf(stderr, "cannot write %s\n", argv[5]), 1;
    for (int i = 0; i < count; i++) {
        cv::Mat blob(4, dimensions, CV_32F, inputs.data() + size_t(3) * side * side * i);
        cv::Mat map;
        for (int r = 0; r < repeats; r++) {
            double before = milliseconds();
            net.setInput(blob);
            map = net.forward(output);
            double took = milliseconds() - before;
            if (i == 0 && r == 0) first = took;
            else times.push_back(took);
        }
        std::fwrite(map.ptr<float>(), sizeof(float), side * side, out);
    }
    std::fclose(out);
    std::sort(times.begin(), times.end());
    const char *names[] = {"Collage's convolution", "Collage's convolution without AVX-512", "its own convolution"};
    std::printf("{\"runtime\": \"OpenCV DNN %s, %s\", \"load_ms\": %.1f, \"first_ms\": %.1f, \"median_ms\": %.1f}\n",
                CV_VERSION, names[int(used)], loaded - started, first, times.empty() ? first : times[times.size() / 2]);
    return 0;
}
