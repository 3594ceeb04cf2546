// Matting: each edge pixel's alpha and colour from the subject's and the background's colours
// around it, so hair and fur keep their strands without the old background's colour.
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

// Where pixel (x, y) of an image `scale` times larger lies between the pixels of a smaller
// plane: its four neighbours' offsets and their weights, found once for every plane of that size
// it is read from (see sample_between, which it matches to the bit).
struct Between {
    size_t p00, p01, p10, p11;
    float fx, fy;

    Between(cv::Size plane, float scaleX, float scaleY, int x, int y) {
        float u = std::max(0.0f, (x + 0.5f) * scaleX - 0.5f), v = std::max(0.0f, (y + 0.5f) * scaleY - 0.5f);
        int x0 = std::min(int(u), plane.width - 1), y0 = std::min(int(v), plane.height - 1);
        int x1 = std::min(x0 + 1, plane.width - 1), y1 = std::min(y0 + 1, plane.height - 1);
        fx = u - x0;
        fy = v - y0;
        p00 = size_t(y0) * plane.width + x0;
        p01 = size_t(y0) * plane.width + x1;
        p10 = size_t(y1) * plane.width + x0;
        p11 = size_t(y1) * plane.width + x1;
    }

    // The value between the pixels of a continuous one-channel float plane.
    float read(const float *plane) const {
        return (plane[p00] * (1 - fx) + plane[p01] * fx) * (1 - fy) + (plane[p10] * (1 - fx) + plane[p11] * fx) * fy;
    }
};

// The weighted mean of each of `images` around each pixel (normalised convolution), all with the
// same `weight`, taken at the smallest of the scales where enough weighted pixels lie near:
// close to the subject the mean follows the nearby colours, deep in the edge band it reaches as
// far as it must. Each scale blurs a copy reduced in step with its blur (each made from the last),
// so the widest costs no more than the narrowest. Only the pixels in `needed` get a mean (the
// rest stay 0), read from the reduced copies between their pixels, and the scales stop once they
// all have one. The images' planes and the weight are blurred side by side, on every core: the
// means of a matte are most of its time, and several of them share a weight (the background's
// colour and its texture).
static std::vector<cv::Mat> local_means(const std::vector<cv::Mat> &images, const cv::Mat &weight, double unit,
                                        const cv::Mat &needed) {
    const cv::Size size = weight.size();
    // Where each weighted plane's mean goes: its image and channel.
    std::vector<std::pair<int, int>> targets;
    CV_Assert(weight.type() == CV_32F);
    for (const cv::Mat &image : images) CV_Assert(image.depth() == CV_32F && image.size() == size);
    for (size_t index = 0; index < images.size(); index++)
        for (int channel = 0; channel < images[index].channels(); channel++) targets.emplace_back(int(index), channel);
    const int valueCount = int(targets.size());
    // Each weighted plane made in one pass over its image, the planes on every core, and the
    // means' zeroed sums with them: made one after another they were a sixth of a matte's time.
    std::vector<cv::Mat> planes(valueCount + 1), means(images.size());
    cv::parallel_for_(cv::Range(0, valueCount + 1 + int(images.size())), [&](const cv::Range &range) {
        for (int k = range.start; k < range.end; k++) {
            if (k > valueCount) {
                const cv::Mat &image = images[k - valueCount - 1];
                means[k - valueCount - 1] = cv::Mat(size, CV_32FC(image.channels()), cv::Scalar::all(0));
                continue;
            }
            if (k == valueCount) {
                planes[k] = weight.clone();
                continue;
            }
            const cv::Mat &image = images[targets[k].first];
            const int channels = image.channels(), channel = targets[k].second;
            planes[k].create(size, CV_32F);
            for (int y = 0; y < size.height; y++) {
                const float *from = image.ptr<float>(y) + channel, *w = weight.ptr<float>(y);
                float *to = planes[k].ptr<float>(y);
                for (int x = 0; x < size.width; x++) to[x] = from[x * channels] * w[x];
            }
        }
    });
    // The pixels still short of weight, as indices into the working copy.
    std::vector<int> open;
    for (int y = 0; y < size.height; y++) {
        const unsigned char *n = needed.ptr<unsigned char>(y);
        for (int x = 0; x < size.width; x++)
            if (n[x]) open.push_back(y * size.width + x);
    }
    // What each pixel has gathered: its weight so far (of the 1 it needs), and each plane's sum.
    cv::Mat found(size, CV_32F, cv::Scalar(0));
    float *gathered = found.ptr<float>();
    struct Sum {
        float *at;
        int stride;
    };
    std::vector<Sum> sums;
    for (const auto &[image, channel] : targets)
        sums.push_back({means[image].ptr<float>() + channel, means[image].channels()});
    std::vector<cv::Mat> blurred(planes.size());
    // From 5 pixels per 1,000 across, doubling until every pixel needed has found enough weight
    // (or the blur spans the whole image: a side with no pixel at all keeps a mean of 0).
    double widest = std::max(size.width, size.height);
    int reduction = 1;
    for (double sigma = std::max(1.0, 5 * unit); !open.empty(); sigma *= 2) {
        // Blurs of two pixels or more at the reduced size are smooth enough to read between.
        int factor = std::max(1, int(sigma / 2));
        bool reduce = factor > reduction;
        cv::Size reduced(std::max(1, size.width / factor), std::max(1, size.height / factor));
        if (reduce) reduction = factor;
        // Three sigmas each side: wider windows only add weight from far away.
        double blur = sigma / reduction;
        int side = 2 * int(3 * blur) + 1;
        cv::parallel_for_(cv::Range(0, int(planes.size())), [&](const cv::Range &range) {
            for (int k = range.start; k < range.end; k++) {
                if (reduce) cv::resize(planes[k], planes[k], reduced, 0, 0, cv::INTER_AREA);
                cv::GaussianBlur(planes[k], blurred[k], cv::Size(side, side), blur, 0, cv::BORDER_REPLICATE);
            }
        });
        float scaleX = float(planes[0].cols) / size.width, scaleY = float(planes[0].rows) / size.height;
        std::vector<const float *> blurredValues(valueCount);
        for (int k = 0; k < valueCount; k++) blurredValues[k] = blurred[k].ptr<float>();
        const float *blurredWeights = blurred[valueCount].ptr<float>();
        cv::parallel_for_(cv::Range(0, int(open.size())), [&](const cv::Range &range) {
            for (int i = range.start; i < range.end; i++) {
                int x = open[i] % size.width, y = open[i] / size.width;
                Between between(blurred[0].size(), scaleX, scaleY, x, y);
                float w = between.read(blurredWeights);
                float &f = gathered[open[i]];
                // A twentieth of the window's weight is enough to trust its mean.
                float take = std::min(1.0f, w * 20) * (1 - f);
                float scale = take / (w + 1e-6f);
                for (int k = 0; k < valueCount; k++)
                    sums[k].at[size_t(open[i]) * sums[k].stride] += between.read(blurredValues[k]) * scale;
                f += take;
            }
        });
        open.erase(std::remove_if(open.begin(), open.end(), [&](int index) { return gathered[index] >= 0.999f; }),
                   open.end());
        if (sigma > widest) break;
    }
    cv::parallel_for_(cv::Range(0, size.height), [&](const cv::Range &rows) {
        for (cv::Mat &mean : means) {
            int channels = mean.channels();
            for (int y = rows.start; y < rows.end; y++) {
                float *m = mean.ptr<float>(y);
                const float *f = found.ptr<float>(y);
                for (int x = 0; x < size.width; x++) {
                    double inverse = 1.0 / std::max(f[x], 1e-6f);
                    for (int c = 0; c < channels; c++) m[x * channels + c] = float(m[x * channels + c] * inverse);
                }
            }
        }
    });
    return means;
}

// The weighted mean of `image` around each pixel (see local_means).
static cv::Mat local_mean(const cv::Mat &image, const cv::Mat &weight, double unit, const cv::Mat &needed) {
    return local_means({image}, weight, unit, needed)[0];
}

