// U²-Net-p through OpenVINO's C API, for bench/sticker: loads and compiles the model once (full
// fp32 precision: on CPUs with AMX the plugin otherwise picks bf16, whose masks differ), then
// runs each input `repeats` times. Prints one JSON line; writes each input's map to `out`.
// With OPENVINO_CACHE set to a folder, the compiled model is kept there and read back next time.
// Usage: infer_openvino MODEL INPUTS.f32 COUNT REPEATS OUT.f32
#include <openvino/c/openvino.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SIDE 320
#define MUST(call)                                                                                          \
    do {                                                                                                    \
        if ((call) != OK) {                                                                                 \
            fprintf(stderr, "%s: %s\n", #call, ov_get_last_err_msg());                                      \
            return 1;                                                                                       \
        }                                                                                                   \
    } while (0)

static double milliseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1e3 + now.tv_nsec / 1e6;
}

static int ascending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 6) return fprintf(stderr, "usage: %s MODEL INPUTS COUNT REPEATS OUT\n", argv[0]), 2;
    int count = atoi(argv[3]), repeats = atoi(argv[4]);
    size_t plane = 3 * SIDE * SIDE;
    float *inputs = malloc(plane * count * sizeof(float));
    FILE *file = fopen(argv[2], "rb");
    if (!inputs || !file || fread(inputs, sizeof(float), plane * count, file) != plane * count) return 1;
    fclose(file);
    double started = milliseconds();
    ov_core_t *core = NULL;
    ov_model_t *model = NULL;
    ov_compiled_model_t *compiled = NULL;
    ov_infer_request_t *request = NULL;
    MUST(ov_core_create(&core));
    const char *cache = getenv("OPENVINO_CACHE");
    if (cache && *cache) MUST(ov_core_set_property(core, "CPU", ov_property_key_cache_dir, cache));
    MUST(ov_core_read_model(core, argv[1], NULL, &model));
    MUST(ov_core_compile_model(core, model, "CPU", 2, &compiled, ov_property_key_hint_inference_precision, "f32"));
    MUST(ov_compiled_model_create_infer_request(compiled, &request));
    double loaded = milliseconds();
    int64_t dimensions[4] = {1, 3, SIDE, SIDE};
    ov_shape_t shape;
    MUST(ov_shape_create(4, dimensions, &shape));
    FILE *out = fopen(argv[5], "wb");
    if (!out) return fprintf(stderr, "cannot write %s\n", argv[5]), 1;
    double *times = malloc(sizeof(double) * count * repeats), first = 0;
    int timed = 0;
    for (int i = 0; i < count; i++) {
        ov_tensor_t *tensor = NULL;
        MUST(ov_tensor_create_from_host_ptr(F32, shape, inputs + plane * i, &tensor));
        MUST(ov_infer_request_set_input_tensor(request, tensor));
        for (int r = 0; r < repeats; r++) {
            double before = milliseconds();
            MUST(ov_infer_request_infer(request));
            double took = milliseconds() - before;
            if (i == 0 && r == 0) first = took;
            else times[timed++] = took;
        }
        ov_tensor_t *map = NULL;
        void *data = NULL;
        MUST(ov_infer_request_get_output_tensor_by_index(request, 0, &map));
        MUST(ov_tensor_data(map, &data));
        fwrite(data, sizeof(float), SIDE * SIDE, out);
        ov_tensor_free(map);
        ov_tensor_free(tensor);
    }
    fclose(out);
    qsort(times, timed, sizeof(double), ascending);
    ov_version_t version;
    ov_get_openvino_version(&version);
    printf("{\"runtime\": \"OpenVINO %s\", \"load_ms\": %.1f, \"first_ms\": %.1f, \"median_ms\": %.1f}\n",
           version.buildNumber, loaded - started, first, timed ? times[timed / 2] : first);
    ov_version_free(&version);
    ov_shape_free(&shape);
    ov_infer_request_free(request);
    ov_compiled_model_free(compiled);
    ov_model_free(model);
    ov_core_free(core);
    free(times);
    free(inputs);
    return 0;
}
