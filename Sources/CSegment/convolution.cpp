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
// - the input is taken in bands of rows (about a megabyte, so a band stays in the core's cache
//   while every block of output channels sweeps it), each copied with zero borders, so taps
//   past the image's edge read zeros and the inner loop has no bounds to test (dilated kernels
//   included);
// - weights are repacked at load so that a block's weights are read in order;
// - each band is a task for OpenCV's thread pool.
//
// - undilated 3 × 3 layers of 8 to 1,024 input channels, output channels in blocks of 4 or 8,
//   and rows of at least 32 pixels (16 with AVX2: half a vector of tiles; narrower rows would
//   leave most of it idle) use Winograd's F(4 × 4, 3 × 3) instead (below): 36 products a
//   4 × 4 block of outputs where the direct sums take 144. They hold nearly all of U²-Net-p's
//   work; its map differs from OpenCV's by rounding alone.
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
#include <utility>
#include <vector>

namespace csegment {

// The kernels are x86 code, and the layer interface they implement is OpenCV 4.6's (later
// versions fuse convolutions with what follows by casting to their own layer class, and bring
// faster kernels of their own): elsewhere OpenCV's layers run.
#if defined(__x86_64__) && CV_VERSION_MAJOR == 4 && CV_VERSION_MINOR == 6
#define CSEGMENT_OWN_KERNELS 1
#endif

#ifdef CSEGMENT_OWN_KERNELS
namespace {

#define CSEGMENT_INLINE inline __attribute__((always_inline))

// The loops over a block's sums must be unrolled for the sums to stay in registers: GCC, which
// `make dist` builds the shipped library with, ignores clang's spelling of the request and ran
// the model at a third of clang's speed.
#if defined(__clang__)
#define CSEGMENT_UNROLL _Pragma("unroll")
#else
#define CSEGMENT_UNROLL _Pragma("GCC unroll 32")
#endif

/// The most floats a thread keeps in its band between layers (16 MB).
constexpr size_t kKeptBandFloats = size_t(4) << 20;

/// The longest run of vectors a row is summed in (a block of one channel's); the band's slack
/// is sized by it.
constexpr int longestRun = 4;
static_assert(longestRun >= 3, "runs of 2 and 3 vectors are read within the same slack");

typedef float Vector16 __attribute__((vector_size(64)));
typedef float Vector8 __attribute__((vector_size(32)));

/// A layer's sizes, as one task sees them.
struct Geometry {
    int inputChannels, outputChannels, height, width, kernel, dilation;
    /// A band of the input: `bandRows` rows and the kernel's reach above and below, each row
    /// with the reach left and right, as `bandPlane` floats a channel.
    int paddedStride, bandRows;
    size_t bandPlane;
};

/// Which instruction set a layer's kernels use; fixed at load, with the weights packed for it.
enum class InstructionSet { avx512, avx2 };

/// One row of `Block` output channels, starting at channel `block * Block`: sums kept in
/// `Block` × `Run` vectors of `Lanes` floats while every input channel and tap is added in.
template <typename V, int Lanes, int Block, int Run, int Kernel>
CSEGMENT_INLINE void convolve_row(const float *band, const float *weights, const float *bias, bool relu,
                                  const Geometry &g, int block, int bandRow, int y, float *output) {
    const int taps = Kernel * Kernel;
    const float *blockWeights = weights + size_t(block) * g.inputChannels * taps * Block;
    for (int x0 = 0; x0 < g.width; x0 += Run * Lanes) {
        V sums[Block][Run];
        CSEGMENT_UNROLL for (int j = 0; j < Block; j++) {
            V start = (bias ? bias[block * Block + j] : 0.0f) - (V){};
            CSEGMENT_UNROLL for (int v = 0; v < Run; v++) sums[j][v] = start;
        }
        const float *w = blockWeights;
        for (int channel = 0; channel < g.inputChannels; channel++) {
            const float *origin = band + size_t(channel) * g.bandPlane + size_t(bandRow) * g.paddedStride + x0;
            for (int ky = 0; ky < Kernel; ky++) {
                for (int kx = 0; kx < Kernel; kx++, w += Block) {
                    const float *tap = origin + size_t(ky) * g.dilation * g.paddedStride + kx * g.dilation;
                    V input[Run];
                    CSEGMENT_UNROLL for (int v = 0; v < Run; v++)
                        __builtin_memcpy(&input[v], tap + v * Lanes, sizeof(V));
                    CSEGMENT_UNROLL for (int j = 0; j < Block; j++) {
                        V weight = w[j] - (V){};
                        CSEGMENT_UNROLL for (int v = 0; v < Run; v++) sums[j][v] += weight * input[v];
                    }
                }
            }
        }
        CSEGMENT_UNROLL for (int j = 0; j < Block; j++) {
            float *target = output + size_t(block * Block + j) * g.height * g.width + size_t(y) * g.width + x0;
            CSEGMENT_UNROLL for (int v = 0; v < Run; v++) {
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

/// What every band of a layer shares.
struct Work {
    const float *weights, *bias;
    bool relu;
    Geometry geometry;
    int block, run;
    float *output;
};

/// Every output channel of rows `top` to `top + rows` from their band of the input: the band
/// (about a megabyte) stays in the core's cache while each block of channels sweeps it.
template <typename V, int Lanes, int Block, int Run, int Kernel>
CSEGMENT_INLINE void run_band(const Work &work, const float *band, int top, int rows) {
    int blocks = work.geometry.outputChannels / Block;
    for (int block = 0; block < blocks; block++)
        for (int row = 0; row < rows; row++)
            convolve_row<V, Lanes, Block, Run, Kernel>(band, work.weights, work.bias, work.relu, work.geometry, block,
                                                       row, top + row, work.output);
}

template <typename V, int Lanes, int Kernel>
CSEGMENT_INLINE void dispatch_block(const Work &work, const float *band, int top, int rows) {
    // A block of one channel (a side output) has room in the registers for a longer run.
    switch (work.block * 10 + work.run) {
    case 83: run_band<V, Lanes, 8, 3, Kernel>(work, band, top, rows); break;
    case 82: run_band<V, Lanes, 8, 2, Kernel>(work, band, top, rows); break;
    case 43: run_band<V, Lanes, 4, 3, Kernel>(work, band, top, rows); break;
    case 42: run_band<V, Lanes, 4, 2, Kernel>(work, band, top, rows); break;
    case 23: run_band<V, Lanes, 2, 3, Kernel>(work, band, top, rows); break;
    case 22: run_band<V, Lanes, 2, 2, Kernel>(work, band, top, rows); break;
    default: run_band<V, Lanes, 1, longestRun, Kernel>(work, band, top, rows); break;
    }
}

// Winograd's F(4 × 4, 3 × 3): each 4 × 4 block of a 3 × 3 convolution's output (a tile) from
// the 6 × 6 block of input around it, in 36 products an input and output channel where the
// direct sums take 144 (F(2 × 2, 3 × 3), 16 products for a 2 × 2 tile, had taken the model
// about a fifth longer). The input's tiles are transformed (Bᵀ d B, additions and small
// multiples), multiplied component by component with weights transformed once at load
// (G g Gᵀ) and summed over the input channels, and the 36 sums turned back into the 4 × 4
// outputs (Aᵀ m A); the matrices are Lavin and Gray's (interpolation points 0, ±1, ±2). Their
// larger coefficients leave the sums about twenty times the direct sums' rounding, about 1e-5
// of a sum's size: some 5e-4 on a sum of 1,152 products of numbers below one (2.6e-3 on 9,216,
// a layer of 1,024 channels, which U²-Net-p has none of), and U²-Net-p's map within 1e-4 of
// OpenCV's.
// Vectors run along a row of tiles, as the direct kernels' run along a row of pixels: each
// transformed input vector loaded serves a block of output channels, each weight broadcast a
// run of them. A task is a row of tiles, or part of one: its transformed input (36 components
// of every input channel) stays in the core's cache while every block of output channels
// sweeps it.

/// The most vectors of tiles a task transforms (3 × 16 tiles: 432 KB of transformed input for
/// 64 input channels, which a core's cache holds).
constexpr int winogradChunkVectors = 3;

/// What every task of a Winograd layer shares.
struct WinogradWork {
    const float *weights, *bias, *input;
    bool relu;
    int inputChannels, outputChannels, height, width, block;
    float *output;
};

/// Every other float of `low` followed by `high`, from the first (even) or second (odd).
template <typename V, int Lanes> CSEGMENT_INLINE void split(const V &low, const V &high, V &even, V &odd) {
    if constexpr (Lanes == 16) {
        even = __builtin_shufflevector(low, high, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        odd = __builtin_shufflevector(low, high, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    } else {
        even = __builtin_shufflevector(low, high, 0, 2, 4, 6, 8, 10, 12, 14);
        odd = __builtin_shufflevector(low, high, 1, 3, 5, 7, 9, 11, 13, 15);
    }
}

/// Every other float of the 2 × `Lanes` floats at `source`, from the first (even) or second (odd).
template <typename V, int Lanes> CSEGMENT_INLINE void deinterleave(const float *source, V &even, V &odd) {
    V low, high;
    __builtin_memcpy(&low, source, sizeof(V));
    __builtin_memcpy(&high, source + Lanes, sizeof(V));
    split<V, Lanes>(low, high, even, odd);
}

/// The floats of `even` and `odd` alternately, as two vectors.
template <typename V, int Lanes> CSEGMENT_INLINE void zip(const V &even, const V &odd, V &low, V &high) {
    if constexpr (Lanes == 16) {
        low = __builtin_shufflevector(even, odd, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
        high = __builtin_shufflevector(even, odd, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    } else {
        low = __builtin_shufflevector(even, odd, 0, 8, 1, 9, 2, 10, 3, 11);
        high = __builtin_shufflevector(even, odd, 4, 12, 5, 13, 6, 14, 7, 15);
    }
}

/// The `Count` vectors' floats in order at `target`, only `count` of them where the row ends
/// sooner. A row's last vector of tiles often ends on a whole vector (a 160-pixel row in
/// 64-pixel vectors of 4 × 4 tiles), so whole vectors are stored as such and only what is left
/// is copied float by float.
template <typename V, int Lanes, int Count>
CSEGMENT_INLINE void store_vectors(const V (&vectors)[Count], float *target, int count) {
    CSEGMENT_UNROLL for (int i = 0; i < Count; i++) {
        if (count >= (i + 1) * Lanes) {
            __builtin_memcpy(target + i * Lanes, &vectors[i], sizeof(V));
            continue;
        }
        int rest = count - i * Lanes;
        if (rest > 0) {
            float values[Lanes];
            __builtin_memcpy(values, &vectors[i], sizeof(V));
            std::memcpy(target + i * Lanes, values, sizeof(float) * rest);
        }
        return;
    }
}

/// The four vectors of every fourth float of the 4 × `Lanes` floats at `source`, from the first
/// to the fourth.
template <typename V, int Lanes>
CSEGMENT_INLINE void deinterleave4(const float *source, V &first, V &second, V &third, V &fourth) {
    V evens, odds, laterEvens, laterOdds;
    deinterleave<V, Lanes>(source, evens, odds);
    deinterleave<V, Lanes>(source + 2 * Lanes, laterEvens, laterOdds);
    split<V, Lanes>(evens, laterEvens, first, third);
    split<V, Lanes>(odds, laterOdds, second, fourth);
}

/// Columns 0 and 1 of each lane's next tile, from its own columns 0 and 1 and the floats just
/// past the vector (`after`'s first two): each lane moved down by one.
template <typename V, int Lanes>
CSEGMENT_INLINE void next_tile(const V &first, const V &second, const V &after, V &nextFirst, V &nextSecond) {
    if constexpr (Lanes == 16) {
        nextFirst = __builtin_shufflevector(first, after, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
        nextSecond = __builtin_shufflevector(second, after, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17);
    } else {
        nextFirst = __builtin_shufflevector(first, after, 1, 2, 3, 4, 5, 6, 7, 8);
        nextSecond = __builtin_shufflevector(second, after, 1, 2, 3, 4, 5, 6, 7, 9);
    }
}

/// The floats of the four vectors in turn, the first 4 × `Lanes` at `target` (only `count` of
/// them where the row ends sooner).
template <typename V, int Lanes>
CSEGMENT_INLINE void interleave4(const V &first, const V &second, const V &third, const V &fourth, float *target,
                                 int count) {
    V lowOuter, highOuter, lowInner, highInner;
    zip<V, Lanes>(first, third, lowOuter, highOuter);
    zip<V, Lanes>(second, fourth, lowInner, highInner);
    V out[4];
    zip<V, Lanes>(lowOuter, lowInner, out[0], out[1]);
    zip<V, Lanes>(highOuter, highInner, out[2], out[3]);
    store_vectors<V, Lanes, 4>(out, target, count);
}

/// Bᵀ applied to six vectors of input (a column or a row of 6 × 6 tiles).
template <typename V> CSEGMENT_INLINE void input_transform6(const V (&d)[6], V (&t)[6]) {
    const V four = 4.0f - (V){}, five = 5.0f - (V){}, two = 2.0f - (V){};
    t[0] = four * d[0] - five * d[2] + d[4];
    t[1] = d[3] + d[4] - four * (d[1] + d[2]);
    t[2] = four * (d[1] - d[2]) + d[4] - d[3];
    t[3] = two * (d[3] - d[1]) + d[4] - d[2];
    t[4] = two * (d[1] - d[3]) + d[4] - d[2];
    t[5] = four * d[1] - five * d[3] + d[5];
}

/// Aᵀ applied to six vectors of products: four vectors of outputs.
template <typename V> CSEGMENT_INLINE void output_transform6(const V (&m)[6], V (&o)[4]) {
    const V two = 2.0f - (V){}, four = 4.0f - (V){}, eight = 8.0f - (V){};
    V sum12 = m[1] + m[2], difference12 = m[1] - m[2], sum34 = m[3] + m[4], difference34 = m[3] - m[4];
    o[0] = m[0] + sum12 + sum34;
    o[1] = difference12 + two * difference34;
    o[2] = sum12 + four * sum34;
    o[3] = difference12 + eight * difference34 + m[5];
}

/// The 36 transformed components of `vectors` vectors of tiles of every input channel, for
/// tiles from `firstTile` of tile row `tileRow`: component k of channel c at
/// `transformed + (k * inputChannels + c) * stride`. `row` is scratch for six padded input rows.
template <typename V, int Lanes>
CSEGMENT_INLINE void transform_input(const WinogradWork &work, int tileRow, int firstTile, int vectors, int stride,
                                     float *row, float *transformed) {
    // A vector of tiles reads 4 × `Lanes` floats and two more, taken from the vector after.
    const int span = 4 * vectors * Lanes + Lanes;
    const size_t component = size_t(work.inputChannels) * stride;
    for (int channel = 0; channel < work.inputChannels; channel++) {
        const float *plane = work.input + size_t(channel) * work.height * work.width;
        // Rows 4 × tileRow - 1 to + 4, columns from 4 × firstTile - 1, zero past the image.
        for (int r = 0; r < 6; r++) {
            int y = 4 * tileRow - 1 + r;
            int left = 4 * firstTile - 1;
            float *target = row + r * span;
            if (y < 0 || y >= work.height) {
                std::fill(target, target + span, 0.0f);
                continue;
            }
            const float *source = plane + size_t(y) * work.width;
            int from = std::max(0, -left), to = std::min(span, work.width - left);
            std::fill(target, target + from, 0.0f);
            if (to > from) std::memcpy(target + from, source + left + from, sizeof(float) * (to - from));
            std::fill(target + std::max(from, to), target + span, 0.0f);
        }
        for (int v = 0; v < vectors; v++) {
            V across[6][6];
            for (int r = 0; r < 6; r++) {
                const float *at = row + r * span + 4 * v * Lanes;
                V d[6], after;
                deinterleave4<V, Lanes>(at, d[0], d[1], d[2], d[3]);
                // Columns 4 and 5 of each tile are columns 0 and 1 of the next.
                __builtin_memcpy(&after, at + 4 * Lanes, sizeof(V));
                next_tile<V, Lanes>(d[0], d[1], after, d[4], d[5]);
                input_transform6<V>(d, across[r]);
            }
            float *base = transformed + size_t(channel) * stride + v * Lanes;
            CSEGMENT_UNROLL for (int j = 0; j < 6; j++) {
                V column[6] = {across[0][j], across[1][j], across[2][j], across[3][j], across[4][j], across[5][j]};
                V down[6];
                input_transform6<V>(column, down);
                CSEGMENT_UNROLL for (int i = 0; i < 6; i++)
                    __builtin_memcpy(base + (6 * i + j) * component, &down[i], sizeof(V));
            }
        }
    }
}

/// A block of output channels over `Run` vectors of tiles, from vector `first` of the task's
/// transformed input: the 36 components summed over every input channel, then turned back into
/// four rows of outputs.
template <typename V, int Lanes, int Block, int Run>
CSEGMENT_INLINE void winograd_block(const WinogradWork &work, const float *transformed, int stride, int block,
                                    int tileRow, int firstTile, int first, V *products) {
    const size_t component = size_t(work.inputChannels) * stride;
    const float *blockWeights = work.weights + size_t(block) * 36 * work.inputChannels * Block;
    for (int k = 0; k < 36; k++) {
        V sums[Block][Run];
        CSEGMENT_UNROLL for (int j = 0; j < Block; j++) CSEGMENT_UNROLL for (int v = 0; v < Run; v++)
            sums[j][v] = (V){};
        const float *w = blockWeights + size_t(k) * work.inputChannels * Block;
        const float *in = transformed + k * component + first * Lanes;
        for (int channel = 0; channel < work.inputChannels; channel++, w += Block, in += stride) {
            V input[Run];
            CSEGMENT_UNROLL for (int v = 0; v < Run; v++) __builtin_memcpy(&input[v], in + v * Lanes, sizeof(V));
            CSEGMENT_UNROLL for (int j = 0; j < Block; j++) {
                V weight = w[j] - (V){};
                CSEGMENT_UNROLL for (int v = 0; v < Run; v++) sums[j][v] += weight * input[v];
            }
        }
        CSEGMENT_UNROLL for (int j = 0; j < Block; j++) CSEGMENT_UNROLL for (int v = 0; v < Run; v++)
            products[(j * Run + v) * 36 + k] = sums[j][v];
    }
    for (int j = 0; j < Block; j++) {
        int channel = block * Block + j;
        float *plane = work.output + size_t(channel) * work.height * work.width;
        V bias = (work.bias ? work.bias[channel] : 0.0f) - (V){};
        for (int v = 0; v < Run; v++) {
            int x = 4 * (firstTile + (first + v) * Lanes);
            if (x >= work.width) break;
            const V *m = products + (j * Run + v) * 36;
            V across[6][4];
            CSEGMENT_UNROLL for (int i = 0; i < 6; i++) {
                V row[6] = {m[6 * i], m[6 * i + 1], m[6 * i + 2], m[6 * i + 3], m[6 * i + 4], m[6 * i + 5]};
                output_transform6<V>(row, across[i]);
            }
            V out[4][4];
            CSEGMENT_UNROLL for (int b = 0; b < 4; b++) {
                V column[6] = {across[0][b], across[1][b], across[2][b], across[3][b], across[4][b], across[5][b]};
                V down[4];
                output_transform6<V>(column, down);
                CSEGMENT_UNROLL for (int a = 0; a < 4; a++) out[a][b] = down[a] + bias;
            }
            CSEGMENT_UNROLL for (int a = 0; a < 4; a++) {
                int y = 4 * tileRow + a;
                if (y >= work.height) break;
                if (work.relu)
                    CSEGMENT_UNROLL for (int b = 0; b < 4; b++) out[a][b] = out[a][b] > 0 ? out[a][b] : 0;
                interleave4<V, Lanes>(out[a][0], out[a][1], out[a][2], out[a][3], plane + size_t(y) * work.width + x,
                                      work.width - x);
            }
        }
    }
}

/// One task: `vectors` vectors of tiles from `firstTile` in tile row `tileRow`, every output channel.
template <typename V, int Lanes, int Block>
CSEGMENT_INLINE void winograd_task(const WinogradWork &work, int tileRow, int firstTile, int vectors, float *row,
                                   float *transformed, V *products) {
    const int stride = winogradChunkVectors * Lanes;
    transform_input<V, Lanes>(work, tileRow, firstTile, vectors, stride, row, transformed);
    constexpr int longest = Block >= 8 ? 3 : 2;
    for (int block = 0; block < work.outputChannels / Block; block++) {
        int first = 0;
        for (; first + longest <= vectors; first += longest)
            winograd_block<V, Lanes, Block, longest>(work, transformed, stride, block, tileRow, firstTile, first,
                                                     products);
        if constexpr (longest > 2)
            for (; first + 2 <= vectors; first += 2)
                winograd_block<V, Lanes, Block, 2>(work, transformed, stride, block, tileRow, firstTile, first,
                                                   products);
        for (; first < vectors; first++)
            winograd_block<V, Lanes, Block, 1>(work, transformed, stride, block, tileRow, firstTile, first, products);
    }
}

// The two compilations of the same kernels: everything above is inlined into these.
__attribute__((target("avx512f"))) void run_avx512(const Work &work, const float *band, int top, int rows) {
    if (work.geometry.kernel == 3)
        dispatch_block<Vector16, 16, 3>(work, band, top, rows);
    else
        dispatch_block<Vector16, 16, 1>(work, band, top, rows);
}

__attribute__((target("avx2,fma"))) void run_avx2(const Work &work, const float *band, int top, int rows) {
    if (work.geometry.kernel == 3)
        dispatch_block<Vector8, 8, 3>(work, band, top, rows);
    else
        dispatch_block<Vector8, 8, 1>(work, band, top, rows);
}

__attribute__((target("avx512f"))) void winograd_avx512(const WinogradWork &work, int tileRow, int firstTile,
                                                        int vectors, float *row, float *transformed, void *products) {
    // Blocks of 8 channels, or of 4 where the count is no multiple of 8 (fewer take the direct sums).
    if (work.block == 8)
        winograd_task<Vector16, 16, 8>(work, tileRow, firstTile, vectors, row, transformed, (Vector16 *)products);
    else
        winograd_task<Vector16, 16, 4>(work, tileRow, firstTile, vectors, row, transformed, (Vector16 *)products);
}

// AVX2's layers have blocks of 4 channels at most (16 registers), and Winograd's take no fewer.
__attribute__((target("avx2,fma"))) void winograd_avx2(const WinogradWork &work, int tileRow, int firstTile,
                                                       int vectors, float *row, float *transformed, void *products) {
    winograd_task<Vector8, 8, 4>(work, tileRow, firstTile, vectors, row, transformed, (Vector8 *)products);
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
        if (params.get<int>("group", 1) != 1 || params.has("pad_mode")) return false;
        if (!params.has("kernel_size") || !params.has("stride")) return false;
        int kernel = params.blobs[0].size[2];
        if ((kernel != 1 && kernel != 3) || params.blobs[0].size[3] != kernel) return false;
        if (!same_everywhere(params.get("kernel_size"), kernel) || !same_everywhere(params.get("stride"), 1))
            return false;
        int dilation = params.has("dilation") ? params.get("dilation").get<int>(0) : 1;
        if (dilation < 1 || dilation > 64 || (params.has("dilation") && !same_everywhere(params.get("dilation"), dilation)))
            return false;
        // Same-size output: a pad of the kernel's reach on every side (none for 1 × 1).
        int pad = dilation * (kernel - 1) / 2;
        if (params.has("pad")) return same_everywhere(params.get("pad"), pad);
        return pad == 0;
    }

    OwnConvolution(const cv::dnn::LayerParams &params, InstructionSet instructions) : instructions(instructions) {
        setParamsFrom(params);
        // Not OpenCV's "Convolution": nothing in OpenCV may take this layer for its own class.
        type = "CollageConvolution";
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
        if (kernel == 3 && dilation == 1 && block >= 4 && inputChannels >= kWinogradLeastInputs &&
            inputChannels <= kWinogradMostInputs)
            winogradWeights = winograd_weights(source);
    }

    bool getMemoryShapes(const std::vector<cv::dnn::MatShape> &inputs, const int,
                         std::vector<cv::dnn::MatShape> &outputs, std::vector<cv::dnn::MatShape> &) const override {
        CV_Assert(inputs.size() == 1 && inputs[0].size() == 4 && inputs[0][1] == inputChannels);
        outputs.assign(1, cv::dnn::MatShape{inputs[0][0], outputChannels, inputs[0][2], inputs[0][3]});
        return false;
    }

    // OpenCV offers the ReLU that follows each convolution; taking it saves a pass over the
    // output. It takes it back (an empty layer) whenever it sets the network up again.
    bool setActivation(const cv::Ptr<cv::dnn::ActivationLayer> &layer) override {
        if (layer.empty()) {
            relu = false;
            return false;
        }
        cv::Ptr<cv::dnn::ReLULayer> rectifier = layer.dynamicCast<cv::dnn::ReLULayer>();
        if (relu || rectifier.empty() || rectifier->negativeSlope != 0.0f) return false;
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
        CV_Assert(input.size[2] <= 1 << 16 && input.size[3] <= 1 << 16);
        Geometry g{inputChannels, outputChannels, input.size[2], input.size[3], kernel, dilation, 0, 0};
        // Planes of one image must be packed: the kernels walk them by offset (OpenCV may hand a
        // view into a concatenation's output, which is packed within each image).
        size_t planeBytes = size_t(g.height) * g.width * sizeof(float);
        CV_Assert(input.step[1] == planeBytes && output.step[1] == planeBytes &&
                  input.step[2] == g.width * sizeof(float) && output.step[2] == g.width * sizeof(float));
        int lanes = instructions == InstructionSet::avx512 ? 16 : 8;
        if (!winogradWeights.empty() && g.width >= 2 * lanes) {
            for (int image = 0; image < input.size[0]; image++)
                forward_winograd(input.ptr<float>(image), output.ptr<float>(image), g, lanes);
            return;
        }
        int pad = dilation * (kernel - 1) / 2;
        g.paddedStride = g.width + 2 * pad;
        // Bands of about a megabyte (4 rows of a 128-channel, 320-pixel layer), and at least
        // eight of them, so both cores have work to the end. A band holds the kernel's reach
        // above and below besides, so wide rows or long reaches make it larger than that.
        size_t rowBytes = size_t(inputChannels) * g.paddedStride * sizeof(float);
        int fitting = int(std::min<size_t>(16, (size_t(1) << 20) / rowBytes)) - 2 * pad;
        g.bandRows = std::max(1, std::min({16, fitting, (g.height + 7) / 8}));
        g.bandPlane = size_t(g.bandRows + 2 * pad) * g.paddedStride;
        // A run that starts at a band's last row's last pixels reads up to a run past the band's
        // last plane; what it reads there lands only in columns past the image, never written.
        size_t bandSize = g.bandPlane * inputChannels + longestRun * 16;
        if (bandSize > (size_t(64) << 20))
            CV_Error(cv::Error::StsOutOfRange, "a convolution's input is too large for Collage's kernels");
        // A run of 3 vectors needs fewer loads a sum than 2, unless the row's last run would be
        // mostly past its end (a 160-pixel row is 10 vectors of 16: 5 runs of 2, or 4 of 3 with 2 idle).
        int vectors = (g.width + lanes - 1) / lanes;
        int run = 2;
        if (instructions == InstructionSet::avx512 && block > 1) {
            int withThree = (vectors + 2) / 3 * 3, withTwo = (vectors + 1) / 2 * 2;
            if (withThree * 10 <= withTwo * 11) run = 3;
        }
        int bands = (g.height + g.bandRows - 1) / g.bandRows;
        for (int image = 0; image < input.size[0]; image++) {
            const float *source = input.ptr<float>(image);
            Work work{packed.data(), bias.empty() ? nullptr : bias.data(), relu, g, block, run, output.ptr<float>(image)};
            cv::parallel_for_(cv::Range(0, bands), [&](const cv::Range &range) {
                // Each thread's own band, kept for the next layer.
                static thread_local std::vector<float> band;
                if (band.size() < bandSize) band.resize(bandSize);
                for (int index = range.start; index < range.end; index++) {
                    int top = index * g.bandRows, rows = std::min(g.bandRows, g.height - top);
                    fill_band(source, g, pad, top, band.data());
                    // The slack past the last plane feeds only idle lanes, but must hold numbers:
                    // a denormal there would slow every sum it joins.
                    std::fill(band.begin() + g.bandPlane * inputChannels, band.begin() + bandSize, 0.0f);
                    if (instructions == InstructionSet::avx512)
                        run_avx512(work, band.data(), top, rows);
                    else
                        run_avx2(work, band.data(), top, rows);
                }
                // A band kept for the next layer is small at the model's size; one grown for a
                // large input (up to hundreds of megabytes) is given back rather than held forever.
                if (band.capacity() > kKeptBandFloats) std::vector<float>().swap(band);
            });
        }
    }

private:
    InstructionSet instructions;
    int inputChannels = 0, outputChannels = 0, kernel = 1, dilation = 1, block = 1;
    std::vector<float> packed, bias;
    /// The weights as Winograd's kernels read them (empty for a layer they do not compute).
    std::vector<float> winogradWeights;
    bool relu = false;

    /// Fewer input channels leave the transforms a large share of the work; the most bounds the
    /// transformed input a thread keeps (36 components of each channel for 48 tiles: 7 MB).
    static constexpr int kWinogradLeastInputs = 8, kWinogradMostInputs = 1024;

    /// Each 3 × 3 kernel `g` as G g Gᵀ (6 × 6), stored by block of output channels, then
    /// component, then input channel, then output channel within the block. Computed in
    /// doubles: G's sixths and twenty-fourths are not floats.
    std::vector<float> winograd_weights(const float *source) const {
        static const double G[6][3] = {{1.0 / 4, 0, 0},
                                       {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                       {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                       {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                       {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                       {0, 0, 1}};
        std::vector<float> transformed(size_t(36) * inputChannels * outputChannels);
        for (int output = 0; output < outputChannels; output++)
            for (int input = 0; input < inputChannels; input++) {
                const float *g = source + (size_t(output) * inputChannels + input) * 9;
                double half[6][3];
                for (int i = 0; i < 6; i++)
                    for (int j = 0; j < 3; j++) half[i][j] = G[i][0] * g[j] + G[i][1] * g[3 + j] + G[i][2] * g[6 + j];
                for (int i = 0; i < 6; i++)
                    for (int j = 0; j < 6; j++) {
                        double value = half[i][0] * G[j][0] + half[i][1] * G[j][1] + half[i][2] * G[j][2];
                        transformed[((size_t(output / block) * 36 + 6 * i + j) * inputChannels + input) * block +
                                    output % block] = float(value);
                    }
            }
        return transformed;
    }

    /// One image's convolution by Winograd's kernels, a task a row of tiles or part of one.
    void forward_winograd(const float *source, float *target, const Geometry &g, int lanes) {
        WinogradWork work{winogradWeights.data(), bias.empty() ? nullptr : bias.data(), source, relu,
                          inputChannels, outputChannels, g.height, g.width, block, target};
        int tileRows = (g.height + 3) / 4, tilesAcross = (g.width + 3) / 4;
        int vectorsAcross = (tilesAcross + lanes - 1) / lanes;
        int chunks = (vectorsAcross + winogradChunkVectors - 1) / winogradChunkVectors;
        int chunkVectors = (vectorsAcross + chunks - 1) / chunks;
        size_t span = size_t(4) * winogradChunkVectors * lanes + lanes;
        size_t transformedFloats = size_t(36) * inputChannels * winogradChunkVectors * lanes;
        cv::parallel_for_(cv::Range(0, tileRows * chunks), [&](const cv::Range &range) {
            static thread_local std::vector<float> rows, transformed;
            // A block of 8 channels over a run of 3 vectors of 16 floats, 36 components each,
            // stored as whole vectors.
            alignas(64) static thread_local float products[8 * 3 * 36 * 16];
            if (rows.size() < 6 * span) rows.resize(6 * span);
            if (transformed.size() < transformedFloats) transformed.resize(transformedFloats);
            for (int task = range.start; task < range.end; task++) {
                int tileRow = task / chunks, chunk = task % chunks;
                int firstVector = chunk * chunkVectors;
                int vectors = std::min(chunkVectors, vectorsAcross - firstVector);
                if (vectors <= 0) continue;
                if (instructions == InstructionSet::avx512)
                    winograd_avx512(work, tileRow, firstVector * lanes, vectors, rows.data(), transformed.data(),
                                    products);
                else
                    winograd_avx2(work, tileRow, firstVector * lanes, vectors, rows.data(), transformed.data(),
                                  products);
            }
        });
    }

    /// Rows `top - pad` to `top + bandRows + pad` of every input channel, with `pad` zeros
    /// left and right, and rows past the image's top or bottom all zeros.
    static void fill_band(const float *source, const Geometry &g, int pad, int top, float *band) {
        for (int channel = 0; channel < g.inputChannels; channel++) {
            float *plane = band + channel * g.bandPlane;
            for (int row = 0; row < g.bandRows + 2 * pad; row++) {
                float *target = plane + size_t(row) * g.paddedStride;
                int y = top - pad + row;
                if (y < 0 || y >= g.height) {
                    std::fill(target, target + g.paddedStride, 0.0f);
                    continue;
                }
                std::fill(target, target + pad, 0.0f);
                std::memcpy(target + pad, source + (size_t(channel) * g.height + y) * g.width, sizeof(float) * g.width);
                std::fill(target + pad + g.width, target + g.paddedStride, 0.0f);
            }
        }
    }
};

// OpenCV's layer factory is process-wide, so Collage's layer is registered once for good, and
// makes a layer of its own only on a thread that is reading a network for Collage's kernels
// (layers are made on the thread that asks for them, and `with_kernels` asks for every one).
thread_local bool ownKernelsWanted = false;
thread_local InstructionSet wantedInstructions = InstructionSet::avx2;

cv::Ptr<cv::dnn::Layer> make_convolution(cv::dnn::LayerParams &params) {
    if (ownKernelsWanted && OwnConvolution::handles(params))
        return cv::makePtr<OwnConvolution>(params, wantedInstructions);
    return cv::dnn::ConvolutionLayer::create(params);
}

// Once a process (a template's static would be one per network builder).
void register_convolution() {
    static std::once_flag registered;
    std::call_once(registered, [] { cv::dnn::LayerFactory::registerLayer("Convolution", make_convolution); });
}

}  // namespace
#endif

/// A network made by `build`, its convolutions made by `kernels`, and whose kernels it got.
template <typename Build> std::pair<cv::dnn::Net, ConvolutionKernels> with_kernels(ConvolutionKernels kernels, Build build) {
#ifdef CSEGMENT_OWN_KERNELS
    bool avx512 = __builtin_cpu_supports("avx512f") && kernels == ConvolutionKernels::own;
    bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (kernels != ConvolutionKernels::opencv && (avx512 || avx2)) {
        register_convolution();
        ownKernelsWanted = true;
        wantedInstructions = avx512 ? InstructionSet::avx512 : InstructionSet::avx2;
        struct Reset {
            ~Reset() { ownKernelsWanted = false; }
        } reset;
        cv::dnn::Net net = build();
        bool own = false;
        for (const std::string &name : net.getLayerNames())
            own = net.getLayer(net.getLayerId(name))->type == "CollageConvolution" || own;
        if (own) return {net, avx512 ? ConvolutionKernels::own : ConvolutionKernels::ownWithoutAVX512};
        return {net, ConvolutionKernels::opencv};
    }
#endif
    (void)kernels;
    return {build(), ConvolutionKernels::opencv};
}

cv::dnn::Net read_network(const char *path, ConvolutionKernels kernels, ConvolutionKernels *used) {
    auto [net, got] = with_kernels(kernels, [&] { return cv::dnn::readNetFromONNX(path); });
    *used = got;
    return net;
}

double largest_difference_from_opencv(int inputChannels, int outputChannels, int kernel, int dilation, int height,
                                      int width, bool relu, ConvolutionKernels kernels, ConvolutionKernels *used) {
    cv::RNG random(uint64_t(inputChannels) * 7919 + outputChannels * 31 + kernel * 7 + dilation + height * 101 + width);
    int weightShape[] = {outputChannels, inputChannels, kernel, kernel}, inputShape[] = {1, inputChannels, height, width};
    cv::Mat weights(4, weightShape, CV_32F), bias(1, outputChannels, CV_32F), input(4, inputShape, CV_32F);
    random.fill(weights, cv::RNG::UNIFORM, -1, 1);
    random.fill(bias, cv::RNG::UNIFORM, -1, 1);
    random.fill(input, cv::RNG::UNIFORM, -1, 1);
    // The parameters as OpenCV's ONNX importer gives them.
    int pad = dilation * (kernel - 1) / 2;
    int pair[] = {kernel, kernel}, ones[] = {1, 1}, dilations[] = {dilation, dilation}, pads[] = {pad, pad, pad, pad};
    auto build = [&] {
        cv::dnn::Net net;
        cv::dnn::LayerParams params;
        params.set("kernel_size", cv::dnn::DictValue::arrayInt(pair, 2));
        params.set("stride", cv::dnn::DictValue::arrayInt(ones, 2));
        params.set("dilation", cv::dnn::DictValue::arrayInt(dilations, 2));
        params.set("pad", cv::dnn::DictValue::arrayInt(pads, 4));
        params.set("num_output", outputChannels);
        params.set("bias_term", true);
        params.set("group", 1);
        params.blobs = {weights, bias};
        net.addLayerToPrev("convolution", "Convolution", params);
        if (relu) {
            cv::dnn::LayerParams rectifier;
            net.addLayerToPrev("relu", "ReLU", rectifier);
        }
        return net;
    };
    cv::Mat results[2];
    auto reference = with_kernels(ConvolutionKernels::opencv, build), checked = with_kernels(kernels, build);
    *used = checked.second;
    cv::dnn::Net nets[2] = {reference.first, checked.first};
    for (int i = 0; i < 2; i++) {
        nets[i].setInput(input);
        results[i] = nets[i].forward().clone();
    }
    return cv::norm(results[0], results[1], cv::NORM_INF);
}

}  // namespace csegment
