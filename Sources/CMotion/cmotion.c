#include "cmotion.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
#include <stdio.h>
#include <string.h>

struct CMotionWriter {
    AVFormatContext *format;
    AVCodecContext *codec;
    AVStream *stream;
    AVFrame *frame;
    AVPacket *packet;
    struct SwsContext *convert;
    // The caller's RGBA rows copied into a padded, aligned buffer: swscale's vector loops read
    // a few bytes past the end of narrow rows.
    uint8_t *source[4];
    int source_stride[4];
    int width, height, kind;
    int64_t next_pts;
};

static void say(char *error, size_t size, const char *what, int code) {
    if (!error || size == 0) return;
    if (code < 0) {
        char reason[AV_ERROR_MAX_STRING_SIZE] = {0};
        av_strerror(code, reason, sizeof reason);
        snprintf(error, size, "%s: %s", what, reason);
    } else {
        snprintf(error, size, "%s", what);
    }
}

static void release(CMotionWriter *writer) {
    if (!writer) return;
    if (writer->convert) sws_freeContext(writer->convert);
    if (writer->source[0]) av_freep(&writer->source[0]);
    av_frame_free(&writer->frame);
    av_packet_free(&writer->packet);
    avcodec_free_context(&writer->codec);
    if (writer->format) {
        if (writer->format->pb) avio_closep(&writer->format->pb);
        avformat_free_context(writer->format);
    }
    av_free(writer);
}

// Sends `frame` (NULL flushes) and writes every packet the encoder has ready.
static int drain(CMotionWriter *writer, AVFrame *frame, char *error, size_t size) {
    int status = avcodec_send_frame(writer->codec, frame);
    if (status < 0) {
        say(error, size, "could not encode a frame", status);
        return -1;
    }
    for (;;) {
        status = avcodec_receive_packet(writer->codec, writer->packet);
        if (status == AVERROR(EAGAIN) || status == AVERROR_EOF) return 0;
        if (status < 0) {
            say(error, size, "could not encode a frame", status);
            return -1;
        }
        av_packet_rescale_ts(writer->packet, writer->codec->time_base, writer->stream->time_base);
        writer->packet->stream_index = writer->stream->index;
        status = av_interleaved_write_frame(writer->format, writer->packet);
        if (status < 0) {
            say(error, size, "could not write a frame", status);
            return -1;
        }
    }
}

