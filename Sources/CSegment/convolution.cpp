// Collage's convolution layer for OpenCV DNN.
//
// Measured on the benchmark machine (2 cores), U²-Net-p's 119 convolutions took 714 of its
// 758 ms in OpenCV 4.6, at 16 to 28 GMAC/s; its side outputs (64 channels into 1) ran at 1.6.
// These kernels compute the same sums directly in OpenCV's own layout (channels, rows,
// columns), so nothing is rearranged between layers:
//
// - a block of output channels and a run of 2 to 4 vectors along a row are summed in
//   registers, over every input channel and tap, before anything is written: each input
//   vector loaded serves every channel of the block, and each weight broadcast serves the
//   whole run;
// - the input is copied once per layer into zero-bordered planes, so taps past the image's
//   edge read zeros and the inner loop has no bounds to test (dilated kernels included);
// - weights are repacked at load so that a block's weights are read in order;
// - each row of each block is a task for OpenCV's thread pool.
//
// The vector code is written once with the compiler's vector types and compiled twice, for
// AVX-512 and for AVX2 with FMA; which runs is chosen by what the processor has. Elsewhere, and
// for any layer that is not a stride-1, same-size, ungrouped 1 × 1 or 3 × 3 convolution of
// 32-bit floats, OpenCV's own layer is made instead.

#include "convolution.hpp"

#include <opencv2/core.hpp>
#include <opencv2/dnn/all_layers.hpp>
#include <opencv2/dnn/layer.details.hpp>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

