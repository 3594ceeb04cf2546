"""Inference runtimes side by side: U²-Net-p through OpenCV DNN with Collage's convolution kernels
(what `collage` runs; also without AVX-512) and with OpenCV's own, OpenVINO's
C API (full fp32 precision) and ONNX Runtime (what rembg uses), on the four sample photos
prepared as Sources/CSegment/inference.cpp prepares them. Alternating rounds; prints load time, first inference,
the median per inference, ratios, and whether the maps agree. Run through bench/sticker/run."""
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
WORK = os.path.join(ROOT, ".build", "bench-sticker")
MODEL = os.environ.get("COLLAGE_MODEL") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "collage", "models", "u2netp.onnx")
NAMES = ["chelsea.png", "astronaut.png", "horse.png", "coffee.png"]
REPEATS, ROUNDS = 5, 3


def inputs():
    """The photos as the model reads them: 320 x 320, ImageNet mean and deviation, 1x3xHxW."""
    planes = []
    for name in NAMES:
        photo = Image.open(os.path.join(ROOT, "samples", name)).convert("RGB").resize((320, 320), Image.BOX)
        pixels = (np.asarray(photo, dtype=np.float32) / 255 - [0.485, 0.456, 0.406]) / [0.229, 0.224, 0.225]
        planes.append(pixels.astype(np.float32).transpose(2, 0, 1))
    return np.stack(planes)


def native(binary, data, environment=None, arguments=()):
    source = os.path.join(WORK, "runtime-inputs.f32")
    out = os.path.join(WORK, f"maps-{os.path.basename(binary)}.f32")
    data.tofile(source)
    result = subprocess.run([binary, MODEL, source, str(len(data)), str(REPEATS), out, *arguments], capture_output=True,
                            text=True, env=dict(os.environ, **(environment or {})))
    if result.returncode != 0:
        sys.exit(f"{binary} failed: {result.stderr}")
    return json.loads(result.stdout), np.fromfile(out, dtype=np.float32).reshape(len(data), 320, 320)


def onnxruntime(data):
    import onnxruntime as ort
    started = time.perf_counter()
    session = ort.InferenceSession(MODEL, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    loaded = time.perf_counter()
    times, maps = [], []
    for image in data:
        for _ in range(REPEATS):
            before = time.perf_counter()
            output = session.run(None, {name: image[None]})[0]
            times.append((time.perf_counter() - before) * 1000)
        maps.append(output.reshape(320, 320))
    return {"runtime": f"ONNX Runtime {ort.__version__}", "load_ms": (loaded - started) * 1000,
            "first_ms": times[0], "median_ms": statistics.median(times[1:])}, np.stack(maps)


def normalised(map_):
    low, high = map_.min(), map_.max()
    return (map_ - low) / max(high - low, 1e-12)


def main():
    data = inputs()
    opencv_environment = {}
    flags = open("/proc/cpuinfo").read()
    if all(flag in flags for flag in ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"]):
        opencv_environment["OPENCV_CPU_DISABLE"] = "AVX512-SKX"  # as `collage` itself asks
    runs = {"collage": [], "collage-avx2": [], "opencv": [], "openvino": [], "openvino-cached": [], "onnxruntime": []}
    cache = os.path.join(WORK, "openvino-cache")
    maps = {}
    for _ in range(ROUNDS):
        for key, kernels in [("collage", "own"), ("collage-avx2", "avx2"), ("opencv", "opencv")]:
            result, maps[key] = native(os.path.join(WORK, "infer_opencv"), data, opencv_environment, [kernels])
            runs[key].append(result)
        result, maps["openvino"] = native(os.path.join(WORK, "infer_openvino"), data)
        runs["openvino"].append(result)
        # The compiled model kept on disk, as a program would keep it beside the model file.
        native(os.path.join(WORK, "infer_openvino"), data[:1], {"OPENVINO_CACHE": cache})
        result, _ = native(os.path.join(WORK, "infer_openvino"), data, {"OPENVINO_CACHE": cache})
        result["runtime"] += ", compiled model kept"
        runs["openvino-cached"].append(result)
        result, maps["onnxruntime"] = onnxruntime(data)
        runs["onnxruntime"].append(result)
    print(f"\nInference runtimes on U²-Net-p (4 sample photos x {REPEATS}, {ROUNDS} alternating rounds, medians):")
    print(f"  {'runtime':60} {'load':>9} {'first':>9} {'per inference':>14}")
    summary = {}
    for key, results in runs.items():
        load = statistics.median(r["load_ms"] for r in results)
        first = statistics.median(r["first_ms"] for r in results)
        each = statistics.median(r["median_ms"] for r in results)
        summary[key] = (load, first, each)
        name = results[0]["runtime"]
        if key.startswith("openvino"):  # its version string carries a build suffix after a dash
            name = name.split("-")[0] + (", compiled model kept" if key.endswith("cached") else "")
        print(f"  {name:60} {load:6.0f} ms {first:6.0f} ms {each:11.0f} ms")
    collage, opencv, openvino, ort = (summary[key] for key in ["collage", "opencv", "openvino", "onnxruntime"])
    cached = summary["openvino-cached"]
    print(f"  per inference: OpenCV's convolution / Collage's {opencv[2] / collage[2]:.2f}, "
          f"Collage / OpenVINO {collage[2] / openvino[2]:.2f}, Collage / ONNX Runtime {collage[2] / ort[2]:.2f}")
    print(f"  to the first map (load + first): Collage / OpenVINO {(collage[0] + collage[1]) / (openvino[0] + openvino[1]):.2f}, "
          f"with the compiled model kept {(collage[0] + collage[1]) / (cached[0] + cached[1]):.2f}")
    for other in ["collage", "collage-avx2", "openvino"]:
        difference = np.abs(maps["opencv"] - maps[other]).max()
        flipped = sum(int(((normalised(a) >= 0.5) != (normalised(b) >= 0.5)).sum())
                      for a, b in zip(maps["opencv"], maps[other]))
        print(f"  {runs[other][0]['runtime'].split('-')[0] if other == 'openvino' else runs[other][0]['runtime']}: maps against OpenCV's own: largest difference "
              f"{difference:.1e}, {flipped} of {len(data) * 320 * 320} mask pixels on the other side of 0.5")


if __name__ == "__main__":
    main()
