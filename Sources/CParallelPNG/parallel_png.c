// A PNG writer that deflates bands of rows on several threads at once. libpng deflates one
// stream on one core, and for a 12 MP sticker that is most of the time spent writing it.
//
// Each band is filtered ("up": each byte minus the one above it) and deflated as its own raw
// stream, ended with a sync flush so the bands join into one valid zlib stream; their Adler-32
// checksums are combined for the stream's trailer. The deflating is ISA-L's (igzip): at its
// level 1 it is 3-4 times as fast as zlib's level 1 on photos and masks, and its files are
// smaller, which is most of a large sticker's lift.
#include "parallel_png.h"

#include <errno.h>
#include <isa-l/igzip_lib.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct {
    const unsigned char *pixels;
    int width, channels, first_row, end_row, level, last;
    unsigned char *output;
    size_t output_size;
    uint32_t adler;
    int failed;
} Band;

// Filtered rows are handed to the deflater in pieces of at least this many bytes: a call per
// row costs more than the compression of a short row.
enum { PIECE_BYTES = 256 * 1024 };

static size_t level_buffer_size(int level) {
    switch (level) {
        case 1: return ISAL_DEF_LVL1_DEFAULT;
        case 2: return ISAL_DEF_LVL2_DEFAULT;
        case 3: return ISAL_DEF_LVL3_DEFAULT;
        default: return 0;
    }
}

static void *deflate_band(void *argument) {
    Band *band = argument;
    size_t stride = (size_t)band->width * band->channels;
    size_t rows = (size_t)(band->end_row - band->first_row);
    size_t rows_per_piece = PIECE_BYTES / (stride + 1) + 1;
    if (rows_per_piece > rows) rows_per_piece = rows;
    // Enough for noise at levels 1-3 (stored blocks: 5 bytes a block); level 0 never stores and
    // can grow noise by a fifth, so the output grows when it fills.
    size_t raw = (stride + 1) * rows;
    size_t capacity = raw + raw / 64 + 1024;
    size_t level_size = level_buffer_size(band->level);
    unsigned char *piece = malloc((stride + 1) * rows_per_piece);
    unsigned char *level_buffer = level_size ? malloc(level_size) : NULL;
    band->output = malloc(capacity);
    if (!piece || !band->output || (level_size && !level_buffer)) {
        band->failed = 1;
        free(piece);
        free(level_buffer);
        return NULL;
    }
    struct isal_zstream stream;
    isal_deflate_init(&stream);
    stream.level = (uint32_t)band->level;
    stream.level_buf = level_buffer;
    stream.level_buf_size = (uint32_t)level_size;
    stream.gzip_flag = IGZIP_DEFLATE;
    stream.next_out = band->output;
    stream.avail_out = capacity > UINT32_MAX ? UINT32_MAX : (uint32_t)capacity;
    band->adler = 1;
    for (int y = band->first_row; y < band->end_row && !band->failed;) {
        int piece_end = y + (int)rows_per_piece < band->end_row ? y + (int)rows_per_piece : band->end_row;
        unsigned char *row = piece;
        for (; y < piece_end; y++, row += stride + 1) {
            const unsigned char *current = band->pixels + (size_t)y * stride;
            row[0] = 2;  // the "up" filter
            if (y == 0) {
                memcpy(row + 1, current, stride);
            } else {
                const unsigned char *above = current - stride;
                for (size_t i = 0; i < stride; i++) row[i + 1] = (unsigned char)(current[i] - above[i]);
            }
        }
        size_t length = (size_t)(row - piece);
        band->adler = isal_adler32(band->adler, piece, length);
        int final_piece = y == band->end_row;
        stream.next_in = piece;
        stream.avail_in = (uint32_t)length;
        stream.end_of_stream = (uint16_t)(final_piece && band->last);
        stream.flush = final_piece && !band->last ? SYNC_FLUSH : NO_FLUSH;
        for (int stalls = 0;;) {
            if (isal_deflate(&stream) != COMP_OK) {
                band->failed = 1;
                break;
            }
            // Room left in the output means all input was taken and, after a flush, written out
            // (ISA-L's own test); the last band's stream must also have ended.
            int ended = !(final_piece && band->last) || stream.internal_state.state == ZSTATE_END;
            if (stream.avail_in == 0 && stream.avail_out > 0 && ended) break;
            size_t used = (size_t)(stream.next_out - band->output);
            if (stream.avail_out > 0) {
                // Not done with room to spare: ask again, a few times, then give up.
                if (++stalls > 8) {
                    band->failed = 1;
                    break;
                }
                continue;
            }
            if (used == capacity) {
                size_t grown = capacity + capacity / 2;
                unsigned char *larger = realloc(band->output, grown);
                if (!larger) {
                    band->failed = 1;
                    break;
                }
                band->output = larger;
                capacity = grown;
                stream.next_out = larger + used;
            }
            // One call addresses at most 4 GB of output.
            stream.avail_out = capacity - used > UINT32_MAX ? UINT32_MAX : (uint32_t)(capacity - used);
        }
    }
    band->output_size = (size_t)(stream.next_out - band->output);
    free(piece);
    free(level_buffer);
    return NULL;
}