namespace csegment {
namespace {

#define CSEGMENT_INLINE inline __attribute__((always_inline))

typedef float Vector16 __attribute__((vector_size(64)));
typedef float Vector8 __attribute__((vector_size(32)));

/// A layer's sizes, as one task sees them.
struct Geometry {
    int inputChannels, outputChannels, height, width, kernel, dilation;
    int paddedStride, paddedPlane;
};

/// Which instruction set a layer's kernels use; fixed at load, with the weights packed for it.
enum class InstructionSet { avx512, avx2 };

/// One row of `Block` output channels, starting at channel `block * Block`: sums kept in
/// `Block` × `Run` vectors of `Lanes` floats while every input channel and tap is added in.
template <typename V, int Lanes, int Block, int Run, int Kernel>
CSEGMENT_INLINE void convolve_row(const float *padded, const float *weights, const float *bias, bool relu,
                                  const Geometry &g, int block, int y, float *output) {
    const int taps = Kernel * Kernel;
    const float *blockWeights = weights + size_t(block) * g.inputChannels * taps * Block;
    for (int x0 = 0; x0 < g.width; x0 += Run * Lanes) {
        V sums[Block][Run];
        _Pragma("unroll") for (int j = 0; j < Block; j++) {
            V start = (bias ? bias[block * Block + j] : 0.0f) - (V){};
            _Pragma("unroll") for (int v = 0; v < Run; v++) sums[j][v] = start;
        }
        const float *w = blockWeights;
        for (int channel = 0; channel < g.inputChannels; channel++) {
            const float *origin = padded + size_t(channel) * g.paddedPlane + size_t(y) * g.paddedStride + x0;
            for (int ky = 0; ky < Kernel; ky++) {
                for (int kx = 0; kx < Kernel; kx++, w += Block) {
                    const float *tap = origin + ky * g.dilation * g.paddedStride + kx * g.dilation;
                    V input[Run];
                    _Pragma("unroll") for (int v = 0; v < Run; v++)
                        __builtin_memcpy(&input[v], tap + v * Lanes, sizeof(V));
                    _Pragma("unroll") for (int j = 0; j < Block; j++) {
                        V weight = w[j] - (V){};
                        _Pragma("unroll") for (int v = 0; v < Run; v++) sums[j][v] += weight * input[v];
                    }
                }
            }
        }
        _Pragma("unroll") for (int j = 0; j < Block; j++) {
            float *target = output + size_t(block * Block + j) * g.height * g.width + size_t(y) * g.width + x0;
            _Pragma("unroll") for (int v = 0; v < Run; v++) {
                V value = sums[j][v];
                if (relu) value = value > 0 ? value : 0;
                int left = g.width - x0 - v * Lanes;
                if (left >= Lanes)
                    __builtin_memcpy(target + v * Lanes, &value, sizeof(V));
                else if (left > 0)
                    __builtin_memcpy(target + v * Lanes, &value, sizeof(float) * left);
            }
        }
    }
}

/// What a thread needs to run tasks `start` to `end` (task = row × blocks + block).
struct Work {
    const float *padded, *weights, *bias;
    bool relu;
    Geometry geometry;
    int block, run;
    float *output;
};

template <typename V, int Lanes, int Block, int Run, int Kernel>
CSEGMENT_INLINE void run_tasks(const Work &work, int start, int end) {
    int blocks = work.geometry.outputChannels / Block;
    for (int task = start; task < end; task++)
        convolve_row<V, Lanes, Block, Run, Kernel>(work.padded, work.weights, work.bias, work.relu, work.geometry,
                                                   task % blocks, task / blocks, work.output);
}

template <typename V, int Lanes, int Kernel>
CSEGMENT_INLINE void dispatch_block(const Work &work, int start, int end) {
    // A block of one channel (a side output) has room in the registers for a longer run.
    switch (work.block * 10 + work.run) {
    case 83: run_tasks<V, Lanes, 8, 3, Kernel>(work, start, end); break;
    case 82: run_tasks<V, Lanes, 8, 2, Kernel>(work, start, end); break;
    case 43: run_tasks<V, Lanes, 4, 3, Kernel>(work, start, end); break;
    case 42: run_tasks<V, Lanes, 4, 2, Kernel>(work, start, end); break;
    case 23: run_tasks<V, Lanes, 2, 3, Kernel>(work, start, end); break;
    case 22: run_tasks<V, Lanes, 2, 2, Kernel>(work, start, end); break;
    default: run_tasks<V, Lanes, 1, 4, Kernel>(work, start, end); break;
    }
}

// The two compilations of the same kernels: everything above is inlined into these.
__attribute__((target("avx512f,avx512vl,fma"))) void run_avx512(const Work &work, int start, int end) {
    if (work.geometry.kernel == 3)
        dispatch_block<Vector16, 16, 3>(work, start, end);
    else
        dispatch_block<Vector16, 16, 1>(work, start, end);
}

__attribute__((target("avx2,fma"))) void run_avx2(const Work &work, int start, int end) {
    if (work.geometry.kernel == 3)
        dispatch_block<Vector8, 8, 3>(work, start, end);
    else
        dispatch_block<Vector8, 8, 1>(work, start, end);
}

bool same_everywhere(const cv::dnn::DictValue &values, int value) {
    for (int i = 0; i < values.size(); i++)
        if (values.get<int>(i) != value) return false;
    return values.size() > 0;
}

class OwnConvolution : public cv::dnn::Layer {
public:
    /// Whether these kernels compute the layer `params` describe.
    static bool handles(const cv::dnn::LayerParams &params) {
        if (params.blobs.empty() || params.blobs[0].dims != 4 || params.blobs[0].type() != CV_32F) return false;
        if (params.blobs.size() > 1 && (params.blobs[1].type() != CV_32F ||
                                        params.blobs[1].total() != size_t(params.blobs[0].size[0])))
            return false;
        if (params.get<int>("group", 1) != 1) return false;
        if (!params.has("kernel_size") || !params.has("stride")) return false;
        int kernel = params.blobs[0].size[2];
        if ((kernel != 1 && kernel != 3) || params.blobs[0].size[3] != kernel) return false;
        if (!same_everywhere(params.get("kernel_size"), kernel) || !same_everywhere(params.get("stride"), 1))
            return false;
        int dilation = params.has("dilation") ? params.get("dilation").get<int>(0) : 1;
        if (dilation < 1 || dilation > 256 || (params.has("dilation") && !same_everywhere(params.get("dilation"), dilation)))
            return false;
        // Same-size output: a pad of the kernel's reach on every side (none for 1 × 1).
        int pad = dilation * (kernel - 1) / 2;
        if (params.has("pad")) return same_everywhere(params.get("pad"), pad);
        return pad == 0 && !params.has("pad_mode");
    }