// Where a pixel lies between the subject's colour F and the background's B (its projection on
// the line from B to F), and how much that is worth: little when the two colours are near.
// `offLine` is the squared distance from the pixel to that line: a colour far from it is a mix
// of neither (a nose, a pupil, chrome, unlike the subject's mean), and the projection says
// nothing about it.
// With the fine texture of the background around the pixel (`spread`, see background_spread),
// the projection's say also shrinks by how much that texture alone moves it: `grain` is the
// variance of the alpha the background's own texture projects to. `confidence` is the say the
// projection has; `confidenceToLower` the smaller say it has to lower a pixel the model holds for
// subject (see blend).
struct Projection {
    float alpha, confidence, offLine, grain, confidenceToLower;
};
static inline Projection project(const float *image, const float *foreground, const float *background,
                                 const float *spread = nullptr) {
    float along = 0, apart = 0;
    for (int c = 0; c < 3; c++) {
        float d = foreground[c] - background[c];
        along += (image[c] - background[c]) * d;
        apart += d * d;
    }
    float alpha = std::min(1.0f, std::max(0.0f, along / (apart + 1e-4f)));
    float offLine = 0;
    for (int c = 0; c < 3; c++) {
        float miss = background[c] + alpha * (foreground[c] - background[c]) - image[c];
        offLine += miss * miss;
    }
    // The texture's variance along the line from B to F (per unit of that line's length).
    float textureAlong = 0;
    if (spread) {
        float d[3];
        for (int c = 0; c < 3; c++) d[c] = foreground[c] - background[c];
        float quadratic = d[0] * d[0] * spread[0] + d[1] * d[1] * spread[1] + d[2] * d[2] * spread[2] +
                          2 * (d[0] * d[1] * spread[3] + d[0] * d[2] * spread[4] + d[1] * d[2] * spread[5]);
        textureAlong = std::max(0.0f, quadratic) / (apart + 1e-4f);
    }
    // Colours 0.07 apart (0.005 squared) get half a say, and 0.14 apart (0.02) to lower the
    // model's subject; the model's alpha has the rest. Texture counts four times over: tried at
    // 0, 2 and 4, 4 tore least.
    float textured = 4 * textureAlong;
    return {alpha, apart / (apart + 0.005f + textured), offLine, textureAlong / (apart + 1e-4f),
            apart / (apart + 0.02f + textured)};
}

// A band pixel's alpha from its projection and the model's alpha (`model`; `smooth` is the
// model's map blurred), and the model's alpha as the background's texture left it (for what
// follows, which weighs the two again).
struct Blend {
    float share, model;
};
static inline Blend blend(Projection projection, float model, float smooth) {
    // Over a textured background (the alpha its texture alone projects to varies by 0.04 or more),
    // an alpha within 1.5 of that spread of zero is the texture: it fades out, and from 3 spreads
    // up stays whole, so a strand that stands out of the grain keeps its alpha. The model's own
    // edge there gives way to its blurred map made steep, for the guided filter drew the grain into
    // it too. (On bench/matting's grain scenes the haze outside the edge fell from 15 % to 1 % and
    // the edge colour error from 12.6 to 6.0; on the strands the edge colour error rose from 30.7
    // to 31.4, still under alpha matting's 31.5.)
    float spread = std::sqrt(projection.grain);
    float textured = std::min(1.0f, std::max(0.0f, (spread - 0.02f) / 0.02f));
    float floor = 1.5f * spread * textured;
    float fade = 1;
    if (floor > 0) {
        float t = std::min(1.0f, std::max(0.0f, (projection.alpha - floor) / floor));
        fade = t * t * (3 - 2 * t);
    }
    float steep = std::min(1.0f, std::max(0.0f, (smooth - 0.5f) * 4 + 0.5f));
    model += std::min(1.0f, 4 * spread * textured) * (steep - model);
    // Where the model and the line both call the pixel subject, a texture wide enough to reach it
    // is no sign of background: it takes the projection's say instead of its alpha. (The saucer's
    // rim over the grained table, its spread 0.45, came out half see-through. On the grain scenes
    // the edge colour error fell 6.0 -> 3.4, under alpha matting's 4.7; the strands' 31.45 ->
    // 31.41.)
    bool bothSubject = model >= 0.5f && projection.alpha >= 0.5f;
    if (!bothSubject) projection.alpha *= fade;
    // Below the model's alpha, a pixel 0.1 off the line (0.01 squared) halves the projection's say:
    // where the model holds a pixel for subject, a colour the two means cannot explain is no reason
    // to tear a hole. Above it the projection keeps its say, for strands the model's map blurred
    // away.
    // The line lowers what the model holds for subject only from colours further apart. Faint
    // strands of white fur on a pale floor, their colours 0.07 from the floor's, stand out of it
    // and came back at twice the say they had before, but on the subject's side of the edge that
    // say tore the rim of shaded fur. (bench/matting: edge colour on the bright floor 7.41 ->
    // 7.06, alpha matting's 4.74; the strands' 31.60 -> 31.53, alpha matting's 31.47; the
    // whiskers' 11.68 -> 11.49; bokeh 3.90 -> 3.64; tearing 2,893 -> 2,894 px. The same say on
    // the subject's side too: the strands' 31.26, but tearing 2,987.)
    float say = projection.alpha < model && model >= 0.5f ? projection.confidenceToLower : projection.confidence;
    if (projection.alpha < model) say *= 0.01f / (0.01f + projection.offLine);
    if (bothSubject) say *= fade;
    return {say * projection.alpha + (1 - say) * model, model};
}

// Whether a part is drawn out like a strand rather than round like a speck or a patch: its area
// is at most 15 % of the square on its longest side (a strand 2 cells wide and 14 long fills
// 14 % of it, a disc 79 %), and it is thin, at most 2.5 cells wide on average along its length
// (taken as its box's diagonal, so a strand lying slantwise is not counted wider). A bar of a
// bench or the edge of a shelf a gap away from a motorcycle, 3-4 px wide, was drawn out too.
static bool strand_like(const cv::Mat &statistics, int label) {
    int width = statistics.at<int>(label, cv::CC_STAT_WIDTH), height = statistics.at<int>(label, cv::CC_STAT_HEIGHT);
    int side = std::max(width, height), area = statistics.at<int>(label, cv::CC_STAT_AREA);
    bool thin = area <= 2.5 * std::hypot(double(width), double(height));
    return thin && area * 100 <= 15 * side * side;
}

// Each working cell's most (or least) opaque full-size pixel of `pixels` (RGBA), through the
// tables from full-size rows and columns to the working copy's of size `work`.
static cv::Mat cell_alpha(const cv::Mat &pixels, cv::Size work, const std::vector<int> &workRow,
                          const std::vector<int> &workColumn, bool most) {
    cv::Mat cells(work, CV_8U, cv::Scalar(most ? 0 : 255));
    for (int y = 0; y < pixels.rows; y++) {
        const unsigned char *p = pixels.ptr<unsigned char>(y);
        unsigned char *row = cells.ptr<unsigned char>(workRow[y]);
        for (int x = 0; x < pixels.cols; x++) {
            unsigned char &cell = row[workColumn[x]];
            cell = most ? std::max(cell, p[4 * x + 3]) : std::min(cell, p[4 * x + 3]);
        }
    }
    return cells;
}

// A strand somebody sees: some of it at least 60 % opaque, a dozen cells or more, drawn out
// (see strand_like).
static const int speck = 12, seen = 160;