static void put32(unsigned char *at, uint32_t value) {
    at[0] = (unsigned char)(value >> 24);
    at[1] = (unsigned char)(value >> 16);
    at[2] = (unsigned char)(value >> 8);
    at[3] = (unsigned char)value;
}

static int write_chunk(FILE *file, const char *type, const unsigned char *data, size_t length) {
    unsigned char header[8];
    put32(header, (uint32_t)length);
    memcpy(header + 4, type, 4);
    uLong crc = crc32(0, (const Bytef *)type, 4);
    if (length) crc = crc32(crc, data, (uInt)length);
    unsigned char trailer[4];
    put32(trailer, (uint32_t)crc);
    return fwrite(header, 1, 8, file) == 8 && (length == 0 || fwrite(data, 1, length, file) == length) &&
           fwrite(trailer, 1, 4, file) == 4;
}

int parallel_png_write(const unsigned char *pixels, int width, int height, int channels, const char *path,
                       int level, int threads, char *message, size_t message_size) {
    static const unsigned char color_types[] = {0, 0, 4, 2, 6};
    if (width <= 0 || height <= 0 || channels < 1 || channels > 4 || level < 0 || level > ISAL_DEF_MAX_LEVEL || !pixels) {
        snprintf(message, message_size, "cannot write a %d x %d image with %d channels at level %d", width, height,
                 channels, level);
        return -1;
    }
    enum { MAX_BANDS = 8 };
    int count = threads;
    if (count > MAX_BANDS) count = MAX_BANDS;
    // Small images are not worth a thread; a band needs enough rows to compress well.
    if (count > height / 64) count = height / 64;
    if (count < 1) count = 1;
    Band bands[MAX_BANDS];
    pthread_t workers[MAX_BANDS];
    int started[MAX_BANDS] = {0};
    for (int i = 0; i < count; i++) {
        bands[i] = (Band){.pixels = pixels, .width = width, .channels = channels,
                          .first_row = (int)((long)height * i / count), .end_row = (int)((long)height * (i + 1) / count),
                          .level = level, .last = i == count - 1};
        if (i > 0) started[i] = pthread_create(&workers[i], NULL, deflate_band, &bands[i]) == 0;
        if (i > 0 && !started[i]) deflate_band(&bands[i]);
    }
    deflate_band(&bands[0]);
    int failed = 0;
    for (int i = 0; i < count; i++) {
        if (i > 0 && started[i]) pthread_join(workers[i], NULL);
        failed |= bands[i].failed;
    }
    size_t stride_bytes = ((size_t)width * channels + 1);
    uLong adler = bands[0].adler;
    for (int i = 1; i < count; i++)
        adler = adler32_combine(adler, bands[i].adler, (z_off_t)(stride_bytes * (bands[i].end_row - bands[i].first_row)));
    FILE *file = failed ? NULL : fopen(path, "wb");
    int open_error = file ? 0 : errno;
    int ok = file != NULL;
    if (ok) {
        static const unsigned char signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
        unsigned char header[13];
        put32(header, (uint32_t)width);
        put32(header + 4, (uint32_t)height);
        header[8] = 8;
        header[9] = color_types[channels];
        header[10] = header[11] = header[12] = 0;
        // The zlib header: deflate with a 32 KB window, check bits making it a multiple of 31.
        unsigned char zlib_header[2] = {0x78, 0x01};
        unsigned char trailer[4];
        put32(trailer, (uint32_t)adler);
        ok = fwrite(signature, 1, 8, file) == 8 && write_chunk(file, "IHDR", header, 13) &&
             write_chunk(file, "IDAT", zlib_header, 2);
        // A chunk's length must stay under 2^31: a band larger than that is written in parts.
        const size_t chunk_limit = (size_t)1 << 30;
        for (int i = 0; i < count && ok; i++) {
            for (size_t at = 0; ok && at < bands[i].output_size; at += chunk_limit) {
                size_t length = bands[i].output_size - at < chunk_limit ? bands[i].output_size - at : chunk_limit;
                ok = write_chunk(file, "IDAT", bands[i].output + at, length);
            }
        }
        ok = ok && write_chunk(file, "IDAT", trailer, 4) && write_chunk(file, "IEND", NULL, 0);
        int write_error = ok ? 0 : errno;
        ok = (fclose(file) == 0) && ok;
        if (!ok) open_error = write_error ? write_error : errno;
    }
    for (int i = 0; i < count; i++) free(bands[i].output);
    if (!ok) {
        if (failed)
            snprintf(message, message_size, "could not compress the image (out of memory, or the deflater failed)");
        else
            snprintf(message, message_size, "could not write %s: %s", path, strerror(open_error));
        return -1;
    }
    return 0;
}