    OwnConvolution(const cv::dnn::LayerParams &params, InstructionSet instructions) : instructions(instructions) {
        setParamsFrom(params);
        const cv::Mat &weights = params.blobs[0];
        outputChannels = weights.size[0];
        inputChannels = weights.size[1];
        kernel = weights.size[2];
        dilation = params.has("dilation") ? params.get("dilation").get<int>(0) : 1;
        // As many output channels a block as the registers hold with a run of 2 or 3 vectors:
        // 32 AVX-512 registers take 8 × 3 sums, 16 AVX2 registers 4 × 2.
        int widest = instructions == InstructionSet::avx512 ? 8 : 4;
        block = 1;
        for (int candidate = widest; candidate > 1; candidate /= 2)
            if (outputChannels % candidate == 0) {
                block = candidate;
                break;
            }
        int taps = kernel * kernel;
        packed.resize(size_t(outputChannels) * inputChannels * taps);
        const float *source = weights.ptr<float>();
        for (int output = 0; output < outputChannels; output++)
            for (int input = 0; input < inputChannels; input++)
                for (int tap = 0; tap < taps; tap++)
                    packed[((size_t(output / block) * inputChannels + input) * taps + tap) * block + output % block] =
                        source[(size_t(output) * inputChannels + input) * taps + tap];
        if (params.blobs.size() > 1) {
            const float *values = params.blobs[1].ptr<float>();
            bias.assign(values, values + outputChannels);
        }
    }

    bool getMemoryShapes(const std::vector<cv::dnn::MatShape> &inputs, const int,
                         std::vector<cv::dnn::MatShape> &outputs, std::vector<cv::dnn::MatShape> &) const override {
        CV_Assert(inputs.size() == 1 && inputs[0].size() == 4 && inputs[0][1] == inputChannels);
        outputs.assign(1, cv::dnn::MatShape{inputs[0][0], outputChannels, inputs[0][2], inputs[0][3]});
        return false;
    }

    // OpenCV offers the ReLU that follows each convolution; taking it saves a pass over the output.
    bool setActivation(const cv::Ptr<cv::dnn::ActivationLayer> &layer) override {
        cv::Ptr<cv::dnn::ReLULayer> rectifier = layer.dynamicCast<cv::dnn::ReLULayer>();
        if (rectifier.empty() || rectifier->negativeSlope != 0.0f) return false;
        relu = true;
        return true;
    }