// Which cells of `strongest` (each cell's most opaque pixel) are kept: those at least
// `threshold` opaque in a part that holds sure subject, and the parts of a strand a cell's gap
// from a kept part (a strand parted from the next by a thin gap), strand by strand. Not through
// specks: a chain of them carried pieces of whisker and grass a dozen cells from the face, to
// float beside the sticker (the mandrill kept six, the raccoon two). A round part there is a
// piece of the background (specks of the wall behind a motorcycle, of the shadow under a cup).
// What is left of a thing of the background once its wide part went (the folds of a suit, faint
// lines a fifth opaque) is drawn out too, and is not seen enough to be kept.
static cv::Mat attached_cells(const cv::Mat &strongest, const cv::Mat &subject, int threshold) {
    cv::Mat strong = strongest >= threshold;
    cv::Mat parts, statistics, centroids;
    int count = cv::connectedComponentsWithStats(strong, parts, statistics, centroids, 8, CV_32S);
    std::vector<unsigned char> attached(count, 0), peak(count, 0);
    for (int y = 0; y < parts.rows; y++) {
        const int *label = parts.ptr<int>(y);
        const unsigned char *sure = subject.ptr<unsigned char>(y), *cells = strongest.ptr<unsigned char>(y);
        for (int x = 0; x < parts.cols; x++) {
            peak[label[x]] = std::max(peak[label[x]], cells[x]);
            if (sure[x] && label[x]) attached[label[x]] = 1;
        }
    }
    std::vector<unsigned char> strand(count, 0);
    bool anyStrand = false;
    for (int label = 1; label < count; label++) {
        strand[label] = !attached[label] && statistics.at<int>(label, cv::CC_STAT_AREA) >= speck &&
                        peak[label] >= seen && strand_like(statistics, label);
        anyStrand = anyStrand || strand[label];
    }
    cv::Mat kept(subject.size(), CV_8U, cv::Scalar(0));
    auto mark = [&]() {
        for (int y = 0; y < parts.rows; y++) {
            const int *label = parts.ptr<int>(y);
            unsigned char *k = kept.ptr<unsigned char>(y);
            for (int x = 0; x < parts.cols; x++) k[x] = attached[label[x]] ? 255 : 0;
        }
    };
    mark();
    // A strand broken twice joins through its first piece; each round reaches one gap further.
    for (bool grew = anyStrand; grew;) {
        grew = false;
        // Two cells out from a kept part: across a one-cell gap, onto the strand's first cell.
        cv::Mat near;
        cv::dilate(kept, near, cv::Mat(), cv::Point(-1, -1), 2);
        for (int y = 0; y < parts.rows; y++) {
            const int *label = parts.ptr<int>(y);
            const unsigned char *n = near.ptr<unsigned char>(y);
            for (int x = 0; x < parts.cols; x++)
                if (n[x] && strand[label[x]] && !attached[label[x]]) attached[label[x]] = grew = 1;
        }
        if (grew) mark();
    }
    return kept;
}

// Keeps only what is joined to the sure subject. The projection can make a separate patch of
// the band opaque (a bokeh disc the model left faint, a speck of background the colour of the
// subject), and an outline would then ring it. Parts are found on the working copy's grid, each
// cell holding the most opaque of its pixels so that a hair-thin strand still joins its cells; a
// cell at least 10 % opaque is kept when it is attached (see attached_cells), and a fainter one
// when it touches a kept cell (the soft end of a strand). Everything else becomes clear.
static void keep_attached(cv::Mat &pixels, const cv::Mat &subject, const std::vector<int> &workRow,
                          const std::vector<int> &workColumn) {
    cv::Mat strongest = cell_alpha(pixels, subject.size(), workRow, workColumn, true);
    const int threshold = 26;
    cv::Mat kept = attached_cells(strongest, subject, threshold);
    // A piece at least a quarter opaque that hangs on the subject only by fainter threads is a
    // thing behind it that the model's haze joined to it (the motorcycle kept over a hundred
    // pieces of the shelves and the bench so, a quarter to two-thirds opaque): it goes with its
    // faint rim and the threads it hung by, unless it is a strand, and what it held up is
    // measured again without it. What is a quarter opaque all the way from the subject stays, a
    // soft edge too.
    const int solid = 64;
    cv::Mat firm = (strongest >= solid) & kept, pieces, statistics, centroids;
    int pieceCount = cv::connectedComponentsWithStats(firm, pieces, statistics, centroids, 8, CV_32S);
    std::vector<unsigned char> anchored(pieceCount, 0), peak(pieceCount, 0);
    anchored[0] = 1;
    for (int y = 0; y < pieces.rows; y++) {
        const int *label = pieces.ptr<int>(y);
        const unsigned char *sure = subject.ptr<unsigned char>(y), *cells = strongest.ptr<unsigned char>(y);
        for (int x = 0; x < pieces.cols; x++) {
            if (sure[x]) anchored[label[x]] = 1;
            peak[label[x]] = std::max(peak[label[x]], cells[x]);
        }
    }
    bool anyLoose = false;
    for (int label = 1; label < pieceCount; label++) {
        if (!anchored[label] && statistics.at<int>(label, cv::CC_STAT_AREA) >= speck && peak[label] >= seen &&
            strand_like(statistics, label))
            anchored[label] = 1;
        anyLoose = anyLoose || !anchored[label];
    }
    cv::Mat loose(subject.size(), CV_8U, cv::Scalar(0));
    if (anyLoose) {
        for (int y = 0; y < pieces.rows; y++) {
            const int *label = pieces.ptr<int>(y);
            unsigned char *l = loose.ptr<unsigned char>(y);
            for (int x = 0; x < pieces.cols; x++) l[x] = anchored[label[x]] ? 0 : 255;
        }
        cv::Mat rim;
        cv::dilate(loose, rim, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(7, 7)));
        for (int y = 0; y < pieces.rows; y++) {
            const unsigned char *r = rim.ptr<unsigned char>(y), *cells = strongest.ptr<unsigned char>(y);
            unsigned char *l = loose.ptr<unsigned char>(y);
            for (int x = 0; x < pieces.cols; x++)
                if (r[x] && cells[x] < solid) l[x] = 255;
        }
        cv::Mat without = strongest.clone();
        without.setTo(0, loose);
        kept = attached_cells(without, subject, threshold);
    }
    // The faint ends of strands fade out over a few cells past their last opaque one.
    cv::Mat near;
    cv::dilate(kept, near, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(7, 7)));
    cv::parallel_for_(cv::Range(0, pixels.rows), [&](const cv::Range &rows) {
        for (int y = rows.start; y < rows.end; y++) {
            unsigned char *p = pixels.ptr<unsigned char>(y);
            const unsigned char *strong = strongest.ptr<unsigned char>(workRow[y]),
                                *keep = kept.ptr<unsigned char>(workRow[y]), *touch = near.ptr<unsigned char>(workRow[y]),
                                *gone = loose.ptr<unsigned char>(workRow[y]);
            for (int x = 0; x < pixels.cols; x++, p += 4) {
                if (!p[3]) continue;
                int cell = workColumn[x];
                if (gone[cell] || (strong[cell] >= threshold ? !keep[cell] : !touch[cell])) p[0] = p[1] = p[2] = p[3] = 0;
            }
        }
    });
}

