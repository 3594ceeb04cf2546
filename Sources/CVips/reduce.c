// Shrinking 8-bit pixels held in memory with a Lanczos-3 kernel, for a photo's crop decoded
// whole (see jpeg_region.c).
//
// libvips 8.14 reduces each row with a scalar loop per output sample; on the 1,800 px grid its
// resize was a sixth of the render's CPU. Here the vertical pass makes each output row from a
// few whole input rows, sixteen samples at a time, and the horizontal pass splits a row into
// its bands, so each output sample is eight neighbouring samples times eight weights at a time
// (SSE2, which every x86-64 has; elsewhere the same integer arithmetic in plain C). A 1,500 px
// square crop shrinks to 895 px in half the time on one core.
// The kernel and the sampling grid are libvips': output pixel i is centred on input position
// (i + 0.5) * shrink - 0.5, the kernel is stretched by the shrink, its weights sum to one, and
// the edge pixels repeat past the sides. A sample is within a level of an exact Lanczos-3 that
// rounds between its passes; libvips centres its kernel to the nearest 64th of a pixel, rounds
// differently and cuts its kernel short at large shrinks, so its samples may be a few levels
// apart (most at hard edges, and at shrinks near 4).
#include "cvips.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// Weights are fixed-point, in 1/16,384ths: 8-bit samples times them, summed over a few dozen
// taps, stay well inside 32 bits, and SSE2 multiplies two taps' pairs of 16-bit values at once.
#define WEIGHT_BITS 14

// The input rows (or columns) under each output one and their weights, the taps in pairs (an odd
// count ends with a tap of weight 0).
typedef struct {
    int taps;
    // The first input row or column under each output one (the vertical pass reads the rows
    // through `index`, clamped to the image; the horizontal one reads a padded copy from `first`).
    int *first;
    int *index;
    int16_t *weight;
} Taps;

static double sinc(double x) {
    if (fabs(x) < 1e-9) return 1.0;
    return sin(M_PI * x) / (M_PI * x);
}

static double lanczos3(double x) { return fabs(x) < 3.0 ? sinc(x) * sinc(x / 3.0) : 0.0; }

static int taps_make(Taps *taps, int in, int out, int multiple) {
    double shrink = (double)in / (double)out;
    double support = 3.0 * shrink;
    int count = (int)ceil(2.0 * support) + 1;
    taps->taps = (count + multiple - 1) / multiple * multiple;
    taps->first = malloc(sizeof(int) * (size_t)out);
    taps->index = malloc(sizeof(int) * (size_t)taps->taps * (size_t)out);
    taps->weight = malloc(sizeof(int16_t) * (size_t)taps->taps * (size_t)out);
    double *weights = malloc(sizeof(double) * (size_t)taps->taps);
    if (!taps->first || !taps->index || !taps->weight || !weights) {
        free(weights);
        return -1;
    }
    for (int o = 0; o < out; o++) {
        double centre = (o + 0.5) * shrink - 0.5;
        int first = (int)floor(centre - support) + 1;
        taps->first[o] = first;
        double sum = 0;
        for (int k = 0; k < taps->taps; k++) {
            weights[k] = k < count ? lanczos3((first + k - centre) / shrink) : 0.0;
            sum += weights[k];
        }
        // Rounded to fixed point, the weights are made to sum to exactly one again (the
        // largest takes up the difference), so a flat colour stays exactly that colour.
        int total = 0, largest = 0;
        int16_t *weight = taps->weight + (size_t)o * taps->taps;
        for (int k = 0; k < taps->taps; k++) {
            int at = first + k;
            taps->index[(size_t)o * taps->taps + k] = at < 0 ? 0 : at >= in ? in - 1 : at;
            weight[k] = (int16_t)lrint(weights[k] / sum * (1 << WEIGHT_BITS));
            total += weight[k];
            if (weight[k] > weight[largest]) largest = k;
        }
        weight[largest] = (int16_t)(weight[largest] + (1 << WEIGHT_BITS) - total);
    }
    free(weights);
    return 0;
}

static void taps_free(Taps *taps) {
    free(taps->first);
    free(taps->index);
    free(taps->weight);
}

static inline unsigned char settle(int32_t sum) {
    sum = (sum + (1 << (WEIGHT_BITS - 1))) >> WEIGHT_BITS;
    return (unsigned char)(sum < 0 ? 0 : sum > 255 ? 255 : sum);
}