CMotionWriter *cmotion_open(const char *path, int kind, int width, int height, int fps, int quality,
                            char *error, size_t error_size) {
    static const char *muxers[] = {"mp4", "webm", "webp", "gif", "apng", "apng"};
    static const char *encoders[] = {"libx264", "libvpx-vp9", "libwebp_anim", "gif", "apng", "apng"};
    // VP9 keeps an alpha plane (a see-through sticker or background), as animated WebP does.
    static const enum AVPixelFormat formats[] = {AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVA420P, AV_PIX_FMT_YUVA420P,
                                                 AV_PIX_FMT_PAL8, AV_PIX_FMT_RGBA, AV_PIX_FMT_PAL8};
    // One entry for each kind, in the order cmotion_interface.h numbers them.
    _Static_assert(sizeof muxers / sizeof *muxers == CMOTION_APNG_PALETTE + 1, "a muxer for each kind");
    _Static_assert(sizeof encoders / sizeof *encoders == CMOTION_APNG_PALETTE + 1, "an encoder for each kind");
    _Static_assert(sizeof formats / sizeof *formats == CMOTION_APNG_PALETTE + 1, "a pixel format for each kind");
    if (kind < 0 || kind > CMOTION_APNG_PALETTE || width < 2 || height < 2 || fps < 1 || fps > 120) {
        say(error, error_size, "unsupported animation settings", 0);
        return NULL;
    }
    av_log_set_level(AV_LOG_ERROR);
    const AVCodec *encoder = avcodec_find_encoder_by_name(encoders[kind]);
    if (!encoder) {
        snprintf(error, error_size, "this FFmpeg has no %s encoder", encoders[kind]);
        return NULL;
    }
    CMotionWriter *writer = av_mallocz(sizeof *writer);
    if (!writer) {
        say(error, error_size, "out of memory", 0);
        return NULL;
    }
    writer->width = width;
    writer->height = height;
    writer->kind = kind;
    int status = avformat_alloc_output_context2(&writer->format, NULL, muxers[kind], path);
    if (status < 0 || !writer->format) {
        say(error, error_size, "could not start the file", status);
        release(writer);
        return NULL;
    }
    writer->stream = avformat_new_stream(writer->format, NULL);
    writer->codec = avcodec_alloc_context3(encoder);
    writer->frame = av_frame_alloc();
    writer->packet = av_packet_alloc();
    if (!writer->stream || !writer->codec || !writer->frame || !writer->packet) {
        say(error, error_size, "out of memory", 0);
        release(writer);
        return NULL;
    }
    AVCodecContext *codec = writer->codec;
    codec->width = width;
    codec->height = height;
    codec->time_base = (AVRational){1, fps};
    codec->framerate = (AVRational){fps, 1};
    codec->pix_fmt = formats[kind];
    codec->gop_size = fps * 2;
    // Every core (x264 and VP9's row threads), and sRGB pixels converted as BT.709 says and
    // tagged so: an HD player assumes BT.709, and untagged BT.601 shifted reds.
    codec->thread_count = 0;
    if (kind == CMOTION_MP4 || kind == CMOTION_WEBM) {
        codec->colorspace = AVCOL_SPC_BT709;
        codec->color_primaries = AVCOL_PRI_BT709;
        codec->color_trc = AVCOL_TRC_BT709;
        codec->color_range = AVCOL_RANGE_MPEG;
    }
    if (writer->format->oformat->flags & AVFMT_GLOBALHEADER) codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    // Quality 1–100 onto each encoder's own scale.
    char number[32];
    AVDictionary *options = NULL;
    if (kind == CMOTION_MP4) {
        snprintf(number, sizeof number, "%d", 51 - quality * 33 / 100);  // 90 → crf 22
        av_dict_set(&options, "crf", number, 0);
        av_dict_set(&options, "preset", "veryfast", 0);
        av_dict_set(&options, "profile", "high", 0);
        // A short look-ahead: at 4K each frame held costs 12 MB.
        av_dict_set(&options, "rc-lookahead", "10", 0);
    } else if (kind == CMOTION_WEBM) {
        snprintf(number, sizeof number, "%d", 63 - quality * 40 / 100);  // 90 → crf 27
        av_dict_set(&options, "crf", number, 0);
        av_dict_set(&options, "b", "0", 0);
        av_dict_set(&options, "deadline", "good", 0);
        av_dict_set(&options, "cpu-used", "5", 0);
        av_dict_set(&options, "row-mt", "1", 0);
        av_dict_set(&options, "lag-in-frames", "10", 0);
    } else if (kind == CMOTION_APNG) {
        // zlib's level 2: measured about three times faster than its default on collage frames,
        // the file a few per cent larger.
        codec->compression_level = 2;
    } else if (kind == CMOTION_APNG_PALETTE) {
        // Made to fit a byte limit: zlib's default level (its best, 9, measured 2.3 times slower
        // for files 1.5 % smaller). No row filter: on palette indices the filters measured
        // 20-25 % larger (the PNG specification's advice for palette images, too).
        codec->compression_level = 6;
        av_dict_set(&options, "pred", "none", 0);
    } else if (kind == CMOTION_WEBP) {
        snprintf(number, sizeof number, "%d", quality);
        av_dict_set(&options, "quality", number, 0);
    }
    status = avcodec_open2(codec, encoder, &options);
    av_dict_free(&options);
    if (status < 0) {
        say(error, error_size, "could not start the encoder", status);
        release(writer);
        return NULL;
    }
    status = avcodec_parameters_from_context(writer->stream->codecpar, codec);
    writer->stream->time_base = codec->time_base;
    writer->stream->avg_frame_rate = codec->framerate;
    if (status >= 0 && !(writer->format->oformat->flags & AVFMT_NOFILE))
        status = avio_open(&writer->format->pb, path, AVIO_FLAG_WRITE);
    if (status < 0) {
        say(error, error_size, "could not open the file", status);
        release(writer);
        return NULL;
    }
    // Phones start playing before the whole file is there; every animation loops forever.
    if (kind == CMOTION_MP4) av_dict_set(&options, "movflags", "+faststart", 0);
    if (kind == CMOTION_WEBP || kind == CMOTION_GIF) av_dict_set(&options, "loop", "0", 0);
    if (kind == CMOTION_APNG || kind == CMOTION_APNG_PALETTE) av_dict_set(&options, "plays", "0", 0);
    status = avformat_write_header(writer->format, &options);
    av_dict_free(&options);
    if (status < 0) {
        say(error, error_size, "could not write the file's header", status);
        release(writer);
        return NULL;
    }
    writer->frame->format = codec->pix_fmt;
    writer->frame->width = width;
    writer->frame->height = height;
    status = av_frame_get_buffer(writer->frame, 0);
    if (status < 0) {
        say(error, error_size, "out of memory", status);
        release(writer);
        return NULL;
    }
    if (kind != CMOTION_GIF && kind != CMOTION_APNG && kind != CMOTION_APNG_PALETTE) {
        writer->convert = sws_getContext(width, height, AV_PIX_FMT_RGBA, width, height, codec->pix_fmt,
                                         SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, NULL, NULL, NULL);
        if (!writer->convert) {
            say(error, error_size, "could not convert RGBA to the encoder's pixels", 0);
            release(writer);
            return NULL;
        }
        if (kind == CMOTION_MP4 || kind == CMOTION_WEBM) {
            sws_setColorspaceDetails(writer->convert, sws_getCoefficients(SWS_CS_DEFAULT), 1,
                                     sws_getCoefficients(SWS_CS_ITU709), 0, 0, 1 << 16, 1 << 16);
        }
        status = av_image_alloc(writer->source, writer->source_stride, width + 16, height, AV_PIX_FMT_RGBA, 64);
        if (status < 0) {
            say(error, error_size, "out of memory", status);
            release(writer);
            return NULL;
        }
    }
    return writer;
}