// Adds the texture finer than a cell of the working copy, which its averaging removed, to
// `squares` and `products` (see background_spread): for each cell marked in `cells` (the sure
// background's, or the band's), the covariance of the full-size pixels it averages. A weave or
// a grain a pixel or two across in a 12 MP photo is gone from the 1,024 px copy, yet each
// full-size pixel's projection still swings with it (a 1 px weave behind a dish at 4,000 px
// kept a 17 % haze of it). Nothing is added where the photo is the working copy's own size.
static void add_texture_within_cells(const cv::Mat &pixels, const cv::Mat &cells, const std::vector<int> &workRow,
                                     const std::vector<int> &workColumn, cv::Mat &squares, cv::Mat &products) {
    if (cells.size() == pixels.size()) return;
    // The first full-size row of each working row (rows map to working rows in order).
    std::vector<int> firstRow(cells.rows + 1, pixels.rows);
    for (int y = pixels.rows - 1; y >= 0; y--) firstRow[workRow[y]] = y;
    cv::parallel_for_(cv::Range(0, cells.rows), [&](const cv::Range &workRows) {
        // Per cell: the count, three colours' sums and six products' sums, in integers (a cell
        // of a 48 MP photo averages about 50 pixels, far from where 64 bits could overflow).
        std::vector<int64_t> sums(size_t(cells.cols) * 10);
        for (int wy = workRows.start; wy < workRows.end; wy++) {
            const unsigned char *marked = cells.ptr<unsigned char>(wy);
            std::fill(sums.begin(), sums.end(), 0);
            for (int y = firstRow[wy]; y < firstRow[wy + 1]; y++) {
                const unsigned char *p = pixels.ptr<unsigned char>(y);
                for (int x = 0; x < pixels.cols; x++, p += 4) {
                    int cell = workColumn[x];
                    if (!marked[cell]) continue;
                    int64_t *sum = &sums[size_t(cell) * 10];
                    int r = p[0], g = p[1], b = p[2];
                    sum[0] += 1;
                    sum[1] += r;
                    sum[2] += g;
                    sum[3] += b;
                    sum[4] += r * r;
                    sum[5] += g * g;
                    sum[6] += b * b;
                    sum[7] += r * g;
                    sum[8] += r * b;
                    sum[9] += g * b;
                }
            }
            float *square = squares.ptr<float>(wy), *product = products.ptr<float>(wy);
            for (int cell = 0; cell < cells.cols; cell++, square += 3, product += 3) {
                const int64_t *sum = &sums[size_t(cell) * 10];
                if (sum[0] < 2) continue;
                double n = double(sum[0]), toUnit = 1.0 / (255.0 * 255.0);
                double mean[3] = {sum[1] / n, sum[2] / n, sum[3] / n};
                square[0] += float((sum[4] / n - mean[0] * mean[0]) * toUnit);
                square[1] += float((sum[5] / n - mean[1] * mean[1]) * toUnit);
                square[2] += float((sum[6] / n - mean[2] * mean[2]) * toUnit);
                product[0] += float((sum[7] / n - mean[0] * mean[1]) * toUnit);
                product[1] += float((sum[8] / n - mean[0] * mean[2]) * toUnit);
                product[2] += float((sum[9] / n - mean[1] * mean[2]) * toUnit);
            }
        }
    });
}

// The working copy less its blur (2 pixels a thousand, at least one): what the background's
// fine texture and the photo's fine detail are both measured from.
static cv::Mat less_its_blur(const cv::Mat &image, double unit) {
    cv::Mat blurred;
    cv::GaussianBlur(image, blurred, cv::Size(0, 0), std::max(1.0, 2 * unit));
    return image - blurred;
}

// The fine texture of the photo at each cell of the working copy, for the background's (see
// background_spread): the squares of the photo less its blur (`fine`, see less_its_blur),
// variances of red, green and blue, and their red-green, red-blue and green-blue products, with
// the texture inside each cell of the sure background at full size (`pixels`, mapped by the
// tables).
struct Texture {
    cv::Mat squares, products;
};
static Texture photo_texture(const cv::Mat &fine, const cv::Mat &pixels, const cv::Mat &background,
                             const std::vector<int> &workRow, const std::vector<int> &workColumn) {
    Texture texture{cv::Mat(fine.size(), CV_32FC3), cv::Mat(fine.size(), CV_32FC3)};
    cv::parallel_for_(cv::Range(0, fine.rows), [&](const cv::Range &rows) {
        for (int y = rows.start; y < rows.end; y++) {
            const float *f = fine.ptr<float>(y);
            float *square = texture.squares.ptr<float>(y), *product = texture.products.ptr<float>(y);
            for (int x = 0; x < fine.cols; x++, f += 3, square += 3, product += 3) {
                square[0] = f[0] * f[0];
                square[1] = f[1] * f[1];
                square[2] = f[2] * f[2];
                product[0] = f[0] * f[1];
                product[1] = f[0] * f[2];
                product[2] = f[1] * f[2];
            }
        }
    });
    add_texture_within_cells(pixels, background, workRow, workColumn, texture.squares, texture.products);
    return texture;
}

// The fine texture of the background around each band pixel (`needed`): the photo's texture
// (see photo_texture) over the same windows of sure background as its mean (`squares` and
// `products`, its local means), six numbers a pixel. A background out of focus, or a wall far
// away, has little of it; a wooden table's grain, a weave or gravel has much, and projected
// between the subject's and the background's colours its darker and lighter lines read as
// strands of subject: the coffee sample's saucer had a streaky fringe of table grain.
static cv::Mat background_spread(const cv::Mat &squares, const cv::Mat &products, const cv::Mat &needed) {
    cv::Mat spread(squares.size(), CV_32FC(6), cv::Scalar::all(0));
    for (int y = 0; y < squares.rows; y++) {
        const float *s = squares.ptr<float>(y), *p = products.ptr<float>(y);
        const unsigned char *n = needed.ptr<unsigned char>(y);
        float *out = spread.ptr<float>(y);
        for (int x = 0; x < squares.cols; x++, s += 3, p += 3, out += 6) {
            if (!n[x]) continue;
            for (int c = 0; c < 3; c++) out[c] = s[c];
            out[3] = p[0];
            out[4] = p[1];
            out[5] = p[2];
        }
    }
    return spread;
}

// How much fine detail the photo has around each pixel of the working copy: the root of the
// blurred square of the photo less its blur (`fine`, see less_its_blur), with the texture inside
// each band cell at full size (see add_texture_within_cells), so a hair finer than a cell of a
// 12 MP photo still counts. A strand, a whisker or a weave is detail; the out-of-focus fur of a
// shoulder behind a cat's face, a smooth wall or a bokeh disc has next to none.
static cv::Mat detail_energy(const cv::Mat &fine, double unit, const cv::Mat &pixels, const cv::Mat &band,
                             const std::vector<int> &workRow, const std::vector<int> &workColumn) {
    cv::Mat squares = fine.mul(fine), products(fine.size(), CV_32FC3, cv::Scalar::all(0));
    add_texture_within_cells(pixels, band, workRow, workColumn, squares, products);
    std::vector<cv::Mat> planes;
    cv::split(squares, planes);
    cv::Mat energy = planes[0] + planes[1] + planes[2];
    cv::GaussianBlur(energy, energy, cv::Size(0, 0), std::max(1.0, 2 * unit));
    cv::sqrt(energy, energy);
    return energy;
}

// Clear pixels keep no colour: nothing shows it, and runs of zeros make a PNG smaller.
static void clear_hidden_colours(cv::Mat &pixels) {
    for (int y = 0; y < pixels.rows; y++) {
        unsigned char *p = pixels.ptr<unsigned char>(y);
        for (int x = 0; x < pixels.cols; x++, p += 4)
            if (!p[3]) p[0] = p[1] = p[2] = 0;
    }
}

// Where a hole the projection opened inside the subject is to be filled: a hole walled in by
// what stays solid (a catchlight in a cat's eye, a pupil's rim, a glint on chrome, their colours
// near the background's). A gap that reaches the background (between strands, along the edge)
// stays as the projection found it, and so does a hole whose walls are thin (no open gap within
// 10 cells a thousand of the copy): a pocket among strands, walled in by strands with more gaps
// beside it, is fur showing the background. Found on the working copy's grid, each cell holding
// the least opaque of its pixels. Returned on that grid: the cells of the holes and two cells of
// their rim (less torn than the hole but still see-through, 192 beside 255), and how much to
// fill there, softened over a cell so no cell's edge shows where the filling stops; both empty
// when there is no hole.
struct Holes {
    cv::Mat cells, filling;
};
static Holes filled_holes(const cv::Mat &pixels, const cv::Mat &background, const std::vector<int> &workRow,
                          const std::vector<int> &workColumn, double unit) {
    cv::Size work = background.size();
    cv::Mat weakest = cell_alpha(pixels, work, workRow, workColumn, false);
    cv::Mat open = weakest < 192, holes;
    int holeCount = cv::connectedComponents(open, holes, 8, CV_32S);
    std::vector<unsigned char> reachesOut(holeCount, 0);
    reachesOut[0] = 1;
    for (int y = 0; y < work.height; y++) {
        const int *label = holes.ptr<int>(y);
        const unsigned char *g = background.ptr<unsigned char>(y);
        for (int x = 0; x < work.width; x++)
            if (g[x] || y == 0 || x == 0 || y == work.height - 1 || x == work.width - 1) reachesOut[label[x]] = 1;
    }
    cv::Mat outside(work, CV_8U, cv::Scalar(0));
    for (int y = 0; y < work.height; y++) {
        const int *label = holes.ptr<int>(y);
        const unsigned char *gap = open.ptr<unsigned char>(y);
        unsigned char *o = outside.ptr<unsigned char>(y);
        for (int x = 0; x < work.width; x++) o[x] = gap[x] && reachesOut[label[x]] ? 255 : 0;
    }
    int wall = std::max(2, int(10 * unit + 0.5));
    cv::dilate(outside, outside, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * wall + 1, 2 * wall + 1)));
    std::vector<unsigned char> thinWalled(holeCount, 0);
    for (int y = 0; y < work.height; y++) {
        const int *label = holes.ptr<int>(y);
        const unsigned char *o = outside.ptr<unsigned char>(y);
        for (int x = 0; x < work.width; x++)
            if (o[x]) thinWalled[label[x]] = 1;
    }
    cv::Mat walledIn(work, CV_8U, cv::Scalar(0));
    bool anyHole = false;
    for (int y = 0; y < work.height; y++) {
        const int *label = holes.ptr<int>(y);
        unsigned char *w = walledIn.ptr<unsigned char>(y);
        for (int x = 0; x < work.width; x++)
            if (!reachesOut[label[x]] && !thinWalled[label[x]]) w[x] = 1, anyHole = true;
    }
    if (!anyHole) return {};
    cv::Mat filling;
    cv::dilate(walledIn, walledIn, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(5, 5)));
    walledIn.convertTo(filling, CV_32F);
    cv::GaussianBlur(filling, filling, cv::Size(0, 0), 1.0);
    return {walledIn, filling};
}