// Output row o (`samples` bytes) = the weighted sum of the input rows its taps give it. The
// vector and the scalar code do the same integer arithmetic, so every sample comes out alike.
static void reduce_rows(const unsigned char *in, size_t in_stride, unsigned char *out, size_t out_stride,
                        int first_row, int out_rows, size_t samples, const Taps *taps) {
    int pairs = taps->taps / 2;
    for (int o = first_row; o < first_row + out_rows; o++) {
        const int *index = taps->index + (size_t)o * taps->taps;
        const int16_t *weight = taps->weight + (size_t)o * taps->taps;
        unsigned char *target = out + (size_t)(o - first_row) * out_stride;
        size_t i = 0;
#if defined(__SSE2__)
        const __m128i zero = _mm_setzero_si128(), half = _mm_set1_epi32(1 << (WEIGHT_BITS - 1));
        for (; i + 16 <= samples; i += 16) {
            __m128i sum0 = half, sum1 = half, sum2 = half, sum3 = half;
            for (int p = 0; p < pairs; p++) {
                const unsigned char *a = in + (size_t)index[2 * p] * in_stride + i;
                const unsigned char *b = in + (size_t)index[2 * p + 1] * in_stride + i;
                __m128i both = _mm_set1_epi32((int32_t)(((uint32_t)(uint16_t)weight[2 * p + 1] << 16) |
                                                        (uint16_t)weight[2 * p]));
                __m128i va = _mm_loadu_si128((const __m128i *)a), vb = _mm_loadu_si128((const __m128i *)b);
                __m128i low = _mm_unpacklo_epi8(va, vb), high = _mm_unpackhi_epi8(va, vb);
                sum0 = _mm_add_epi32(sum0, _mm_madd_epi16(_mm_unpacklo_epi8(low, zero), both));
                sum1 = _mm_add_epi32(sum1, _mm_madd_epi16(_mm_unpackhi_epi8(low, zero), both));
                sum2 = _mm_add_epi32(sum2, _mm_madd_epi16(_mm_unpacklo_epi8(high, zero), both));
                sum3 = _mm_add_epi32(sum3, _mm_madd_epi16(_mm_unpackhi_epi8(high, zero), both));
            }
            sum0 = _mm_srai_epi32(sum0, WEIGHT_BITS);
            sum1 = _mm_srai_epi32(sum1, WEIGHT_BITS);
            sum2 = _mm_srai_epi32(sum2, WEIGHT_BITS);
            sum3 = _mm_srai_epi32(sum3, WEIGHT_BITS);
            __m128i packed = _mm_packus_epi16(_mm_packs_epi32(sum0, sum1), _mm_packs_epi32(sum2, sum3));
            _mm_storeu_si128((__m128i *)(target + i), packed);
        }
#endif
        for (; i < samples; i++) {
            int32_t sum = 0;
            for (int k = 0; k < taps->taps; k++) sum += weight[k] * in[(size_t)index[k] * in_stride + i];
            target[i] = settle(sum);
        }
    }
}

#if defined(__SSE2__)
// Four partial sums of `count` samples times their weights (`count` a multiple of 8).
static inline __attribute__((always_inline)) __m128i products(const int16_t *from, const int16_t *weight,
                                                               int count) {
    __m128i sum = _mm_setzero_si128();
    for (int k = 0; k < count; k += 8)
        sum = _mm_add_epi32(sum, _mm_madd_epi16(_mm_loadu_si128((const __m128i *)(from + k)),
                                                _mm_loadu_si128((const __m128i *)(weight + k))));
    return sum;
}
#endif

