#include "parallel_jpeg.h"

// jpeglib.h uses FILE and size_t without including what defines them.
#include <stdio.h>
#include <stddef.h>

#include <errno.h>
#include <jpeglib.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// A restart interval is a 16-bit count of MCUs (JPEG's DRI marker).
#define MAX_RESTART_INTERVAL 65535
#define MAX_THREADS 16
// Several bands a thread, so a thread that finishes early takes another rather than waiting.
#define BANDS_PER_THREAD 4

/// One band's encoding: a whole JPEG file of its rows, from libjpeg's memory destination.
struct band {
    unsigned char *file;
    unsigned long size;
    int failed;
    char reason[JMSG_LENGTH_MAX];
};

struct job {
    const unsigned char *pixels;
    int width, height, channels, quality, full_chroma;
    double dpi;
    int band_rows, band_count;
    struct band *bands;
    atomic_int next;
};

struct failure {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
};

static void leave(j_common_ptr info) {
    struct failure *failure = (struct failure *)info->err;
    longjmp(failure->jump, 1);
}

static void encode_band(struct job *job, int index) {
    struct band *band = &job->bands[index];
    int top = index * job->band_rows;
    int rows = job->height - top < job->band_rows ? job->height - top : job->band_rows;
    struct jpeg_compress_struct info;
    struct failure failure;
    info.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = leave;
    if (setjmp(failure.jump)) {
        (*info.err->format_message)((j_common_ptr)&info, band->reason);
        jpeg_destroy_compress(&info);
        free(band->file);
        band->file = NULL;
        band->failed = 1;
        return;
    }
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, &band->file, &band->size);
    info.image_width = (JDIMENSION)job->width;
    info.image_height = (JDIMENSION)rows;
    info.input_components = job->channels;
    info.in_color_space = job->channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, job->quality, TRUE);
    // The standard tables: every band must be coded with the same ones to be joined.
    info.optimize_coding = FALSE;
    if (job->channels == 3 && job->full_chroma) {
        info.comp_info[0].h_samp_factor = 1;
        info.comp_info[0].v_samp_factor = 1;
    }
    if (job->dpi > 0) {
        double density = round(job->dpi);
        info.density_unit = 1;
        info.X_density = info.Y_density = (UINT16)(density < 1 ? 1 : density > 65535 ? 65535 : density);
    }
    jpeg_start_compress(&info, TRUE);
    size_t stride = (size_t)job->width * (size_t)job->channels;
    for (int y = 0; y < rows; y++) {
        JSAMPROW row = (JSAMPROW)(job->pixels + (size_t)(top + y) * stride);
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
}

static void *work(void *argument) {
    struct job *job = argument;
    for (;;) {
        int index = atomic_fetch_add(&job->next, 1);
        if (index >= job->band_count) return NULL;
        encode_band(job, index);
    }
}

static int say(char *message, size_t message_size, const char *reason) {
    if (message_size > 0) snprintf(message, message_size, "%s", reason);
    return -1;
}

/// Where a band's scan header starts, and where its coded data starts and ends (before EOI).
struct scan {
    size_t header, data, end;
};

static int find_scan(const struct band *band, struct scan *scan) {
    const unsigned char *bytes = band->file;
    size_t size = band->size;
    if (size < 4 || bytes[0] != 0xFF || bytes[1] != 0xD8 || bytes[size - 2] != 0xFF || bytes[size - 1] != 0xD9)
        return -1;
    size_t at = 2;
    while (at + 4 <= size && bytes[at] == 0xFF) {
        size_t length = ((size_t)bytes[at + 2] << 8) | bytes[at + 3];
        if (length < 2 || at + 2 + length > size) return -1;
        if (bytes[at + 1] == 0xDA) {
            scan->header = at;
            scan->data = at + 2 + length;
            scan->end = size - 2;
            return scan->data <= scan->end ? 0 : -1;
        }
        at += 2 + length;
    }
    return -1;
}