// What of `beyond` (what the projection kept where the model saw background, full size) goes, on
// the working copy's grid, and how far to believe it there (`doubt`, 0-255 a pixel, read as a
// cell's mean). The model sees the photo 320 pixels across, so it resolves any part a few of its
// pixels wide; only finer ones (strands, whiskers) are beyond it. Where it saw background, a
// part the projection keeps that is wider than that is mostly a thing of the background whose
// colour lies nearer the subject's mean than the background's (a bench behind a motorcycle,
// boxes on a shelf, flakes of a blurred tuft beside a cheek). Wide is what survives a
// morphological opening by a disc three model pixels across, of each cell's mean of its pixels
// at least half opaque (counting the fainter ones took the floor of every field of strands,
// their gaps, for a wide part: the strands lost a tenth of their alpha). Only a part that
// reaches the sure background through what the model saw as background goes: one the subject
// walls in (a cat's dark nostril the model was unsure of), or that reaches only the photo's edge
// (a chin the frame cuts), is the subject's.
struct WideParts {
    cv::Mat wide, doubts;
};
static WideParts wide_parts(const cv::Mat &beyond, const cv::Mat &doubt, const cv::Mat &mask,
                            const cv::Mat &background, const std::vector<int> &workRow,
                            const std::vector<int> &workColumn) {
    cv::Size work = background.size();
    // The doubt is read the same way as the parts, a cell's mean over what the line kept there:
    // one pixel's colour is noisy, and a removal that followed it pixel by pixel cut slits.
    cv::Mat sums(work, CV_32F, cv::Scalar(0)), counts(work, CV_32F, cv::Scalar(0));
    cv::Mat doubts(work, CV_32F, cv::Scalar(0)), keptCounts(work, CV_32F, cv::Scalar(0));
    for (int y = 0; y < beyond.rows; y++) {
        const unsigned char *kept = beyond.ptr<unsigned char>(y), *unsure = doubt.ptr<unsigned char>(y);
        float *sum = sums.ptr<float>(workRow[y]), *count = counts.ptr<float>(workRow[y]);
        float *cellDoubt = doubts.ptr<float>(workRow[y]), *keptCount = keptCounts.ptr<float>(workRow[y]);
        for (int x = 0; x < beyond.cols; x++) {
            int cell = workColumn[x];
            if (kept[x] >= 128) sum[cell] += kept[x];
            count[cell] += 1;
            if (kept[x]) {
                cellDoubt[cell] += unsure[x];
                keptCount[cell] += 1;
            }
        }
    }
    cv::Mat wide;
    cv::divide(sums, counts, wide, 1.0 / 255.0);
    cv::max(keptCounts, 1, keptCounts);
    cv::divide(doubts, keptCounts, doubts, 1.0 / 255.0);
    cv::GaussianBlur(doubts, doubts, cv::Size(0, 0), 1.0);
    int radius = std::max(1, int(1.5 * std::max(work.width, work.height) / CSEGMENT_MAP_SIDE + 0.5));
    cv::morphologyEx(wide, wide, cv::MORPH_OPEN,
                     cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * radius + 1, 2 * radius + 1)));
    // Grown by two cells, to take the part's soft rim with it (a ring of its haze was left
    // standing round where it went), and blurred as far as the disc, so where the removal stops
    // no edge shows in a haze.
    cv::dilate(wide, wide, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(5, 5)));
    cv::GaussianBlur(wide, wide, cv::Size(0, 0), radius);
    cv::Mat modelBackground = mask < 0.5f, regions;
    int regionCount = cv::connectedComponents(modelBackground, regions, 8, CV_32S);
    std::vector<unsigned char> reachesBackground(regionCount, 0);
    for (int y = 0; y < work.height; y++) {
        const int *region = regions.ptr<int>(y);
        const unsigned char *g = background.ptr<unsigned char>(y);
        for (int x = 0; x < work.width; x++)
            if (g[x]) reachesBackground[region[x]] = 1;
    }
    for (int y = 0; y < work.height; y++) {
        const int *region = regions.ptr<int>(y);
        float *w = wide.ptr<float>(y);
        for (int x = 0; x < work.width; x++)
            if (!region[x] || !reachesBackground[region[x]]) w[x] = 0;
    }
    return {wide, doubts};
}

static inline float squared_distance(const cv::Vec3f &a, const cv::Vec3f &b) {
    float red = a[0] - b[0], green = a[1] - b[1], blue = a[2] - b[2];
    return red * red + green * green + blue * blue;
}

// The subject's main colours (`count` of them): k-means of its sure pixels, at most 4,096 of them
// evenly spread, seeded farthest-first so that one photo always gives the same palette. Fur is
// no one colour: a raccoon's is white, grey and black, and the mean of it all lies between, so a
// black or white hair projected towards that mean reads as partly background (see csegment_matte).
static std::vector<cv::Vec3f> subject_palette(const cv::Mat &image, const cv::Mat &subject, int count) {
    std::vector<cv::Vec3f> samples;
    int step = std::max(1, cv::countNonZero(subject) / 4096), counted = 0;
    for (int y = 0; y < image.rows; y++) {
        const cv::Vec3f *row = image.ptr<cv::Vec3f>(y);
        const unsigned char *sure = subject.ptr<unsigned char>(y);
        for (int x = 0; x < image.cols; x++)
            if (sure[x] && counted++ % step == 0) samples.push_back(row[x]);
    }
    std::vector<cv::Vec3f> centres;
    if (samples.empty()) return centres;
    cv::Vec3f mean(0, 0, 0);
    for (const cv::Vec3f &sample : samples) mean += sample;
    mean *= 1.0f / samples.size();
    // Farthest-first: each seed the sample farthest from those chosen (the first from the mean).
    std::vector<float> nearest(samples.size());
    for (size_t i = 0; i < samples.size(); i++) nearest[i] = squared_distance(samples[i], mean);
    while (int(centres.size()) < count) {
        size_t farthest = size_t(std::max_element(nearest.begin(), nearest.end()) - nearest.begin());
        if (nearest[farthest] <= 1e-6f) break;
        centres.push_back(samples[farthest]);
        for (size_t i = 0; i < samples.size(); i++)
            nearest[i] = std::min(nearest[i], squared_distance(samples[i], samples[farthest]));
    }
    // A subject of one colour (every sample its mean) has that colour alone.
    if (centres.empty()) return {mean};
    std::vector<cv::Vec3f> sums(centres.size());
    std::vector<int> members(centres.size());
    for (int round = 0; round < 10; round++) {
        std::fill(sums.begin(), sums.end(), cv::Vec3f(0, 0, 0));
        std::fill(members.begin(), members.end(), 0);
        for (const cv::Vec3f &sample : samples) {
            size_t closest = 0;
            for (size_t k = 1; k < centres.size(); k++)
                if (squared_distance(sample, centres[k]) < squared_distance(sample, centres[closest])) closest = k;
            sums[closest] += sample;
            members[closest]++;
        }
        for (size_t k = 0; k < centres.size(); k++)
            if (members[k]) centres[k] = sums[k] * (1.0f / members[k]);
    }
    return centres;
}