// Each row of `rows` (`width` pixels of `bands` samples) reduced to `out_width` pixels. A row's
// bands are first copied apart into 16-bit rows padded with its edge pixels, so each output
// sample is the product of eight contiguous samples and eight weights at a time.
static void reduce_columns(const unsigned char *in, size_t in_stride, int width, int rows, int bands,
                           unsigned char *out, size_t out_stride, int out_width, const Taps *taps, int16_t *planes) {
    int pad = taps->taps + 8;
    size_t padded = (size_t)width + 2 * (size_t)pad;
    for (int r = 0; r < rows; r++) {
        const unsigned char *row = in + (size_t)r * in_stride;
        for (int b = 0; b < bands; b++) {
            int16_t *plane = planes + (size_t)b * padded;
            for (int i = 0; i < pad; i++) plane[i] = row[b];
            for (int i = 0; i < width; i++) plane[pad + i] = row[(size_t)i * bands + b];
            for (int i = 0; i < pad; i++) plane[pad + width + i] = row[(size_t)(width - 1) * bands + b];
        }
        unsigned char *target = out + (size_t)r * out_stride;
        size_t samples = (size_t)out_width * (size_t)bands, j = 0;
        int x = 0, b = 0;  // the pixel and band of output sample j
#if defined(__SSE2__)
        // Four output samples at a time: their four sums of products are added across in one go.
        const __m128i half = _mm_set1_epi32(1 << (WEIGHT_BITS - 1));
        for (; j + 4 <= samples; j += 4) {
            __m128i sums[4];
            for (int q = 0; q < 4; q++) {
                const int16_t *weight = taps->weight + (size_t)x * taps->taps;
                const int16_t *from = planes + (size_t)b * padded + pad + taps->first[x];
                // Spelled out for the usual counts (shrinks up to 2.5), so the loop unrolls.
                switch (taps->taps) {
                case 8: sums[q] = products(from, weight, 8); break;
                case 16: sums[q] = products(from, weight, 16); break;
                default: sums[q] = products(from, weight, taps->taps); break;
                }
                if (++b == bands) {
                    b = 0;
                    x++;
                }
            }
            __m128i low = _mm_add_epi32(_mm_unpacklo_epi32(sums[0], sums[1]), _mm_unpackhi_epi32(sums[0], sums[1]));
            __m128i high = _mm_add_epi32(_mm_unpacklo_epi32(sums[2], sums[3]), _mm_unpackhi_epi32(sums[2], sums[3]));
            __m128i four = _mm_add_epi32(_mm_unpacklo_epi64(low, high), _mm_unpackhi_epi64(low, high));
            four = _mm_srai_epi32(_mm_add_epi32(four, half), WEIGHT_BITS);
            four = _mm_packs_epi32(four, four);
            int32_t bytes = _mm_cvtsi128_si32(_mm_packus_epi16(four, four));
            memcpy(target + j, &bytes, 4);
        }
#endif
        for (; j < samples; j++) {
            const int16_t *weight = taps->weight + (size_t)x * taps->taps;
            const int16_t *from = planes + (size_t)b * padded + pad + taps->first[x];
            int32_t sum = 0;
            for (int k = 0; k < taps->taps; k++) sum += weight[k] * from[k];
            target[j] = settle(sum);
            if (++b == bands) {
                b = 0;
                x++;
            }
        }
    }
}

int cvips_reduce_lanczos3(const unsigned char *in, size_t in_stride, int in_width, int in_height, int bands,
                          unsigned char *out, int out_width, int out_height) {
    if (in_width < 1 || in_height < 1 || out_width < 1 || out_height < 1 || bands < 1 || bands > 4 ||
        in_stride < (size_t)in_width * (size_t)bands ||
        out_width > in_width || out_height > in_height || in_width > CVIPS_REDUCE_MAX_SHRINK * out_width ||
        in_height > CVIPS_REDUCE_MAX_SHRINK * out_height)
        return -1;
    Taps down = {0}, across = {0};
    size_t wide = (size_t)in_width * (size_t)bands;
    // Sixteen rows at a time go down then across, so the rows between the passes stay in the
    // cache (and a whole image of them is never allocated: fresh pages cost as much to fault in
    // as the arithmetic on them).
    enum { STRIP = 16 };
    unsigned char *strip = malloc(wide * STRIP);
    int status = -1;
    if (strip && !taps_make(&down, in_height, out_height, 2) && !taps_make(&across, in_width, out_width, 8)) {
        int16_t *planes = malloc(sizeof(int16_t) * ((size_t)in_width + 2 * (size_t)(across.taps + 8)) * bands);
        if (planes) {
            size_t out_stride = (size_t)out_width * (size_t)bands;
            for (int row = 0; row < out_height; row += STRIP) {
                int rows = out_height - row < STRIP ? out_height - row : STRIP;
                reduce_rows(in, in_stride, strip, wide, row, rows, wide, &down);
                reduce_columns(strip, wide, in_width, rows, bands, out + (size_t)row * out_stride, out_stride,
                               out_width, &across, planes);
            }
            free(planes);
            status = 0;
        }
    }
    taps_free(&down);
    taps_free(&across);
    free(strip);
    return status;
}