    void forward(cv::InputArrayOfArrays inputArrays, cv::OutputArrayOfArrays outputArrays,
                 cv::OutputArrayOfArrays) override {
        std::vector<cv::Mat> inputs, outputs;
        inputArrays.getMatVector(inputs);
        outputArrays.getMatVector(outputs);
        CV_Assert(inputs.size() == 1 && outputs.size() == 1);
        const cv::Mat &input = inputs[0];
        cv::Mat &output = outputs[0];
        CV_Assert(input.dims == 4 && output.dims == 4 && input.type() == CV_32F && output.type() == CV_32F);
        Geometry g{inputChannels, outputChannels, input.size[2], input.size[3], kernel, dilation, 0, 0};
        // Planes of one image must be packed: the kernels walk them by offset (OpenCV may hand a
        // view into a concatenation's output, which is packed within each image).
        size_t planeBytes = size_t(g.height) * g.width * sizeof(float);
        CV_Assert(input.step[1] == planeBytes && output.step[1] == planeBytes &&
                  input.step[2] == g.width * sizeof(float) && output.step[2] == g.width * sizeof(float));
        int pad = dilation * (kernel - 1) / 2;
        g.paddedStride = g.width + 2 * pad;
        g.paddedPlane = g.paddedStride * (g.height + 2 * pad);
        // A run at the end of the last row reads up to a run and a row past its plane; what it
        // reads there lands only in the columns past the image, which are never written.
        size_t size = size_t(g.paddedPlane) * inputChannels + g.paddedStride + 4 * 16;
        // A run of 3 vectors needs fewer loads a sum than 2, unless the row's last run would be
        // mostly past its end (a 160-pixel row is 10 vectors of 16: 5 runs of 2, or 4 of 3 with 2 idle).
        int lanes = instructions == InstructionSet::avx512 ? 16 : 8;
        int vectors = (g.width + lanes - 1) / lanes;
        int run = 2;
        if (instructions == InstructionSet::avx512 && block > 1) {
            int withThree = (vectors + 2) / 3 * 3, withTwo = (vectors + 1) / 2 * 2;
            if (withThree * 10 <= withTwo * 11) run = 3;
        }
        // One bordered copy serves every layer of every model (the largest layer's, about 50 MB
        // for U²-Net-p), so layers take turns.
        std::lock_guard<std::mutex> hold(paddedLock);
        if (padded.size() < size) padded.resize(size);
        // The slack past the last plane feeds only idle lanes, but must hold numbers: a
        // denormal there would slow every sum it joins.
        std::fill(padded.begin() + size_t(g.paddedPlane) * inputChannels, padded.begin() + size, 0.0f);
        for (int image = 0; image < input.size[0]; image++) {
            const float *source = input.ptr<float>(image);
            cv::parallel_for_(cv::Range(0, inputChannels), [&](const cv::Range &channels) {
                for (int c = channels.start; c < channels.end; c++) {
                    float *plane = padded.data() + size_t(c) * g.paddedPlane;
                    std::fill(plane, plane + size_t(pad) * g.paddedStride, 0.0f);
                    for (int y = 0; y < g.height; y++) {
                        float *row = plane + size_t(y + pad) * g.paddedStride;
                        std::fill(row, row + pad, 0.0f);
                        std::memcpy(row + pad, source + (size_t(c) * g.height + y) * g.width, sizeof(float) * g.width);
                        std::fill(row + pad + g.width, row + g.paddedStride, 0.0f);
                    }
                    std::fill(plane + size_t(g.height + pad) * g.paddedStride, plane + g.paddedPlane, 0.0f);
                }
            });
            Work work{padded.data(), packed.data(), bias.empty() ? nullptr : bias.data(), relu, g, block, run,
                      output.ptr<float>(image)};
            cv::parallel_for_(cv::Range(0, outputChannels / block * g.height), [&](const cv::Range &tasks) {
                if (instructions == InstructionSet::avx512)
                    run_avx512(work, tasks.start, tasks.end);
                else
                    run_avx2(work, tasks.start, tasks.end);
            });
        }
    }

private:
    InstructionSet instructions;
    int inputChannels = 0, outputChannels = 0, kernel = 1, dilation = 1, block = 1;
    std::vector<float> packed, bias;
    bool relu = false;
    static std::mutex paddedLock;
    static std::vector<float> padded;
};

std::mutex OwnConvolution::paddedLock;
std::vector<float> OwnConvolution::padded;

// The factory is process-wide: the override is in place only while one model is read.
std::mutex registration;
InstructionSet chosenInstructions;

cv::Ptr<cv::dnn::Layer> make_convolution(cv::dnn::LayerParams &params) {
    if (OwnConvolution::handles(params)) return cv::makePtr<OwnConvolution>(params, chosenInstructions);
    return cv::dnn::ConvolutionLayer::create(params);
}

}  // namespace

cv::dnn::Net read_network(const char *path, ConvolutionKernels kernels) {
    bool avx512 = __builtin_cpu_supports("avx512f") && kernels == ConvolutionKernels::own;
    bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (kernels == ConvolutionKernels::opencv || (!avx512 && !avx2)) return cv::dnn::readNetFromONNX(path);
    std::lock_guard<std::mutex> hold(registration);
    chosenInstructions = avx512 ? InstructionSet::avx512 : InstructionSet::avx2;
    cv::dnn::LayerFactory::registerLayer("Convolution", make_convolution);
    struct Unregister {
        ~Unregister() { cv::dnn::LayerFactory::unregisterLayer("Convolution"); }
    } unregister;
    cv::dnn::Net net = cv::dnn::readNetFromONNX(path);
    // Layers are made when first asked for: ask for every one while the override is in place.
    for (const std::string &name : net.getLayerNames()) net.getLayer(net.getLayerId(name));
    return net;
}

}  // namespace csegment