/// Band 0's markers up to its scan, with the frame's height set to the whole image's, then a
/// restart interval of one band's MCUs, the scan header, each band's coded data followed by the
/// next restart marker (RST0-RST7 in turn), and the end of the image.
static int join(const struct job *job, int restart_interval, const char *path, char *message, size_t message_size) {
    struct scan first;
    if (find_scan(&job->bands[0], &first)) return say(message, message_size, "libjpeg wrote an unexpected stream");
    unsigned char *head = malloc(first.header);
    if (!head) return say(message, message_size, "out of memory");
    memcpy(head, job->bands[0].file, first.header);
    int patched = 0;
    for (size_t at = 2; at + 9 <= first.header && head[at] == 0xFF;) {
        size_t length = ((size_t)head[at + 2] << 8) | head[at + 3];
        if (head[at + 1] == 0xC0) {
            head[at + 5] = (unsigned char)(job->height >> 8);
            head[at + 6] = (unsigned char)(job->height & 0xFF);
            patched = 1;
            break;
        }
        at += 2 + length;
    }
    if (!patched) {
        free(head);
        return say(message, message_size, "libjpeg wrote no baseline frame header");
    }
    FILE *file = fopen(path, "wb");
    if (!file) {
        free(head);
        char reason[512];
        snprintf(reason, sizeof reason, "cannot create the file: %s", strerror(errno));
        return say(message, message_size, reason);
    }
    int ok = fwrite(head, 1, first.header, file) == first.header;
    free(head);
    if (job->band_count > 1) {
        unsigned char interval[6] = {0xFF, 0xDD, 0x00, 0x04, (unsigned char)(restart_interval >> 8),
                                     (unsigned char)(restart_interval & 0xFF)};
        ok = ok && fwrite(interval, 1, sizeof interval, file) == sizeof interval;
    }
    size_t header_length = first.data - first.header;
    ok = ok && fwrite(job->bands[0].file + first.header, 1, header_length, file) == header_length;
    for (int index = 0; ok && index < job->band_count; index++) {
        struct scan scan;
        if (find_scan(&job->bands[index], &scan)) {
            fclose(file);
            return say(message, message_size, "libjpeg wrote an unexpected stream");
        }
        size_t length = scan.end - scan.data;
        ok = fwrite(job->bands[index].file + scan.data, 1, length, file) == length;
        if (ok && index + 1 < job->band_count) {
            unsigned char marker[2] = {0xFF, (unsigned char)(0xD0 + index % 8)};
            ok = fwrite(marker, 1, 2, file) == 2;
        }
    }
    unsigned char end[2] = {0xFF, 0xD9};
    ok = ok && fwrite(end, 1, 2, file) == 2;
    int closed = fclose(file) == 0;
    if (!ok || !closed) {
        char reason[512];
        snprintf(reason, sizeof reason, "cannot write the file: %s", strerror(errno));
        return say(message, message_size, reason);
    }
    return 0;
}

int parallel_jpeg_write(const unsigned char *pixels, int width, int height, int channels, int quality,
                        int full_chroma, double dpi, int threads, const char *path, char *message,
                        size_t message_size) {
    if (!pixels || !path) return say(message, message_size, "no pixels or no path");
    if (width < 1 || height < 1 || width > 65535 || height > 65535)
        return say(message, message_size, "a JPEG is 1 to 65,535 pixels a side");
    if (channels != 1 && channels != 3) return say(message, message_size, "a JPEG is written from grey or RGB");
    if (quality < 1 || quality > 100) return say(message, message_size, "the quality must be 1 to 100");
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;

    // An MCU is 8 x 8 pixels, or 16 x 16 when chroma is halved both ways; bands are whole MCU rows.
    int mcu_side = (channels == 3 && !full_chroma) ? 16 : 8;
    long mcus_across = (width + mcu_side - 1) / mcu_side;
    long mcu_rows = (height + mcu_side - 1) / mcu_side;
    long band_mcu_rows = (mcu_rows + (long)threads * BANDS_PER_THREAD - 1) / ((long)threads * BANDS_PER_THREAD);
    if (band_mcu_rows * mcus_across > MAX_RESTART_INTERVAL) band_mcu_rows = MAX_RESTART_INTERVAL / mcus_across;
    // A row of MCUs too wide for any restart interval (over 500,000 pixels) is written as one band.
    if (band_mcu_rows < 1 || threads == 1) band_mcu_rows = mcu_rows;

    struct job job = {
        .pixels = pixels, .width = width, .height = height, .channels = channels, .quality = quality,
        .full_chroma = full_chroma, .dpi = dpi, .band_rows = (int)(band_mcu_rows * mcu_side),
    };
    job.band_count = (int)((mcu_rows + band_mcu_rows - 1) / band_mcu_rows);
    atomic_init(&job.next, 0);
    job.bands = calloc((size_t)job.band_count, sizeof(struct band));
    if (!job.bands) return say(message, message_size, "out of memory");

    int workers = threads - 1 < job.band_count - 1 ? threads - 1 : job.band_count - 1;
    pthread_t ids[MAX_THREADS];
    int started = 0;
    for (; started < workers; started++) {
        if (pthread_create(&ids[started], NULL, work, &job)) break;
    }
    work(&job);
    for (int index = 0; index < started; index++) pthread_join(ids[index], NULL);

    int status = 0;
    for (int index = 0; index < job.band_count; index++) {
        if (job.bands[index].failed || !job.bands[index].file) {
            status = say(message, message_size, job.bands[index].failed ? job.bands[index].reason : "a band was not encoded");
            break;
        }
    }
    if (status == 0) status = join(&job, (int)(band_mcu_rows * mcus_across), path, message, message_size);
    for (int index = 0; index < job.band_count; index++) free(job.bands[index].file);
    free(job.bands);
    return status;
}