// The cores of things the model saw apart from the rest and held for subject without ever
// being sure of them (at least half, under a fifth of it 0.95): with no sure pixel the matte had
// no colour of the thing's own, and let it go whole as a part apart from the subject (the second
// candy among sweets, which the model saw mottled between 0.35 and 0.85, vanished from a sticker
// that kept the other nine); with a sure sliver it took that sliver's colour for the whole thing
// (a pink lighter on a desk, sure of its metal top alone, came out a tenth see-through, the desk
// showing through its body). Each such thing at least ten of the model's pixels across (a speck
// or a faint disc of light is no thing) is taken as far as the model saw it at a quarter, nearer
// to it than to anything else it held (a shadow joined the candy to a sure one), and, when it has
// no sure pixel, filled out to its convex hull where it mostly fills that (the mottling bit holes
// into its edge); then its core, two of the model's pixels in from there, is sure subject, and
// the matte finds its edge as any other.
static cv::Mat unsure_things(const cv::Mat &mask) {
    cv::Mat held = mask >= 0.5f, parts, statistics, centroids;
    int count = cv::connectedComponentsWithStats(held, parts, statistics, centroids, 8, CV_32S);
    std::vector<int> sure(count, 0);
    for (int y = 0; y < mask.rows; y++) {
        const int *label = parts.ptr<int>(y);
        const float *m = mask.ptr<float>(y);
        for (int x = 0; x < mask.cols; x++) sure[label[x]] += m[x] >= 0.95f;
    }
    double modelPixel = double(std::max(mask.cols, mask.rows)) / CSEGMENT_MAP_SIDE;
    double leastArea = (10 * modelPixel) * (10 * modelPixel);
    std::vector<unsigned char> unsure(count, 0);
    bool any = false;
    for (int label = 1; label < count; label++)
        if (sure[label] < 0.2 * statistics.at<int>(label, cv::CC_STAT_AREA) + 1 &&
            statistics.at<int>(label, cv::CC_STAT_AREA) >= leastArea) {
            unsure[label] = 1;
            any = true;
        }
    cv::Mat cores(mask.size(), CV_8U, cv::Scalar(0));
    if (!any) return cores;
    // For every pixel, the held thing nearest to it (distanceTransform's labels number the held
    // parts its own way: they are mapped back through a pixel of each).
    cv::Mat distances, nearest;
    cv::distanceTransform(~held, distances, nearest, cv::DIST_L2, 3, cv::DIST_LABEL_CCOMP);
    double largestLabel = 0;
    cv::minMaxLoc(nearest, nullptr, &largestLabel);
    std::vector<int> thingOf(size_t(largestLabel) + 1, 0);
    for (int y = 0; y < mask.rows; y++) {
        const int *label = parts.ptr<int>(y), *near = nearest.ptr<int>(y);
        for (int x = 0; x < mask.cols; x++)
            if (label[x]) thingOf[near[x]] = label[x];
    }
    // Each thing's extent, and the box round it: a thing is worked on within its box, so a mask
    // mottled into many things costs a pass over the image, not one a thing.
    cv::Mat extents(mask.size(), CV_32S, cv::Scalar(0));
    std::vector<cv::Rect> boxes(count);
    for (int y = 0; y < mask.rows; y++) {
        const int *near = nearest.ptr<int>(y);
        const float *m = mask.ptr<float>(y);
        int *extent = extents.ptr<int>(y);
        for (int x = 0; x < mask.cols; x++) {
            extent[x] = m[x] >= 0.25f ? thingOf[near[x]] : 0;
            if (!unsure[extent[x]]) continue;
            cv::Rect &box = boxes[extent[x]];
            box = box.area() ? box | cv::Rect(x, y, 1, 1) : cv::Rect(x, y, 1, 1);
        }
    }
    for (int label = 1; label < count; label++) {
        if (!unsure[label] || boxes[label].area() == 0) continue;
        const cv::Rect box = boxes[label];
        cv::Mat extent = extents(box) == label;
        std::vector<std::vector<cv::Point>> outlines;
        cv::findContours(extent, outlines, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE, box.tl());
        std::vector<cv::Point> points, hull;
        for (const auto &outline : outlines) points.insert(points.end(), outline.begin(), outline.end());
        if (points.size() >= 3) cv::convexHull(points, hull);
        double area = cv::countNonZero(extent), hullArea = hull.size() >= 3 ? cv::contourArea(hull) : 0;
        // A thing with a sure sliver is not mottled: the hull would fill its concave sides (and
        // what the model held beside it) with background made sure; its held part stands.
        if (sure[label] == 0 && hullArea > 0 && area >= 0.6 * hullArea) {
            cv::fillConvexPoly(cores, hull, cv::Scalar(255));
        } else {
            const cv::Rect held(statistics.at<int>(label, cv::CC_STAT_LEFT), statistics.at<int>(label, cv::CC_STAT_TOP),
                                statistics.at<int>(label, cv::CC_STAT_WIDTH), statistics.at<int>(label, cv::CC_STAT_HEIGHT));
            cv::Mat core = cores(held);
            core.setTo(255, parts(held) == label);
        }
    }
    int inset = std::max(1, int(2 * modelPixel + 0.5));
    cv::erode(cores, cores, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * inset + 1, 2 * inset + 1)));
    return cores;
}