int cmotion_write_rgba(CMotionWriter *writer, const uint8_t *rgba, char *error, size_t error_size) {
    if (!writer || !rgba || writer->kind == CMOTION_GIF || writer->kind == CMOTION_APNG_PALETTE) {
        say(error, error_size, "this writer takes palette frames", 0);
        return -1;
    }
    int status = av_frame_make_writable(writer->frame);
    if (status < 0) {
        say(error, error_size, "out of memory", status);
        return -1;
    }
    const uint8_t *source[4] = {rgba, NULL, NULL, NULL};
    const int stride[4] = {writer->width * 4, 0, 0, 0};
    if (writer->convert) {
        for (int y = 0; y < writer->height; y++)
            memcpy(writer->source[0] + (size_t)y * writer->source_stride[0], rgba + (size_t)y * writer->width * 4,
                   (size_t)writer->width * 4);
        sws_scale(writer->convert, (const uint8_t *const *)writer->source, writer->source_stride, 0, writer->height,
                  writer->frame->data, writer->frame->linesize);
    } else {
        av_image_copy(writer->frame->data, writer->frame->linesize, source, stride, AV_PIX_FMT_RGBA, writer->width,
                      writer->height);
    }
    writer->frame->pts = writer->next_pts++;
    return drain(writer, writer->frame, error, error_size);
}

int cmotion_write_indexed(CMotionWriter *writer, const uint8_t *indices, const uint32_t *palette, char *error,
                          size_t error_size) {
    if (!writer || !indices || !palette || (writer->kind != CMOTION_GIF && writer->kind != CMOTION_APNG_PALETTE)) {
        say(error, error_size, "only a GIF or palette APNG writer takes palette frames", 0);
        return -1;
    }
    int status = av_frame_make_writable(writer->frame);
    if (status < 0) {
        say(error, error_size, "out of memory", status);
        return -1;
    }
    for (int y = 0; y < writer->height; y++)
        memcpy(writer->frame->data[0] + (size_t)y * writer->frame->linesize[0], indices + (size_t)y * writer->width,
               writer->width);
    memcpy(writer->frame->data[1], palette, 256 * sizeof(uint32_t));
    writer->frame->pts = writer->next_pts++;
    return drain(writer, writer->frame, error, error_size);
}

int cmotion_finish(CMotionWriter *writer, char *error, size_t error_size) {
    if (!writer) return -1;
    int result = drain(writer, NULL, error, error_size);
    if (result == 0) {
        int status = av_write_trailer(writer->format);
        if (status < 0) {
            say(error, error_size, "could not finish the file", status);
            result = -1;
        }
    }
    release(writer);
    return result;
}

void cmotion_discard(CMotionWriter *writer) { release(writer); }

// The functions are exactly the types the loader casts them to.
_Static_assert(__builtin_types_compatible_p(__typeof__(&cmotion_open), cmotion_open_fn), "cmotion_open");
_Static_assert(__builtin_types_compatible_p(__typeof__(&cmotion_write_rgba), cmotion_write_rgba_fn), "write_rgba");
_Static_assert(__builtin_types_compatible_p(__typeof__(&cmotion_write_indexed), cmotion_write_indexed_fn),
               "write_indexed");
_Static_assert(__builtin_types_compatible_p(__typeof__(&cmotion_finish), cmotion_finish_fn), "finish");
_Static_assert(__builtin_types_compatible_p(__typeof__(&cmotion_discard), cmotion_discard_fn), "discard");