extern "C" int csegment_matte(unsigned char *rgba, int width, int height, char *error, size_t error_size) {
    return guarded(error, error_size, [&]() {
        // One buffer, read and written in place: at 48 MP separate colour and alpha planes in
        // and out cost more in fresh memory than the matte's own arithmetic.
        cv::Mat pixels(height, width, CV_8UC4, rgba);
        // The colours on either side are smooth, so they are found on a copy at most 1,024
        // pixels long; only the alpha and colour of each edge pixel are computed at full size.
        cv::Size work = working_size(width, height, 1024);
        double unit = std::max(work.width, work.height) / 1000.0;
        cv::Mat small, image, mask;
        cv::resize(pixels, small, work, 0, 0, cv::INTER_AREA);
        cv::cvtColor(small, image, cv::COLOR_RGBA2RGB);
        cv::extractChannel(small, mask, 3);
        image.convertTo(image, CV_32FC3, 1.0 / 255.0);
        mask.convertTo(mask, CV_32F, 1.0 / 255.0);
        // What the model is sure of: the subject (eroded a little, where its edge is least sure)
        // and the background. The rest is the edge band, where the alpha is found again.
        // (0.95 and 0.03: the guided filter's soft ramp lies between; outside it the model's map
        // is flat.) A subject too thin to survive the erosion keeps its uneroded core.
        cv::Mat subject = mask >= 0.95f, background = mask <= 0.03f;
        subject |= unsure_things(mask);
        int erosion = std::max(1, int(2 * unit + 0.5));
        cv::Mat eroded;
        cv::erode(subject, eroded,
                  cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * erosion + 1, 2 * erosion + 1)));
        if (cv::countNonZero(eroded) > 0) subject = eroded;
        // With no sure subject or no sure background in the crop (a subject that is haze all
        // over, or haze reaching every side), one of the two colours is unknown: the model's
        // alpha and the photo's colours stay as they are.
        if (cv::countNonZero(subject) == 0 || cv::countNonZero(background) == 0) {
            clear_hidden_colours(pixels);
            return 0;
        }
        // The band, and a pixel around it for reading the means between pixels at full size.
        cv::Mat band = ~(subject | background);
        cv::dilate(band, band, cv::Mat(), cv::Point(-1, -1), 2);
        cv::Mat subjectWeight, backgroundWeight;
        subject.convertTo(subjectWeight, CV_32F, 1.0 / 255.0);
        background.convertTo(backgroundWeight, CV_32F, 1.0 / 255.0);
        // Tables from full-size rows and columns to the working copy's.
        std::vector<int> workColumn(width), workRow(height);
        for (int x = 0; x < width; x++) workColumn[x] = std::min(work.width - 1, int(int64_t(x) * work.width / width));
        for (int y = 0; y < height; y++) workRow[y] = std::min(work.height - 1, int(int64_t(y) * work.height / height));
        cv::Mat fine = less_its_blur(image, unit);
        Texture texture = photo_texture(fine, pixels, background, workRow, workColumn);
        cv::Mat subjectColour = local_mean(image, subjectWeight, unit, band);
        std::vector<cv::Mat> backgroundMeans =
            local_means({image, texture.squares, texture.products}, backgroundWeight, unit, band);
        cv::Mat backgroundColour = backgroundMeans[0];
        cv::Mat spread = background_spread(backgroundMeans[1], backgroundMeans[2], band);
        // The model's map with the photo's texture (which the guided filter gave it) blurred away,
        // for the edge to fall back on over a textured background.
        cv::Mat smoothMask;
        cv::GaussianBlur(mask, smoothMask, cv::Size(0, 0), std::max(1.0, 1.5 * unit));
        cv::Mat detail = detail_energy(fine, unit, pixels, band, workRow, workColumn);
        // The subject's six main colours, for pixels that the mean colour makes partly
        // background though they are one of them (see below).
        std::vector<cv::Vec3f> palette = subject_palette(image, subject, 6);
        // How deep inside what the model holds for subject (at least half) each cell lies, in
        // thousandths of the copy's longer side (see below). The photo's edge is not background:
        // a body the frame cuts is deep all the way to it.
        cv::Mat depth;
        cv::distanceTransform(cv::Mat(mask >= 0.5f), depth, cv::DIST_L2, 3);
        depth /= unit;
        // Two more looks at the background: band pixels that are clearly background (the gaps
        // between strands) join its mean, weighted by the fourth power of their share, so it
        // follows the background where it shows through. Only where the model leans to
        // background (fully below 0.2, not at all from 0.5): a dark nose or a chrome headlight
        // the model holds for subject, far from the subject's mean colour, projected as
        // background, joined its mean, and the next look then found the nose the background's
        // colour and tore it out. The subject's colour stays the mean of what is surely subject:
        // band pixels that are mostly subject still hold some background, and taking them in
        // pulled the subject's colour towards it. A pixel's weight grows with the projection's
        // confidence, and since the say of near colours grew (see project) a gap between pale
        // strands on a pale floor weighs about four times what it did (bench/matting's numbers
        // for that change were measured with it so).
        for (int look = 0; look < 2; look++) {
            cv::Mat backgroundMore = backgroundWeight.clone();
            cv::parallel_for_(cv::Range(0, work.height), [&](const cv::Range &rows) {
                for (int y = rows.start; y < rows.end; y++) {
                    const float *i = image.ptr<float>(y), *f = subjectColour.ptr<float>(y),
                                *b = backgroundColour.ptr<float>(y);
                    const unsigned char *s = subject.ptr<unsigned char>(y), *g = background.ptr<unsigned char>(y);
                    const float *model = mask.ptr<float>(y);
                    float *w = backgroundMore.ptr<float>(y);
                    for (int x = 0; x < work.width; x++) {
                        if (s[x] || g[x]) continue;
                        Projection p = project(i + 3 * x, f + 3 * x, b + 3 * x, spread.ptr<float>(y) + 6 * x);
                        float away = (1 - p.alpha) * (1 - p.alpha);
                        float leaning = std::min(1.0f, std::max(0.0f, (0.5f - model[x]) / 0.3f));
                        w[x] = away * away * p.confidence * leaning;
                    }
                }
            });
            backgroundColour = local_mean(image, backgroundMore, unit, band);
        }
        // The means are read at full size between their pixels rather than from full-size
        // copies (two float planes of 3 channels would be 290 MB at 12 MP), and whether a pixel
        // is sure subject or in the band through tables from full-size to working rows and columns.
        float scaleX = float(work.width) / width, scaleY = float(work.height) / height;
        // Each band pixel at full size: its alpha is the projection, mixed with the model's by how
        // far apart the two colours are. What it keeps where the model saw background is noted
        // in `beyond`, and how little to believe it in `doubt`, for the wide parts of it to go
        // (see wide_parts): in full where its colour is no mix of the two means, or where the
        // model was sure of background; nearer the model's own edge, where many strands crossing
        // make a clump as wide, by as much as the model leaned to background. (bench/matting:
        // haze on the whisker scenes 1.13 % -> 0.81 %, edge colour no worse on any scene; on the
        // sample photos the motorcycle keeps no bench, the shelf's boxes over half opaque fell
        // from 39 % to 11 % of their area, and the cat's cheek keeps no flakes.)
        cv::Mat beyond(height, width, CV_8U, cv::Scalar(0)), doubt(height, width, CV_8U, cv::Scalar(0));
        // In a photo at least twice the working copy's size a strand is several pixels wide,
        // and a pixel's own noise (a phone's sensor, a JPEG's blocks) moved its projected alpha
        // by a tenth and more: sand in the fur and specks past it. The projection reads each
        // pixel through a 3 x 3 binomial blur there (the colour is still solved from the pixel).
        bool denoise = scaleX <= 0.5f && scaleY <= 0.5f;
        // The sure cells whose neighbours are all sure: no step can show between them.
        cv::Mat inside;
        cv::erode(subject, inside, cv::Mat());
        cv::parallel_for_(cv::Range(0, height), [&](const cv::Range &rows) {
            for (int y = rows.start; y < rows.end; y++) {
                unsigned char *p = pixels.ptr<unsigned char>(y);
                const unsigned char *sure = subject.ptr<unsigned char>(workRow[y]),
                                    *inner = inside.ptr<unsigned char>(workRow[y]),
                                    *inBand = band.ptr<unsigned char>(workRow[y]);
                for (int x = 0; x < width; x++, p += 4) {
                    // Below 3 % (7 of 255) the sure background's haze: nothing anyone sees.
                    if (p[3] <= 7) {
                        p[3] = 0;
                        continue;
                    }
                    bool sureCell = sure[workColumn[x]];
                    if (sureCell && (inner[workColumn[x]] || !inBand[workColumn[x]])) {
                        p[3] = 255;
                        continue;
                    }
                    // A faint strand the reduced copy averaged away into the background has no
                    // means read for it: it keeps the model's alpha and the photo's colour.
                    if (!inBand[workColumn[x]]) continue;
                    // How sure the subject is here, read between the working copy's cells: a
                    // photo larger than the copy would otherwise show the sure cells' edge as a
                    // step of a cell's size in the alpha (255 beside 200 along a staircase).
                    float sureness;
                    sample_between(subjectWeight, 1, scaleX, scaleY, x, y, &sureness);
                    float i[3], f[3], b[3];
                    if (denoise && x > 0 && y > 0 && x + 1 < width && y + 1 < height) {
                        const unsigned char *up = p - pixels.step[0], *down = p + pixels.step[0];
                        for (int c = 0; c < 3; c++)
                            i[c] = (up[c - 4] + 2 * up[c] + up[c + 4] + 2 * p[c - 4] + 4 * p[c] + 2 * p[c + 4] +
                                    down[c - 4] + 2 * down[c] + down[c + 4]) *
                                   (1.0f / (16 * 255.0f));
                    } else {
                        for (int c = 0; c < 3; c++) i[c] = p[c] * (1.0f / 255.0f);
                    }
                    sample_between(subjectColour, 3, scaleX, scaleY, x, y, f);
                    sample_between(backgroundColour, 3, scaleX, scaleY, x, y, b);
                    float texture[6], smooth;
                    sample_between(spread, 6, scaleX, scaleY, x, y, texture);
                    sample_between(smoothMask, 1, scaleX, scaleY, x, y, &smooth);
                    float model = p[3] * (1.0f / 255.0f);
                    Projection projection = project(i, f, b, texture);
                    Blend blended = blend(projection, model, smooth);
                    // Fur is no one colour, and a black or a white hair among grey ones projects
                    // towards the subject's mean as partly background: a raccoon's body, which
                    // the model held at 0.9, came out streaked and see-through. Where the model
                    // holds a pixel for subject and the mean would lower it, a colour of the
                    // subject's palette that explains the pixel at least twice as well (half the
                    // distance off its line, squared) and calls it subject at least as much as the
                    // model may raise it; it never lowers one, so a background the colour of some
                    // of the subject (a bokeh disc, a bright floor) gains nothing. (bench/matting:
                    // tearing 3,460 -> 3,312 px, edge colour on the bright floor 7.55 -> 7.38 and
                    // on the whiskers 11.95 -> 11.64, haze unchanged.)
                    if (model >= 0.5f && projection.alpha < model) {
                        for (const cv::Vec3f &colour : palette) {
                            Projection other = project(i, &colour[0], b, texture);
                            if (other.offLine >= 0.5f * projection.offLine || other.alpha < model) continue;
                            Blend candidate = blend(other, model, smooth);
                            if (candidate.share > blended.share) blended = candidate;
                        }
                    }
                    float share = blended.share;
                    model = blended.model;
                    share += sureness * (1 - share);
                    // Deep inside what the model holds for subject, from 80 to 120 thousandths of
                    // the copy's side from its edge, the pixel is subject whatever its colour: no
                    // background lies near enough for the two means to say anything of it (the
                    // raccoon's body, cut by the frame, was projected against leaves a third of
                    // the photo away). Fields of strands nearer the edge keep their gaps. (With
                    // the palette: the raccoon's body under 90 % opaque 27.7 % -> 7.3 %, alpha
                    // matting's 4.9 %; the strands' edge colour 31.24 -> 31.34, alpha matting's
                    // 31.47.)
                    float deepness;
                    sample_between(depth, 1, scaleX, scaleY, x, y, &deepness);
                    share += std::min(1.0f, std::max(0.0f, (deepness - 80) / 40)) * (1 - share);
                    float leaning = 1 - p[3] * (1.0f / 128);
                    unsigned char claimed = (unsigned char)(share * 255 + 0.5f);
                    // Where the photo is smooth, the line does not move the model's alpha: no
                    // strand, and no gap between strands, is there to find. Where the model saw
                    // background, what the line found there was a colour between the two means
                    // in a soft gradient, a translucent ghost (patches floating off the cat's
                    // cheek over its blurred shoulder); where the model held subject, a shaded
                    // part of the subject the colour of the background beside it (white fur in
                    // its own shadow where it meets a pale floor, torn into a bite). A strand, a
                    // whisker has detail: from 0.01 to 0.03 of it the line has its say back. On
                    // the subject's side only where the model held it from 0.65 (not at all) to
                    // 0.75 (whole): the model's faint ghosts just over a half (a box on a shelf
                    // hanging on by a thread of haze) still go. What the line claimed still
                    // counts for the wide parts (see wide_parts). (bench/matting, background
                    // side: whiskers' haze 0.81 -> 0.55 %, under alpha matting's 0.68, their edge
                    // colour 12.04 -> 11.95; strands' 31.26 -> 31.24; bright floor's 7.42 ->
                    // 7.55. Subject side: tearing 3,315 -> 2,893 px, alpha matting's 2,367; on
                    // the bright floor 269 -> 118 px, alpha matting's 102; the edge colour there
                    // 7.48 -> 7.41 and on the whiskers 11.81 -> 11.68; the strands' 31.53 ->
                    // 31.60 and their haze 27.5 -> 28.0 %, alpha matting's 31.47 and 31.9 %.)
                    if ((model < 0.5f && share > model) || (model >= 0.5f && share < model)) {
                        float fine;
                        sample_between(detail, 1, scaleX, scaleY, x, y, &fine);
                        float sharp = std::min(1.0f, std::max(0.0f, (fine - 0.01f) / 0.02f));
                        if (model >= 0.5f) {
                            float held = std::min(1.0f, std::max(0.0f, (model - 0.65f) / 0.1f));
                            sharp = 1 - (1 - sharp) * held;
                        }
                        share = model + (share - model) * sharp;
                    }
                    p[3] = (unsigned char)(share * 255 + 0.5f);
                    if (leaning > 0 && claimed) {
                        beyond.ptr<unsigned char>(y)[x] = claimed;
                        // 0.1 off the line between the two means (0.01 squared): no mix of them.
                        float unlike = std::min(1.0f, projection.offLine / 0.01f);
                        doubt.ptr<unsigned char>(y)[x] = (unsigned char)(255 * std::max(leaning, unlike) + 0.5f);
                    }
                }
            }
        });
        Holes holes = filled_holes(pixels, background, workRow, workColumn, unit);
        WideParts parts = wide_parts(beyond, doubt, mask, background, workRow, workColumn);
        const cv::Mat &wide = parts.wide, &doubts = parts.doubts;
        // Then each band pixel's colour: what, mixed by its alpha with the background, gives the
        // photo back (the subject's mean where too little of it shows).
        cv::parallel_for_(cv::Range(0, height), [&](const cv::Range &rows) {
            for (int y = rows.start; y < rows.end; y++) {
                unsigned char *p = pixels.ptr<unsigned char>(y);
                const unsigned char *inBand = band.ptr<unsigned char>(workRow[y]), *kept = beyond.ptr<unsigned char>(y);
                for (int x = 0; x < width; x++, p += 4) {
                    if (!holes.cells.empty() && holes.cells.ptr<unsigned char>(workRow[y])[workColumn[x]]) {
                        // As far as the model was sure, from 0.6 (none) to 0.8 (whole): a hard
                        // step where it crossed a line showed as a notch in a haze.
                        float model, inside;
                        sample_between(mask, 1, scaleX, scaleY, x, y, &model);
                        sample_between(holes.filling, 1, scaleX, scaleY, x, y, &inside);
                        float fill = inside * std::min(1.0f, std::max(0.0f, (model - 0.6f) / 0.2f));
                        p[3] = (unsigned char)(p[3] + fill * (255 - p[3]) + 0.5f);
                    }
                    // The colour is solved with the alpha the projection found: what is taken off
                    // a wide part is a thing of the background, not more of it mixed in.
                    float share = p[3] * (1.0f / 255.0f);
                    if (p[3] && kept[x]) {
                        float part;
                        sample_between(wide, 1, scaleX, scaleY, x, y, &part);
                        float unsure;
                        sample_between(doubts, 1, scaleX, scaleY, x, y, &unsure);
                        int removed = int(std::min(1.0f, unsure) * std::min(float(kept[x]), part * 255) + 0.5f);
                        p[3] = (unsigned char)std::max(0, p[3] - removed);
                    }
                    if (!p[3]) {
                        p[0] = p[1] = p[2] = 0;
                        continue;
                    }
                    if (p[3] == 255 || !inBand[workColumn[x]]) continue;
                    float i[3], f[3], b[3];
                    for (int c = 0; c < 3; c++) i[c] = p[c] * (1.0f / 255.0f);
                    sample_between(subjectColour, 3, scaleX, scaleY, x, y, f);
                    sample_between(backgroundColour, 3, scaleX, scaleY, x, y, b);
                    // Dividing by a small alpha magnifies noise: below 12 % the colour fades
                    // to the subject's mean.
                    float own = std::min(1.0f, std::max(0.0f, (share - 0.02f) / 0.1f));
                    for (int c = 0; c < 3; c++) {
                        float recovered = b[c] + (i[c] - b[c]) / std::max(share, 0.02f);
                        recovered = std::min(1.0f, std::max(0.0f, recovered));
                        float value = own * recovered + (1 - own) * f[c];
                        p[c] = (unsigned char)(value * 255 + 0.5f);
                    }
                }
            }
        });
        keep_attached(pixels, subject, workRow, workColumn);
        return 0;
    });
}
